"""Urban Sprawl's native engine beyond the shared parity test: every option (variant, auto_single,
max_turns), which the shared test plays only at their defaults, with determinize and states read back
from the Python engine's JSON along the way; its door (`from_json`) on mutated states."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from city_envs.urban_sprawl.game import UrbanSprawl
from tests.native.parity import assert_same_raw, diagonal, words

native = pytest.importorskip("city_envs._native")
NativeUrbanSprawl = native.UrbanSprawl


OPTIONS = [
    {"variant": "standard", "auto_single": False},
    {"variant": "long", "auto_single": True},
    {"variant": "short", "auto_single": False, "max_turns": 9},
    {"variant": "short", "auto_single": True},
    {"variant": "long", "auto_single": True, "max_turns": 25},
]


@pytest.mark.parametrize(
    ("num_players", "options"), diagonal(OPTIONS, [2, 3, 4], ["-".join(str(v) for v in o.values()) for o in OPTIONS])
)
def test_matches_agree_over_the_options(num_players: int, options: dict) -> None:
    seed = 11 * num_players + len(options)
    py = UrbanSprawl(num_players, seed=seed, **options)
    nat = NativeUrbanSprawl(num_players, json.dumps(py.options), words(np.random.default_rng(seed)))
    pick = np.random.default_rng(seed + 100)
    step = 0
    assert_same_raw(py, nat, (seed, step))
    while not py.is_over():
        legal = py.legal_action_ids()
        builds = [a for a in legal if a < 36 or 42 <= a < 204]  # permits, builds and lots: the city grows
        action = int(pick.choice(builds if builds and pick.random() < 0.7 else legal))
        py.apply(action)
        assert nat.apply(action)
        step += 1
        assert_same_raw(py, nat, (seed, step))
        if step % 23 == 0:
            seat = step % num_players
            twin_py = py.determinize(seat, np.random.default_rng(step))
            twin_nat = nat.determinize(seat, np.random.default_rng(step).bit_generator.capsule)
            assert_same_raw(twin_py, twin_nat, (seed, step, "determinize"))
            data = py.to_dict()
            loaded = NativeUrbanSprawl.from_json(
                num_players, json.dumps(py.options), json.dumps(data["state"]), words(py.rng), data["history"]
            )
            assert_same_raw(py, loaded, (seed, step, "from_json"))
    if "max_turns" in options:
        assert py.is_truncated() or py.state.turns < options["max_turns"]


def test_the_door_takes_mutated_states_with_a_value_error_or_plays_them() -> None:
    """Small mutations of real states: refused with ValueError, or accepted and then playable."""
    rng = np.random.default_rng(7)
    for seed in range(9):
        n = 2 + seed % 3
        game = UrbanSprawl(n, seed=seed)
        for _ in range(int(rng.integers(40, 300))):
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
                value[int(rng.integers(len(value)))] += int(rng.integers(-3, 4))
            elif isinstance(value, list) and value:
                value.pop()
            elif isinstance(value, int) and not isinstance(value, bool):
                data["state"][key] = value + int(rng.integers(-3, 4))
            try:
                loaded = NativeUrbanSprawl.from_json(
                    n, json.dumps(data["options"]), json.dumps(data["state"]), words(np.random.default_rng(0)), []
                )
            except ValueError:
                continue
            obs = np.zeros(NativeUrbanSprawl.observation_size, dtype=np.float32)
            for _ in range(20):
                if loaded.is_over():
                    break
                mask = np.frombuffer(loaded.legal_actions(), dtype=bool)
                for seat in range(n):
                    loaded.observation(seat, obs)
                if not mask.any():
                    break
                loaded.apply(int(rng.choice(np.flatnonzero(mask))))
            json.loads(loaded.state_json())


def test_the_door_refuses_unknown_missing_and_wrong_keys() -> None:
    game = UrbanSprawl(3, seed=0)
    data = game.to_dict()
    options, rng = json.dumps(data["options"]), words(np.random.default_rng(0))
    state = data["state"]
    for bad in [
        {**state, "memo": None},
        {key: value for key, value in state.items() if key != "tasks"},
        {**state, "ctx": {"voc": 1}},
        {**state, "phase": -2},
        {**state, "circles": [1, 0, 0, 0, 0, 0, 0, 0, 0]},
        {**state, "tasks": [["payout", "w", 0]]},
        {**state, "tasks": [["disaster_one", 0, 0]]},
    ]:
        with pytest.raises(ValueError):
            NativeUrbanSprawl.from_json(3, options, json.dumps(bad), rng, [])
    assert json.loads(NativeUrbanSprawl.from_json(3, options, json.dumps(state), rng, []).state_json()) == state
    with pytest.raises(ValueError):
        NativeUrbanSprawl(3, json.dumps({**data["options"], "variant": "huge"}), rng)
