"""Big City at the table, for a person: each decision in words, what each special building and card
does (the choice buttons' tooltips and the legend beside the board), why a choice a person would
expect is missing, each seat's public resources, and its score by the kind of building that scored it.

The texts are data in `components.py`; this module picks which to show, from the public state and
the hands of the seats it is asked about, never another seat's hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from city_envs.big_city import components as cp
from city_envs.big_city.rules import Decision, State, city_hall_built

# the page's banner and choice headings; keyed by `Decision` ids, so a renamed one fails at import
DECISION_WORDS: dict[int, str] = {
    Decision.SETUP_TILE: "choose a neighbourhood tile",
    Decision.TILE_ROTATION: "turn the new neighbourhood",
    Decision.TILE_EDGE: "choose where the new neighbourhood joins the city",
    Decision.TILE_CELL: "choose which plot of it touches the city",
    Decision.DEAD_DISCARD: "discard dead cards",
    Decision.MAIN: "take your turn",
    Decision.BUILD_SELECT: "choose a plot to build on",
    Decision.PIECE_SELECT: "choose the building",
    Decision.TRAM_EDGE: "lay a tram segment",
    Decision.TRAM_EDGE_OPT: "lay a second tram segment?",
    Decision.EXCHANGE_SELECT: "choose the cards to exchange",
    Decision.DRAW: "draw from a pile",
}


def card_texts() -> dict[str, str]:
    """What each special building and special card does, by its name."""
    texts = {cp.KIND_NAMES[kind]: text for kind, text in cp.SPECIAL_BUILDING_TEXT.items()}
    texts |= {cp.card_name(card): text for card, text in cp.SPECIAL_CARD_TEXT.items()}
    return texts


def legend(s: State, seats: Sequence[int]) -> list[tuple[str, str]]:
    """Each special building and how many are left, and each special card, played or in the hand of
    one of `seats`."""
    notes = []
    for kind, text in cp.SPECIAL_BUILDING_TEXT.items():
        left = s.supply[kind]
        notes.append((cp.KIND_NAMES[kind], f"{text} ({left} left)" if left else f"{text} (none left)"))
    for card, text in cp.SPECIAL_CARD_TEXT.items():
        state = " (played)" if s.out[card] else ""
        mine = [seat for seat in seats if card in s.hands[seat]]
        notes.append((f"{cp.card_name(card)} card", text + state + (" (in your hand)" if mine else "")))
    return notes


def missing_choices(s: State, seat: int) -> list[str]:
    """The piles a draw cannot take from, and before City Hall or once the supply is out what a turn
    cannot do."""
    reasons = []
    if s.decision == Decision.DRAW:
        full = [str(i + 1) for i in range(8) if s.piles[i] and s.drawn[i] >= cp.MAX_DRAWS_PER_PILE]
        empty = [str(i + 1) for i in range(8) if not s.piles[i]]
        if full:
            reasons.append(
                f"Pile{'s' if len(full) > 1 else ''} {', '.join(full)}: you drew {cp.MAX_DRAWS_PER_PILE} cards "
                f"from {'each' if len(full) > 1 else 'it'} this turn, the most one pile gives per turn."
            )
        if empty:
            reasons.append(f"Pile{'s' if len(empty) > 1 else ''} {', '.join(empty)}: no cards left.")
    elif s.decision == Decision.MAIN:
        if not city_hall_built(s):
            reasons.append(
                "Until City Hall stands (plot 15, with card 15), nobody may build special buildings, play "
                "parks or factories, lay trams or add a neighbourhood."
            )
        else:
            gone = [cp.KIND_NAMES[k] for k in range(cp.NUM_KINDS) if k != cp.CITY_HALL and not s.supply[k]]
            if gone:
                reasons.append(f"None left in the supply: {', '.join(gone)}.")
            if len(s.trams) >= cp.NUM_TRAMS:
                reasons.append("All the tram segments are laid.")
    return reasons


def resources(s: State) -> list[list[tuple[str, int]]]:
    """Each seat's cards in hand (how many) and buildings."""
    return [
        [
            ("cards in hand", len(s.hands[seat])),
            ("buildings", sum(1 for p in s.pieces if p.owner == seat and p.kind < cp.PARK2)),
        ]
        for seat in range(s.n)
    ]


def score_parts(s: State) -> list[list[tuple[str, float]]]:
    """Each seat's score by the kind of building that scored it (a piece's points are fixed when it is built)."""
    parts = []
    for seat in range(s.n):
        by_kind: dict[int, float] = {}
        for piece in s.pieces:
            if piece.owner == seat and piece.points:
                by_kind[piece.kind] = by_kind.get(piece.kind, 0.0) + piece.points
        parts.append([(f"points for {cp.KIND_NAMES[kind]}", points) for kind, points in sorted(by_kind.items())])
    return parts
