"""Urban Sprawl at the table, for a person: each decision in words, what each planning card does (the
choice buttons' tooltips), the cards on offer with their texts (the legend beside the board), why a
choice a person would expect is missing, and each seat's public resources.

The texts are data in `components.py`; everything in Urban Sprawl is public but the order of the decks.
"""

from __future__ import annotations

from collections.abc import Sequence

from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl.render import contract_details
from city_envs.urban_sprawl.rules import Decision, State, contract_at, favor_capacity, planning_at

# the page's banner and choice headings; keyed by `Decision` ids, so a renamed one fails at import
DECISION_WORDS: dict[int, str] = {
    Decision.INVEST: "invest permits for wealth, or end the investments",
    Decision.MAIN: "spend your action points",
    Decision.PAY_PERMIT: "pay permits for the building",
    Decision.PLACE: "place the building on a block",
    Decision.VOC_SOURCE: "choose the player whose building pays the vocation",
    Decision.VOC_PAYOUT: "take the vocation's payout in wealth or prestige",
    Decision.MARKER_PLACE: "place a marker on a grey circle",
    Decision.MARKER_MOVE_SRC: "choose a marker to move",
    Decision.MARKER_MOVE_DST: "choose the marker's new grey circle",
    Decision.PARK_LOT: "choose a lot for the park",
    Decision.TRIBUTE_PAY: "pay the tribute in wealth or prestige",
    Decision.ELECTION_TIE: "break the tie of the election",
    Decision.MAYOR_PARK: "place the Mayor's park",
    Decision.AUCTION: "buy at the auction?",
    Decision.PICK_BUILDING: "choose a building",
    Decision.DISASTER_CHOICE: "pay to keep your building, or let it be demolished",
    Decision.BLIGHT_CHOICE: "pay prestige to keep your building, or let it go",
    Decision.START_BUY: "buy a starting building",
    Decision.MEDIA_TIE: "break the tie for the media",
}


def card_texts() -> dict[str, str]:
    """What each planning card gives, by its name (a contract's button already says what it does)."""
    return {f"P{card:02d}": cp.planning_text(card) for card in range(cp.PLANNING_CARDS)}


def legend(s: State, seats: Sequence[int]) -> list[tuple[str, str]]:
    """The planning and contract cards on offer, each with its text (all public: `seats` adds nothing)."""
    notes = []
    for space in range(len(cp.PLANNING_SPACE_NAMES)):
        card = planning_at(s, space)
        if card >= 0:
            notes.append((f"{cp.PLANNING_SPACE_NAMES[space]}: P{card:02d}", cp.planning_text(card)))
    for space in range(len(cp.CONTRACT_SPACE_NAMES)):
        card = contract_at(s, space)
        if card >= cp.EVENT_BASE:
            event_id = cp.CONTRACT_EVENTS[card - cp.EVENT_BASE][0]
            notes.append((f"{cp.CONTRACT_SPACE_NAMES[space]}: {event_id}", cp.CONTRACT_EVENT_TEXT[event_id]))
        elif card >= 0:
            details = contract_details(card)
            notes.append((f"{cp.CONTRACT_SPACE_NAMES[space]}: {cp.contract_name(card)}", details or "no effect"))
    return notes


def missing_choices(s: State, seat: int) -> list[str]:
    """In the action phase, the cards too dear for the action points left, and no Favor past the most
    a seat may hold."""
    if s.decision != Decision.MAIN:
        return []
    reasons = []
    dear = [space for space, cost in enumerate(cp.PLANNING_AP) if cost > s.ap and planning_at(s, space) >= 0] + [
        space for space, cost in enumerate(cp.CONTRACT_AP) if cost > s.ap and contract_at(s, space) >= 0
    ]
    if dear:
        points = f"{s.ap} action point{'' if s.ap == 1 else 's'}"
        reasons.append(f"You have {points} left: the cards on spaces costing more are not offered.")
    capacity = favor_capacity(s, seat)
    if s.ap and len(s.favors[seat]) >= capacity:
        reasons.append(
            f"You hold {len(s.favors[seat])} Favor{'s' if capacity > 1 else ''}, the most you may: no more Favors."
        )
    return reasons


def resources(s: State) -> list[list[tuple[str, int]]]:
    """Each seat's wealth, planning cards and Favors (how many), vocations and offices."""
    rows = []
    for seat in range(s.n):
        row = [("wealth", s.wealth[seat]), ("planning cards", len(s.hands[seat]))]
        row += [("Favors", len(s.favors[seat]))]
        row += [
            (f"{cp.VOCATION_NAMES[voc].lower()} vocation", count)
            for voc, count in enumerate(s.vocations[seat])
            if count
        ]
        row += [(f"office: {name}", 1) for office, name in enumerate(cp.OFFICE_NAMES) if s.offices[office] == seat]
        rows.append(row)
    return rows
