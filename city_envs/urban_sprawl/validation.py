"""Every invariant of an Urban Sprawl state, checked field by field (`UrbanSprawl.validate()`), and the
state read back from its JSON form (`state_from_json`).

The task stack and the pending decision's context are internal bookkeeping: they are checked for
shape (task records of integer fields, the keys the decision reads), and the core `validate()` then
requires the pending decision to have a legal action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from city_envs.core.validation import (
    InvalidStateError,
    check_bool,
    check_bools,
    check_distinct,
    check_int,
    check_int_table,
    check_ints,
    check_list,
    check_multiset,
    check_seats,
    require,
)
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules as r

_CONTRACT_CARDS = cp.EVENT_BASE + cp.NUM_CONTRACT_EVENTS  # contracts 0..95, events 96..110
_BUILD_KEYS = {"card", "paid", "building"}
_DECK_CARDS = tuple(frozenset(cp.deck_cards(deck)) for deck in range(3))


def state_from_json(data: dict) -> r.State:
    """The state `UrbanSprawl.to_dict` wrote: its building and task lists made records again. A list that
    cannot be one is refused here, naming it; `validate_state` checks the values."""
    fields = set(r.State.__dataclass_fields__)
    require(set(data) == fields, "state", f"keys {sorted(map(str, data))}, not {sorted(fields)}")
    data = dict(data, buildings=buildings_from_json(data["buildings"]), tasks=tasks_from_json(data["tasks"]))
    return r.State(**data)


def buildings_from_json(rows: Any) -> list[r.Building | None]:
    check_list("buildings", rows)
    buildings: list[r.Building | None] = []
    for bid, row in enumerate(rows):
        if row is None:
            buildings.append(None)
            continue
        require(
            isinstance(row, list) and len(row) == 4 and isinstance(row[2], list),
            f"buildings[{bid}]",
            f"{row!r} is not [zone, size, lots, owner]",
        )
        zone, size, lots, owner = row
        buildings.append(r.Building(zone, size, tuple(lots), owner))
    return buildings


def tasks_from_json(rows: Any) -> list[r.Task]:
    check_list("tasks", rows)
    tasks = []
    for i, row in enumerate(rows):
        kind = r.TASK_TYPES.get(row[0]) if isinstance(row, list) and row and isinstance(row[0], str) else None
        require(
            kind is not None and len(row) == 1 + len(kind._fields),
            f"tasks[{i}]",
            f"{row!r} is not a task [name, *fields]",
        )
        tasks.append(cast(type[r.Task], kind)(*row[1:]))
    return tasks


def validate_state(s: r.State, num_players: int, options: dict) -> None:
    n = s.n
    check_seats(n, num_players)
    _check_city(s, n)
    _check_planning(s, n)
    _check_contracts(s, n)
    _check_seats(s, n)
    _check_turn(s, n, options["max_turns"])


def _check_city(s: r.State, n: int) -> None:
    check_ints("lot_building", s.lot_building, cp.LOTS, -1)
    check_list("buildings", s.buildings)
    check_int_table("tiles", s.tiles, 5, 4, 0)
    on_board = [[0] * 4 for _ in range(5)]
    covered = 0
    for bid, building in enumerate(s.buildings):
        if building is None:
            continue
        field = f"buildings[{bid}]"
        require(type(building) is r.Building, field, f"{building!r} is not a Building")
        zone, size, lots, owner = building
        check_int(field, zone, 0, len(cp.ZONE_NAMES) - 1)
        check_int(field, size, 1, 4)
        require(isinstance(lots, tuple), field, f"lots {lots!r} are not a tuple")
        check_ints(field, list(lots), size, 0, cp.LOTS - 1)
        check_int(field, owner, r.NOBODY, n - 1)
        require(len({x // 4 for x in lots}) == 1, field, "its lots lie in several blocks")
        for x in lots:
            if s.lot_building[x] != bid:
                raise InvalidStateError(f"lot_building[{x}]", f"does not name building {bid} standing there")
        on_board[zone][size - 1] += 1
        covered += size
    for x, bid in enumerate(s.lot_building):
        if bid >= len(s.buildings) or (bid >= 0 and s.buildings[bid] is None):
            raise InvalidStateError(f"lot_building[{x}]", f"{bid} is not a standing building")
    require(covered == sum(bid >= 0 for bid in s.lot_building), "lot_building", "disagrees with the buildings")
    for zone in range(5):
        for size in range(4):
            supply, built = s.tiles[zone][size], on_board[zone][size]
            require(
                supply + built <= cp.TILES[zone][size],
                f"tiles[{zone}][{size}]",
                f"{supply} in supply and {built} built, more than {cp.TILES[zone][size]}",
            )
    check_ints("circles", s.circles, cp.CIRCLES, 0, max(cp.MARKERS))
    placed = [marker for marker in s.circles if marker]
    check_distinct("circles", placed)
    require(set(placed) <= set(cp.MARKERS), "circles", f"{placed} are not all payout markers")


def _check_planning(s: r.State, n: int) -> None:
    check_list("hands", s.hands, n)
    for seat in range(n):
        check_ints(f"hands[{seat}]", s.hands[seat], low=0, high=cp.PLANNING_CARDS - 1)
        require(s.hands[seat] == sorted(s.hands[seat]), f"hands[{seat}]", "not sorted")
    check_ints("planning_slots", s.planning_slots, 4, -1, cp.PLANNING_CARDS - 1)
    check_ints("planning_deck", s.planning_deck, low=0, high=cp.PLANNING_CARDS - 1)
    check_ints("planning_discard", s.planning_discard, low=0, high=cp.PLANNING_CARDS - 1)
    cards = [c for hand in s.hands for c in hand] + [c for c in s.planning_slots if c >= 0]
    check_multiset("planning_deck", cards + s.planning_deck + s.planning_discard, range(cp.PLANNING_CARDS))
    check_bool("planning_up", s.planning_up)
    check_int("planning_reshuffles", s.planning_reshuffles, 0)


def _check_contracts(s: r.State, n: int) -> None:
    check_int_table("favors", s.favors, n, None, 0, cp.NUM_CONTRACTS - 1)
    check_int("extra_favor", s.extra_favor, r.NOBODY, n - 1)
    for seat in range(n):
        require(len(s.favors[seat]) <= r.favor_capacity(s, seat), f"favors[{seat}]", "more favors than it may hold")
    check_ints("slots", s.slots, cp.SLOTS, -1, cp.NUM_CONTRACTS - 1)
    check_ints("removed", s.removed, low=0, high=cp.NUM_CONTRACTS - 1)
    check_ints("events_done", s.events_done, low=0, high=cp.NUM_CONTRACT_EVENTS - 1)
    check_list("decks", s.decks, 3)
    for deck in range(3):
        check_ints(f"decks[{deck}]", s.decks[deck], low=0, high=_CONTRACT_CARDS - 1)
        require(set(s.decks[deck]) <= _DECK_CARDS[deck], f"decks[{deck}]", "holds a card of another deck")
    check_bools("deck_up", s.deck_up, 3)
    require(
        s.build is None or (isinstance(s.build, dict) and "card" in s.build and set(s.build) <= _BUILD_KEYS),
        "build",
        f"{s.build!r}",
    )
    cards = [c for favors in s.favors for c in favors] + [c for c in s.slots if c >= 0] + s.removed
    cards += [c for deck in s.decks for c in deck] + [cp.EVENT_BASE + e for e in s.events_done]
    if s.build is not None:
        check_int("build", s.build["card"], 0, cp.NUM_CONTRACTS - 1)
        check_int("build", s.build.get("paid", 0), 0)
        if s.build.get("building") is None:
            cards.append(s.build["card"])
        else:
            bid = check_int("build", s.build["building"], 0, len(s.buildings) - 1)
            require(s.removed[-1:] == [s.build["card"]], "build", "the contract built is not the last removed")
            require(s.buildings[bid] is not None, "build", "the building built is gone")
    check_multiset("decks", cards, range(_CONTRACT_CARDS))


def _check_seats(s: r.State, n: int) -> None:
    check_ints("wealth", s.wealth, n, 0)
    check_ints("prestige", s.prestige, n, 0)
    check_int_table("vocations", s.vocations, n, cp.VOCATIONS, 0)
    check_ints("voc_supply", s.voc_supply, cp.VOCATIONS, 0)
    for voc in range(cp.VOCATIONS):
        total = s.voc_supply[voc] + sum(s.vocations[seat][voc] for seat in range(n))
        require(
            total == cp.VOCATION_MARKERS[voc],
            f"voc_supply[{voc}]",
            f"{total} markers of vocation {cp.VOCATION_NAMES[voc]}, not {cp.VOCATION_MARKERS[voc]}",
        )
    check_ints("offices", s.offices, len(cp.OFFICE_NAMES), r.NOBODY, n - 1)
    check_int("pawn", s.pawn, 0, cp.POLITICIANS - 1)
    check_bool("airport", s.airport)
    check_bool("sports", s.sports)


def _check_turn(s: r.State, n: int, max_turns: int) -> None:
    check_int("active", s.active, 0, n - 1)
    check_int("phase", s.phase, r.NONE, r.Decision.MAIN)
    require(s.phase != r.GAME_OVER, "phase", "not a phase")
    check_int("ap", s.ap, 0, cp.UNION_BOSS_AP)
    check_bool("built_this_turn", s.built_this_turn)
    check_int("turns", s.turns, 0, max_turns)
    check_bool("truncated", s.truncated)
    check_list("winners", s.winners)
    check_ints("winners", s.winners, low=0, high=n - 1)
    check_distinct("winners", s.winners)
    check_int("decision", s.decision, r.GAME_OVER, len(r.Decision.names) - 1)  # before the context names it
    require(isinstance(s.ctx, dict), "ctx", f"{type(s.ctx).__name__} found where a dict belongs")
    _check_ctx(s, n)
    check_list("tasks", s.tasks)
    for i, task in enumerate(s.tasks):
        require(type(task) in r.TASKS, f"tasks[{i}]", f"{task!r} is not a task")
        for name, value in zip(task._fields, task, strict=True):
            if name == "icon":  # Payout's row kind
                require(value in ("w", "p"), f"tasks[{i}].icon", f"{value!r} is not 'w' or 'p'")
            else:
                check_int(f"tasks[{i}].{name}", value, 0)  # seats, ids and amounts
    if s.decision == r.GAME_OVER:
        require(bool(s.winners), "winners", "none at the end of the game")
        return
    require(not s.winners and not s.truncated, "winners", "decided before the end of the game")
    check_int("decider", s.decider, 0, n - 1)
    require(s.turns < max_turns, "turns", "the turn cap is reached but the game goes on")
    if s.decision in (r.Decision.INVEST, r.Decision.MAIN):
        require(
            s.decider == s.active and s.phase == s.decision,
            "decider",
            f"seat {s.decider} in the {r.Decision.name_of(s.decision)} phase of seat {s.active}",
        )
    if s.decision in (r.Decision.PAY_PERMIT, r.Decision.PLACE):
        require(
            s.build is not None and s.build.get("building") is None and s.decider == s.active,
            "build",
            "no contract is being built by the seat to decide",
        )


def _check_lots(field: str, value: Any, n: int) -> None:
    check_ints(field, value, low=0, high=cp.LOTS - 1)
    require(bool(value), field, "no lot to choose from")


def _check_seat_list(field: str, value: Any, n: int) -> None:
    check_ints(field, value, low=0, high=n - 1)
    check_distinct(field, value)


# the pending decision's context: each key its decision reads, and its check (field, value, seat count)
_CTX_KEYS: dict[int, dict[str, Callable[[str, Any, int], Any]]] = {
    r.Decision.VOC_SOURCE: {"voc": lambda f, v, n: check_int(f, v, 0, cp.VOCATIONS - 1)},
    r.Decision.VOC_PAYOUT: {
        "voc": lambda f, v, n: check_int(f, v, 0, cp.VOCATIONS - 1),
        "amount": lambda f, v, n: check_int(f, v, 0),
    },
    r.Decision.TRIBUTE_PAY: {"amount": lambda f, v, n: check_int(f, v, 0)},
    r.Decision.PARK_LOT: {"lots": _check_lots},
    r.Decision.MAYOR_PARK: {"lots": _check_lots},
    r.Decision.MARKER_PLACE: {
        "marker": lambda f, v, n: require(v in cp.MARKERS and type(v) is int, f, f"{v!r} is no marker")
    },
    r.Decision.MARKER_MOVE_DST: {
        "marker": lambda f, v, n: require(v in cp.MARKERS and type(v) is int, f, f"{v!r} is no marker"),
        "optional": lambda f, v, n: check_bool(f, v),
    },
    r.Decision.ELECTION_TIE: {
        "office": lambda f, v, n: check_int(f, v, 0, len(cp.OFFICE_NAMES) - 1),
        "tied": _check_seat_list,
    },
    r.Decision.MEDIA_TIE: {"tied": _check_seat_list},
    r.Decision.PICK_BUILDING: {
        "purpose": lambda f, v, n: require(v in r.PICKED, f, f"{v!r} is not one of {sorted(r.PICKED)}"),
        "lots": _check_lots,
    },
    r.Decision.BLIGHT_CHOICE: {
        "building": lambda f, v, n: check_int(f, v, 0),
        "affordable": lambda f, v, n: check_bool(f, v),
    },
    r.Decision.AUCTION: {"affordable": lambda f, v, n: check_bool(f, v), "price": lambda f, v, n: check_int(f, v, 0)},
    r.Decision.DISASTER_CHOICE: {
        "event": lambda f, v, n: check_int(f, v, 0, cp.NUM_CONTRACT_EVENTS - 1),
        "affordable": lambda f, v, n: check_bool(f, v),
    },
}


def _check_ctx(s: r.State, n: int) -> None:
    """Exactly the keys the pending decision reads, each of its type and range (none for the others)."""
    wanted = _CTX_KEYS.get(s.decision, {})
    require(
        set(s.ctx) == set(wanted),
        "ctx",
        f"keys {sorted(map(str, s.ctx))} for decision {r.Decision.name_of(s.decision)}, not {sorted(wanted)}",
    )
    ctx = cast("dict[str, Any]", s.ctx)  # any dict until checked
    for key, check in wanted.items():
        check(f"ctx[{key!r}]", ctx[key], n)
