"""The trainer: the vector env, the pool, the warm start, checkpoints and an exact resume, the CLI path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from city_envs import cli  # noqa: E402
from city_envs.agents.policy_file import load_policy_file  # noqa: E402
from city_envs.agents.random_agent import RandomAgent  # noqa: E402
from city_envs.agents.registry import heuristic_class  # noqa: E402
from city_envs.core.registry import GAMES, make_game  # noqa: E402
from city_envs.core.settings import parse_assignments  # noqa: E402
from city_envs.training.config import TrainConfig, config_to_toml, load_config, make_config  # noqa: E402
from city_envs.training.pool import OpponentPool  # noqa: E402
from city_envs.training.pretrain import Samples, collect, fit, held_out, warm_start  # noqa: E402
from city_envs.training.selfplay import best_point, ppo_end_step, ppo_steps, time_line, train  # noqa: E402
from city_envs.training.vec_env import SelfPlayVecEnv  # noqa: E402
from tests.terminal import command, run_on_terminal, screen_lines  # noqa: E402
from tests.training.helpers import TINY, TINY_WARM, final_parameters, whole_and_resumed  # noqa: E402


def mixed_pool(game: str) -> OpponentPool:
    return OpponentPool(game, {"self": 0.0, "heuristic": 0.5, "random": 0.5})


def random_actions(env: SelfPlayVecEnv, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in env.action_masks()])


@pytest.mark.parametrize("game", GAMES)
def test_the_vector_env_serves_the_learners_decisions_of_real_matches(game):
    """Each slot's observation and mask are its match's own for the learner's seat (checked against a
    replay of the match's history), the learner rotates seats, and a finished match restarts at once."""
    env = SelfPlayVecEnv(game, 2, 3, seed=4, pool=mixed_pool(game), reward="win")
    observations = env.reset()
    rng = np.random.default_rng(0)
    finished, step = 0, 0
    while finished < 3:
        masks = env.action_masks()
        step += 1
        for i, match in enumerate(env.games):
            assert not match.is_over() and match.current_player() == env.learners[i]
            if step % 15 != 1 and len(match.history) > 40:  # replays are costly: early and every 15th step
                continue
            replay = make_game(game, 2, seed=match.seed)
            for action in match.history:
                replay.apply(action)
            np.testing.assert_array_equal(observations[i], replay.observation(env.learners[i]))
            np.testing.assert_array_equal(masks[i], replay.legal_actions())
        before = [(m, env.learners[i]) for i, m in enumerate(env.games)]
        observations, rewards, dones, infos = env.step(random_actions(env, rng))
        for i in np.flatnonzero(dones):
            match, seat = before[i]
            assert match.is_over() and rewards[i] == match.returns()[seat]
            np.testing.assert_array_equal(infos[i]["terminal_observation"], match.observation(seat))
            assert env.games[i] is not match and env.learners[i] == (env.episodes[i] - 1 + i) % 2
            finished += 1
        assert all(r == 0.0 for r, d in zip(rewards, dones, strict=True) if not d)  # reward="win": terminal only


