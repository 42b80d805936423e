"""Tianshou recipe: every game trains one short epoch of masked DQN (one seat) against masked random seats
through Tianshou's PettingZooEnv and multi-agent policy manager; the env raises on any illegal action
(its default), so every exploratory and greedy choice respected the mask."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("torch")
pytest.importorskip("tianshou")

import torch  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402

import city_envs  # noqa: E402
from city_envs.integrations.tianshou import dqn_against_random, tianshou_env  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


# The default suite (and CI) trains two configurations; the other games run with -m slow.
IN_DEFAULT_SUITE = {("metropolys", 2), ("citadels", 4)}
CONFIGS = [
    pytest.param(name, n, id=f"{name}-{n}p", marks=[] if (name, n) in IN_DEFAULT_SUITE else [pytest.mark.slow])
    for name, n in [(name, 2) for name in city_envs.GAMES] + [("citadels", 4)]
]


@pytest.mark.parametrize(("name", "num_players"), CONFIGS)
def test_masked_dqn_epoch(name, num_players):
    torch.manual_seed(0)
    np.random.seed(0)
    algorithm = dqn_against_random(name, num_players, hidden=(64,), target_update_freq=50)
    train_envs = DummyVectorEnv([lambda: tianshou_env(name, num_players) for _ in range(2)])
    train_envs.seed(0)
    train_collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(2000, len(train_envs)), exploration_noise=True
    )
    train_collector.reset()
    train_collector.collect(n_step=64)
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=None,  # an untrained greedy seat can drag a match on; evaluation is the arena's job
            max_epochs=1,
            epoch_num_steps=200,
            collection_step_num_env_steps=20,
            batch_size=32,
            update_step_num_gradient_steps_per_sample=0.1,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda returns: returns[:, 0],
        )
    )
    assert result.train_step >= 200 and result.update_step > 0


def test_bad_learner_seat():
    with pytest.raises(ValueError, match="learner_seat"):
        dqn_against_random("big_city", 2, learner_seat=2)


def test_dqn_checkpoints_play_as_agents_in_the_arena(tmp_path):
    """The benchmark's Tianshou plug-in: Q-networks saved at each step count, played by QNetworkAgent."""
    from city_envs.evaluation import evaluate
    from city_envs.integrations.tianshou import QNetworkAgent, train_dqn

    paths = train_dqn(
        "metropolys", 2, 0, [40, 80], tmp_path, hidden=(16,), envs=1, buffer_size=500, steps_per_collect=20
    )
    assert [p.name for p in paths] == ["q_000000040.safetensors", "q_000000080.safetensors"]
    spec = f"city_envs.integrations.tianshou:QNetworkAgent:path={paths[-1]}"
    result = evaluate("metropolys", 2, [spec, "random"], games=2, seed=0)
    assert result["failures"] == [] and result["agents"][spec]["appearances"] == 2
    with pytest.raises(ValueError, match="is a Q-network for metropolys with 2 players, not citadels"):
        QNetworkAgent(path=str(paths[-1])).prepare(_handle("citadels"))
    with pytest.raises(ValueError, match="needs path=FILE"):
        QNetworkAgent(path=str(tmp_path / "missing.safetensors"))


def _handle(game: str):
    from city_envs.core.infoset import InfoSet

    return InfoSet(city_envs.make_game(game, 2, seed=0), 0)


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_the_dqn_seat_sees_only_its_own_turns(name):
    """`train_dqn`'s env: every observation is the learner's, at one of its turns, with its legal actions
    as the mask (so a transition runs from one of its turns to the next, never to an opponent's)."""
    from city_envs.integrations.tianshou import masked_seat_env

    env = masked_seat_env(name, 2)
    rng = np.random.default_rng(0)
    observation, info = env.reset(seed=0)
    seats, over = set(), False
    for _ in range(300):
        game, seat = env.unwrapped.game, env.unwrapped.seat
        if over:
            assert not observation["mask"].any()
            observation, info = env.reset()
            over = False
            continue
        seats.add(seat)
        assert game.current_player() == seat
        assert np.array_equal(observation["mask"], game.legal_actions())
        assert np.array_equal(observation["obs"], game.observation(seat))
        legal = np.flatnonzero(observation["mask"])
        observation, _, terminated, truncated, info = env.step(int(rng.choice(legal)))
        over = terminated or truncated
    for seed in range(1, 11):
        env.reset(seed=seed)
        seats.add(env.unwrapped.seat)
    assert seats == {0, 1}  # the seat is drawn for every match


