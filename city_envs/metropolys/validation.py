"""Every invariant of a Metropolys state, checked field by field (`Metropolys.validate()`)."""

from __future__ import annotations

from city_envs.core.validation import (
    InvalidStateError,
    check_bools,
    check_distinct,
    check_int,
    check_int_table,
    check_ints,
    check_list,
    check_seats,
    require,
)
from city_envs.metropolys import components as cp
from city_envs.metropolys import rules as r

_REMOVED_COUNT = {2: 2, 3: 1, 4: 0}


def validate_state(s: r.State, num_players: int, options: dict, removed_option: list[int] | None) -> None:
    """`removed_option` is the option `removed_districts` as district ids (None: drawn by the seed)."""
    n = s.n
    check_seats(n, num_players)
    require(s.version == options["version"], "version", f"{s.version!r} but the option says {options['version']!r}")
    _check_board(s, n, removed_option)
    _check_buildings(s, n)
    _check_tokens(s, n)
    _check_cards(s, n)
    _check_call(s, n)


def _check_board(s: r.State, n: int, removed_option: list[int] | None) -> None:
    check_ints("removed", s.removed, _REMOVED_COUNT[n], 1, 4)
    require(s.removed == sorted(set(s.removed)), "removed", f"{s.removed} is not a sorted set of districts")
    if n == 2:
        require(
            tuple(s.removed) in {tuple(sorted(pair)) for pair in cp.ADJACENT_PAIRS},
            "removed",
            f"{s.removed} is not an adjacent pair",
        )
    if removed_option is not None:
        require(s.removed == removed_option, "removed", f"{s.removed} but the option removes {removed_option}")
    check_bools("in_play", s.in_play, cp.NUM_NBHDS)
    require(
        s.in_play == [cp.DISTRICT[nb] not in s.removed for nb in range(cp.NUM_NBHDS)],
        "in_play",
        "disagrees with the removed districts",
    )
    check_ints("token", s.token, cp.NUM_NBHDS, cp.NO_TOKEN, cp.ARCH)
    for nb, kind in enumerate(s.token):
        if kind != cp.NO_TOKEN:
            require(s.in_play[nb] and nb in cp.TOKEN_OK, f"token[{nb}]", "a token where none can lie")


def _check_buildings(s: r.State, n: int) -> None:
    check_ints("owner", s.owner, cp.NUM_NBHDS, -1, n - 1)
    check_ints("built_value", s.built_value, cp.NUM_NBHDS, 0, cp.NUM_BUILDINGS)
    check_ints("bid_owner", s.bid_owner, cp.NUM_NBHDS, -1, n - 1)
    check_ints("bid_value", s.bid_value, cp.NUM_NBHDS, 0, cp.NUM_BUILDINGS)
    check_ints("supply", s.supply, n, 0, r.FULL_SUPPLY)
    check_ints("built", s.built, n, 0, cp.NUM_BUILDINGS)
    check_list("bids", s.bids)
    for i, bid in enumerate(s.bids):
        require(isinstance(bid, tuple) and len(bid) == 3, f"bids[{i}]", f"{bid!r} is not (seat, nbhd, value)")
        check_int(f"bids[{i}]", bid[0], 0, n - 1)
        check_int(f"bids[{i}]", bid[1], 0, cp.NUM_NBHDS - 1)
        check_int(f"bids[{i}]", bid[2], 1, cp.NUM_BUILDINGS)
    for nb in range(cp.NUM_NBHDS):
        if s.owner[nb] >= 0:
            if not (s.in_play[nb] and s.token[nb] == cp.NO_TOKEN and s.bid_owner[nb] < 0 and s.built_value[nb] >= 1):
                raise InvalidStateError(f"owner[{nb}]", "a building where none can stand")
        elif s.built_value[nb] != 0:
            raise InvalidStateError(f"built_value[{nb}]", "a value without a building")
        if s.bid_owner[nb] < 0 and s.bid_value[nb] != 0:
            raise InvalidStateError(f"bid_value[{nb}]", "a value without a bid")
    # each seat's 13 values: in its supply, built, or bid, exactly once
    for seat in range(n):
        values = [s.built_value[nb] for nb in range(cp.NUM_NBHDS) if s.owner[nb] == seat]
        require(s.built[seat] == len(values), f"built[{seat}]", f"{s.built[seat]} but {len(values)} buildings stand")
        values += [value for who, _, value in s.bids if who == seat] + r.values_of(s.supply[seat])
        require(
            sorted(values) == list(cp.VALUES),
            f"supply[{seat}]",
            f"seat {seat}'s buildings are not each in one place: {sorted(values)}",
        )


