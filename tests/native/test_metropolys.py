"""Metropolys' native engine against the Python engine over every option (version, layout, removed
districts, start player), which the shared parity test plays only at their defaults; and its door
(`from_json`) against the Python engine's validation on mutated states."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from city_envs.metropolys.game import Metropolys

native = pytest.importorskip("city_envs._native")
NativeMetropolys = native.Metropolys


def _words(generator: np.random.Generator) -> tuple:
    state = generator.bit_generator.state
    low = (1 << 64) - 1
    s, inc = state["state"]["state"], state["state"]["inc"]
    return (s >> 64, s & low, inc >> 64, inc & low, bool(state["has_uint32"]), state["uinteger"])


def _same(py: Metropolys, nat, where: tuple) -> None:
    mask = np.zeros(py.num_actions, dtype=bool)
    nat.legal_actions(mask)
    assert (mask == py.legal_actions()).all(), where
    assert nat.current_player() == py.current_player(), where
    assert nat.is_over() == py.is_over() and nat.decision_name() == py.decision_name(), where
    assert json.loads(nat.state_json()) == py.to_dict()["state"], where
    for seat in range(py.num_players):
        obs = np.zeros(NativeMetropolys.observation_size, dtype=np.float32)
        nat.observation(seat, obs)
        assert (obs.view(np.uint32) == py.observation(seat).view(np.uint32)).all(), (where, seat)
    assert nat.scores() == py.scores(), where
    assert nat.winners() == py.winners(), where
    assert [tuple(row) for row in nat.standings()] == [tuple(map(float, row)) for row in py.standings()], where
    assert nat.rng_words() == _words(py.rng), where


OPTIONS = [
    {"version": version, "layout": layout} for version in ("family", "expert") for layout in ("random", "first_game")
]
REMOVALS = {2: [None, "north,east", ["west", "north"]], 3: [None, "south"], 4: [None, ""]}


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: f"{o['version']}-{o['layout']}")
def test_matches_agree_over_the_options(num_players: int, options: dict) -> None:
    for seed, removed in enumerate(REMOVALS[num_players]):
        opts = dict(options, removed_districts=removed, start_player=seed % num_players)
        py = Metropolys(num_players, seed=seed, **opts)
        nat = NativeMetropolys(num_players, json.dumps(py.options), _words(np.random.default_rng(seed)))
        pick = np.random.default_rng(seed + 100)
        step = 0
        _same(py, nat, (seed, step))
        while not py.is_over():
            action = int(pick.choice(py.legal_action_ids()))
            py.apply(action)
            assert nat.apply(action)
            step += 1
            _same(py, nat, (seed, step))
            if step % 9 == 0:
                seat = step % num_players
                twin_py = py.determinize(seat, np.random.default_rng(step))
                twin_nat = nat.determinize(seat, np.random.default_rng(step).bit_generator.capsule)
                _same(twin_py, twin_nat, (seed, step, "determinize"))
                data = py.to_dict()
                loaded = NativeMetropolys.from_json(
                    num_players, json.dumps(py.options), json.dumps(data["state"]), _words(py.rng), data["history"]
                )
                _same(py, loaded, (seed, step, "from_json"))


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
                    n, json.dumps(data["options"]), json.dumps(data["state"]), _words(np.random.default_rng(0)), []
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
            NativeMetropolys(num_players, json.dumps(checked), _words(np.random.default_rng(0)))


def test_the_door_refuses_unknown_missing_and_repeated_keys() -> None:
    game = Metropolys(3, seed=0)
    data = game.to_dict()
    options, words = json.dumps(data["options"]), _words(np.random.default_rng(0))
    text = json.dumps(data["state"])
    for bad in [
        json.dumps({**data["state"], "board_memo": None}),
        json.dumps({key: value for key, value in data["state"].items() if key != "calls"}),
        text[:-1] + ', "calls": 5}',
    ]:
        with pytest.raises(ValueError):
            NativeMetropolys.from_json(3, options, bad, words, [])
    assert json.loads(NativeMetropolys.from_json(3, options, text, words, []).state_json()) == data["state"]
