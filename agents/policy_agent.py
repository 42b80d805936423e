"""A trained MaskablePPO policy playing one seat through the information-set handle.

`ppo:PATH` loads a model saved by `training/selfplay.py` (or any MaskablePPO zip with the game's
observation and action spaces); `ppo` alone loads the committed baseline
`training/baselines/<game>_<players>p.zip` for the match's player count. The policy picks the most
likely legal action (greedy), or samples from its masked distribution with the agent's own seeded
numpy generator when `greedy=False` (the self-play opponents do), so play is reproducible either way.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from city_envs.agents.base import make_rng
from city_envs.core.infoset import InfoSet

# the training package sits next to this one, in the repository (agents/, training/) and installed alike
BASELINES_DIR = Path(__file__).resolve().parent.parent / "training" / "baselines"
_POLICIES: dict[str, object] = {}  # resolved path -> loaded policy, shared by the agents of a process


def baseline_path(game_name: str, num_players: int) -> Path:
    return BASELINES_DIR / f"{game_name}_{num_players}p.zip"


def load_policy(path: str | Path):
    """The MaskableActorCriticPolicy saved in `path`, on the CPU in eval mode (cached per process)."""
    key = str(Path(path).resolve())
    if key not in _POLICIES:
        if not Path(key).is_file():
            raise ValueError(f"no PPO model at {path}")
        try:
            import torch
            from sb3_contrib import MaskablePPO
        except ImportError as error:
            raise ImportError(f"ppo agents need the train extra ({error.name} is not installed): "
                              "pip install 'city-envs[train]' (see the README for the CPU build of torch)") from None

        # loading reseeds the global RNGs with the model's seed: keep them as they were, so a policy
        # loaded in a trainer's process (a pool opponent, an evaluation) does not change its run
        states = torch.get_rng_state(), np.random.get_state(), random.getstate()
        try:
            model = MaskablePPO.load(key, device="cpu")
        finally:
            torch.set_rng_state(states[0])
            np.random.set_state(states[1])
            random.setstate(states[2])
        model.policy.set_training_mode(False)
        _POLICIES[key] = model.policy
    return _POLICIES[key]


def masked_logits(policy, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The policy's action logits for one observation, -inf where the mask forbids."""
    import torch

    with torch.no_grad():
        obs = torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0)
        features = policy.extract_features(obs, policy.pi_features_extractor)
        if isinstance(features, tuple):
            features = features[0]
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))[0].numpy()
    return np.where(mask, logits, -np.inf)


class PolicyAgent:
    """Plays `path`'s policy (None: the game's baseline for the match's player count)."""

    def __init__(self, path: str | Path | None = None, seed: int | np.random.Generator | None = None,
                 greedy: bool = True) -> None:
        self.path = None if path is None else str(path)
        self.rng = make_rng(seed)
        self.greedy = greedy
        self._policy = None
        if self.path is not None:
            load_policy(self.path)  # fail early on a missing or unreadable file

    def _checked_policy(self, info_set: InfoSet, observation: np.ndarray):
        path = self.path or baseline_path(info_set.game_name, info_set.num_players)
        if self.path is None and not Path(path).is_file():
            raise ValueError(f"no PPO baseline for {info_set.game_name} with {info_set.num_players} players "
                             f"({path}); train one with `city-envs train` and use ppo:PATH")
        policy = load_policy(path)
        expected = (tuple(policy.observation_space.shape), int(policy.action_space.n))
        actual = (observation.shape, info_set.num_actions)
        if expected != actual:
            raise ValueError(f"model {path} expects (observation shape, actions) {expected}, "
                             f"{info_set.game_name} {info_set.num_players}p has {actual}")
        return policy

    def prepare(self, info_set: InfoSet) -> None:
        """Load and check the model for `info_set`'s game and player count now, not at the first move."""
        self._policy = self._checked_policy(info_set, info_set.observation())

    def act(self, info_set: InfoSet) -> int:
        mask = info_set.legal_actions()
        if not mask.any():
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        observation = info_set.observation()
        if self._policy is None:
            self._policy = self._checked_policy(info_set, observation)
        logits = masked_logits(self._policy, observation, mask)
        if self.greedy:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def __getstate__(self) -> dict:
        """The path, not the network: a pickled agent (a checkpointed env) reloads it lazily."""
        return {"path": self.path, "rng": self.rng, "greedy": self.greedy}

    def __setstate__(self, state: dict) -> None:
        self.path, self.rng, self.greedy = state["path"], state["rng"], state["greedy"]
        self._policy = None