def test_batching_changes_nothing_one_env_of_four_steps_like_a_lone_env():
    """Slot i of a 4-slot env and a 1-slot env with the same seed and slot index see the same transitions."""
    together = SelfPlayVecEnv("citadels", 3, 4, seed=9, pool=mixed_pool("citadels"), reward="score", score_scale=0.1)
    alone = [
        SelfPlayVecEnv(
            "citadels", 3, 1, seed=9, pool=mixed_pool("citadels"), reward="score", score_scale=0.1, first_index=i
        )
        for i in range(4)
    ]
    obs = together.reset()
    for i, env in enumerate(alone):
        np.testing.assert_array_equal(env.reset()[0], obs[i])
    rng = np.random.default_rng(1)
    for _ in range(150):
        actions = random_actions(together, rng)
        step = together.step(actions)
        for i, env in enumerate(alone):
            single = env.step(actions[i : i + 1])
            np.testing.assert_array_equal(single[0][0], step[0][i])
            assert (single[1][0], single[2][0]) == (step[1][i], step[2][i])
            np.testing.assert_array_equal(env.action_masks()[0], together.action_masks()[i])


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize(("reward", "rival"), [("score", np.mean), ("lead", max)])
def test_score_shaping_sums_to_the_final_margin_plus_the_outcome(reward, rival, players):
    """`score` shapes by the margin over the mean opponent, `lead` over the best one."""
    env = SelfPlayVecEnv("citadels", players, 1, seed=3, pool=mixed_pool("citadels"), reward=reward, score_scale=0.5)
    env.reset()
    rng = np.random.default_rng(2)
    total, done = 0.0, False
    while not done:
        match, seat = env.games[0], env.learners[0]
        _, rewards, dones, _ = env.step(random_actions(env, rng))
        total, done = total + float(rewards[0]), bool(dones[0])
    scores = match.scores()
    margin = scores[seat] - rival([s for i, s in enumerate(scores) if i != seat])
    assert total == pytest.approx(0.5 * margin + match.returns()[seat], abs=1e-4)
    if players > 2:  # the two kinds differ here, so the test tells them apart
        others = [s for i, s in enumerate(scores) if i != seat]
        assert max(others) != np.mean(others)


def test_the_pool_mix_decides_the_opponents():
    rng = np.random.default_rng(0)
    only_random = OpponentPool("metropolys", {"random": 1.0})
    assert {only_random.draw(rng).kind for _ in range(20)} == {"random"}
    assert isinstance(only_random.draw(rng).agent, RandomAgent)
    early = OpponentPool("metropolys", {"self": 1.0, "heuristic": 1.0})  # no snapshot yet: no "self"
    assert isinstance(early.draw(rng).agent, heuristic_class("metropolys"))
    mixed = OpponentPool("citadels", {"heuristic": 1.0, "random": 1.0})
    assert {mixed.draw(rng).kind for _ in range(40)} == {"random", "heuristic"}
    with pytest.raises(ValueError, match="unknown pool kinds"):
        OpponentPool("citadels", {"clone": 1.0})
    with pytest.raises(ValueError, match="a 'self' opponent needs a snapshot"):
        mixed.build("self", rng)


def test_env_state_round_trip_continues_identically_with_snapshot_opponents(tmp_path):
    from city_envs.agents.policy_file import build_policy, save_policy

    probe = make_game("citadels", 2, seed=0)
    snapshot = save_policy(
        build_policy(probe.observation_shape, probe.num_actions, [16]),
        tmp_path / "s.safetensors",
        game="citadels",
        players=2,
        net_arch=[16],
        activation="tanh",
    )
    pool = OpponentPool("citadels", {"self": 1.0, "random": 0.5})
    pool.add_snapshot(str(snapshot))
    env = SelfPlayVecEnv("citadels", 2, 3, seed=5, pool=pool)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(random_actions(env, rng))
    state = json.loads(json.dumps(env.get_state()))  # plain data, through JSON
    assert any(o and o["kind"] == "self" for slot in state["slots"] for o in slot["opponents"])
    twin = SelfPlayVecEnv("citadels", 2, 3, seed=5, pool=pool)
    np.testing.assert_array_equal(twin.set_state(state), env._observations())
    for _ in range(120):  # past the end of these matches, into the next ones
        actions = random_actions(env, rng)
        a, b = env.step(actions), twin.step(actions)
        for x, y in zip(a[:3], b[:3], strict=True):
            np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="env state is for"):
        SelfPlayVecEnv("citadels", 3, 3, seed=5, pool=pool).set_state(state)


