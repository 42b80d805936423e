"""Blue Moon City at the table, for a person: each decision in words, what each card's power and each
dragon does (the choice buttons' tooltips and the legend beside the board), why a choice a person
would expect is missing, and each seat's public resources.

The texts are data in `components.py`; this module picks which to show, from the public state and
the hands of the seats it is asked about, never another seat's hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city.rules import Decision, State, offer_cost

# the page's banner and choice headings; keyed by `Decision` ids, so a renamed one fails at import
DECISION_WORDS: dict[int, str] = {
    Decision.MOVE: "move a dragon or your figure",
    Decision.BUILD: "choose a section to build",
    Decision.PAY: "pay for the section",
    Decision.OFFER: "make an offering at the obelisk?",
    Decision.DISCARD: "discard cards, then end the turn",
}


def _card_name(card: int) -> str:
    return f"{cp.COLOUR_NAMES[cp.CARD_COLOUR[card]]} {cp.CARD_VALUE[card]}"


def card_texts() -> dict[str, str]:
    """What each card with a power and each dragon does, by its name."""
    texts = {_card_name(card): text for card, text in cp.CARD_POWER_TEXT.items()}
    for dragon, name in enumerate(cp.DRAGON_NAMES):
        colour = cp.COLOUR_NAMES[cp.DRAGON_CARD_COLOUR[dragon]]
        texts[f"{name} dragon"] = f"moved by {colour} 1s (fly) and {colour} 2s (walk). " + cp.DRAGON_TEXT
    return texts


def legend(s: State, seats: Sequence[int]) -> list[tuple[str, str]]:
    """Where each dragon is and what moves it, and the powers of the cards in the hands of `seats`."""
    texts = card_texts()
    notes = []
    for dragon, name in enumerate(cp.DRAGON_NAMES):
        where = s.dragons[dragon]
        place = "off the board" if where == cp.OFF_BOARD else f"on p{where} {cp.TILE_NAMES[s.tile_at[where]]}"
        colour = cp.COLOUR_NAMES[cp.DRAGON_CARD_COLOUR[dragon]]
        notes.append((f"{name} dragon", f"{place}; moved by {colour} 1s (fly) and {colour} 2s (walk)"))
    notes.append(("dragons", cp.DRAGON_TEXT))
    held = sorted({card for seat in seats for card in range(cp.NUM_TYPES) if s.hands[seat][card] > 0})
    notes += [(_card_name(card), texts[_card_name(card)]) for card in held if card in cp.CARD_POWER_TEXT]
    return notes


def missing_choices(s: State, seat: int) -> list[str]:
    """The dragons a card in hand cannot walk yet, and at the obelisk what an offering lacks."""
    reasons = []
    if s.decision == Decision.MOVE:
        for dragon, name in enumerate(cp.DRAGON_NAMES):
            walk = cp.DRAGON_WALK_CARD[dragon]
            if s.hands[seat][walk] and s.dragons[dragon] == cp.OFF_BOARD:
                reasons.append(
                    f"Your {_card_name(walk)} cannot walk the {name} dragon: it is not on the board yet "
                    f"(a {_card_name(cp.DRAGON_FLY_CARD[dragon])} flies it in)."
                )
    if s.figures[seat] == cp.COURTYARD_POSITION and s.decision in (Decision.MOVE, Decision.OFFER, Decision.DISCARD):
        cost = offer_cost(s)
        if s.offers_this_turn == 0 and cost < 10**6 and s.crystals[seat] < cost:
            reasons.append(f"An offering costs {cost} crystals now; you have {s.crystals[seat]}.")
        if s.markers[seat] < 1:
            reasons.append("You have no marker left to put on the obelisk.")
    return reasons


def resources(s: State) -> list[list[tuple[str, int]]]:
    """Each seat's crystals, how many cards it holds, its scales and its markers left."""
    return [
        [
            ("crystals", s.crystals[seat]),
            ("cards in hand", sum(s.hands[seat])),
            ("scales", s.scales[seat]),
            ("markers left", s.markers[seat]),
        ]
        for seat in range(s.n)
    ]
