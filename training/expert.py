"""Expert iteration: the network-guided search plays, and the network learns its visits and the returns.

Round k (1 to `expert_rounds`) starts from the network of round k - 1 (round 0: the network the run's
earlier stages left, copied to `expert/round_0.safetensors`):

1. **The search plays.** `GuidedISMCTSAgent` on that network (`expert_iters` iterations per decision,
   `expert_batch`, `expert_c_puct`; most visited move) plays the learner's seat of `expert_matches`
   matches, seat-rotated, against the run's opponent pool (`pool_*` weights), whose `self` opponents are
   this stage's own networks so far (rounds 0 to k - 1, the last `max_snapshots`, each sampling from its
   policy, as PPO's snapshots do). For every decision of the learner it records the network's training
   input (the seat's observation, or with a privileged critic every seat's: whatever the start network's
   critic reads), the mask, the root's visits as a distribution (`visits^(1/expert_temperature)`,
   normalised; temperature 0 is the move played), the move played, and the discounted return that
   followed under the run's reward (what PPO's critic predicts, so the search keeps reading the critic on
   the scale it adds margins to).
2. **The network learns.** `pretrain.fit` from round k - 1's weights on every round's samples so far
   (the newest `max_samples`): cross-entropy to the visit distributions, `expert_value_weight` times the
   squared error to the returns, `expert_epochs` epochs at `expert_lr`; every tenth match is held out and
   each head keeps its best held-out epoch, as in the warm start.

Checkpoints: each finished match's samples are written to `expert/round_<k>/match_<m>.npz` and then the
round's `state.json` (the env with its matches and opponents, the search's generator, the totals), so a
stopped round resumes at the start of the match it was in; a finished round's network and record
(`rounds.json`) are kept. Fitting starts from the saved files in every run, so a resumed run ends with the
parameters of an uninterrupted one, bit for bit (one torch thread, deterministic algorithms).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, cast

import numpy as np

from city_envs.agents.guided_ismcts import GuidedISMCTSAgent
from city_envs.agents.policy_file import load_policy_file, read_metadata, save_policy
from city_envs.core.files import write_text_whole, written_whole
from city_envs.core.game import rng_from_state
from city_envs.core.infoset import InfoSet
from city_envs.core.progress import stage
from city_envs.training.config import TrainConfig, config_to_toml
from city_envs.training.pool import OpponentPool
from city_envs.training.pretrain import Samples, fit
from city_envs.training.vec_env import SelfPlayVecEnv

MATCH_IDS = 1_000_000  # match ids of round k are k * MATCH_IDS + m (every tenth is held out)


def visit_targets(visits: np.ndarray, played: int, temperature: float) -> np.ndarray:
    """The actor's target for one decision: visits^(1/temperature) normalised; one-hot on the move played
    at temperature 0."""
    if temperature == 0:
        target = np.zeros(len(visits), dtype=np.float32)
        target[played] = 1.0
        return target
    weights = (visits / visits.max()) ** (1.0 / temperature)
    return (weights / weights.sum()).astype(np.float32)


def check_start(config: TrainConfig, start: Path) -> bool:
    """Refuse a start network of another game or player count; returns whether its critic is privileged."""
    meta = read_metadata(start)
    if (meta["game"], meta["players"]) != (config.game, config.players):
        raise ValueError(
            f"expert rounds: {start} plays {meta['players']}-player {meta['game']}, "
            f"the run trains {config.players}-player {config.game}"
        )
    return meta["critic_input"] == "all_seats"


def same_tensors(a: Path, b: Path) -> bool:
    """Whether two policy files hold the same network (not the same bytes: a resumed PPO writes its last
    policy again, and safetensors orders the metadata differently from one write to the next)."""
    import torch
    from safetensors.torch import load_file

    x, y = load_file(str(a)), load_file(str(b))
    return x.keys() == y.keys() and all(torch.equal(x[k], y[k]) for k in x)


def _write_json(path: Path, data) -> None:
    """Written whole: a crash while writing leaves the previous file."""
    write_text_whole(path, json.dumps(data))


def play_round(config: TrainConfig, folder: Path, k: int, privileged: bool) -> dict:
    """The search on round k - 1's network plays round k's matches (resuming after the last finished
    one); each match's samples go to `round_<k>/match_<m>.npz`. Returns the round's totals."""
    round_dir = folder / f"round_{k}"
    round_dir.mkdir(exist_ok=True)
    pool = OpponentPool(config.game, config.pool_weights(), config.max_snapshots)
    for j in range(max(0, k - config.max_snapshots), k):
        pool.add_snapshot(str(folder / f"round_{j}.safetensors"))
    env = SelfPlayVecEnv(
        config.game,
        config.players,
        1,  # the search costs far more than a step: one match at a time keeps a checkpoint at every match end
        int(np.random.SeedSequence([config.seed, 13, k]).generate_state(1)[0]),
        pool,
        config.options,
        config.reward,
        config.score_scale,
        privileged=privileged,
    )
    agent = GuidedISMCTSAgent(
        seed=np.random.default_rng([config.seed, 14, k]),
        net=str(folder / f"round_{k - 1}.safetensors"),
        game=config.game,
        iters=config.expert_iters,
        c_puct=config.expert_c_puct,
        batch=config.expert_batch,
    )
    state_file = round_dir / "state.json"
    totals: dict[str, Any]
    if state_file.is_file():
        state = json.loads(state_file.read_text())
        observation = env.set_state(state["env"])[0]
        agent.rng = rng_from_state(state["search_rng"])
        totals = state["totals"]
    else:
        observation = env.reset()[0]
        totals = {"matches": 0, "decisions": 0, "wins": 0.0, "iterations": 0, "play_seconds": 0.0}
    clock = time.time()
    rows: dict[str, list] = {"observations": [], "masks": [], "targets": [], "labels": [], "rewards": []}
    with stage(f"expert round {k}: the search plays", config.expert_matches, "matches", totals["matches"]) as bar:
        while totals["matches"] < config.expert_matches:
            info = InfoSet(env.games[0], env.learners[0])
            root = agent.search(info)
            action = agent.choose(root, info.legal_action_ids())
            totals["iterations"] += agent.last_iterations
            rows["observations"].append(observation.astype(np.float16))
            rows["masks"].append(env.action_masks()[0])
            rows["targets"].append(visit_targets(root.visits, action, config.expert_temperature))
            rows["labels"].append(action)
            observations, rewards, dones, infos = env.step(np.array([action]))
            observation = cast(np.ndarray, observations)[0]  # SelfPlayVecEnv's observations are one array
            rows["rewards"].append(float(rewards[0]))
            if not dones[0]:
                continue
            returns, g = np.zeros(len(rows["rewards"]), dtype=np.float32), 0.0
            for i in range(len(returns) - 1, -1, -1):
                g = rows["rewards"][i] + config.gamma * g
                returns[i] = g
            m = totals["matches"]
            np.savez(
                round_dir / f"match_{m:05d}.npz",
                observations=np.stack(rows["observations"]),
                masks=np.stack(rows["masks"]),
                targets=np.stack(rows["targets"]),
                labels=np.array(rows["labels"], dtype=np.int64),
                returns=returns,
            )
            totals["matches"] += 1
            totals["decisions"] += len(returns)
            totals["wins"] += infos[0]["win"]
            totals["play_seconds"] += time.time() - clock
            clock = time.time()
            state = {"env": env.get_state(), "search_rng": agent.rng.bit_generator.state, "totals": totals}
            _write_json(state_file, state)
            rows = {name: [] for name in rows}
            bar.advance()
    return totals


def load_round(folder: Path, k: int, matches: int) -> Samples:
    """Round k's samples from its match files (what fitting reads in a whole run and in a resumed one)."""
    parts: dict[str, list[np.ndarray]] = {}
    ids = []
    for m in range(matches):
        with np.load(folder / f"round_{k}" / f"match_{m:05d}.npz", allow_pickle=False) as data:
            for name in data.files:
                parts.setdefault(name, []).append(data[name])
            ids.append(np.full(len(data["labels"]), k * MATCH_IDS + m, dtype=np.int64))
    return Samples(
        observations=np.concatenate(parts["observations"]),
        masks=np.concatenate(parts["masks"]),
        labels=np.concatenate(parts["labels"]),
        returns=np.concatenate(parts["returns"]),
        matches=np.concatenate(ids),
        targets=np.concatenate(parts["targets"]),
    )


