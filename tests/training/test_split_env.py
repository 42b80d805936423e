"""The env split over worker processes (`training/split_env.py`): the same transitions as one process,
states that move between worker counts, a worker's failure as one error, and no process left behind."""

from __future__ import annotations

import json
import os
import signal
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from city_envs.agents.policy_file import build_policy, save_policy  # noqa: E402
from city_envs.core.registry import make_game  # noqa: E402
from city_envs.training.config import TrainConfig, make_config  # noqa: E402
from city_envs.training.pool import OpponentPool  # noqa: E402
from city_envs.training.selfplay import train  # noqa: E402
from city_envs.training.split_env import EnvWorkerError, SplitVecEnv, slot_ranges  # noqa: E402
from city_envs.training.vec_env import SelfPlayVecEnv  # noqa: E402
from tests.training.helpers import TINY, final_parameters  # noqa: E402

WEIGHTS = {"self": 1.0, "heuristic": 1.0, "random": 1.0}


@contextmanager
def deadline(seconds: int):
    """Fail instead of hanging: SIGALRM raises in the main thread after `seconds`."""

    def expire(*_):
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def snapshots(game: str, players: int, folder: Path, count: int) -> list[str]:
    probe = make_game(game, players, seed=0)
    return [
        str(
            save_policy(
                build_policy(probe.observation_shape, probe.num_actions, [16]),
                folder / f"{game}_{k}.safetensors",
                game=game,
                players=players,
                net_arch=[16],
                activation="tanh",
            )
        )
        for k in range(count)
    ]


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])


def assert_same_step(a: tuple, b: tuple) -> None:
    for x, y in zip(a[:3], b[:3], strict=True):
        np.testing.assert_array_equal(x, y)
    for left, right in zip(a[3], b[3], strict=True):
        assert left.keys() == right.keys()
        for key in left:
            np.testing.assert_array_equal(left[key], right[key])


@pytest.mark.parametrize(
    ("game", "players", "steps", "ends"),
    [
        ("metropolys", 4, 140, True),  # long enough for several matches to end and restart
        ("citadels", 4, 50, False),
        ("blue_moon_city", 4, 50, False),
        ("big_city", 4, 50, False),
        ("urban_sprawl", 3, 20, False),
    ],
)
def test_two_workers_step_exactly_like_one_process(game, players, steps, ends, tmp_path, monkeypatch):
    """Observations, rewards, dones, infos and masks, step for step, with heuristic, random and snapshot
    opponents (a second snapshot joins the pool after the reset, as the trainer adds them); then the
    states. Where matches end, the restarted ones also play the second snapshot. The snapshots' forward
    passes are the same batches, row for row (a row's logits differ in the last bits between batch sizes)."""
    from city_envs.training import split_env, vec_env

    batches: dict[str, list] = {"one": [], "split": []}

    def recorded(name, evaluate):
        def wrapper(request):
            batches[name].append(sorted((s, o.tobytes(), m.tobytes()) for s, (o, m) in request.items()))
            return evaluate(request)

        return wrapper

    monkeypatch.setattr(vec_env, "snapshot_logits", recorded("one", vec_env.snapshot_logits))
    monkeypatch.setattr(split_env, "snapshot_logits", recorded("split", split_env.snapshot_logits))
    first, second = snapshots(game, players, tmp_path, 2)
    pools = [OpponentPool(game, WEIGHTS), OpponentPool(game, WEIGHTS)]
    for pool in pools:
        pool.add_snapshot(first)
    one = SelfPlayVecEnv(game, players, 4, seed=3, pool=pools[0], reward="lead", score_scale=0.1)
    split = SplitVecEnv(game, players, 4, seed=3, pool=pools[1], reward="lead", score_scale=0.1, workers=2)
    try:
        with deadline(600):
            np.testing.assert_array_equal(one.reset(), split.reset())
            for pool in pools:
                pool.add_snapshot(second)
            rng = np.random.default_rng(0)
            kinds, finished = set(), 0
            for _ in range(steps):
                masks = one.action_masks()
                np.testing.assert_array_equal(masks, split.action_masks())
                np.testing.assert_array_equal(split.env_method("action_masks", indices=[3])[0], masks[3])
                actions = random_actions(masks, rng)
                transition = one.step(actions)
                assert_same_step(transition, split.step(actions))
                finished += int(transition[2].sum())
                kinds |= {(o.kind, o.snapshot) for slot in one.opponents for o in slot if o}
            assert json.dumps(one.get_state()) == json.dumps(split.get_state())
    finally:
        split.close()
    assert {("heuristic", None), ("random", None), ("self", first)} <= kinds
    assert batches["one"] and batches["one"] == batches["split"]
    if ends:
        assert finished >= 4 and ("self", second) in kinds


