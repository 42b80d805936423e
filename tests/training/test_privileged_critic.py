"""The privileged critic: its input holds every hand and nothing of the deck order, the actor never
reads it, policy files keep it (and still play from the seat's observation), configs and resumes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

from city_envs import cli, make_game  # noqa: E402
from city_envs.agents.base import play_game  # noqa: E402
from city_envs.agents.policy_agent import PolicyAgent, baseline_path, batch_logits  # noqa: E402
from city_envs.agents.policy_file import (  # noqa: E402
    PolicyFileError,
    build_policy,
    critic_observation,
    load_policy_file,
    read_metadata,
    save_policy,
)
from city_envs.agents.privileged_policy import PrivilegedEntityActorCriticPolicy, widen_critic  # noqa: E402
from city_envs.agents.random_agent import RandomAgent  # noqa: E402
from city_envs.core.infoset import InfoSet  # noqa: E402
from city_envs.core.privileged import all_seats_observation, all_seats_size  # noqa: E402
from city_envs.core.registry import GAMES, game_class  # noqa: E402
from city_envs.training.config import TrainConfig, load_config, make_config  # noqa: E402
from city_envs.training.pool import OpponentPool  # noqa: E402
from city_envs.training.selfplay import train  # noqa: E402
from city_envs.training.vec_env import SelfPlayVecEnv  # noqa: E402
from tests.training.helpers import TINY, TINY_WARM, whole_and_resumed  # noqa: E402

# the trainer's tiny configs, keeping the last PPO point (no evaluations to choose from)
QUICK = {**TINY, "select_best": False}
QUICK_WARM = {**TINY_WARM, "select_best": False}
ARCH = {"pi": [32], "vf": [24]}


def played(game: str, players: int, moves: int, seed: int = 3):
    match = make_game(game, players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if match.is_over():
            break
        match.apply(int(rng.choice(np.flatnonzero(match.legal_actions()))))
    return match


def privileged_policy(game: str = "citadels", players: int = 3, entity: bool = False, seed: int = 0):
    probe = make_game(game, players, seed=0)
    head = TrainConfig(game, entity_head={"hidden": [16]}).entity_head_spec() if entity else None
    torch.manual_seed(seed)
    return build_policy(probe.observation_shape, probe.num_actions, ARCH, "tanh", head, all_seats_size(probe))


# ----- the critic's input -----------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_the_training_env_hands_the_learner_every_seats_observation_from_its_own(game):
    """The privileged env is the plain env (same transitions) whose observations are every seat's,
    rotated to the learner's; its first block is the learner's own observation."""
    pool = OpponentPool(game, {"heuristic": 0.5, "random": 0.5})
    privileged = SelfPlayVecEnv(game, 3, 2, seed=4, pool=pool, reward="score", score_scale=0.1, privileged=True)
    plain = SelfPlayVecEnv(game, 3, 2, seed=4, pool=pool, reward="score", score_scale=0.1)
    size = int(np.prod(privileged.games[0].observation_shape))
    assert privileged.observation_space.shape == (3 * size,)
    wide, narrow = privileged.reset(), plain.reset()
    rng = np.random.default_rng(0)
    for step in range(40):
        np.testing.assert_array_equal(wide[:, :size], narrow)
        for i, match in enumerate(privileged.games):
            learner = privileged.learners[i]
            blocks = [match.observation((learner + k) % 3).ravel() for k in range(3)]
            np.testing.assert_array_equal(wide[i], np.concatenate(blocks))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in plain.action_masks()])
        (wide, rewards, dones, infos), (narrow, plain_rewards, plain_dones, _) = (
            privileged.step(actions),
            plain.step(actions),
        )
        np.testing.assert_array_equal(rewards, plain_rewards)
        np.testing.assert_array_equal(dones, plain_dones)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (3 * size,)
        if step == 20:  # a checkpoint restores the privileged observations
            twin = SelfPlayVecEnv(game, 3, 2, seed=4, pool=pool, reward="score", score_scale=0.1, privileged=True)
            np.testing.assert_array_equal(twin.set_state(json.loads(json.dumps(privileged.get_state()))), wide)
            with pytest.raises(ValueError, match="without the privileged critic's input, this env with"):
                twin.set_state(plain.get_state())


@pytest.mark.parametrize("players", [2, 4])
def test_the_critic_input_holds_every_hand_and_nothing_of_the_deck_order(players):
    """Citadels: shuffling the district deck leaves every seat's critic input unchanged; resampling the
    other seats' hands (a determinization: the valued seat's own observation stays) changes it."""
    match = played("citadels", players, 30)
    rng = np.random.default_rng(1)
    shuffled = match.clone()
    deck = shuffled.state.deck
    order = rng.permutation(len(deck))
    assert len(deck) > 10 and any(deck[k] != deck[int(j)] for k, j in enumerate(order))
    shuffled.state.deck = [deck[int(j)] for j in order]
    shuffled.validate()
    changed_hands = 0
    for seat in range(players):
        np.testing.assert_array_equal(all_seats_observation(shuffled, seat), all_seats_observation(match, seat))
        other = match.determinize(seat, rng)
        np.testing.assert_array_equal(other.observation(seat), match.observation(seat))
        for k in range(1, players):  # each other seat's block changes exactly when its hand does
            j = (seat + k) % players
            same_hand = np.array_equal(other.state.hands[j], match.state.hands[j])
            size = match.observation(seat).size
            blocks = [all_seats_observation(g, seat)[k * size : (k + 1) * size] for g in (other, match)]
            assert np.array_equal(*blocks) == same_hand
            changed_hands += not same_hand
    assert changed_hands > 0


# ----- the actor never reads it ------------------------------------------------------------------
@pytest.mark.parametrize("entity", [False, True])
def test_the_actor_reads_only_the_seats_observation_and_a_file_keeps_both_heads(entity, tmp_path):
    """The same logits from the seat's observation alone, from the whole input, and from the whole input
    with the other seats' blocks replaced by noise; the file records the seat's observation shape, the
    critic's input, and rebuilds the same critic."""
    game = "blue_moon_city" if entity else "citadels"
    policy = privileged_policy(game, 3, entity)
    assert isinstance(policy, PrivilegedEntityActorCriticPolicy) == entity
    match = played(game, 3, 25)
    seat = match.current_player()
    own = match.observation(seat)[None]
    full = all_seats_observation(match, seat)[None]
    noisy = full.copy()
    noisy[:, own.size :] = np.random.default_rng(0).normal(size=noisy[:, own.size :].shape)
    mask = match.legal_actions()[None]
    logits = batch_logits(policy, own, mask)
    np.testing.assert_array_equal(batch_logits(policy, full, mask), logits)
    np.testing.assert_array_equal(batch_logits(policy, noisy, mask), logits)
    with torch.no_grad():  # while the critic does read the other seats
        values = [float(policy.predict_values(torch.as_tensor(x))) for x in (full, noisy)]
    assert values[0] != values[1]

    path = save_policy(policy, tmp_path / "p.safetensors", game=game, players=3, net_arch=ARCH, activation="tanh")
    loaded, meta = load_policy_file(path)
    assert meta["observation_shape"] == match.observation_shape and meta["critic_input"] == "all_seats"
    assert loaded.observation_space.shape == match.observation_shape  # what play feeds it
    np.testing.assert_array_equal(batch_logits(loaded, own, mask), logits)
    with torch.no_grad():
        value = float(loaded.predict_values(torch.as_tensor(critic_observation(meta, match, seat)[None])))
    assert value == values[0]
    with pytest.raises(PolicyFileError, match="every seat of a 3-player"):
        critic_observation(meta, played(game, 2, 5), 0)
    agent = PolicyAgent(str(path), seed=0)
    agent.prepare(InfoSet(match, seat))  # the seat's observation fits the file
    replay = make_game(game, 3, seed=5)
    play_game(replay, [agent, RandomAgent(seed=1), RandomAgent(seed=2)])
    assert replay.is_over() or replay.is_truncated()


