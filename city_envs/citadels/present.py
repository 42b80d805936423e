"""Citadels at the table, for a person: each decision in words, what each character and district
does (the choice buttons' tooltips and the legend beside the board), why a choice a person would
expect is missing, and each seat's public resources.

The texts are data in `components.py`; this module picks which to show, from the public state and
the hands of the seats it is asked about, never another seat's hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from city_envs.citadels import components as cp
from city_envs.citadels.rules import Decision, State, bit

# the page's banner and choice headings; keyed by `Decision` ids, so a renamed one fails at import
DECISION_WORDS: dict[int, str] = {
    Decision.SELECT_CHARACTER: "choose a character",
    Decision.SELECT_DISCARD: "discard a character face down",
    Decision.MAIN: "take your turn",
    Decision.KEEP_DRAWN: "keep one of the cards drawn",
    Decision.MAGICIAN_DISCARD: "choose the cards to exchange (Magician)",
    Decision.GRAVEYARD: "take the destroyed district into your hand? (Graveyard)",
}


def card_texts() -> dict[str, str]:
    """What each character and each district with an effect does, by its name."""
    texts = {cp.CHARACTERS[rank].name: text for rank, text in cp.CHARACTER_TEXT.items()}
    texts |= {d.name: d.effect for d in cp.DISTRICTS if d.effect}
    return texts


def legend(s: State, seats: Sequence[int]) -> list[tuple[str, str]]:
    """Every character, and the districts with an effect in the cities (public) and in the hands of
    `seats` (with the cards the acting one among them has just drawn)."""
    notes = [(f"{rank} {cp.CHARACTERS[rank].name}", cp.CHARACTER_TEXT[rank]) for rank in cp.RANKS]
    kinds = {kind for kind in range(cp.NUM_KINDS) if s.cities[:, kind].any()}
    for seat in seats:
        kinds |= {kind for kind in range(cp.NUM_KINDS) if s.hands[seat, kind] > 0}
        if s.actor == seat:
            kinds |= set(s.drawn)
    notes += [(d.name, d.effect) for d in cp.DISTRICTS if d.effect and d.kind in kinds]
    return notes


def _names(ranks: Sequence[int]) -> str:
    words = [f"the {cp.CHARACTERS[rank].name}" for rank in ranks]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def missing_choices(s: State, seat: int) -> list[str]:
    """The characters out of the draft, and in a turn what the acting character may not do or build."""
    if s.decision in (Decision.SELECT_CHARACTER, Decision.SELECT_DISCARD):
        return _draft_missing(s)
    if s.decision == Decision.MAIN and s.turn_seat == seat:
        return _ability_missing(s, seat) + _build_missing(s, seat)
    return []


def _draft_missing(s: State) -> list[str]:
    reasons = []
    face_up = [rank for rank in cp.RANKS if s.face_up & bit(rank)]
    if face_up:
        verb, them = ("is", "it") if len(face_up) == 1 else ("are", "them")
        names = _names(face_up)
        reasons.append(f"{names[0].upper()}{names[1:]} {verb} face up, out of this round: nobody may choose {them}.")
    unseen = cp.NUM_CHARACTERS - len(face_up) - bin(s.pile).count("1")
    if unseen > 0:
        reasons.append(
            f"{unseen} more character{'s are' if unseen > 1 else ' is'} not offered: laid face down, "
            "or kept by the players who chose before you."
        )
    return reasons


def _ability_missing(s: State, seat: int) -> list[str]:
    reasons = []
    if s.called == cp.THIEF and not s.ability_used:
        barred = [cp.ASSASSIN, cp.THIEF] + ([s.killed] if s.killed >= 3 else [])
        reasons.append(f"The Thief may not rob {_names(barred)}.")
    if s.called == cp.WARLORD and not s.destroy_used:
        for other in range(s.n):
            if other == seat or not s.city_size[other]:
                continue
            if s.city_size[other] >= s.completion:
                reasons.append(f"Seat {other}'s city is complete: the Warlord cannot destroy in it.")
            elif s.revealed[cp.BISHOP] == other:
                reasons.append(f"Seat {other} is the Bishop: the Warlord cannot destroy in that city.")
            elif s.cities[other, cp.KEEP]:
                reasons.append(f"Seat {other}'s Keep cannot be destroyed.")
    return reasons


def _build_missing(s: State, seat: int) -> list[str]:
    hand, city, gold = s.hands[seat], s.cities[seat], s.gold[seat]
    in_hand = [kind for kind in range(cp.NUM_KINDS) if hand[kind] > 0]
    if not in_hand:
        return []
    if not s.gathered:
        return ["You build after gathering (gold or cards)."]
    if s.builds_done >= s.build_limit:
        return [
            "You have built your district this turn."
            if s.build_limit == 1
            else f"You have built {s.builds_done} districts, the most the Architect may."
        ]
    reasons = []
    twins = [cp.DISTRICTS[k].name for k in in_hand if city[k]]
    if twins:
        reasons.append(f"Your city already holds {', '.join(twins)}: no two districts of one name.")
    dear = [f"{cp.DISTRICTS[k].name} ({cp.COST_LIST[k]})" for k in in_hand if not city[k] and cp.COST_LIST[k] > gold]
    if dear:
        reasons.append(f"You have {gold} gold, not enough for {', '.join(dear)}.")
    return reasons


def resources(s: State) -> list[list[tuple[str, int]]]:
    """Each seat's gold, how many cards it holds and how many districts it has built."""
    return [
        [("gold", s.gold[seat]), ("cards in hand", int(s.hands[seat].sum())), ("districts built", s.city_size[seat])]
        for seat in range(s.n)
    ]
