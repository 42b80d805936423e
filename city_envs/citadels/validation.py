"""Every invariant of a Citadels state, checked field by field (`Citadels.validate()`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from city_envs.citadels import components as cp
from city_envs.citadels import rules as r
from city_envs.core.validation import (
    InvalidStateError,
    check_bool,
    check_bools,
    check_int,
    check_int_table,
    check_ints,
    check_list,
    check_multiset,
    check_seats,
    require,
)

_DISTRICT_COPIES = Counter({kind: int(copies) for kind, copies in enumerate(cp.COPIES)})
_ALL_RANKS = 255  # a character-set mask holds ranks 1..8
_EVENT_NAMES = frozenset(
    (
        "reveal",
        "robbed",
        "income",
        "smithy",
        "laboratory",
        "gather_gold",
        "assassinate",
        "rob",
        "swap",
        "gather_cards",
        "redraw",
        "build",
        "destroy",
        "graveyard",
        "end_turn",
    )
)


def check_card_table(field: str, table: Any, n: int, high: int) -> None:
    """A per-seat, per-kind count table as JSON gives it (before it becomes an array)."""
    check_int_table(field, table, n, cp.NUM_KINDS, 0, high)


def validate_state(s: r.State, num_players: int, options: dict) -> None:
    n = s.n
    check_seats(n, num_players)
    long_game = n < 4 or options["classic_variant"]
    completion = cp.LONG_COMPLETION_SIZE if long_game else cp.COMPLETION_SIZE
    require(
        s.completion == completion,
        "completion",
        f"{s.completion!r}, but {n} players and these options complete a city at {completion}",
    )
    require(
        s.max_rounds == options["max_rounds"],
        "max_rounds",
        f"{s.max_rounds!r} differs from the option max_rounds={options['max_rounds']}",
    )
    _check_cards(s, n)
    _check_counters(s, n)
    _check_round(s, n)
    _check_decision(s, n)


def _check_cards(s: r.State, n: int) -> None:
    _check_count_array("hands", s.hands, n, int(cp.COPIES.max()))
    _check_count_array("cities", s.cities, n, 1)
    check_ints("deck", s.deck, low=0, high=cp.NUM_KINDS - 1)
    check_ints("drawn", s.drawn, low=0, high=cp.NUM_KINDS - 1)
    check_ints("marked", s.marked, low=0, high=cp.NUM_KINDS - 1)
    check_int("graveyard_card", s.graveyard_card, -1, cp.NUM_KINDS - 1)
    loose = list(s.deck) + s.drawn + s.marked + ([s.graveyard_card] if s.graveyard_card >= 0 else [])
    counts = np.bincount(np.array(loose, dtype=np.int64), minlength=cp.NUM_KINDS)
    if not np.array_equal(counts + s.hands.sum(axis=0) + s.cities.sum(axis=0), cp.COPIES):
        held = [
            kind
            for kind, count in enumerate((s.hands.sum(axis=0) + s.cities.sum(axis=0)).tolist())
            for _ in range(count)
        ]
        check_multiset("deck", loose + held, _DISTRICT_COPIES)  # names what is duplicated or missing
    check_ints("city_size", s.city_size, n)
    sizes = s.cities.sum(axis=1).tolist()
    for seat in range(n):
        require(
            s.city_size[seat] == sizes[seat],
            f"city_size[{seat}]",
            f"{s.city_size[seat]} but the city holds {sizes[seat]} districts",
        )


def _check_count_array(field: str, table: np.ndarray, n: int, high: int) -> None:
    """A per-seat, per-kind count array of the state (the JSON lists were checked at load)."""
    require(
        isinstance(table, np.ndarray) and table.shape == (n, cp.NUM_KINDS),
        field,
        f"not an array of {n} x {cp.NUM_KINDS} counts",
    )
    if table.size and (table.min() < 0 or table.max() > high):
        bad = np.argwhere((table < 0) | (table > high))
        seat, kind = bad[0].tolist()
        raise InvalidStateError(f"{field}[{seat}][{kind}]", f"{int(table[seat, kind])} is outside 0..{high}")


def _check_counters(s: r.State, n: int) -> None:
    check_ints("gold", s.gold, n, low=0)
    check_int("crown", s.crown, 0, n - 1)
    check_int("round", s.round, 1, s.max_rounds)
    check_bool("game_ending", s.game_ending)
    check_bool("truncated", s.truncated)
    check_int("first_completer", s.first_completer, -1, n - 1)
    complete = max(s.city_size) >= s.completion
    require(
        s.game_ending == complete,
        "game_ending",
        f"{s.game_ending} although the largest city has {max(s.city_size)} of {s.completion} districts",
    )
    if s.game_ending:
        require(
            s.first_completer >= 0 and s.city_size[s.first_completer] >= s.completion,
            "first_completer",
            f"seat {s.first_completer} did not complete a city",
        )
    else:
        require(s.first_completer == -1, "first_completer", f"{s.first_completer} although no city is complete")
    for name in ("gathered", "ability_used", "income_done", "destroy_used", "smithy_used", "lab_used"):
        check_bool(name, getattr(s, name))
    check_int("build_limit", s.build_limit, cp.BUILD_LIMIT, cp.ARCHITECT_BUILD_LIMIT)
    require(s.build_limit in (cp.BUILD_LIMIT, cp.ARCHITECT_BUILD_LIMIT), "build_limit", f"{s.build_limit}")
    check_int("builds_done", s.builds_done, 0, s.build_limit)


def _check_round(s: r.State, n: int) -> None:
    """The characters of this round: each of the 8 in exactly one place, the log agreeing."""
    check_int("face_up", s.face_up, 0, _ALL_RANKS)
    check_int("facedown", s.facedown, 1, cp.NUM_CHARACTERS)
    check_int("pile", s.pile, 0, _ALL_RANKS)
    check_list("steps", s.steps)
    for i, entry in enumerate(s.steps):
        require(isinstance(entry, tuple) and len(entry) == 2, f"steps[{i}]", f"{entry!r} is not (seat, decision)")
    opener = check_int("steps[0]", s.steps[0][0] if s.steps else None, 0, n - 1)
    require(s.steps == r.selection_steps(n, opener), "steps", "not a pick order of this player count")
    check_int("step", s.step, 0, len(s.steps))
    check_ints("holder", s.holder, 9, -1, n - 1)
    check_ints("revealed", s.revealed, 9, -1, n - 1)
    check_bools("played", s.played, n)
    check_list("offered", s.offered, n)
    for seat in range(n):
        check_ints(f"offered[{seat}]", s.offered[seat], low=0, high=_ALL_RANKS)
    check_ints("known_facedown", s.known_facedown, n, 0, _ALL_RANKS)
    check_list("sel_log", s.sel_log)
    for i, logged in enumerate(s.sel_log):
        require(
            isinstance(logged, tuple) and len(logged) == 3, f"sel_log[{i}]", f"{logged!r} is not (event, seat, rank)"
        )
        event, seat, rank = logged
        if not (
            type(event) is type(seat) is type(rank) is int
            and r.EV_FACEDOWN <= event <= r.EV_LEFTOVER
            and -1 <= seat < n
            and 1 <= rank <= cp.NUM_CHARACTERS
        ):
            raise InvalidStateError(f"sel_log[{i}]", f"{logged!r} is not (event, seat, rank)")
    require(s.sel_log[:1] == [(r.EV_FACEDOWN, -1, s.facedown)], "sel_log", "does not open with the face-down card")
    picks = {rank: seat for event, seat, rank in s.sel_log if event == r.EV_PICK}
    held = {rank: seat for rank, seat in enumerate(s.holder) if seat >= 0}
    require(picks == held and 0 not in held, "holder", f"{s.holder} disagrees with the picks logged {picks}")
    selecting = s.decision in (r.Decision.SELECT_CHARACTER, r.Decision.SELECT_DISCARD)
    places = r.ranks_of(s.face_up) + r.ranks_of(s.pile) + [rank for _, _, rank in s.sel_log]
    if n == 7 and (s.step >= 6 or not selecting):
        places.remove(s.facedown)  # the 7th picker received the face-down card as well
    check_multiset("sel_log", places, cp.RANKS)
    require(cp.KING not in r.ranks_of(s.face_up), "face_up", "the King is never discarded face up")
    for name in ("called", "killed", "robbed"):
        check_int(name, getattr(s, name), 0, cp.NUM_CHARACTERS)
    check_int("turn_seat", s.turn_seat, -1, n - 1)
    check_list("events", s.events)
    if not all(type(event) is tuple and event and event[0] in _EVENT_NAMES for event in s.events):
        i, bad = next((i, e) for i, e in enumerate(s.events) if not (type(e) is tuple and e and e[0] in _EVENT_NAMES))
        raise InvalidStateError(f"events[{i}]", f"{bad!r} is not a logged event")


def _check_decision(s: r.State, n: int) -> None:
    """Who acts and what is pending agree with the phase of the round."""
    check_int("decision", s.decision, r.GAME_OVER, len(r.Decision.names) - 1)
    if s.decision == r.GAME_OVER:
        require(s.actor == -1, "actor", f"{s.actor!r} acts although the game is over")
        require(s.truncated == (not s.game_ending), "truncated", f"{s.truncated} at the end of the game")
        return
    require(not s.truncated, "truncated", "set before the game is over")
    check_int("actor", s.actor, 0, n - 1)
    require(bool(s.drawn) == (s.decision == r.Decision.KEEP_DRAWN), "drawn", "cards drawn outside KEEP_DRAWN")
    require(
        bool(s.marked) == (s.decision == r.Decision.MAGICIAN_DISCARD), "marked", "cards marked outside MAGICIAN_DISCARD"
    )
    require(
        (s.graveyard_card >= 0) == (s.decision == r.Decision.GRAVEYARD),
        "graveyard_card",
        f"{s.graveyard_card} in decision {r.Decision.name_of(s.decision)}",
    )
    if s.decision in (r.Decision.SELECT_CHARACTER, r.Decision.SELECT_DISCARD):
        require(
            s.step < len(s.steps) and s.steps[s.step] == (s.actor, s.decision),
            "actor",
            f"seat {s.actor} in {r.Decision.name_of(s.decision)}, not the pick order's step {s.step}",
        )
        require(s.called == 0 and s.turn_seat == -1, "called", "a character is called during the selection")
        require(s.pile != 0, "pile", "no character is offered to the picker")
        require(
            s.crown == s.steps[0][0],
            "crown",
            f"seat {s.crown} holds the crown but seat {s.steps[0][0]} opened the picks",
        )
        return
    require(s.pile == 0 and s.step == len(s.steps), "pile", "characters are still being passed in the turn phase")
    rank = s.called
    require(
        rank >= 1 and rank != s.killed and s.holder[rank] >= 0, "called", f"rank {rank} has no living holder to act"
    )
    require(
        s.turn_seat == s.holder[rank] == s.revealed[rank],
        "turn_seat",
        f"{s.turn_seat} is not the holder of the called rank {rank}",
    )
    if s.decision == r.Decision.GRAVEYARD:
        require(
            s.actor != s.turn_seat and s.actor == r.graveyard_owner(s, s.turn_seat),
            "actor",
            f"seat {s.actor} may not recover the destroyed district",
        )
    else:
        require(s.actor == s.turn_seat, "actor", f"seat {s.actor} acts in seat {s.turn_seat}'s turn")
