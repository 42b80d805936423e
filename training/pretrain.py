"""The warm start: behaviour cloning of a teacher, then DAgger rounds, into a policy file.

Round 0 lets the teacher (any agent spec; the game's heuristic by default, or a search agent such
as `ismcts:iters=50` for a teacher stronger than the heuristic) play the learner's seat of
`bc_matches` training matches against the pool, and records every decision: the observation, the
mask, the teacher's action, and the discounted return that followed (the same rewards PPO will
see). Each DAgger round then lets the current network play (greedy, with a little random
exploration), asks the teacher what it would have done in every state the network reached, adds
those labels to the data, and trains again from the current weights. The states a policy meets are
its own, so its mistakes are the ones corrected.

Training minimises cross-entropy on the masked logits (actor) and squared error on the returns
(critic). One match's states share one outcome, so a critic fits its training matches long before
it generalises: a tenth of the matches are held out, and each head keeps the weights of the epoch
with its best held-out loss. Every stage is seeded (data, shuffles, initial weights), so a rerun,
or a resume after an interruption, gives the same files. With `init_from`, round 0 is that policy
and the DAgger rounds continue it with the configured teacher (for instance a search teacher after a
heuristic warm start).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from city_envs.agents.policy_agent import batch_logits
from city_envs.agents.policy_file import build_policy, load_policy_file, save_policy
from city_envs.agents.registry import make_agent
from city_envs.core.files import written_whole
from city_envs.core.infoset import InfoSet
from city_envs.core.progress import stage
from city_envs.training.config import TrainConfig
from city_envs.training.pool import OpponentPool
from city_envs.training.vec_env import SelfPlayVecEnv

EXPLORATION = 0.03  # share of the student's moves played at random in DAgger rounds
UNLABELLED = -1  # a student decision the teacher was not asked about (see `dagger_label_share`)
HELD_OUT_EVERY = 10  # every tenth match of each round is held out to pick each head's best epoch
ACTOR_PREFIXES = ("mlp_extractor.policy_net", "action_net")


@dataclass
class Samples:
    """Recorded decisions: learner observations, masks, teacher labels, returns and match ids; with
    `targets`, a distribution over the actions per decision (a search's visits) that the actor learns
    in place of the one-hot label (the label, the move played, still measures agreement)."""

    observations: np.ndarray  # float16 (n, *observation_shape)
    masks: np.ndarray  # bool (n, num_actions)
    labels: np.ndarray  # int64 (n,)
    returns: np.ndarray  # float32 (n,)
    matches: np.ndarray  # int64 (n,): the match a decision came from
    targets: np.ndarray | None = None  # float32 (n, num_actions), each row summing to 1 on legal actions

    def __len__(self) -> int:
        return len(self.labels)

    @staticmethod
    def join(parts: list[Samples], keep: int) -> Samples:
        """The parts concatenated, keeping the newest `keep` samples."""
        names = ["observations", "masks", "labels", "returns", "matches"]
        if parts and all(p.targets is not None for p in parts):
            names.append("targets")
        fields = {name: np.concatenate([getattr(p, name) for p in parts])[-keep:] for name in names}
        return Samples(**fields)


def collect(
    config: TrainConfig, matches: int, seed: list[int], student=None, label: str = "warm-start matches"
) -> tuple[Samples, dict]:
    """`matches` finished matches of the learner's seat, played by the teacher (student None) or by
    `student` (greedy, with EXPLORATION random moves); the teacher labels every decision, or in student
    play a random `dagger_label_share` of them, and only labelled decisions are kept. `label` names the
    progress bar of the matches."""
    pool = OpponentPool(config.game, config.pool_weights(), config.max_snapshots)
    n_envs = max(1, min(config.n_envs, matches))
    env = SelfPlayVecEnv(
        config.game,
        config.players,
        n_envs,
        int(np.random.SeedSequence(seed).generate_state(1)[0]),
        pool,
        config.options,
        config.reward,
        config.score_scale,
    )
    teachers = [make_agent(config.teacher, config.game, np.random.default_rng(seed + [i])) for i in range(n_envs)]
    explore = np.random.default_rng(seed + [n_envs])
    observations = env.reset()
    open_episodes: list[list[tuple[int, float]]] = [[] for _ in range(n_envs)]  # (sample index, reward)
    recorded: dict[str, list] = {"obs": [], "mask": [], "label": []}
    returns: dict[int, float] = {}
    match_of: dict[int, int] = {}
    finished, wins, agreement, count = 0, 0.0, [], 0
    # each match's teacher has its own generator and game: the threads share nothing but the GIL
    with ThreadPoolExecutor(config.teacher_threads) as label_pool, stage(label, matches, "matches") as bar:
        while finished < matches:
            masks = env.action_masks()
            if student is None or config.dagger_label_share == 1:
                labelled = np.arange(n_envs)
            else:
                labelled = np.flatnonzero(explore.random(n_envs) < config.dagger_label_share)
            labels = np.full(n_envs, UNLABELLED, dtype=np.int64)
            asked = labelled.tolist()
            labels[asked] = list(
                label_pool.map(lambda i: teachers[i].act(InfoSet(env.games[i], env.learners[i])), asked)
            )
            if student is None:
                actions = labels
            else:
                actions = np.argmax(batch_logits(student, observations, masks), axis=1)
                agreement.extend((actions[labelled] == labels[labelled]).tolist())
                for i in np.flatnonzero(explore.random(n_envs) < EXPLORATION).tolist():
                    actions[i] = explore.choice(np.flatnonzero(masks[i]))
            base = count
            count += n_envs
            recorded["obs"].append(observations.astype(np.float16))
            recorded["mask"].append(masks.copy())
            recorded["label"].append(labels)
            observations, rewards, dones, infos = env.step(actions)
            for i in range(n_envs):
                open_episodes[i].append((base + i, float(rewards[i])))
                if dones[i]:
                    if finished < matches:
                        g = 0.0
                        for index, reward in reversed(open_episodes[i]):
                            g = reward + config.gamma * g
                            returns[index] = g
                            match_of[index] = finished
                        wins += infos[i]["win"]
                        finished += 1
                        bar.advance()
                    open_episodes[i] = []
    all_labels = np.concatenate(recorded["label"])
    keep = np.array([k for k in sorted(returns) if all_labels[k] != UNLABELLED], dtype=np.int64)
    samples = Samples(
        observations=np.concatenate(recorded["obs"])[keep],
        masks=np.concatenate(recorded["mask"])[keep],
        labels=all_labels[keep],
        returns=np.array([returns[k] for k in keep], dtype=np.float32),
        matches=np.array([match_of[k] for k in keep], dtype=np.int64) + seed[-1] * 1_000_000,
    )
    stats = {
        "matches": finished,
        "decisions": len(returns),
        "samples": len(samples),
        "learner_win_rate": wins / max(finished, 1),
    }
    if agreement:
        stats["student_agreement"] = float(np.mean(agreement))
    return samples, stats


def held_out(matches: np.ndarray) -> np.ndarray:
    """Which samples are held out, by their match id: the same matches in every round, since a match
    trained on in an earlier round would look well predicted and stop the later rounds' training early."""
    return matches % HELD_OUT_EVERY == 0


def fit(
    policy,
    samples: Samples,
    config: TrainConfig,
    seed: int,
    epochs: int,
    label: str = "fitting",
    lr: float | None = None,
    value_weight: float | None = None,
) -> dict:
    """Train both heads on `samples` for `epochs`; each head ends at its best held-out epoch. Returns the
    metrics. The actor's loss is the cross-entropy to the labels, or to `samples.targets` when it has
    them; the critic's, weighted by `value_weight` (default `vf_coef`), the squared error to the returns.
    `lr` defaults to `pretrain_lr`. `label` names the progress bar of the epochs."""
    import torch
    import torch.nn.functional as F

    generator = torch.Generator().manual_seed(seed)
    is_held = held_out(samples.matches)
    train_idx, val_idx = np.flatnonzero(~is_held), np.flatnonzero(is_held)
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.pretrain_lr if lr is None else lr)
    weight = config.vf_coef if value_weight is None else value_weight

    def batch(indices: np.ndarray):
        obs = torch.as_tensor(samples.observations[indices].astype(np.float32))
        mask = torch.as_tensor(samples.masks[indices])
        labels = torch.as_tensor(samples.labels[indices])
        returns = torch.as_tensor(samples.returns[indices])
        features = policy.extract_features(obs, policy.pi_features_extractor)
        latent_pi, latent_vf = policy.mlp_extractor(features)
        logits = policy.action_net(latent_pi).masked_fill(~mask, -1e9)
        values = policy.value_net(latent_vf).squeeze(-1)
        if samples.targets is None:
            actor = F.cross_entropy(logits, labels)
        else:  # the target is zero where the mask forbids, so the -1e9 logits there add nothing
            actor = F.cross_entropy(logits, torch.as_tensor(samples.targets[indices]))
        return actor, F.mse_loss(values, returns), (logits.argmax(1) == labels).float()

    def validate() -> tuple[float, float, float]:
        with torch.no_grad():
            parts = [batch(val_idx[k : k + 4096]) for k in range(0, len(val_idx), 4096)]
        weights = np.array([len(p[2]) for p in parts], dtype=float)
        return (
            float(np.average([p[0].item() for p in parts], weights=weights)),
            float(np.average([p[1].item() for p in parts], weights=weights)),
            float(torch.cat([p[2] for p in parts]).mean()),
        )

    # per head: its best held-out loss, the weights at that epoch, and the epoch
    best: dict[str, tuple[float, dict[str, torch.Tensor] | None, int]] = {
        "actor": (np.inf, None, 0),
        "critic": (np.inf, None, 0),
    }
    history = []
    with stage(label, epochs, "epochs") as bar:
        for epoch in range(epochs):
            order = train_idx[torch.randperm(len(train_idx), generator=generator).numpy()]
            for k in range(0, len(order), config.pretrain_batch_size):
                actor_loss, critic_loss, _ = batch(order[k : k + config.pretrain_batch_size])
                optimizer.zero_grad()
                (actor_loss + weight * critic_loss).backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
                optimizer.step()
            val_actor, val_critic, val_accuracy = validate()
            history.append(
                {
                    "epoch": epoch + 1,
                    "val_cross_entropy": val_actor,
                    "val_value_mse": val_critic,
                    "val_agreement": val_accuracy,
                }
            )
            state = {k: v.detach().clone() for k, v in policy.state_dict().items()}
            if val_actor < best["actor"][0]:
                best["actor"] = (val_actor, state, epoch + 1)
            if val_critic < best["critic"][0]:
                best["critic"] = (val_critic, state, epoch + 1)
            bar.advance()
    actor_state, critic_state = best["actor"][1], best["critic"][1]
    if actor_state is None or critic_state is None:  # every held-out loss of a head was NaN
        raise ValueError(f"{label}: no epoch reached a finite held-out loss (the fit diverged)")
    merged = {k: (actor_state if k.startswith(ACTOR_PREFIXES) else critic_state)[k] for k in policy.state_dict()}
    policy.load_state_dict(merged)
    policy.set_training_mode(False)
    return {
        "train_samples": int(len(train_idx)),
        "held_out_samples": int(len(val_idx)),
        "actor_epoch": best["actor"][2],
        "critic_epoch": best["critic"][2],
        "val_cross_entropy": best["actor"][0],
        "val_value_mse": best["critic"][0],
        "val_agreement": max(h["val_agreement"] for h in history if h["epoch"] == best["actor"][2]),
        "epochs": history,
    }