def _check_tokens(s: r.State, n: int) -> None:
    check_int_table("tokens", s.tokens, n, 3, 0)
    for kind in (cp.TRENDY, cp.SUBWAY, cp.ARCH):
        total = s.token.count(kind) + sum(s.tokens[seat][kind - 1] for seat in range(n))
        require(
            total == cp.TOKENS_PER_COUNT[n][kind],
            "tokens",
            f"{total} tokens of kind {kind}, not the {cp.TOKENS_PER_COUNT[n][kind]} of {n} players",
        )
    subway = [s.tokens[seat][cp.SUBWAY - 1] for seat in range(n)]
    check_int("subway_card", s.subway_card, -1, n - 1)
    if s.subway_card < 0:
        require(max(subway) == 0, "subway_card", "nobody holds it although subway tokens were taken")
    else:
        require(subway[s.subway_card] == max(subway) >= 1, "subway_card", f"seat {s.subway_card} has not the most")
    arch = [s.tokens[seat][cp.ARCH - 1] for seat in range(n)]
    check_int("arch_card", s.arch_card, -1, n - 1)
    require((s.arch_card >= 0) == (max(arch) >= 1), "arch_card", f"{s.arch_card} disagrees with the tokens taken")
    if s.arch_card >= 0:
        require(arch[s.arch_card] >= 1, "arch_card", f"seat {s.arch_card} took no archaeological token")


def _check_cards(s: r.State, n: int) -> None:
    family = s.version == r.FAMILY
    check_ints("family_card", s.family_card, n, -1 if not family else 0, -1 if not family else 3)
    check_ints("colour_card", s.colour_card, n, -1 if family else 0, -1 if family else 4)
    check_ints("area_card", s.area_card, n, -1 if family else 0, -1 if family else 4)
    if family:
        check_distinct("family_card", s.family_card)
        require(n != 2 or cp.FAMILY_BORDERS not in s.family_card, "family_card", "the borders card with 2 players")
    else:
        check_distinct("colour_card", s.colour_card)
        check_distinct("area_card", s.area_card)


def _check_call(s: r.State, n: int) -> None:
    check_int("opener", s.opener, 0, n - 1)
    check_int("passed", s.passed, 0, (1 << n) - 1)
    check_int("calls", s.calls, 0)
    check_int("chosen", s.chosen, -1, cp.NUM_NBHDS - 1)
    check_int("decision", s.decision, r.GAME_OVER, r.Decision.VALUE)
    require(s.calls == sum(s.built), "calls", f"{s.calls} calls but {sum(s.built)} buildings")
    require(sum(o >= 0 for o in s.bid_owner) == len(s.bids), "bids", "disagree with the bids on the board")
    for i, (seat, nb, value) in enumerate(s.bids):
        require(
            s.bid_owner[nb] == seat and s.bid_value[nb] == value and s.in_play[nb], f"bids[{i}]", "not on the board"
        )
        if i:
            require(
                nb in cp.ADJ[s.bids[i - 1][1]] and value > s.bids[i - 1][2],
                f"bids[{i}]",
                "not adjacent to and higher than the bid before",
            )
    if s.decision == r.GAME_OVER:
        require(s.actor == -1, "actor", f"{s.actor!r} acts although the game is over")
        require(max(s.built) == cp.NUM_BUILDINGS and not s.bids, "built", "the game ended before a 13th building")
        return
    check_int("actor", s.actor, 0, n - 1)
    require(max(s.built) < cp.NUM_BUILDINGS, "built", "a 13th building stands but the game goes on")
    require(not s.passed >> s.actor & 1, "actor", f"seat {s.actor} passed in this call")
    if not s.bids:
        require(s.actor == s.opener and s.passed == 0, "actor", f"seat {s.actor} opens the call of seat {s.opener}")
    else:
        require(s.actor != s.bids[-1][0], "actor", "the top bidder bids against itself")
    if s.decision == r.Decision.VALUE:
        require(s.chosen >= 0 and r.is_free(s, s.chosen), "chosen", f"{s.chosen} is not a free neighbourhood")
        if s.bids:
            require(s.chosen in cp.ADJ[s.bids[-1][1]], "chosen", "not next to the top bid")
    else:
        require(s.chosen == -1, "chosen", f"{s.chosen} outside the VALUE decision")
