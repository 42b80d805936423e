"""The trainer's native batch (training/batch_env.py): SelfPlayVecEnv's transitions decision for decision,
on either engine (the same matches, moves, rewards and restarts for the same seeds and opponents), its
checkpoint state interchangeable with SelfPlayVecEnv's, and the trainer choosing it where it applies."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from city_envs.core.native import _native  # noqa: E402
from city_envs.core.registry import GAMES  # noqa: E402
from city_envs.training import selfplay  # noqa: E402
from city_envs.training.batch_env import BatchVecEnv  # noqa: E402
from city_envs.training.config import make_config  # noqa: E402
from city_envs.training.pool import OpponentPool  # noqa: E402
from city_envs.training.vec_env import SelfPlayVecEnv  # noqa: E402

pytestmark = pytest.mark.skipif(_native is None, reason="the native engine is not built")
LARGER = {"citadels": 5, "metropolys": 4, "blue_moon_city": 3, "big_city": 4, "urban_sprawl": 3}
WEIGHTS = {"self": 0.0, "heuristic": 0.5, "random": 0.5}


SNAPSHOT_WEIGHTS = {"self": 0.6, "heuristic": 0.2, "random": 0.2}


def pair(
    game: str, players: int, n_envs: int, seed: int, reward: str, weights: dict | None = None, snapshots=()
) -> tuple[SelfPlayVecEnv, BatchVecEnv]:
    settings = {"reward": reward, "score_scale": 0.25, "first_index": 1}
    envs = []
    for kind in (SelfPlayVecEnv, BatchVecEnv):
        pool = OpponentPool(game, weights or WEIGHTS)
        for snapshot in snapshots:
            pool.add_snapshot(str(snapshot))
        envs.append(kind(game, players, n_envs, seed, pool, **settings))
    return envs[0], envs[1]


def unseeded(state: dict) -> dict:
    """An env state without its matches' `seed` fields (a batch's matches do not record the deal seed)."""
    slots = [{**slot, "match": {k: v for k, v in slot["match"].items() if k != "seed"}} for slot in state["slots"]]
    return {**state, "slots": slots}


def snapshot_files(game: str, players: int, folder, count: int = 2) -> list[str]:
    """`count` policy files of untrained networks (each of other weights) for `game`."""
    import torch

    from city_envs.agents.policy_file import build_policy, save_policy
    from city_envs.core.registry import make_game

    probe = make_game(game, players, seed=0)
    paths = []
    for k in range(count):
        torch.manual_seed(k)
        policy = build_policy(probe.observation_shape, probe.num_actions, [16])
        path = folder / f"{game}_{players}p_{k}.safetensors"
        save_policy(policy, path, game=game, players=players, net_arch=[16], activation="tanh")
        paths.append(str(path))
    return paths


def assert_same_transitions(reference: SelfPlayVecEnv, batch: BatchVecEnv, steps: int, finished: int = 0) -> int:
    """Step both with the same legal actions: the same moves in every slot, observations, masks, rewards,
    dones and infos; returns how many matches ended (at least `finished` once `steps` are done)."""
    np.testing.assert_array_equal(batch.reset(), reference.reset())
    rng = np.random.default_rng(7)
    ended = 0
    for step in range(steps):
        masks = reference.action_masks()
        np.testing.assert_array_equal(batch.action_masks(), masks)
        for i, game in enumerate(reference.games):
            assert batch.batch.game(i).history == game.history, f"slot {i} moves differ at step {step}"
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        expected, got = reference.step(actions), batch.step(actions)
        for name, want, have in zip(("observations", "rewards", "dones"), expected[:3], got[:3], strict=True):
            assert have.dtype == want.dtype, name
            np.testing.assert_array_equal(have, want, err_msg=f"{name} at step {step}")
        for want_info, info in zip(expected[3], got[3], strict=True):
            assert info.keys() == want_info.keys()
            if info:
                np.testing.assert_array_equal(info.pop("terminal_observation"), want_info.pop("terminal_observation"))
                assert info == want_info
        ended += int(expected[2].sum())
        if ended >= finished and step >= 10:
            break
    assert ended >= finished
    return ended


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("larger", [False, True])
def test_a_batch_steps_selfplay_vec_envs_matches(game, larger):
    """Against SelfPlayVecEnv on the native engine (which the differential test proves the Python
    engine's twin): every slot's match, reward and restart, through at least two finished matches."""
    players = LARGER[game] if larger else 2
    reference, batch = pair(game, players, 3, seed=2**40 + 9, reward="lead" if larger else "score")
    assert_same_transitions(reference, batch, steps=2000, finished=2)


@pytest.mark.parametrize("game", GAMES)
def test_a_batch_plays_the_python_engines_first_moves(game, monkeypatch):
    """The first steps against SelfPlayVecEnv on the Python engine with the Python agents."""
    monkeypatch.setenv("CITY_ENVS_ENGINE", "python")
    reference, batch = pair(game, 2, 2, seed=4, reward="score")
    assert_same_transitions(reference, batch, steps=12)
    assert type(reference.games[0]).__module__ != "city_envs.core.native"


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("larger", [False, True])
def test_a_batch_plays_the_python_engines_matches_through_restarts(game, larger, monkeypatch):
    """Whole matches against SelfPlayVecEnv on the Python engine with the Python agents, through restarts."""
    monkeypatch.setenv("CITY_ENVS_ENGINE", "python")
    players = LARGER[game] if larger else 2
    reference, batch = pair(game, players, 2, seed=31, reward="lead" if larger else "win")
    assert_same_transitions(reference, batch, steps=5000, finished=3)
    assert type(reference.games[0]).__module__ != "city_envs.core.native"


def test_checkpoint_states_move_between_the_envs():
    """SelfPlayVecEnv's state resumes on a BatchVecEnv and the other way round, continuing identically."""
    reference, batch = pair("big_city", 3, 2, seed=8, reward="score")
    assert_same_transitions(reference, batch, steps=15)
    state = reference.get_state()
    assert batch.get_state()["slots"][0]["rng"] == state["slots"][0]["rng"]
    resumed_reference, resumed_batch = pair("big_city", 3, 2, seed=8, reward="score")
    np.testing.assert_array_equal(resumed_batch.set_state(batch.get_state()), reference.set_state(state))
    resumed_reference.set_state(batch.get_state())
    rng = np.random.default_rng(3)
    for _ in range(30):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in reference.action_masks()])
        want = reference.step(actions)
        for env in (resumed_batch, resumed_reference):
            got = env.step(actions)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, "larger"])
