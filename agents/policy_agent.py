"""A trained policy playing one seat through the information-set handle.

`ppo:PATH` loads a policy file (`*.safetensors`, see `agents/policy_file.py`: data only, nothing
runs on load); `ppo` alone loads the committed baseline for the match's player count: the policy whose
SHA-256 its record `training/baselines/<game>_<players>p.json` names, in the policy store
`training/baselines/policies/<sha256>.safetensors` (each policy stored once, there, by its content:
the baselines, the policies they continued and the benchmark suites' references). SB3's pickled
`.zip` files load only with `trust_pickle=True` (`ppo:PATH.zip:trust_pickle`), since opening one can
run code. The policy picks the most likely
legal action (greedy), or samples from its masked distribution with the agent's own seeded numpy
generator when `greedy=False`, so play is reproducible either way.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import numpy as np

from city_envs.agents.base import make_rng
from city_envs.agents.policy_file import SUFFIX, PolicyFileError, load_policy_file, load_sb3_zip
from city_envs.core.infoset import InfoSet

# the training package sits next to this one, in the repository (agents/, training/) and installed alike
BASELINES_DIR = Path(__file__).resolve().parent.parent / "training" / "baselines"
STORE = "policies"  # the policy store, a folder of the baselines' one: every committed policy file, by SHA-256
LINEAGE = "lineage"  # the records and configs of the policies the baselines continued, beside the store
POLICY_CACHE_SIZE = 16  # loaded policies kept per process (a pool holds at most a few snapshots)
_POLICIES: OrderedDict[tuple[str, float, bool], object] = OrderedDict()


def stored_policy(sha256: object) -> Path:
    """The policy store's file of content `sha256` (64 hex digits; one ValueError otherwise)."""
    if not isinstance(sha256, str) or len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
        raise ValueError(f"{sha256!r} is not a SHA-256 (64 lower-case hex digits)")
    return BASELINES_DIR / STORE / f"{sha256}{SUFFIX}"


def stored_record(path: Path) -> Path | None:
    """The record (without its `.json` suffix) that names the policy file `path` when it lies in a
    policy store: a baseline's or a continued policy's, whose `policy` is the file's name, in the
    folder above the store; None for any other file."""
    if path.parent.name != STORE:
        return None
    home = path.parent.parent
    for record in (*sorted(home.glob("*.json")), *sorted(home.glob(f"{LINEAGE}/*.json"))):
        try:
            if json.loads(record.read_text()).get("policy") == path.stem:
                return record.with_suffix("")
        except (OSError, ValueError, AttributeError):
            continue
    return None


def baseline_stem(game_name: str, num_players: int) -> Path:
    """The committed baseline's files without their suffix: its record (`.json`), config (`.toml`)
    and learning curve (`_curve.png`)."""
    return BASELINES_DIR / f"{game_name}_{num_players}p"


def baseline_path(game_name: str, num_players: int) -> Path:
    """The committed baseline's policy file: the store's file of the SHA-256 its record names (where
    no baseline is committed, a path that is no file, so that loading it says which is missing)."""
    record = baseline_stem(game_name, num_players).with_suffix(".json")
    try:
        sha256 = json.loads(record.read_text())["policy"]
    except (OSError, ValueError, KeyError, TypeError):
        return baseline_stem(game_name, num_players).with_suffix(SUFFIX)
    return stored_policy(sha256)


def load_policy(path: str | Path, trust_pickle: bool = False):
    """The actor-critic saved in `path`, on the CPU in eval mode; the last few are cached per process
    (keyed by path and modification time, so a rewritten file is read again)."""
    resolved = Path(path).resolve()
    if not resolved.is_file():
        raise PolicyFileError(f"no policy file at {path}")
    key = (str(resolved), resolved.stat().st_mtime, trust_pickle)
    if key in _POLICIES:
        _POLICIES.move_to_end(key)
        return _POLICIES[key]
    try:
        import safetensors  # noqa: F401
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as error:
        raise ImportError(
            f"ppo agents need the train extra ({error.name} is not installed): "
            "pip install 'city-envs[train]' (see docs/install.md for the CPU build of torch)"
        ) from None
    if resolved.suffix == ".zip":
        policy = load_sb3_zip(resolved, trust_pickle=trust_pickle)
    else:
        policy, meta = load_policy_file(resolved)
        policy.city_envs_game = meta["game"]
    _POLICIES[key] = policy
    while len(_POLICIES) > POLICY_CACHE_SIZE:
        _POLICIES.popitem(last=False)
    return policy


def batch_logits(policy, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The policy's action logits for a batch of observations, -inf where a mask forbids."""
    import torch

    with torch.inference_mode():  # no autograd bookkeeping at all: the cheapest forward pass, same values
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        features = policy.extract_features(obs, policy.pi_features_extractor)
        if isinstance(features, tuple):
            features = features[0]
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
    return np.where(masks, logits, -np.inf)


def masked_logits(policy, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`batch_logits` for one observation."""
    return batch_logits(policy, observation[None], mask[None])[0]


def pick_action(logits: np.ndarray, greedy: bool, rng: np.random.Generator) -> int:
    """The most likely action, or one sampled from softmax(logits) with `rng`."""
    if greedy:
        return int(np.argmax(logits))
    probs = np.exp(logits - logits.max())
    return int(rng.choice(len(probs), p=probs / probs.sum()))


class PolicyAgent:
    """Plays `path`'s policy (None: the game's baseline for the match's player count)."""

    def __init__(
        self,
        path: str | Path | None = None,
        seed: int | np.random.Generator | None = None,
        greedy: bool = True,
        trust_pickle: bool = False,
    ) -> None:
        self.path = None if path is None else str(path)
        self.rng = make_rng(seed)
        self.greedy = greedy
        self.trust_pickle = trust_pickle
        self._policy = None
        if self.path is not None:
            load_policy(self.path, trust_pickle)  # fail early on a missing, unreadable or untrusted file

    def _checked_policy(self, info_set: InfoSet, observation: np.ndarray):
        path = self.path or baseline_path(info_set.game_name, info_set.num_players)
        if self.path is None and not Path(path).is_file():
            raise PolicyFileError(
                f"no PPO baseline for {info_set.game_name} with {info_set.num_players} players "
                f"({path}); train one with `city-envs train` and use ppo:PATH"
            )
        policy = load_policy(path, self.trust_pickle)
        game = getattr(policy, "city_envs_game", None)  # a policy file's game (an SB3 zip does not say)
        if game is not None and game != info_set.game_name:
            raise PolicyFileError(f"{path}: field 'game' is {game!r}, but it is asked to play {info_set.game_name}")
        expected = (tuple(policy.observation_space.shape), int(policy.action_space.n))
        actual = (observation.shape, info_set.num_actions)
        if expected != actual:
            raise PolicyFileError(
                f"model {path} expects (observation shape, actions) {expected}, "
                f"{info_set.game_name} {info_set.num_players}p has {actual}"
            )
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
        return pick_action(masked_logits(self._policy, observation, mask), self.greedy, self.rng)

    def __getstate__(self) -> dict:
        """The path, not the network: a copied or pickled agent reloads it lazily."""
        return {**self.__dict__, "_policy": None}
