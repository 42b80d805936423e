"""Expert iteration (`training/expert.py`): visit targets, fitting to them, the stage in a run, the model
it leaves, an exact resume from a stop anywhere, privileged critics, and bad configs in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from city_envs import cli  # noqa: E402
from city_envs.agents.guided_ismcts import GuidedISMCTSAgent  # noqa: E402
from city_envs.agents.policy_agent import batch_logits  # noqa: E402
from city_envs.agents.policy_file import build_policy, load_policy_file, save_policy  # noqa: E402
from city_envs.core.privileged import all_seats_size  # noqa: E402
from city_envs.core.registry import make_game  # noqa: E402
from city_envs.training.config import TrainConfig, make_config  # noqa: E402
from city_envs.training.expert import load_round, visit_targets  # noqa: E402
from city_envs.training.pretrain import Samples, fit, held_out  # noqa: E402
from city_envs.training.selfplay import train  # noqa: E402
from tests.training.helpers import TINY, final_parameters  # noqa: E402

EXPERT = {
    "pretrain": False,
    "net_arch": [32],
    "expert_rounds": 2,
    "expert_matches": 3,
    "expert_iters": 4,
    "expert_batch": 2,
    "expert_epochs": 2,
    "pretrain_batch_size": 64,
    "eval_games": 0,
    "final_eval_games": 0,
    "select_best": False,
    "pool_self": 0.5,
    "pool_heuristic": 0.25,
    "pool_random": 0.25,
}


def start_file(path: Path, game: str = "metropolys", seed: int = 0) -> Path:
    """A fresh tiny network for 2 players of `game` (what the stage starts from with init_from)."""
    probe = make_game(game, 2, seed=0)
    torch.manual_seed(seed)
    policy = build_policy(probe.observation_shape, probe.num_actions, [32])
    return save_policy(policy, path, game=game, players=2, net_arch=[32], activation="tanh")


def quiet(_: str) -> None:
    pass


class Stop(Exception):
    """Stands for a crash or a kill in the middle of a search."""


def count_searches(monkeypatch) -> dict:
    """Counts the searches from now on and raises Stop once `left` more have run (None: never)."""
    budget: dict = {"calls": 0, "left": None}
    search = GuidedISMCTSAgent.search

    def counted(self, info_set):
        if budget["left"] is not None:
            if budget["left"] == 0:
                raise Stop
            budget["left"] -= 1
        budget["calls"] += 1
        return search(self, info_set)

    monkeypatch.setattr(GuidedISMCTSAgent, "search", counted)
    return budget


# ----- the targets and the fit ------------------------------------------------------------------
def test_visit_targets_are_the_sharpened_visit_shares_or_the_move_played():
    visits = np.array([0.0, 6.0, 2.0, 0.0])
    np.testing.assert_allclose(visit_targets(visits, 1, 1.0), [0, 0.75, 0.25, 0])
    np.testing.assert_allclose(visit_targets(visits, 1, 0.5), [0, 0.9, 0.1, 0])
    np.testing.assert_allclose(visit_targets(visits, 1, 2.0), np.array([0, 6**0.5, 2**0.5, 0]) / (6**0.5 + 2**0.5))
    assert visit_targets(visits, 2, 0.0).tolist() == [0, 0, 1, 0]  # the move played, whatever the counts


def test_the_actor_learns_the_visit_distribution_and_the_critic_the_returns():
    """Soft targets give the target's probabilities (a one-hot label would drive the top move to 1); an
    action the mask forbids keeps no weight."""
    rng = np.random.default_rng(0)
    n = 400
    masks = np.ones((n, 3), dtype=bool)
    masks[::2, 2] = False
    targets = np.tile(np.array([0.7, 0.3, 0.0], dtype=np.float32), (n, 1))
    samples = Samples(
        observations=rng.normal(size=(n, 4)).astype(np.float16),
        masks=masks,
        labels=np.zeros(n, dtype=np.int64),
        returns=np.full(n, 0.5, dtype=np.float32),
        matches=np.arange(n, dtype=np.int64),
        targets=targets,
    )
    torch.manual_seed(0)
    policy = build_policy((4,), 3, [16])
    config = TrainConfig("metropolys", pretrain_batch_size=64)
    metrics = fit(policy, samples, config, seed=1, epochs=40, lr=1e-2, value_weight=1.0)
    held = held_out(samples.matches)
    logits = batch_logits(policy, samples.observations[held].astype(np.float32), masks[held])
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    np.testing.assert_allclose(probs.mean(0), [0.7, 0.3, 0.0], atol=0.05)
    assert metrics["val_value_mse"] < 0.01 and metrics["val_agreement"] == 1.0


# ----- the stage in a run -----------------------------------------------------------------------
def test_the_rounds_record_the_searchs_visits_and_their_last_network_is_the_model(tmp_path):
    start = start_file(tmp_path / "start.safetensors")
    config = TrainConfig("metropolys", init_from=str(start), reward="win", **EXPERT)
    summary = train(config, tmp_path / "run", log=quiet)
    folder = tmp_path / "run" / "expert"
    rounds = json.loads((folder / "rounds.json").read_text())
    assert [r["round"] for r in rounds] == [1, 2] and all(r["matches"] == 3 for r in rounds)
    assert (folder / "round_0.safetensors").read_bytes() == start.read_bytes()
    assert (tmp_path / "run" / "model.safetensors").read_bytes() == (folder / "round_2.safetensors").read_bytes()
    assert summary["expert_seconds"] > 0
    samples = load_round(folder, 1, 3)
    assert len(samples) == rounds[0]["samples"] and samples.targets is not None
    assert samples.observations.shape[1:] == make_game("metropolys", 2).observation_shape
    np.testing.assert_allclose(samples.targets.sum(1), 1.0, rtol=1e-5)
    assert not (samples.targets > 0)[~samples.masks].any()
    assert samples.masks[np.arange(len(samples)), samples.labels].all()
    searched = samples.masks.sum(1) > 1  # forced moves are not searched: one visit
    assert (samples.targets[searched] < 1).any()  # shares of 4 iterations, not one-hot
    for match in np.unique(samples.matches):  # reward "win": the outcome, discounted back from the end
        returns = samples.returns[samples.matches == match]
        np.testing.assert_allclose(returns[:-1], config.gamma * returns[1:], rtol=1e-5)
        assert returns[-1] in (-1.0, 0.0, 1.0)
    before = load_policy_file(folder / "round_0.safetensors")[0].state_dict()
    after = final_parameters(tmp_path / "run")
    assert any(not torch.equal(before[k], after[k]) for k in before)


def test_the_best_evaluated_point_may_be_an_expert_round(tmp_path, monkeypatch):
    from city_envs.training import selfplay
    from city_envs.training.evaluation import curve_row

    def rigged_point(config, path, stage, step, started):  # round 1 evaluates best
        rate = 0.9 if stage == "expert 1" else 0.5
        results = {"random": {"games": 2, "win_rate": rate, "ci95": [0.3, 1.0]}}
        return {**curve_row(stage, step, 0.0, results), "policy": str(path)}

    monkeypatch.setattr(selfplay, "_evaluate_point", rigged_point)
    start = start_file(tmp_path / "start.safetensors")
    config = TrainConfig("metropolys", init_from=str(start), **{**EXPERT, "eval_games": 2, "select_best": True})
    summary = train(config, tmp_path / "run", log=quiet)
    assert summary["selected"]["stage"] == "expert 1"
    expert = tmp_path / "run" / "expert"
    assert (tmp_path / "run" / "model.safetensors").read_bytes() == (expert / "round_1.safetensors").read_bytes()
    stages = [line.split(",")[0] for line in (tmp_path / "run" / "curve.csv").read_text().splitlines()[1:]]
    assert stages == ["expert 1", "expert 2"]


def test_a_run_stopped_anywhere_in_the_expert_rounds_resumes_to_the_same_parameters(tmp_path, monkeypatch):
    """Uninterrupted; stopped in the middle of a match of round 2 (its finished matches and round 1 kept,
    not replayed); stopped after round 1 and resumed with two rounds: the same parameters, bit for bit."""
    torch.use_deterministic_algorithms(True)
    start = start_file(tmp_path / "start.safetensors")
    config = TrainConfig("metropolys", init_from=str(start), seed=3, **EXPERT)
    budget = count_searches(monkeypatch)
    train(config, tmp_path / "whole", log=quiet)
    whole = final_parameters(tmp_path / "whole")
    rounds = json.loads((tmp_path / "whole" / "expert" / "rounds.json").read_text())
    assert budget["calls"] == rounds[0]["samples"] + rounds[1]["samples"]
    first_match = len(load_round(tmp_path / "whole" / "expert", 2, 1))

    budget.update(calls=0, left=rounds[0]["samples"] + first_match + 5)
    with pytest.raises(Stop):
        train(config, tmp_path / "split", log=quiet)
    state = json.loads((tmp_path / "split" / "expert" / "round_2" / "state.json").read_text())
    assert state["totals"]["matches"] == 1 and not (tmp_path / "split" / "expert" / "round_2.safetensors").exists()
    budget.update(calls=0, left=None)
    train(config, tmp_path / "split", resume=True, log=quiet)
    assert budget["calls"] == rounds[1]["samples"] - first_match  # only round 2's last two matches were played
    resumed = final_parameters(tmp_path / "split")
    assert whole.keys() == resumed.keys()
    for key in whole:
        assert torch.equal(whole[key], resumed[key]), key

    train(TrainConfig(**{**config.__dict__, "expert_rounds": 1}), tmp_path / "between", log=quiet)
    one_round = final_parameters(tmp_path / "between")
    assert any(not torch.equal(whole[k], one_round[k]) for k in whole)
    train(config, tmp_path / "between", resume=True, log=quiet)
    between = final_parameters(tmp_path / "between")
    for key in whole:
        assert torch.equal(whole[key], between[key]), key


def test_a_privileged_run_searches_and_fits_with_every_seats_observation(tmp_path):
    """After PPO with the privileged critic, the search values leaves with it and the rounds record (and
    fit the critic on) every seat's observation; the actor still reads the seat's own."""
    config = TrainConfig(
        "metropolys",
        timesteps=64,
        privileged_critic=True,
        **{**TINY, "select_best": False},
        **{k: v for k, v in EXPERT.items() if k not in TINY and k != "select_best"} | {"expert_rounds": 1},
    )
    train(config, tmp_path, log=quiet)
    folder = tmp_path / "expert"
    samples = load_round(folder, 1, 3)
    probe = make_game("metropolys", 2, seed=0)
    assert samples.observations.shape[1:] == (all_seats_size(probe),)
    model, meta = load_policy_file(tmp_path / "model.safetensors")
    assert meta["critic_input"] == "all_seats"
    start = load_policy_file(folder / "round_0.safetensors")[0].state_dict()
    seat_size = int(np.prod(probe.observation_shape))
    first = "mlp_extractor.value_net.0.weight"
    moved = model.state_dict()[first][:, seat_size:] - start[first][:, seat_size:]
    assert moved.abs().sum() > 0  # the other seats' blocks taught the critic
    # resumed with a second round: PPO ends on the very network the rounds continue, round 1 is kept
    kept = (folder / "round_1.safetensors").read_bytes()
    train(TrainConfig(**{**config.__dict__, "expert_rounds": 2}), tmp_path, resume=True, log=quiet)
    assert (folder / "round_1.safetensors").read_bytes() == kept
    assert load_policy_file(folder / "round_2.safetensors")[1]["critic_input"] == "all_seats"


# ----- bad configs and starts -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"expert_rounds": -1}, "expert_rounds = -1: input should be greater than or equal to 0"),
        ({"expert_matches": 0}, "expert_matches = 0: input should be greater than or equal to 1"),
        ({"expert_iters": 0}, "expert_iters = 0: input should be greater than or equal to 1"),
        ({"expert_iters": 2_000_000}, "expert_iters = 2000000: input should be less than or equal to 1000000"),
        ({"expert_iters": 1.5}, "expert_iters = 1.5: input should be a valid integer"),
        ({"expert_batch": 0}, "expert_batch = 0: input should be greater than or equal to 1"),
        ({"expert_c_puct": 0.0}, "expert_c_puct = 0.0: input should be greater than 0"),
        ({"expert_temperature": -1.0}, "expert_temperature = -1.0: input should be greater than or equal to 0"),
        ({"expert_epochs": 0}, "expert_epochs = 0: input should be greater than or equal to 1"),
        ({"expert_value_weight": -0.5}, "expert_value_weight = -0.5: input should be greater than or equal to 0"),
        ({"expert_lr": 0.0}, "expert_lr = 0.0: input should be greater than 0"),
        ({"expert_rounds": 1, "pretrain": False}, "expert_rounds needs a network for the search to start from"),
        (
            {"expert_rounds": 1, "timesteps": 64, "average_last": 2, "select_best": False},
            "average_last averages PPO's policies, which the expert rounds then continue",
        ),
    ],
)
def test_a_bad_expert_config_is_refused_in_one_line(values, message):
    with pytest.raises(ValueError, match=message) as error:
        make_config("test", game="metropolys", **values)
    assert "\n" not in str(error.value)


def test_the_command_line_refuses_an_expert_config_without_a_network_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "metropolys", "--out", str(out), "--timesteps", "0", "--set=pretrain=false"]
    code = cli.main([*args, "--set=expert_rounds=1"])
    err = capsys.readouterr().err
    assert code == 2 and "expert_rounds needs a network" in err and len(err.strip().splitlines()) == 1


def test_a_start_of_another_game_or_a_changed_start_is_refused(tmp_path, capsys):
    foreign = start_file(tmp_path / "citadels.safetensors", game="citadels")
    args = ["train", "metropolys", "--out", str(tmp_path / "a"), "--timesteps", "0", "--init-from", str(foreign)]
    code = cli.main([*args, "--set=expert_rounds=1", "--set=eval_games=0", "--set=final_eval_games=0"])
    err = capsys.readouterr().err
    assert code == 2 and "plays 2-player citadels, the run trains 2-player metropolys" in err
    assert len(err.strip().splitlines()) == 1
    start = start_file(tmp_path / "start.safetensors")
    config = TrainConfig("metropolys", init_from=str(start), **{**EXPERT, "expert_rounds": 1, "expert_matches": 1})
    train(config, tmp_path / "b", log=quiet)
    other = start_file(tmp_path / "other.safetensors", seed=1)
    changed = TrainConfig(**{**config.__dict__, "init_from": str(other)})
    with pytest.raises(ValueError, match="continue another network than this run's"):
        train(changed, tmp_path / "b", resume=True, log=quiet)


# ----- learning quality -------------------------------------------------------------------------
@pytest.mark.slow
def test_a_few_rounds_raise_the_networks_agreement_with_the_search(tmp_path):
    """On the rounds' held-out matches (never trained on), the network after three rounds picks the
    search's move more often than the fresh network the search started from (measured: 0.23 -> 0.62
    of 144 searched decisions)."""
    start = start_file(tmp_path / "start.safetensors")
    values = {**EXPERT, "expert_rounds": 3, "expert_matches": 10, "expert_iters": 32, "expert_epochs": 6}
    config = TrainConfig("metropolys", init_from=str(start), expert_lr=1e-3, **values)
    train(config, tmp_path / "run", log=quiet)
    folder = tmp_path / "run" / "expert"
    samples = Samples.join([load_round(folder, k, 10) for k in (1, 2, 3)], 10**6)
    held = held_out(samples.matches) & (samples.masks.sum(1) > 1)  # searched decisions only

    def agreement(path: Path) -> float:
        policy = load_policy_file(path)[0]
        logits = batch_logits(policy, samples.observations[held].astype(np.float32), samples.masks[held])
        return float(np.mean(logits.argmax(1) == samples.labels[held]))

    before, after = agreement(folder / "round_0.safetensors"), agreement(folder / "round_3.safetensors")
    assert held.sum() >= 60 and after > before + 0.2, (before, after)