def test_cloning_loss_falls_on_a_tiny_set():
    import torch.nn.functional as F

    from city_envs.agents.policy_agent import batch_logits
    from city_envs.agents.policy_file import build_policy

    config = TrainConfig("metropolys", **{**TINY_WARM, "pretrain_epochs": 8, "pretrain_lr": 3e-3})
    samples, stats = collect(config, 12, [0, 1])
    assert stats["matches"] == 12 and len(samples) == stats["samples"] > 100
    assert samples.masks[np.arange(len(samples)), samples.labels].all()  # every label is a legal action

    def cross_entropy(policy) -> float:
        logits = batch_logits(policy, samples.observations.astype(np.float32), samples.masks)
        logits = torch.as_tensor(np.where(samples.masks, logits, -1e9))
        return float(F.cross_entropy(logits, torch.as_tensor(samples.labels)))

    torch.manual_seed(0)
    policy = build_policy(samples.observations.shape[1:], samples.masks.shape[1], [64])
    before = cross_entropy(policy)
    metrics = fit(policy, samples, config, seed=0, epochs=config.pretrain_epochs)
    assert cross_entropy(policy) < 0.8 * before
    assert metrics["held_out_samples"] > 0 and 1 <= metrics["critic_epoch"] <= 8  # best held-out epoch kept


def test_a_match_held_out_in_one_round_stays_held_out_when_later_rounds_join():
    config = TrainConfig("metropolys", **TINY_WARM)
    first, _ = collect(config, 12, [0, 7, 0])
    second, _ = collect(config, 12, [0, 7, 1])
    joined = Samples.join([first, second], keep=10**9)
    held_first = set(first.matches[held_out(first.matches)].tolist())
    held_joined = set(joined.matches[held_out(joined.matches)].tolist())
    assert held_first and held_first <= held_joined  # round 0's held-out matches were never trained on
    assert set(second.matches[held_out(second.matches)].tolist()) <= held_joined
    for ids in (first.matches, joined.matches):  # about a tenth of each round's matches, every sample of them
        matches = np.unique(ids)
        assert 0 < held_out(matches).mean() <= 0.25
        assert all(held_out(ids[ids == m]).all() or not held_out(ids[ids == m]).any() for m in matches)


def test_a_label_share_asks_a_slow_teacher_about_that_share_of_the_students_decisions(monkeypatch):
    from city_envs.agents.policy_file import build_policy
    from city_envs.training import pretrain

    asked = []

    class CountingTeacher:
        def __init__(self, agent) -> None:
            self.agent = agent

        def act(self, info_set) -> int:
            asked.append(1)
            return self.agent.act(info_set)

    make_agent = pretrain.make_agent
    monkeypatch.setattr(pretrain, "make_agent", lambda *args, **kwargs: CountingTeacher(make_agent(*args, **kwargs)))
    config = TrainConfig("metropolys", **{**TINY_WARM, "dagger_label_share": 0.25})
    cloned, stats = collect(config, 4, [0, 7, 0])
    assert stats["samples"] == stats["decisions"] <= len(asked)  # the teacher's own matches: every decision
    torch.manual_seed(0)
    student = build_policy(cloned.observations.shape[1:], cloned.masks.shape[1], [32])
    asked.clear()
    samples, stats = collect(config, 12, [0, 7, 1], student)
    assert 0.15 < stats["samples"] / stats["decisions"] < 0.35 and stats["samples"] <= len(asked)
    assert len(asked) < 0.4 * stats["decisions"]
    assert samples.masks[np.arange(len(samples)), samples.labels].all()  # only real, legal labels are kept


def test_a_search_teacher_labels_the_same_in_two_threads_as_in_one(monkeypatch):
    """`teacher_threads`: the native search runs without the GIL, each match's teacher with its own
    generator, so the labels (and every sample) do not depend on the number of threads; both threads
    are used."""
    import threading

    from city_envs.training import pretrain

    threads = set()

    class RecordingTeacher:
        def __init__(self, agent) -> None:
            self.agent = agent

        def act(self, info_set) -> int:
            threads.add(threading.get_ident())
            return self.agent.act(info_set)

    make_agent = pretrain.make_agent
    monkeypatch.setattr(pretrain, "make_agent", lambda *args, **kwargs: RecordingTeacher(make_agent(*args, **kwargs)))
    runs = []
    for count in (1, 2):
        config = TrainConfig("citadels", **{**TINY_WARM, "teacher": "ismcts:iters=20", "teacher_threads": count})
        threads.clear()
        runs.append(collect(config, 6, [0, 3]))
        assert len(threads) == count
    (one, one_stats), (two, two_stats) = runs
    assert one_stats == two_stats and len(one) > 50
    for field in ("observations", "masks", "labels", "returns", "matches"):
        assert np.array_equal(getattr(one, field), getattr(two, field)), field


