"""Metropolys' native engine against the Python engine over every option (version, layout, removed
districts, start player), which the shared parity test plays only at their defaults; and its door
(`from_json`) against the Python engine's validation on mutated states."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from city_envs.metropolys.game import Metropolys
from tests.native.parity import assert_same_raw, diagonal, words

native = pytest.importorskip("city_envs._native")
NativeMetropolys = native.Metropolys


OPTIONS = [
    {"version": version, "layout": layout} for version in ("family", "expert") for layout in ("random", "first_game")
]
REMOVALS = {2: [None, "north,east", ["west", "north"]], 3: [None, "south"], 4: [None, ""]}


@pytest.mark.parametrize(
    ("num_players", "options"), diagonal(OPTIONS, [2, 3, 4], [f"{o['version']}-{o['layout']}" for o in OPTIONS])
)
def test_matches_agree_over_the_options(num_players: int, options: dict) -> None:
    for seed, removed in enumerate(REMOVALS[num_players]):
        opts = dict(options, removed_districts=removed, start_player=seed % num_players)
        py = Metropolys(num_players, seed=seed, **opts)
        nat = NativeMetropolys(num_players, json.dumps(py.options), words(np.random.default_rng(seed)))
        pick = np.random.default_rng(seed + 100)
        step = 0
        assert_same_raw(py, nat, (seed, step))
        while not py.is_over():
            action = int(pick.choice(py.legal_action_ids()))
            py.apply(action)
            assert nat.apply(action)
            step += 1
            assert_same_raw(py, nat, (seed, step))
            if step % 9 == 0:
                seat = step % num_players
                twin_py = py.determinize(seat, np.random.default_rng(step))
                twin_nat = nat.determinize(seat, np.random.default_rng(step).bit_generator.capsule)
                assert_same_raw(twin_py, twin_nat, (seed, step, "determinize"))
                data = py.to_dict()
                loaded = NativeMetropolys.from_json(
                    num_players, json.dumps(py.options), json.dumps(data["state"]), words(py.rng), data["history"]
                )
                assert_same_raw(py, loaded, (seed, step, "from_json"))


def test_the_door_refuses_what_the_python_engine_refuses() -> None:
    """Mutated states: the native door accepts exactly what `Metropolys.from_dict` accepts, and the same."""
    rng = np.random.default_rng(7)
    for seed in range(12):
        n = 2 + seed % 3
        game = Metropolys(n, seed=seed, version=("family", "expert")[seed // 3 % 2])
        for _ in range(int(rng.integers(120))):
            if game.is_over():
                break
            game.apply(int(rng.choice(game.legal_action_ids())))
        base = game.to_dict()
        fields = list(base["state"])
        for _ in range(40):
            data = copy.deepcopy(base)
            key = fields[int(rng.integers(len(fields)))]
            value = data["state"][key]
            if isinstance(value, list) and value and isinstance(value[0], int) and not isinstance(value[0], bool):
                value[int(rng.integers(len(value)))] += int(rng.integers(-2, 3))
            elif isinstance(value, list) and value:
                value.pop()
            elif isinstance(value, int) and not isinstance(value, bool):
                data["state"][key] = value + int(rng.integers(-2, 3))
            try:
                expected = Metropolys.from_dict(data)
            except (ValueError, TypeError):
                expected = None
            try:
                loaded = NativeMetropolys.from_json(
                    n, json.dumps(data["options"]), json.dumps(data["state"]), words(np.random.default_rng(0)), []
                )
            except ValueError:
                loaded = None
            assert (expected is None) == (loaded is None), (seed, key)
            if expected is not None:
                assert json.loads(loaded.state_json()) == expected.to_dict()["state"]


def test_options_the_python_engine_refuses_are_refused() -> None:
    for num_players, options in [
        (3, {"removed_districts": "north,east"}),
        (2, {"removed_districts": "north,south"}),
        (4, {"removed_districts": "north"}),
        (2, {"start_player": 2}),
    ]:
        with pytest.raises(ValueError):
            Metropolys(num_players, seed=0, **options)
        checked = Metropolys.check_options(options)
        with pytest.raises(ValueError):
            NativeMetropolys(num_players, json.dumps(checked), words(np.random.default_rng(0)))


def test_the_door_refuses_unknown_missing_and_repeated_keys() -> None:
    game = Metropolys(3, seed=0)
    data = game.to_dict()
    options, rng = json.dumps(data["options"]), words(np.random.default_rng(0))
    text = json.dumps(data["state"])
    for bad in [
        json.dumps({**data["state"], "board_memo": None}),
        json.dumps({key: value for key, value in data["state"].items() if key != "calls"}),
        text[:-1] + ', "calls": 5}',
    ]:
        with pytest.raises(ValueError):
            NativeMetropolys.from_json(3, options, bad, rng, [])
    assert json.loads(NativeMetropolys.from_json(3, options, text, rng, []).state_json()) == data["state"]