def test_a_batch_plays_snapshot_opponents_as_selfplay_vec_env(game, players, tmp_path):
    """Snapshot opponents (two snapshots, drawn per seat and episode with the pool's weights) beside native
    ones: the same draws, forward passes and sampled moves as SelfPlayVecEnv, over the first steps."""
    players = LARGER[game] if players == "larger" else players
    snapshots = snapshot_files(game, players, tmp_path)
    reference, batch = pair(
        game, players, 3, seed=2**33 + 5, reward="score", weights=SNAPSHOT_WEIGHTS, snapshots=snapshots
    )
    assert_same_transitions(reference, batch, steps=12)
    kinds = {o.kind for opponents in reference.opponents for o in opponents if o is not None}
    assert "self" in kinds
    assert [batch.batch.seat_kinds(i) for i in range(3)] == [
        [o.kind if o else "learner" for o in opponents] for opponents in reference.opponents
    ]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("larger", [False, True])
def test_a_batch_plays_snapshot_opponents_through_restarts(game, larger, tmp_path):
    """As above, through at least two finished matches."""
    players = LARGER[game] if larger else 2
    snapshots = snapshot_files(game, players, tmp_path)
    reference, batch = pair(
        game, players, 4, seed=2**33 + 5, reward="lead", weights=SNAPSHOT_WEIGHTS, snapshots=snapshots
    )
    assert_same_transitions(reference, batch, steps=3000, finished=2)


def test_snapshots_added_midway_join_the_next_matches_draws(tmp_path):
    """A pool without snapshots draws no `self` seat; a snapshot added between steps (as the trainer adds
    them at rollout starts) is drawn by the matches that start after it, in both envs alike."""
    first, second = snapshot_files("metropolys", 3, tmp_path)
    reference, batch = pair("metropolys", 3, 3, seed=12, reward="win", weights={"self": 1.0, "heuristic": 0.2})
    assert_same_transitions(reference, batch, steps=3)
    assert all(o.kind != "self" for opponents in reference.opponents for o in opponents if o is not None)
    for path in (first, second):
        reference.pool.add_snapshot(path)
        batch.pool.add_snapshot(path)
        rng = np.random.default_rng(1)
        ended = 0
        while ended < 1:
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in reference.action_masks()])
            want, got = reference.step(actions), batch.step(actions)
            for x, y in zip(want[:3], got[:3], strict=True):
                np.testing.assert_array_equal(x, y)
            ended += int(want[2].sum())
    assert unseeded(batch.get_state()) == unseeded(reference.get_state())
    assert {o["snapshot"] for slot in batch.get_state()["slots"] for o in slot["opponents"] if o} & {first, second}


