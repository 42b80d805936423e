"""Metropolys round trips beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np

from city_envs.metropolys.game import Metropolys

from ..game_helpers import assert_same_game, json_round_trip, play_out


def test_round_trip_keeps_options_and_a_finished_game():
    game = Metropolys(2, seed=4, version="expert", layout="first_game", removed_districts="east,south", start_player=1)
    play_out(game, np.random.default_rng(0))
    loaded = json_round_trip(game)
    assert_same_game(game, loaded)
    assert loaded.options["removed_districts"] == "east,south" and loaded.is_over()


def test_to_dict_is_a_snapshot():
    game = Metropolys(2, seed=0)
    data = game.to_dict()
    game.apply(int(np.flatnonzero(game.legal_actions())[0]))
    assert data["history"] == [] and data["state"]["decision"] == 0 and data["state"]["chosen"] == -1