def test_the_warm_start_is_repeatable_and_resumes_to_the_same_files(tmp_path):
    config = TrainConfig("citadels", **TINY_WARM)
    first = warm_start(config, tmp_path / "a", log=lambda _: None)
    (tmp_path / "a" / "warm_start" / "round_1.safetensors").unlink()  # an interrupted second round
    again = warm_start(config, tmp_path / "a", log=lambda _: None)
    other = warm_start(config, tmp_path / "b", log=lambda _: None)
    assert first == again
    a, b = load_policy_file(again)[0].state_dict(), load_policy_file(other)[0].state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_resumed_warm_start_reads_its_rounds_samples_instead_of_asking_the_teacher_again(tmp_path, monkeypatch):
    from city_envs.training import pretrain

    config = TrainConfig("citadels", **TINY_WARM)
    first = warm_start(config, tmp_path, log=lambda _: None)
    folder = tmp_path / "warm_start"
    kept = {path.name for path in folder.glob("samples_*.npz")}
    assert kept == {"samples_0.npz", "samples_1.npz"}
    before = load_policy_file(first)[0].state_dict()
    (folder / "round_1.safetensors").unlink()  # an interrupted second round, its samples kept
    (folder / "samples_0.npz").write_bytes(b"not an archive")  # and a damaged file: collected again
    asked = []
    collect = pretrain.collect
    monkeypatch.setattr(pretrain, "collect", lambda *args, **kwargs: asked.append(args[1]) or collect(*args, **kwargs))
    again = warm_start(config, tmp_path, log=lambda _: None)
    assert asked == [config.bc_matches]  # round 0 only: round 1's samples were read back
    after = load_policy_file(again)[0].state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)
    samples, stats = pretrain.read_samples(folder / "samples_1.npz")
    assert len(samples) == stats["samples"] and samples.observations.dtype == np.float16


def test_dagger_rounds_train_for_their_own_number_of_epochs(tmp_path):
    config = TrainConfig("citadels", **{**TINY_WARM, "pretrain_epochs": 3, "dagger_epochs": 1})
    warm_start(config, tmp_path, log=lambda _: None)
    rounds = json.loads((tmp_path / "warm_start" / "rounds.json").read_text())
    assert [len(r["epochs"]) for r in rounds] == [3, 1]


def test_resume_after_a_stop_ends_with_the_parameters_of_an_uninterrupted_run(tmp_path):
    """320 steps in one go vs a run stopped at 192 (its last checkpoint is at 128) resumed to 320.

    The pool gets snapshots every 64 steps and plays them, so the resumed env must also restore
    policy opponents mid-match."""
    config = TrainConfig(
        "citadels",
        timesteps=320,
        seed=7,
        pool_self=0.6,
        pool_heuristic=0.2,
        pool_random=0.2,
        **{**TINY, "select_best": False},
    )
    a, b, state = whole_and_resumed(config, tmp_path)
    assert state["num_timesteps"] == 128 and len(state["schedule"]["snapshots"]) == 2
    whole, split = (json.loads((tmp_path / run / "evaluation.json").read_text()) for run in ("whole", "split"))
    assert ppo_steps(whole) == "320 steps"  # its seconds timed every step
    assert split["ppo_timed_steps"] == 320 - 128 and ppo_steps(split) == "192 of its 320 steps in this sitting"
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    fresh = TrainConfig(**{**config.__dict__, "timesteps": 64})
    train(fresh, tmp_path / "fresh", log=lambda _: None)
    assert any(not torch.equal(a[k], final_parameters(tmp_path / "fresh")[k]) for k in a)