def test_a_state_moves_between_worker_counts(tmp_path):
    """One process's state resumes with 3 workers, whose state resumes in one process: the same future."""
    [snapshot] = snapshots("metropolys", 4, tmp_path, 1)
    pool = OpponentPool("metropolys", WEIGHTS)
    pool.add_snapshot(snapshot)
    one = SelfPlayVecEnv("metropolys", 4, 4, seed=8, pool=pool, reward="score", score_scale=0.1)
    one.reset()
    rng = np.random.default_rng(1)
    for _ in range(15):
        one.step(random_actions(one.action_masks(), rng))
    split = SplitVecEnv("metropolys", 4, 4, seed=8, pool=pool, reward="score", score_scale=0.1, workers=3)
    try:
        with deadline(600):
            assert [len(r) for r in split.ranges] == [2, 1, 1]
            np.testing.assert_array_equal(split.set_state(json.loads(json.dumps(one.get_state()))), one._observations())
            for _ in range(40):
                np.testing.assert_array_equal(one.action_masks(), split.action_masks())
                actions = random_actions(one.action_masks(), rng)
                assert_same_step(one.step(actions), split.step(actions))
            back = SelfPlayVecEnv("metropolys", 4, 4, seed=8, pool=pool, reward="score", score_scale=0.1)
            np.testing.assert_array_equal(
                back.set_state(json.loads(json.dumps(split.get_state()))), one._observations()
            )
            for _ in range(40):
                actions = random_actions(one.action_masks(), rng)
                assert_same_step(one.step(actions), back.step(actions))
            with pytest.raises(ValueError, match="env state is for metropolys 4p slots"):
                split.set_state(SelfPlayVecEnv("metropolys", 4, 3, seed=8, pool=pool).get_state())
    finally:
        split.close()


def test_a_killed_worker_is_one_clear_error_and_close_leaves_no_process(tmp_path):
    split = SplitVecEnv("citadels", 2, 3, seed=0, pool=OpponentPool("citadels", WEIGHTS), workers=2)
    try:
        with deadline(120):
            split.reset()
            os.kill(split.processes[1].pid, signal.SIGKILL)
            with pytest.raises(EnvWorkerError, match=r"env worker 1 \(slots 2-2, pid \d+\) died"):
                split.step(random_actions(split.action_masks(), np.random.default_rng(0)))
            with pytest.raises(EnvWorkerError, match="an env worker failed before"):
                split.reset()
    finally:
        split.close()
    assert all(not p.is_alive() and p.exitcode is not None for p in split.processes)


def test_a_workers_exception_comes_back_with_its_traceback_and_close_ends_every_worker(tmp_path):
    """A snapshot file gone before the workers draw their opponents fails in a worker, not the main process."""
    [snapshot] = snapshots("citadels", 2, tmp_path, 1)
    pool = OpponentPool("citadels", {"self": 1.0})
    pool.add_snapshot(snapshot)
    split = SplitVecEnv("citadels", 2, 2, seed=0, pool=pool, workers=2)
    Path(snapshot).unlink()
    try:
        failed = r"env worker [01] \(slots ([01])-\1, pid \d+\) failed: .*no policy file"  # whichever reads first
        with deadline(120), pytest.raises(EnvWorkerError, match=failed):
            split.reset()
    finally:
        split.close()
    assert all(not p.is_alive() for p in split.processes)
    with pytest.raises(EnvWorkerError, match="closed"):
        split.reset()


def test_a_split_env_closes_its_workers_and_refuses_bad_counts():
    split = SplitVecEnv("citadels", 2, 2, seed=0, pool=OpponentPool("citadels", WEIGHTS), workers=2)
    assert all(p.is_alive() for p in split.processes)
    split.close()
    split.close()  # twice is harmless
    assert all(not p.is_alive() and p.exitcode == 0 for p in split.processes)
    assert slot_ranges(7, 3) == [range(0, 3), range(3, 5), range(5, 7)]
    for bad in (0, 3, True, 1.5):
        with pytest.raises(ValueError, match=r"env workers must be an integer from 1 to n_envs \(2\)"):
            SplitVecEnv("citadels", 2, 2, seed=0, pool=OpponentPool("citadels", WEIGHTS), workers=bad)


def test_the_env_workers_key_is_checked():
    assert make_config(game="citadels").env_workers == 1
    with pytest.raises(ValueError, match=r"env_workers = 0: input should be greater than or equal to 1"):
        make_config(game="citadels", env_workers=0)
    with pytest.raises(ValueError, match=r"env_workers = 5 is more processes than matches \(n_envs = 4\)"):
        make_config(game="citadels", n_envs=4, env_workers=5)
    with pytest.raises(ValueError, match="env_workers = '2'"):
        make_config(game="citadels", env_workers="2")


def test_training_with_two_workers_and_resuming_with_one_ends_as_one_process_does(tmp_path):
    """PPO in one process vs the same run on 2 workers (of 2 and 1 matches) stopped at 192 steps and resumed
    on 1 worker from its checkpoint at 96: the same parameters (snapshot opponents play from step 96)."""
    torch.use_deterministic_algorithms(True)
    config = TrainConfig(
        "citadels",
        timesteps=288,
        seed=7,
        pool_self=0.6,
        pool_heuristic=0.2,
        pool_random=0.2,
        **{**TINY, "n_envs": 3, "checkpoint_every": 96, "select_best": False},
    )
    train(config, tmp_path / "one", log=lambda _: None)
    two = TrainConfig(**{**config.__dict__, "env_workers": 2, "timesteps": 192})
    train(two, tmp_path / "split", log=lambda _: None)
    state = json.loads((tmp_path / "split" / "checkpoint" / "state.json").read_text())
    assert state["num_timesteps"] == 96 and len(state["schedule"]["snapshots"]) == 1
    (tmp_path / "split" / "model.safetensors").unlink()
    train(config, tmp_path / "split", resume=True, log=lambda _: None)
    a, b = final_parameters(tmp_path / "one"), final_parameters(tmp_path / "split")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
