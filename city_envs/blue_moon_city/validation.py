"""Every invariant of a Blue Moon City state, checked field by field (`BlueMoonCity.validate()`)."""

from __future__ import annotations

from collections import Counter

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city import rules as r
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

_CARD_COPIES = Counter({card: copies for card, copies in enumerate(cp.CARD_COPIES)})
_MOST_COPIES = max(cp.CARD_COPIES)  # no count of one card type exceeds it: checked before the counts become cards


def validate_state(s: r.State, num_players: int, options: dict) -> None:
    n = s.n
    check_seats(n, num_players)
    _check_city(s, n, options["center"])
    _check_cards(s, n)
    _check_seats(s, n)
    _check_turn(s, n, options["max_rounds"])


def _check_city(s: r.State, n: int, center: str) -> None:
    check_ints("tile_at", s.tile_at, cp.NUM_POSITIONS, 0, cp.NUM_TILES - 1)
    check_multiset("tile_at", s.tile_at, range(cp.NUM_TILES))
    require(s.tile_at[cp.COURTYARD_POSITION] == cp.COURTYARD, "tile_at", "the Courtyard is not in the centre")
    if center == "fixed":
        for position, tile in cp.FIXED_CENTRE.items():
            require(
                s.tile_at[position] == tile,
                f"tile_at[{position}]",
                f"{s.tile_at[position]}, but the option center='fixed' puts tile {tile} there",
            )
    check_bools("complete", s.complete, cp.NUM_POSITIONS)
    require(not s.complete[cp.COURTYARD_POSITION], "complete", "the Courtyard is never built")
    check_int_table("markers_on", s.markers_on, cp.NUM_POSITIONS, cp.MAX_SECTIONS, -1, n - 1)
    for position in range(cp.NUM_POSITIONS):
        sections = len(cp.SECTIONS[s.tile_at[position]])
        free = s.markers_on[position][sections:] if not s.complete[position] else s.markers_on[position]
        if any(seat != -1 for seat in free):
            raise InvalidStateError(f"markers_on[{position}]", "a marker where no section is open")
    check_ints("dragons", s.dragons, 3, 0, cp.OFF_BOARD)
    check_ints("figures", s.figures, n, 0, cp.NUM_POSITIONS - 1)
    check_int("last_completion_turn", s.last_completion_turn, -1)
    everything_built = all(s.complete[q] for q in range(cp.NUM_POSITIONS) if q != cp.COURTYARD_POSITION)
    require(
        (s.last_completion_turn >= 0) == everything_built,
        "last_completion_turn",
        f"{s.last_completion_turn} disagrees with the buildings completed",
    )


def _check_cards(s: r.State, n: int) -> None:
    check_int_table("hands", s.hands, n, cp.NUM_TYPES, 0, _MOST_COPIES)
    check_ints("deck", s.deck, low=0, high=cp.NUM_TYPES - 1)
    check_ints("discard", s.discard, cp.NUM_TYPES, 0, _MOST_COPIES)
    check_ints("pending", s.pending, low=0, high=cp.NUM_TYPES - 1)
    tables = [*s.hands, s.discard]
    if isinstance(s.payment, r.Payment):
        tables.append(check_ints("payment.committed", s.payment.committed, cp.NUM_TYPES, 0, _MOST_COPIES))
    places = list(s.deck) + list(s.pending)
    for counts in tables:
        places += [card for card, count in enumerate(counts) for _ in range(count)]
    check_multiset("deck", places, _CARD_COPIES)