def test_a_checkpoint_unpickles_nothing(tmp_path):
    """The run state is JSON and the tensors file loads with weights_only: a planted pickle is refused."""
    import pickle

    config = TrainConfig("citadels", timesteps=192, **{**TINY, "select_best": False})
    train(config, tmp_path / "run", log=lambda _: None)
    state = json.loads((tmp_path / "run" / "checkpoint" / "state.json").read_text())
    tensors = tmp_path / "run" / "checkpoint" / state["tensors"]

    class Payload:
        def __reduce__(self):
            return (Path.write_text, (tmp_path / "pwned", "ran"))

    tensors.write_bytes(pickle.dumps({"policy": Payload()}))
    with pytest.raises(pickle.UnpicklingError):
        train(TrainConfig(**{**config.__dict__, "timesteps": 320}), tmp_path / "run", resume=True, log=lambda _: None)
    assert not (tmp_path / "pwned").exists()


def test_bad_configs_are_refused_with_what_is_allowed(tmp_path):
    def bad(**values):
        return make_config("test", **{"game": "citadels"} | values)

    with pytest.raises(ValueError, match="reward = 'points': input should be 'win', 'score' or 'lead'"):
        bad(reward="points")
    with pytest.raises(ValueError, match="pool weights"):
        bad(pool_self=0, pool_heuristic=0, pool_random=0)
    with pytest.raises(ValueError, match="unknown config keys"):
        load_config("citadels", learning_speed=3)
    with pytest.raises(ValueError, match="needs dagger_rounds >= 1"):
        bad(init_from="x.safetensors", dagger_rounds=0)
    with pytest.raises(ValueError, match="supports"):
        bad(players=9)
    with pytest.raises(ValueError, match="pretrain = 'false': input should be a valid boolean"):
        bad(pretrain="false")
    for share in (0, 1.5):
        with pytest.raises(ValueError, match=f"dagger_label_share = {share}: input should be"):
            bad(dagger_label_share=share)
    with pytest.raises(ValueError, match="net_arch"):
        bad(net_arch=[64, -1])
    with pytest.raises(ValueError, match="set select_best = false"):
        bad(timesteps=10**6, average_last=3)
    with pytest.raises(ValueError, match="0 \\(off\\) or >= 2"):
        bad(timesteps=10**6, average_last=1, select_best=False)
    (tmp_path / "bad.toml").write_text("players = [")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config("citadels", tmp_path / "bad.toml")


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_config_that_round_trips_through_toml(game, tmp_path):
    config = load_config(game)
    path = tmp_path / "c.toml"
    path.write_text(config_to_toml(config))
    assert load_config(game, path) == config


def test_set_values_are_read_as_the_config_files_write_them():
    """`--set` takes TOML values (what a user copies from a config file), Python literals, or text."""
    values = parse_assignments(
        [
            "pretrain=true",
            "select_best=false",
            "learning_rate=1e-4",
            "timesteps=1_200_000",
            "net_arch={pi = [64], vf = [32]}",
            "entity_head={hidden=[128]}",
            "reward=win",
            "teacher=ismcts:iters=50",
            "init_from=runs/a b/model.safetensors",
            "select_best=True",
        ],
        "--set",
    )
    assert values == {
        "pretrain": True,
        "select_best": True,
        "learning_rate": 1e-4,
        "timesteps": 1_200_000,
        "net_arch": {"pi": [64], "vf": [32]},
        "entity_head": {"hidden": [128]},
        "reward": "win",
        "teacher": "ismcts:iters=50",
        "init_from": "runs/a b/model.safetensors",
    }
    overrides = parse_assignments(["pretrain=false", "timesteps=64", "select_best=false"], "--set")
    config = load_config("metropolys", **overrides)
    assert (config.pretrain, config.timesteps, config.select_best) == (False, 64, False)
    with pytest.raises(ValueError, match="--set 'pretrain' is not of the form KEY=VALUE"):
        parse_assignments(["pretrain"], "--set")


