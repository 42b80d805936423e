"""Metropolys at the table, for a person: each decision in words, what each token and card does (the
choice buttons' tooltips and the legend beside the board), why a bid a person would expect is
missing, and each seat's public resources.

The texts are data in `components.py`; this module picks which to show, from the public state and
the secret cards of the seats it is asked about, never another seat's.
"""

from __future__ import annotations

from collections.abc import Sequence

from city_envs.metropolys import components as cp
from city_envs.metropolys.rules import Decision, State

# the page's banner and choice headings; keyed by `Decision` ids, so a renamed one fails at import
DECISION_WORDS: dict[int, str] = {
    Decision.NBHD: "choose a neighbourhood to bid on",
    Decision.VALUE: "choose the building of your bid",
}


def card_texts() -> dict[str, str]:
    """What each token and the two public cards do, by their names."""
    texts = {f"{cp.TOKEN_NAMES[kind]} token": text for kind, text in cp.TOKEN_TEXT.items()}
    return texts | {"Subway card": cp.SUBWAY_CARD_TEXT, "Archaeological-site card": cp.ARCH_CARD_TEXT}


def legend(s: State, seats: Sequence[int]) -> list[tuple[str, str]]:
    """The tokens, the two public cards and who holds them, and the secret cards of `seats`."""
    notes = [(f"{cp.TOKEN_NAMES[kind]} token", text) for kind, text in cp.TOKEN_TEXT.items()]
    for name, text, holder in (
        ("Subway card", cp.SUBWAY_CARD_TEXT, s.subway_card),
        ("Archaeological-site card", cp.ARCH_CARD_TEXT, s.arch_card),
    ):
        notes.append((name, text + (f" (held by seat {holder})" if holder >= 0 else " (nobody holds it yet)")))
    for seat in seats:
        whose = f"seat {seat}'s secret card"
        if s.family_card and s.family_card[seat] >= 0:
            card = s.family_card[seat]
            notes.append((f"{whose}: {cp.FAMILY_CARD_NAMES[card]}", cp.FAMILY_CARD_TEXT[card]))
        if s.colour_card and s.colour_card[seat] >= 0:
            colour = cp.COLOUR_NAMES[s.colour_card[seat]]
            notes.append((f"{whose}: {colour}", cp.COLOUR_CARD_TEXT.format(colour=colour)))
        if s.area_card and s.area_card[seat] >= 0:
            card = s.area_card[seat]
            notes.append((f"{whose}: {cp.EXPERT_AREA_NAMES[card]}", cp.EXPERT_AREA_TEXT[card]))
    return notes


def missing_choices(s: State, seat: int) -> list[str]:
    """Which neighbourhoods and buildings the latest bid leaves open."""
    if not s.bids:
        return []
    top_seat, nbhd, value = s.bids[-1]
    if s.decision == Decision.NBHD:
        return [
            f"You may bid only on a free neighbourhood next to the latest bid (neighbourhood {nbhd}, "
            f"building {value} of seat {top_seat}), with a building higher than {value}; or pass."
        ]
    if s.decision == Decision.VALUE:
        return [f"Only your buildings higher than {value}, the latest bid, are offered."]
    return []


def resources(s: State) -> list[list[tuple[str, int]]]:
    """Each seat's buildings left and built, and its tokens of each kind."""
    rows = []
    for seat in range(s.n):
        row = [("buildings left", bin(s.supply[seat]).count("1")), ("buildings built", s.built[seat])]
        row += [(f"{cp.TOKEN_NAMES[kind + 1]} tokens", s.tokens[seat][kind]) for kind in range(3)]
        rows.append(row)
    return rows