def test_a_finished_calls_networks_are_found_again_and_the_benchmark_trains_no_seed_twice(tmp_path, monkeypatch):
    """`saved_networks` finds every network of a finished `train_dqn` call, and nothing else; the benchmark's
    `tianshou_dqn` plug-in then returns them without training (a seed stopped while it was being scored)."""
    import shutil
    from types import SimpleNamespace

    import city_envs.integrations.tianshou as plugin
    from city_envs.evaluation.suite import load_suite
    from city_envs.training.algorithms import TrainRequest, tianshou_dqn

    folder = tmp_path / "seed_0" / "train"
    paths = plugin.train_dqn("metropolys", 2, 0, [40, 80], folder, envs=1, buffer_size=500, steps_per_collect=20)
    assert plugin.saved_networks("metropolys", 2, [40, 80], folder) == paths
    for other in [
        ("metropolys", 2, [40, 80, 120], folder, (256, 256)),  # a step never saved
        ("citadels", 2, [40, 80], folder, (256, 256)),
        ("metropolys", 3, [40, 80], folder, (256, 256)),
        ("metropolys", 2, [40, 80], folder, (16,)),
    ]:
        assert plugin.saved_networks(*other) is None, other
    shutil.copyfile(paths[0], folder / "q_000000060.safetensors")  # saved at 40 steps, named 60
    assert plugin.saved_networks("metropolys", 2, [60, 80], folder) is None
    changed = SimpleNamespace(observation_shape=(3,), num_actions=plugin.masked_seat_env("metropolys", 2).num_actions)
    with monkeypatch.context() as patch:  # the game's observation is no longer what they were saved for
        patch.setattr(plugin, "masked_seat_env", lambda *_: changed)
        assert plugin.saved_networks("metropolys", 2, [40, 80], folder) is None

    calls = []
    monkeypatch.setattr(plugin, "train_dqn", lambda *args, **kwargs: calls.append(args) or paths)
    request = TrainRequest(load_suite("v1-lite").task("metropolys:2"), 0, 80, tmp_path / "seed_0", (40, 80))
    specs = tianshou_dqn(request)
    assert calls == [] and specs == [(40, f"{plugin.__name__}:QNetworkAgent:path={paths[0]}"), (80, specs[1][1])]
    whole = paths[1].read_bytes()
    paths[1].write_bytes(whole[: len(whole) // 2])  # the last network cut short: the seed trains again
    assert plugin.saved_networks("metropolys", 2, [40, 80], folder) is None
    tianshou_dqn(request)
    assert calls == [("metropolys", 2, 0, [40, 80], folder)]


def _transitions(rng: np.random.Generator, count: int, nan_at: int | None):
    from tianshou.data import Batch

    obs = {"obs": rng.random((count, 3), dtype=np.float32), "mask": np.ones((count, 2), dtype=bool)}
    rew = rng.random(count)
    if nan_at is not None:
        rew[nan_at] = np.nan
    return Batch(
        obs=obs,
        act=rng.integers(0, 2, count),
        rew=rew,
        terminated=rng.random(count) < 0.2,
        truncated=np.zeros(count, dtype=bool),
        obs_next=obs,
        info=Batch(),
    )


@given(
    collections=st.lists(st.integers(1, 9), min_size=1, max_size=12),
    nan_step=st.none() | st.integers(0, 60),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=60, deadline=None)
def test_the_new_entries_null_check_stops_training_where_the_whole_buffer_scan_does(collections, nan_step, seed):
    """Collections of `adds` steps of 2 envs into a buffer that wraps: after each, both checks answer
    alike until the first NaN is found (where the trainer stops)."""
    from city_envs.integrations.tianshou import NewEntriesNullCheck

    stock, checked = VectorReplayBuffer(16, 2), NewEntriesNullCheck(16, 2)
    rng, step = np.random.default_rng(seed), 0
    for adds in collections:
        for _ in range(adds):
            nan_at = 1 if step == nan_step else None
            batch = _transitions(rng, 2, nan_at)
            assert np.array_equal(stock.add(batch)[0], checked.add(batch)[0])
            step += 1
        found = stock.hasnull()
        assert checked.hasnull() == found
        if found:
            return


def test_train_dqn_learns_the_same_networks_as_with_the_stock_buffer(tmp_path, monkeypatch):
    """The null check changes what the trainer scans, nothing it learns: bit-identical Q-networks from
    a run whose buffer wraps several times."""
    from safetensors.torch import load_file

    import city_envs.integrations.tianshou as plugin

    run = dict(hidden=(16,), envs=2, buffer_size=200, steps_per_collect=50)
    ours = plugin.train_dqn("metropolys", 2, 3, [300, 600], tmp_path / "ours", **run)
    monkeypatch.setattr(plugin, "NewEntriesNullCheck", VectorReplayBuffer)
    stock = plugin.train_dqn("metropolys", 2, 3, [300, 600], tmp_path / "stock", **run)
    for mine, theirs in zip(ours, stock, strict=True):
        a, b = load_file(str(mine)), load_file(str(theirs))
        assert a.keys() == b.keys() and all(torch.equal(a[key], b[key]) for key in a)