def test_every_committed_config_is_valid_for_the_game_it_names():
    """training/configs/<game>[_variant].toml: each loads and validates (a bad key or value would raise)."""
    paths = sorted((Path(__file__).resolve().parents[2] / "training" / "configs").glob("*.toml"))
    assert {p.stem for p in paths} >= set(GAMES)
    for path in paths:
        game = next(g for g in GAMES if path.stem == g or path.stem.startswith(g + "_"))
        assert load_config(game, path).game == game


def test_a_new_run_refuses_a_directory_that_holds_one(tmp_path):
    config = TrainConfig("metropolys", timesteps=64, **TINY)
    train(config, tmp_path, log=lambda _: None)
    with pytest.raises(ValueError, match="--resume"):
        train(config, tmp_path, log=lambda _: None)


def test_the_average_of_the_last_ppo_points_becomes_the_model(tmp_path, monkeypatch):
    from city_envs.training import selfplay
    from city_envs.training.evaluation import curve_row

    def quick_point(config, path, stage, step, started):  # the curve's matches are tested elsewhere
        results = {"random": {"games": 2, "win_rate": 1.0, "ci95": [0.34, 1.0]}}
        return {**curve_row(stage, step, 0.0, results), "policy": str(path)}

    monkeypatch.setattr(selfplay, "_evaluate_point", quick_point)
    config = TrainConfig(
        "citadels",
        timesteps=192,
        **{**TINY, "eval_every": 64, "eval_games": 2, "select_best": False, "average_last": 2},
    )
    summary = train(config, tmp_path, log=lambda _: None)
    assert summary["selected"]["stage"] == "average" and summary["selected"]["step"] == 192
    stages = [line.split(",")[0] for line in (tmp_path / "curve.csv").read_text().splitlines()[1:]]
    assert stages[-1] == "average" and stages.count("ppo") == 3
    last_two = [
        load_policy_file(tmp_path / "snapshots" / "eval_000000128.safetensors")[0].state_dict(),
        load_policy_file(tmp_path / "ppo.safetensors")[0].state_dict(),
    ]
    model = final_parameters(tmp_path)
    assert not torch.equal(last_two[0]["action_net.weight"], last_two[1]["action_net.weight"])
    for name, tensor in model.items():
        torch.testing.assert_close(tensor, (last_two[0][name] + last_two[1][name]) / 2)
    # with no PPO points to average (a warm start only), the last round is the model
    warm = TrainConfig("citadels", **{**TINY_WARM, "select_best": False, "average_last": 2})
    summary = train(warm, tmp_path / "warm", log=lambda _: None)
    assert "selected" not in summary
    assert (tmp_path / "warm" / "model.safetensors").read_bytes() == (
        tmp_path / "warm" / "warm_start" / "round_1.safetensors"
    ).read_bytes()


def test_a_baseline_is_published_only_on_an_evaluation_without_failed_matches(tmp_path, monkeypatch):
    from city_envs.agents import policy_agent
    from city_envs.training import selfplay

    train(TrainConfig("citadels", timesteps=64, **TINY), tmp_path / "run", log=lambda _: None)
    folder = tmp_path / "baselines"
    monkeypatch.setattr(policy_agent, "baseline_stem", lambda game, players: folder / f"{game}_{players}p")
    evaluate_model = selfplay.evaluate_model
    monkeypatch.setattr(
        selfplay,
        "evaluate_model",  # as when worker processes cannot start
        lambda *args, **kwargs: {"random": {"games": 4, "win_rate": 0.0, "failures": 4}},
    )
    with pytest.raises(RuntimeError, match="nothing published"):
        selfplay.publish_baseline(tmp_path / "run", games=4)
    assert not folder.exists()
    monkeypatch.setattr(selfplay, "evaluate_model", evaluate_model)
    record = selfplay.publish_baseline(tmp_path / "run", games=4)
    assert record["evaluation"]["random"]["games"] == 4 and record["eval_seed"] == 1000
    assert json.loads((folder / "citadels_2p.json").read_text()) == json.loads(json.dumps(record))
    stored = folder / "policies" / f"{record['policy']}.safetensors"
    assert stored.read_bytes() == (tmp_path / "run" / "model.safetensors").read_bytes()