def test_a_widened_critic_values_like_the_plain_one_and_the_actor_is_kept():
    """PPO starts a privileged critic from the warm start's: its weights on the seat's block, zeros on
    the others', so the first values are the warm start's."""
    probe = make_game("citadels", 4, seed=0)
    torch.manual_seed(5)
    plain = build_policy(probe.observation_shape, probe.num_actions, ARCH)
    wide = privileged_policy("citadels", 4, seed=6)
    wide.load_state_dict(widen_critic(plain.state_dict(), wide))
    match = played("citadels", 4, 20)
    own, full = match.observation(1)[None], all_seats_observation(match, 1)[None]
    mask = match.legal_actions()[None]
    np.testing.assert_array_equal(batch_logits(wide, full, mask), batch_logits(plain, own, mask))
    with torch.no_grad():
        torch.testing.assert_close(
            wide.predict_values(torch.as_tensor(full)), plain.predict_values(torch.as_tensor(own))
        )


# ----- the policy file door ----------------------------------------------------------------------
def test_a_policy_files_critic_input_is_checked(tmp_path):
    path = save_policy(
        privileged_policy(), tmp_path / "p.safetensors", game="citadels", players=3, net_arch=ARCH, activation="tanh"
    )
    with safe_open(str(path), framework="pt") as handle:
        metadata = dict(handle.metadata())
    assert (metadata["format_version"], metadata["critic_input"]) == ("3", "all_seats")
    tensors = load_file(str(path))

    def rewritten(**changes) -> Path:
        out = tmp_path / "bad.safetensors"
        save_file(tensors, str(out), metadata={k: v for k, v in (metadata | changes).items() if v is not None})
        return out

    for changes in (
        {"critic_input": None},
        {"critic_input": "observation"},
        {"critic_input": "everything"},
        {"format_version": "1"},
        {"format_version": "2", "entity_head": None},
    ):
        with pytest.raises(PolicyFileError, match="'critic_input'|'entity_head'"):
            load_policy_file(rewritten(**changes))
    with pytest.raises(PolicyFileError, match="does not fit|has shape"):  # the critic reads 3 seats, not 2
        load_policy_file(rewritten(players="2"))
    assert read_metadata(rewritten(info='{"x": 1}'))["critic_input"] == "all_seats"
    plain = make_game("citadels", 2, seed=0)
    old = save_policy(
        build_policy(plain.observation_shape, plain.num_actions, [16]),
        tmp_path / "old.safetensors",
        game="citadels",
        players=2,
        net_arch=[16],
        activation="tanh",
    )
    with safe_open(str(old), framework="pt") as handle:
        assert "critic_input" not in handle.metadata()  # a plain file is written as before
    assert read_metadata(old)["critic_input"] == "observation"