def write_samples(path: Path, samples: Samples, stats: dict) -> None:
    """A round's samples and their statistics in one NumPy archive (no pickled objects), written whole or
    not at all."""
    arrays = {name: value for name, value in vars(samples).items() if value is not None}
    with written_whole(path) as temporary, temporary.open("wb") as file:
        np.savez_compressed(file, stats=np.array(json.dumps(stats)), **arrays)


def read_samples(path: Path) -> tuple[Samples, dict] | None:
    """The samples and statistics `write_samples` kept at `path`, or None when there are none or the file
    is not such an archive (the round then collects its samples again)."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        stats = json.loads(str(arrays.pop("stats")))
        samples = Samples(**arrays)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    sizes = {len(value) for value in vars(samples).values() if value is not None}
    return (samples, stats) if isinstance(stats, dict) and len(sizes) == 1 else None


def warm_start(config: TrainConfig, out: Path, log=print) -> Path:
    """Cloning then DAgger rounds into `out/warm_start/round_<k>.safetensors`; returns the last file.

    Finished rounds are kept, and so are each round's samples (`samples_<k>.npz`): a rerun (after an
    interruption) reads them back instead of asking the teacher again (a search teacher's labels are
    most of a warm start's cost), and trains only the rounds still missing.
    """
    import torch

    torch.set_num_threads(config.torch_threads)
    folder = out / "warm_start"
    folder.mkdir(parents=True, exist_ok=True)
    progress_file = folder / "rounds.json"
    progress = json.loads(progress_file.read_text()) if progress_file.is_file() else []
    last = folder / f"round_{config.dagger_rounds}.safetensors"
    if last.is_file() and len(progress) == config.dagger_rounds + 1:
        log(f"warm start: all {config.dagger_rounds + 1} rounds kept")
        return last
    parts: list[Samples] = []
    for round_index in range(config.dagger_rounds + 1):
        path = folder / f"round_{round_index}.safetensors"
        previous = folder / f"round_{round_index - 1}.safetensors"
        if round_index == 0 and config.init_from:  # DAgger rounds continue a given policy (a new teacher)
            if not path.is_file():
                policy, meta = load_policy_file(config.init_from)
                if meta["critic_input"] != "observation":  # DAgger fits the critic on the seat's observation
                    raise ValueError(
                        f"init_from {config.init_from} has a privileged critic, which DAgger rounds cannot "
                        "train: start PPO from it (pretrain = false)"
                    )
                save_policy(
                    policy,
                    path,
                    game=config.game,
                    players=config.players,
                    net_arch=meta["net_arch"],
                    activation=meta["activation"],
                    info={"stage": "init", "from": str(config.init_from)},
                )
                progress = [{"round": 0, "stage": "init", "from": str(config.init_from)}]
                progress_file.write_text(json.dumps(progress, indent=1))
            continue
        student = load_policy_file(previous)[0] if round_index > 0 else None
        kept_samples = folder / f"samples_{round_index}.npz"
        read = read_samples(kept_samples)
        if read is None:
            matches = config.bc_matches if round_index == 0 else config.dagger_matches
            player = "teacher" if student is None else "student"
            samples, stats = collect(
                config,
                matches,
                [config.seed, 7, round_index],
                student,
                label=f"warm start round {round_index}: {player} plays",
            )
            write_samples(kept_samples, samples, stats)
        else:
            samples, stats = read
        parts.append(samples)
        if path.is_file() and round_index < len(progress):
            log(f"warm start round {round_index}: kept {path.name}")
            continue
        data = Samples.join(parts, config.max_samples)  # every round's data so far (DAgger aggregates)
        if student is None:
            torch.manual_seed(config.seed)
            policy = build_policy(
                data.observations.shape[1:],
                data.masks.shape[1],
                config.net_arch,
                config.activation,
                config.entity_head_spec(),
            )
        else:
            policy = student
        epochs = config.dagger_epochs if round_index > 0 and config.dagger_epochs else config.pretrain_epochs
        metrics = fit(
            policy,
            data,
            config,
            seed=config.seed * 1000 + round_index,
            epochs=epochs,
            label=f"warm start round {round_index}: fitting",
        )
        record = {
            "round": round_index,
            "stage": "clone" if round_index == 0 else "dagger",
            **stats,
            **{k: v for k, v in metrics.items() if k != "epochs"},
            "epochs": metrics["epochs"],
        }
        save_policy(
            policy,
            path,
            game=config.game,
            players=config.players,
            net_arch=config.net_arch,
            activation=config.activation,
            info={"stage": record["stage"], "round": round_index, "teacher": config.teacher},
        )
        progress = progress[:round_index] + [record]
        progress_file.write_text(json.dumps(progress, indent=1))
        log(
            f"warm start round {round_index} ({record['stage']}): {stats['samples']} samples, "
            f"{len(data)} in the set, held-out agreement {record['val_agreement']:.3f}, "
            f"value mse {record['val_value_mse']:.3f}"
            + (f", student agreed {stats['student_agreement']:.3f} in play" if "student_agreement" in stats else "")
        )
    return last