def test_the_best_evaluated_point_becomes_the_model(tmp_path):
    files = [tmp_path / f"{k}.safetensors" for k in range(3)]  # stand-ins: only their existence matters
    for f in files[:2]:
        f.write_bytes(b"")
    curve = [
        {"stage": "clone", "step": 0, "win_rate_vs_heuristic": 0.3, "win_rate_vs_random": 1.0, "policy": str(files[0])},
        {
            "stage": "dagger 1",
            "step": 0,
            "win_rate_vs_heuristic": 0.35,
            "win_rate_vs_random": 0.8,
            "policy": str(files[1]),
        },  # luckier against the heuristic, weak against random play
        {"stage": "ppo", "step": 128, "win_rate_vs_heuristic": 0.9, "win_rate_vs_random": 1.0, "policy": str(files[2])},
    ]  # its file is gone
    assert best_point(curve)["stage"] == "clone"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_warm_starts_trains_and_evaluates_with_no_game_code(game, tmp_path):
    config = TrainConfig(game, timesteps=64, **{**TINY_WARM, "final_eval_games": 2, "eval_games": 2})
    summary = train(config, tmp_path, log=lambda _: None)
    assert set(summary["evaluation"]) == {"random", "heuristic"}
    for result in summary["evaluation"].values():
        assert result["games"] == 2 and result["failures"] == 0
    curve = (tmp_path / "curve.csv").read_text().splitlines()
    assert curve[0].startswith("stage,step,seconds,win_rate_vs_random") and len(curve) == 4  # clone, dagger, ppo
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000