def expert_iteration(config: TrainConfig, out: Path, start: Path, log=print) -> Path:
    """The expert rounds from the policy file `start` into `out/expert/`; returns the last round's file.
    A rerun keeps the finished rounds and the finished matches of the round it stopped in."""
    import torch

    torch.set_num_threads(config.torch_threads)
    folder = out / "expert"
    folder.mkdir(parents=True, exist_ok=True)
    privileged = check_start(config, start)
    first = folder / "round_0.safetensors"
    if first.is_file():
        if not same_tensors(first, Path(start)):
            raise ValueError(
                f"the expert rounds in {folder} continue another network than this run's {start}: "
                "start a new run (--fresh) to change the stages before them"
            )
    else:
        with written_whole(first) as temporary:
            shutil.copyfile(start, temporary)
    # the search reads the run's reward beside its networks (agents/guided_ismcts.py: reward_settings)
    (folder / "config.toml").write_text(config_to_toml(config))
    progress_file = folder / "rounds.json"
    progress = json.loads(progress_file.read_text()) if progress_file.is_file() else []
    parts: list[Samples] = []
    for k in range(1, config.expert_rounds + 1):
        path = folder / f"round_{k}.safetensors"
        if path.is_file() and k <= len(progress):
            parts.append(load_round(folder, k, progress[k - 1]["matches"]))
            log(f"expert round {k}: kept {path.name}")
            continue
        totals = play_round(config, folder, k, privileged)
        parts.append(load_round(folder, k, totals["matches"]))
        data = Samples.join(parts, config.max_samples)
        policy, meta = load_policy_file(folder / f"round_{k - 1}.safetensors")
        clock = time.time()
        metrics = fit(
            policy,
            data,
            config,
            seed=config.seed * 1000 + 500 + k,
            epochs=config.expert_epochs,
            label=f"expert round {k}: fitting",
            lr=config.expert_lr,
            value_weight=config.expert_value_weight,
        )
        record = {
            "round": k,
            "matches": totals["matches"],
            "samples": totals["decisions"],
            "set_samples": len(data),
            "search_win_rate": totals["wins"] / totals["matches"],
            "iterations_per_decision": totals["iterations"] / max(totals["decisions"], 1),
            "play_seconds": round(totals["play_seconds"], 1),
            "fit_seconds": round(time.time() - clock, 1),
            **{key: value for key, value in metrics.items() if key != "epochs"},
            "epochs": metrics["epochs"],
        }
        save_policy(
            policy,
            path,
            game=config.game,
            players=config.players,
            net_arch=meta["net_arch"],
            activation=meta["activation"],
            info={"stage": "expert", "round": k, "iters": config.expert_iters},
        )
        progress = progress[: k - 1] + [record]
        progress_file.write_text(json.dumps(progress, indent=1))
        log(
            f"expert round {k}: the search won {record['search_win_rate']:.2f} of {totals['matches']} matches, "
            f"{totals['decisions']} samples ({len(data)} in the set) in {record['play_seconds']:.0f} s; "
            f"held-out agreement with its moves {record['val_agreement']:.3f}, value mse {record['val_value_mse']:.3f}"
        )
    return folder / f"round_{config.expert_rounds}.safetensors"