# ----- the trainer -------------------------------------------------------------------------------
def test_bad_privileged_configs_are_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(ValueError, match="privileged_critic = 'yes': input should be a valid boolean"):
        make_config("test", game="citadels", privileged_critic="yes")
    with pytest.raises(ValueError, match="timesteps = 0 runs no PPO"):
        make_config("test", game="citadels", privileged_critic=True, timesteps=0)
    assert load_config("citadels", privileged_critic=True, timesteps=64).privileged_critic
    code = cli.main(["train", "citadels", "--out", str(tmp_path / "x"), "--set", "privileged_critic=1"])
    assert code == 2 and "privileged_critic = 1: input should be a valid boolean" in capsys.readouterr().err


def test_a_privileged_run_trains_from_the_warm_start_and_its_model_plays_through_the_cli(tmp_path, capsys):
    """Warm start (plain), PPO with the widened critic, whose other-seat weights then move; the model
    evaluates through `city-envs evaluate`; mismatched starts and resumes are refused."""
    out = tmp_path / "run"
    flags = [f"--set={k}={v}" for k, v in QUICK_WARM.items() if k != "net_arch"]
    args = ["train", "citadels", "--players", "3", "--timesteps", "192", "--out", str(out), *flags]
    assert cli.main([*args, "--set=privileged_critic=true", "--set=net_arch=[32]"]) == 0
    warm, warm_meta = load_policy_file(out / "warm_start" / "round_1.safetensors")
    model, meta = load_policy_file(out / "model.safetensors")
    assert (warm_meta["critic_input"], meta["critic_input"]) == ("observation", "all_seats")
    seat_size = int(np.prod(meta["observation_shape"]))
    first = model.state_dict()["mlp_extractor.value_net.0.weight"]
    assert first.shape[1] == 3 * seat_size and first[:, seat_size:].abs().sum() > 0  # PPO taught it the others
    capsys.readouterr()
    code = cli.main(
        [
            "evaluate",
            "citadels",
            "--players",
            "3",
            "--agents",
            f"ppo:{out / 'model.safetensors'},random,random",
            "--games",
            "3",
        ]
    )
    assert code == 0 and "ppo:" in capsys.readouterr().out

    base = {**QUICK, "net_arch": [32], "players": 3, "timesteps": 64}
    with pytest.raises(ValueError, match="has a privileged critic .* set privileged_critic = true"):
        train(TrainConfig("citadels", init_from=str(out / "model.safetensors"), **base), tmp_path / "a")
    with pytest.raises(ValueError, match="reads every seat of a 3-player match; this run trains 4"):
        train(
            TrainConfig(
                "citadels", init_from=str(out / "model.safetensors"), privileged_critic=True, **(base | {"players": 4})
            ),
            tmp_path / "b",
        )
    init_from = str(out / "model.safetensors")
    dagger = {**QUICK_WARM, "net_arch": [32], "players": 3, "timesteps": 64, "init_from": init_from}
    with pytest.raises(ValueError, match="DAgger rounds cannot train"):
        train(TrainConfig("citadels", **dagger), tmp_path / "c", log=lambda _: None)
    resumed = load_config("citadels", out / "config.toml", privileged_critic=False, timesteps=256)
    with pytest.raises(ValueError, match="taken with privileged_critic = true: resume with the same setting"):
        train(resumed, out, resume=True, log=lambda _: None)