def _check_seats(s: r.State, n: int) -> None:
    check_ints("crystals", s.crystals, n, 0)
    check_ints("scales", s.scales, n, 0)
    check_int("scale_supply", s.scale_supply, 1, cp.SCALES_IN_PLAY[n])
    require(
        s.scale_supply + sum(s.scales) == cp.SCALES_IN_PLAY[n],
        "scale_supply",
        f"{s.scale_supply} in supply and {sum(s.scales)} held, not the {cp.SCALES_IN_PLAY[n]} in play",
    )
    check_ints("offerings", s.offerings, n, 0, cp.OFFERINGS_TO_WIN[n])
    check_ints("markers", s.markers, n, 0, cp.MARKERS)
    check_ints("obelisk", s.obelisk, low=0, high=n - 1)
    require(len(s.obelisk) <= len(cp.OBELISK_COSTS[n]), "obelisk", f"{len(s.obelisk)} offerings do not fit")
    on_board = [sum(row.count(seat) for row in s.markers_on) for seat in range(n)]
    for seat in range(n):
        require(
            s.obelisk.count(seat) == s.offerings[seat],
            f"offerings[{seat}]",
            f"{s.offerings[seat]} but seat {seat} fills {s.obelisk.count(seat)} obelisk spaces",
        )
        placed = s.markers[seat] + on_board[seat] + s.obelisk.count(seat)
        require(placed == cp.MARKERS, f"markers[{seat}]", f"seat {seat} has {placed} markers, not {cp.MARKERS}")


def _check_turn(s: r.State, n: int, max_rounds: int) -> None:
    check_int("decision", s.decision, r.GAME_OVER, r.Decision.DISCARD)
    check_int("turns", s.turns, 0, max_rounds * n)
    require(s.last_completion_turn <= s.turns, "last_completion_turn", "after the turns played")
    check_int("allowance", s.allowance, 0)
    check_bool("teleport", s.teleport)
    check_bool("scales_claimed", s.scales_claimed)
    check_int("offers_this_turn", s.offers_this_turn, 0, cp.OFFERINGS_TO_WIN[n])
    check_int("discards", s.discards, 0, cp.MAX_DISCARDS - 1)
    check_bool("truncated", s.truncated)
    check_list("winners", s.winners)
    check_ints("winners", s.winners, low=0, high=n - 1)
    check_distinct("winners", s.winners)
    require((s.payment is None) or isinstance(s.payment, r.Payment), "payment", f"{s.payment!r}")
    if s.decision == r.GAME_OVER:
        require(s.active == -1, "active", f"{s.active!r} acts although the game is over")
        require(bool(s.winners), "winners", "none at the end of the game")
        require(s.payment is None, "payment", "a payment open at the end of the game")
        return
    require(not s.winners and not s.truncated, "winners", "decided before the end of the game")
    check_int("active", s.active, 0, n - 1)
    require(max(s.offerings) < cp.OFFERINGS_TO_WIN[n], "offerings", "a seat has won but the game goes on")
    require(any(s.markers), "markers", "no markers left but the game goes on")
    require(
        not s.pending or s.decision in (r.Decision.BUILD, r.Decision.PAY, r.Decision.DISCARD),
        "pending",
        f"reward cards wait in decision {r.Decision.name_of(s.decision)}",
    )
    position = s.figures[s.active]
    require(
        (s.payment is not None) == (s.decision == r.Decision.PAY),
        "payment",
        f"{'open' if s.payment is not None else 'none'} in decision {r.Decision.name_of(s.decision)}",
    )
    if s.decision == r.Decision.OFFER:
        require(position == cp.COURTYARD_POSITION, "figures", f"seat {s.active} offers away from the Courtyard")
    if s.decision in (r.Decision.BUILD, r.Decision.PAY):
        require(
            position != cp.COURTYARD_POSITION and not s.complete[position],
            "figures",
            f"seat {s.active} builds where nothing can be built",
        )
    if s.payment is not None:  # in PAY, and only there (required above)
        _check_payment(s.payment, s.tile_at[position], s.markers_on[position])


def _check_payment(pay: r.Payment, tile: int, markers: list[int]) -> None:
    sections = cp.SECTIONS[tile]
    check_int("payment.section", pay.section, 0, len(sections) - 1)
    require(markers[pay.section] == -1, "payment.section", "that section already holds a marker")
    colour, value = sections[pay.section]
    require(pay.value == value, "payment.value", f"{pay.value!r}, but the section costs {value}")
    check_int("payment.colour", pay.colour, r.NO_COLOUR, cp.NUM_COLOURS - 1)
    require(colour == cp.ANY or pay.colour == colour, "payment.colour", f"{pay.colour}, but the section is {colour}")
    check_int("payment.total", pay.total, 0, value - 1)
    check_ints("payment.cap1", pay.cap1, cp.NUM_COLOURS, 0)
    check_int("payment.cap_any", pay.cap_any, 0)