def test_checkpoint_states_with_snapshot_opponents_move_between_the_envs(tmp_path):
    snapshots = snapshot_files("citadels", 3, tmp_path)
    reference, batch = pair("citadels", 3, 3, seed=4, reward="lead", weights=SNAPSHOT_WEIGHTS, snapshots=snapshots)
    assert_same_transitions(reference, batch, steps=12)
    state = reference.get_state()
    assert unseeded(batch.get_state()) == unseeded(state)
    assert any(o and o["kind"] == "self" for slot in state["slots"] for o in slot["opponents"])
    resumed_reference, resumed_batch = pair(
        "citadels", 3, 3, seed=4, reward="lead", weights=SNAPSHOT_WEIGHTS, snapshots=snapshots
    )
    np.testing.assert_array_equal(resumed_batch.set_state(state), resumed_reference.set_state(batch.get_state()))
    rng = np.random.default_rng(3)
    for _ in range(40):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in reference.action_masks()])
        want = reference.step(actions)
        for env in (resumed_batch, resumed_reference):
            got = env.step(actions)
            for x, y in zip(want[:3], got[:3], strict=True):
                np.testing.assert_array_equal(x, y)


def test_a_batch_refuses_what_it_cannot_play():
    with pytest.raises(ValueError, match="no privileged critic's observations"):
        BatchVecEnv("citadels", 2, 2, 0, OpponentPool("citadels", WEIGHTS), privileged=True)
    with pytest.raises(ValueError, match="invalid reward"):
        BatchVecEnv("citadels", 2, 2, 0, OpponentPool("citadels", WEIGHTS), reward="money")
    env = BatchVecEnv("citadels", 2, 2, 0, OpponentPool("citadels", WEIGHTS))
    with pytest.raises(ValueError, match="env state is for citadels 2p slots"):
        env.set_state({**env.get_state(), "indices": [5, 6]})


def test_the_trainer_steps_on_the_batch_by_default():
    """The default pool (snapshot opponents included) and a native one train on the batch; worker
    processes and a privileged critic on SelfPlayVecEnv."""
    for pool_self in (0.0, 0.2):
        config = make_config(game="citadels", pool_self=pool_self, n_envs=2)
        env = selfplay.make_env(config, OpponentPool("citadels", config.pool_weights()))
        assert isinstance(env.venv, BatchVecEnv)
    assert make_config(game="citadels").pool_self > 0
    for values in ({"env_workers": 2}, {"privileged_critic": True, "timesteps": 1000}):
        config = make_config(game="citadels", n_envs=2, **values)
        assert not selfplay.uses_batch(config)


@pytest.mark.slow
def test_training_on_the_batch_learns_what_selfplay_vec_env_teaches(tmp_path, monkeypatch):
    """The trainer with snapshot opponents (a snapshot every 64 steps, drawn in most seats): the same
    final parameters on BatchVecEnv as on SelfPlayVecEnv, and a run stopped and resumed on the batch
    ends as the uninterrupted one."""
    torch = pytest.importorskip("torch")
    from city_envs.training.config import TrainConfig
    from tests.training.helpers import TINY, final_parameters, whole_and_resumed

    config = TrainConfig("metropolys", timesteps=320, seed=3, pool_self=0.6, **{**TINY, "select_best": False})
    assert selfplay.uses_batch(config)
    whole, resumed, state = whole_and_resumed(config, tmp_path / "batch")
    assert state["num_timesteps"] == 128
    assert len(state["schedule"]["snapshots"]) == 2
    assert any(o and o["kind"] == "self" for slot in state["env"]["slots"] for o in slot["opponents"])
    monkeypatch.setattr(selfplay, "uses_batch", lambda config: False)
    selfplay.train(config, tmp_path / "reference", log=lambda _: None)
    reference = final_parameters(tmp_path / "reference")
    assert whole.keys() == resumed.keys() == reference.keys()
    for key in whole:
        assert torch.equal(whole[key], reference[key]), key
        assert torch.equal(resumed[key], reference[key]), key