def test_a_privileged_run_resumed_after_a_stop_ends_with_the_parameters_of_an_uninterrupted_one(tmp_path):
    """As the plain resume test (tests/training/test_selfplay.py), with the privileged critic, the entity
    head and snapshot opponents playing mid-match at the stop."""
    config = TrainConfig(
        "blue_moon_city",
        players=3,
        timesteps=320,
        seed=7,
        pool_self=0.6,
        pool_heuristic=0.2,
        pool_random=0.2,
        privileged_critic=True,
        entity_head={"hidden": [16]},
        **QUICK,
    )
    a, b, state = whole_and_resumed(config, tmp_path)
    assert state["num_timesteps"] == 128 and len(state["schedule"]["snapshots"]) == 2 and state["env"]["privileged"]
    assert a.keys() == b.keys() and "action_net.scorer.0.weight" in a
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert load_policy_file(tmp_path / "whole" / "model.safetensors")[1]["critic_input"] == "all_seats"
    assert (
        game_class("blue_moon_city").observation_shape
        == read_metadata(tmp_path / "whole" / "ppo.safetensors")["observation_shape"]
    )


# ----- the with/without measurement ----------------------------------------------------------------
def test_the_measurement_runs_both_arms_with_equal_settings_and_summarizes_them(tmp_path, monkeypatch, capsys):
    """Every planned command is a valid `city-envs train` (its config is captured, not trained): the arms
    differ only in `privileged_critic`, and start from the warm start's file; the summary reads runs."""
    from city_envs.training import selfplay
    from lab import privileged_ab

    configs: dict[str, TrainConfig] = {}

    def capture(config, out, resume=False, log=print, pool=None):
        configs[str(out)] = config
        return {"game": config.game, "players": config.players, "total_seconds": 0.0, "model": "m"}

    monkeypatch.setattr(selfplay, "train", capture)
    for task in privileged_ab.task_names(list(GAMES), [2, 4]):
        steps = privileged_ab.plan(tmp_path, task, 300_000, "warm", seed=3)
        assert [s.label for s in steps] == [
            f"{task} {label}" for label in ("warm start", "plain", "privileged", "start policy")
        ]
        for step in steps:
            assert cli.main(step.args) == 0
        warm, plain, privileged, start = (configs[str(s.out)] for s in steps)
        assert (warm.timesteps, warm.pretrain, warm.privileged_critic) == (0, True, False)
        assert plain.init_from == privileged.init_from == str(steps[0].out / "model.safetensors")
        assert {k for k, v in plain.__dict__.items() if privileged.__dict__[k] != v} == {"privileged_critic"}
        assert (privileged.seed, privileged.timesteps, privileged.players) == (3, 300_000, int(task[-2]))
        assert not privileged.pretrain and not privileged.select_best
        # the start policy's own final evaluation: plain's run with no PPO step
        assert start.init_from == plain.init_from and start.timesteps == 0
        assert {k for k, v in plain.__dict__.items() if start.__dict__[k] != v} == {"timesteps"}
    assert [
        s.args[s.args.index("--init-from") + 1] for s in privileged_ab.plan(tmp_path, "citadels_4p", 5, "baseline")[:1]
    ] == [str(baseline_path("citadels", 4))]
    with pytest.raises(ValueError, match="no committed recipe"):
        privileged_ab.plan(tmp_path, "citadels_3p", 5, "warm")

    run = tmp_path / "citadels_2p" / "privileged"
    (run / "logs" / "part_1").mkdir(parents=True)
    (run / "logs" / "part_1" / "progress.csv").write_text(
        "train/explained_variance,train/value_loss\n" + "".join(f"{k / 20},0.1\n" for k in range(12))
    )
    (run / "curve.csv").write_text("stage,step,win_rate_vs_heuristic\nppo,102400,0.31\nppo,204800,0.35\n")
    result = {"games": 400, "win_rate": 0.4, "ci95": [0.35, 0.45]}
    (run / "evaluation.json").write_text(
        json.dumps({"timesteps": 204800, "ppo_steps_per_s": 300.0, "evaluation": {"heuristic": result}})
    )
    assert privileged_ab.plan(tmp_path, "citadels_2p", 5, "warm")[2].done()
    summary = privileged_ab.collect(tmp_path, "the command", {"start": "warm", "seed": 0})
    assert summary["tasks"] == {
        "citadels_2p": {
            "privileged": {
                "timesteps": 204800,
                "steps_per_s": 300.0,
                "explained_variance": pytest.approx(0.325),
                "curve": [
                    {"step": 102400, "win_rate_vs_heuristic": 0.31},
                    {"step": 204800, "win_rate_vs_heuristic": 0.35},
                ],
                "final": {"heuristic": result},
            }
        }
    }
    table = privileged_ab.table(summary).splitlines()
    assert table[4] == (
        "| citadels_2p | privileged | 204,800 | 300 | 0.325 | 102k 0.31, 204k 0.35 | 0.400 (0.350-0.450) n=400 | - |"
    )
    (run.parent / "plain" / "config.toml").parent.mkdir()
    (run.parent / "plain" / "config.toml").write_text("")
    resumed = privileged_ab.plan(tmp_path, "citadels_2p", 5, "warm")[1].command()
    assert resumed == ["train", "citadels", "--resume", "--out", str(run.parent / "plain"), "--quiet", "--timesteps=5"]
    assert privileged_ab.main(["--out", str(tmp_path), "--games", "citadels", "--players", "2", "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "# citadels_2p privileged: done" in printed and "--set=privileged_critic=false" not in printed
    assert "city-envs train citadels --out" in printed  # the warm start, still to run