def test_cli_smoke_train_resume_init_from_evaluate_and_play(tmp_path, capsys):
    """The whole path: warm start + PPO, resume further, PPO from a given file, evaluate, play."""
    out = tmp_path / "run"
    flags = [f"--set={k}={v}" for k, v in TINY_WARM.items() if k not in ("net_arch", "pretrain")]
    assert cli.main(["train", "citadels", "--timesteps", "192", "--out", str(out), *flags]) == 0
    assert (out / "checkpoint" / "state.json").exists() and (out / "logs" / "part_1" / "progress.csv").exists()
    assert cli.main(["train", "citadels", "--resume", "--timesteps", "320", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "of its 320 steps in this sitting at" in text and "warm start: all 2 rounds kept" in text
    assert "\x1b" not in text  # output that is not a terminal gets no progress bars
    assert json.loads((out / "evaluation.json").read_text())["timesteps"] == 320
    model = out / "model.safetensors"
    assert model.stat().st_size < 5_000_000
    assert (
        cli.main(
            [
                "train",
                "citadels",
                "--init-from",
                str(model),
                "--timesteps",
                "64",
                "--out",
                str(tmp_path / "tuned"),
                *flags,
            ]
        )
        == 0
    )
    code = cli.main(["evaluate", "citadels", "--players", "2", "--agents", f"ppo:{model},random", "--games", "4"])
    assert code == 0 and f"ppo:{model}" in capsys.readouterr().out
    code = cli.main(["play", "citadels", "--players", "2", "--seats", f"ppo:{model},heuristic", "--quiet"])
    assert code == 0 and "final scores:" in capsys.readouterr().out
    assert (
        cli.main(
            ["train", "citadels", "--fresh", "--timesteps", "64", "--out", str(out), *flags, "--set=dagger_rounds=0"]
        )
        == 0
    )
    assert json.loads((out / "evaluation.json").read_text())["timesteps"] == 64
    assert not (out / "logs" / "part_2").exists()


def test_ppo_runs_whole_rollouts_so_its_bar_counts_to_the_rollout_boundary():
    assert ppo_end_step(0, 2048, 512 * 8) == 4096  # the run: --timesteps 2048, rollouts of 512 x 8 envs
    assert ppo_end_step(0, 4096, 4096) == 4096 and ppo_end_step(4096, 6000, 1024) == 6144
    assert ppo_end_step(8192, 4096, 4096) == 8192  # a resumed run already past its target runs no rollout


def test_train_on_a_terminal_shows_every_stage_and_closes_with_what_took_how_long(tmp_path):
    """Warm-start matches and epochs, the evaluations, PPO counting to its rollout boundary (never past
    it), the final evaluation (the PPO bar gone), then the whole time split by stage."""
    flags = [
        f"--set={k}={v}"
        for k, v in {**TINY_WARM, "eval_games": 2, "final_eval_games": 6}.items()
        if k not in ("net_arch", "pretrain")
    ]
    code, written = run_on_terminal(
        command("train", "citadels", "--players", "2", "--timesteps", "100", "--out", str(tmp_path / "run"), *flags)
    )
    lines = screen_lines(written)
    assert code == 0, written
    for bar in (
        "warm start round 0: teacher plays",
        "warm start round 1: fitting",
        "evaluation of the clone",
        "PPO to 128 (rollouts of 64)",
        "final evaluation",
    ):
        assert any(line.startswith(bar) and " left" in line for line in lines), (bar, lines)
    counts = [tuple(map(int, m)) for m in re.findall(r"(\d+)/(\d+) steps", "\n".join(lines))]
    assert counts and all(total == 128 and done <= total for done, total in counts), counts
    final = next(i for i, line in enumerate(lines) if line.startswith("final evaluation") and "matches" in line)
    assert not any(line.startswith("PPO") for line in lines[final:]), lines[final:]
    took = r"(?:\d+ min \d\d|\d+) s"  # "18 s", or "1 min 00 s" on a loaded machine
    assert re.fullmatch(
        rf"trained citadels 2p in {took}: warm start {took}, evaluations of its rounds {took}, PPO {took} "
        rf"\(128 steps at [\d,]+ env steps/s\), final evaluation {took}; model: .*model\.safetensors",
        lines[-1],
    ), lines[-1]


def test_the_closing_line_names_only_the_stages_that_ran():
    summary = {
        "game": "citadels",
        "players": 2,
        "model": "runs/x/model.safetensors",
        "total_seconds": 166.0,
        "ppo_seconds": 18.2,
        "timesteps": 4096,
        "ppo_steps_per_s": 225.1,
        "final_evaluation_seconds": 147.8,
    }
    assert time_line(summary) == (
        "trained citadels 2p in 2 min 46 s: PPO 18 s (4,096 steps at 225 env steps/s), "
        "final evaluation 2 min 28 s; model: runs/x/model.safetensors"
    )
    resumed = {**summary, "timesteps": 8192, "ppo_timed_steps": 4096}  # the seconds are the last sitting's
    assert "PPO 18 s (4,096 of its 8,192 steps in this sitting at 225 env steps/s)" in time_line(resumed)


def test_fresh_never_deletes_a_directory_that_is_not_a_run(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("keep me")
    assert cli.main(["train", "citadels", "--fresh", "--out", str(tmp_path)]) == 2
    assert "does not hold a training run" in capsys.readouterr().err
    assert (tmp_path / "notes.txt").exists()


@pytest.mark.slow
def test_a_short_citadels_warm_start_beats_random_play(tmp_path):
    """Learning quality: the cloned and DAgger-trained policy clearly beats random play."""
    config = load_config(
        "citadels", bc_matches=300, dagger_rounds=1, dagger_matches=200, timesteps=0, eval_games=0, final_eval_games=100
    )
    summary = train(config, tmp_path, log=lambda _: None)
    assert summary["evaluation"]["random"]["ci95"][0] >= 0.8
