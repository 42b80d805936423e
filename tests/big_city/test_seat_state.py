"""`BigCity.seat_state(p)` (`view.seat_state_of`) is the State `view.seat_state` builds from p's view, read
from the match without building the view; since the view-built one holds only the view, this shows it
leaks nothing. It is also unchanged when only what p cannot see is redealt (`determinize`)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from city_envs.big_city import rules, view
from city_envs.big_city.game import BigCity

from ..game_helpers import play_out
from .helpers import COUNTS, mid_game_states

# caches of the public board, shared with the match (compared by identity below, not by content)
_CACHES = ("memo", "geo")


@functools.cache
def positions() -> tuple[BigCity, ...]:
    """Random positions of random matches at every player count, finished ones included."""
    found: list[BigCity] = []
    for n in COUNTS:
        found += mid_game_states(n, range(70 * n, 70 * n + 6), per_game=5)
        found.append(play_out(BigCity(n, seed=n), np.random.default_rng(n)))
    return tuple(found)


def differences(a: rules.State, b: rules.State) -> list[str]:
    """The dataclass fields in which two States differ (the derived ones by value, the caches left out)."""
    return [
        f.name
        for f in dataclasses.fields(rules.State)
        if f.name not in _CACHES and getattr(a, f.name) != getattr(b, f.name)
    ]


def test_positions_cover_every_player_count_and_the_end():
    assert {g.num_players for g in positions()} == set(COUNTS)
    assert any(g.is_over() for g in positions()) and sum(not g.is_over() for g in positions()) >= 60


def test_the_seat_state_is_the_one_its_view_gives_for_every_seat():
    for game in positions():
        s = game.state
        for seat in range(game.num_players):
            mine = game.seat_state(seat)
            assert list(vars(mine)) == [f.name for f in dataclasses.fields(rules.State)]  # nothing more
            assert differences(mine, view.seat_state(game.view(seat))) == [], (seat, game.decision_name())
            assert mine.memo is s.memo and mine.geo is s.geo  # the match's public caches, as views share them
            assert mine.hands[seat] is not s.hands[seat] and mine.scores is not s.scores  # copies


def test_the_comparison_sees_another_seats_hand():
    """The check above can fail: a seat's State differs from another seat's view-built one in the hands."""
    game = positions()[0]
    assert game.state.hands[0] != game.state.hands[1]
    assert "hands" in differences(game.seat_state(0), view.seat_state(game.view(1)))


def test_the_seat_state_ignores_what_the_seat_cannot_see():
    rng = np.random.default_rng(5)
    redealt = 0
    for game in positions():
        if game.is_over():
            continue
        for seat in range(game.num_players):
            twin = game.determinize(seat, rng)
            assert differences(twin.seat_state(seat), game.seat_state(seat)) == [], (seat, game.decision_name())
            other = (seat + 1) % game.num_players
            redealt += twin.state.hands[other] != game.state.hands[other]
    assert redealt >= 20  # determinize really changed hidden hands
