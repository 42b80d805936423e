"""The policy file format: tensors and JSON metadata only, so opening a file runs no code.

A policy file (`*.safetensors`) holds the state dict of a MaskablePPO actor-critic (sb3-contrib's
`MaskableActorCriticPolicy`) in the safetensors format, whose header is JSON and whose body is raw
tensor bytes; nothing in it is ever unpickled. The header's metadata (strings) says how to rebuild
the network around the tensors:

| key | meaning |
|---|---|
| `format` | `city-envs-policy` |
| `format_version` | `1`, `2` for a network with an entity head, `3` for one with a privileged critic (either head) |
| `game`, `players` | what the policy plays (`players` is where it was trained; any count with the same spaces loads) |
| `observation_shape`, `num_actions` | the spaces, as JSON |
| `net_arch`, `activation` | the network: `{"pi": [...], "vf": [...]}` and `tanh` or `relu` |
| `entity_head` | versions 2 and 3 (in 3 when it has one): the entity scorer's spec (`agents/entity_policy.py`) |
| `critic_input` | what the critic reads: `observation` (absent means this), or in version 3 only `all_seats` |
| `info` | free JSON: how it was made (config, steps, stage) |

The actor always reads the seat's observation (`observation_shape`). A critic on `all_seats` reads
`city_envs.core.privileged.all_seats_observation` of a `players`-seat match (`critic_observation`;
`agents/privileged_policy.py`): it values positions for search and training, and no agent reads it.

Opening a file trusts nothing in it: every header field is checked (a known game and a player
count it allows, positive sizes, known activation), the tensors' names, shapes and types are read
from the safetensors index and compared with the network the header describes before anything is
allocated, and weights must be finite floats; anything else is a `PolicyFileError` naming the file
and the field.

SB3's own `.zip` files are pickles: opening one can run code. `load_policy` refuses them unless the
caller passes `trust_pickle=True`; `convert_sb3_zip` turns a trusted zip into a policy file once.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from city_envs.agents.network_spec import check_entity_head, normalize_net_arch
from city_envs.core.files import written_whole

if TYPE_CHECKING:
    from city_envs.core.game import Game

FORMAT = "city-envs-policy"
FORMAT_VERSION = 1  # a plain actor-critic; files written by every earlier city-envs
ENTITY_FORMAT_VERSION = 2  # with an entity head, which a reader of version 1 could not build
PRIVILEGED_FORMAT_VERSION = 3  # with a privileged critic, which a reader of versions 1 and 2 could not build
READABLE_VERSIONS = (FORMAT_VERSION, ENTITY_FORMAT_VERSION, PRIVILEGED_FORMAT_VERSION)
CRITIC_INPUTS = ("observation", "all_seats")  # the seat's own observation, or every seat's (training only)
SUFFIX = ".safetensors"
ACTIVATIONS = ("tanh", "relu")
PICKLE_WARNING = (
    "is a pickled SB3 zip: opening it can run any code its author put in it. Load it only if you "
    "trust where it came from (trust_pickle=True, or the `:trust_pickle` agent flag), and convert "
    "it once with `city-envs convert-model` to the safetensors format, which holds data only"
)


class PolicyFileError(ValueError):
    """A policy file that is missing, not ours, or does not fit the game it is asked to play."""


def build_policy(
    observation_shape: tuple[int, ...],
    num_actions: int,
    net_arch: Any,
    activation: str = "tanh",
    entity_head: dict | None = None,
    critic_size: int | None = None,
):
    """A fresh MaskableActorCriticPolicy on the CPU (the shape every policy file describes), with the
    shared entity scorer as its action net when `entity_head` is given, and a privileged critic of
    `critic_size` inputs when that is given (the actor still reads `observation_shape`)."""
    import gymnasium as gym

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, not {activation!r}")
    space = gym.spaces.Box(-np.inf, np.inf, tuple(observation_shape), np.float32)
    seat_shape = None if critic_size is None else tuple(observation_shape)
    return policy_class(entity_head, critic_size is not None)(
        space,
        gym.spaces.Discrete(int(num_actions)),
        lambda _: 0.0,
        **policy_kwargs(net_arch, activation, entity_head, seat_shape, critic_size),
    )


def policy_class(entity_head: dict | None = None, privileged: bool = False) -> type:
    """The policy class MaskablePPO is given: the plain actor-critic, or the one with an entity head,
    each with the seat's or the privileged critic."""
    if privileged:
        from city_envs.agents import privileged_policy

        if entity_head is None:
            return privileged_policy.PrivilegedActorCriticPolicy
        return privileged_policy.PrivilegedEntityActorCriticPolicy
    if entity_head is None:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        return MaskableActorCriticPolicy
    from city_envs.agents.entity_policy import EntityActorCriticPolicy

    return EntityActorCriticPolicy


def policy_kwargs(
    net_arch: Any,
    activation: str,
    entity_head: dict | None = None,
    seat_shape: tuple[int, ...] | None = None,
    critic_size: int | None = None,
) -> dict:
    """The `policy_kwargs` that make MaskablePPO build the same network as `build_policy`; a privileged
    critic takes the seat's observation shape (what the actor reads) and its own input size."""
    import torch

    kwargs: dict[str, Any] = {
        "net_arch": normalize_net_arch(net_arch),
        "activation_fn": torch.nn.Tanh if activation == "tanh" else torch.nn.ReLU,
    }
    if entity_head is not None:
        kwargs["entity_head"] = entity_head
    if critic_size is not None:
        if seat_shape is None:
            raise ValueError("a privileged critic needs the seat's observation shape (seat_shape)")
        kwargs.update(seat_shape=tuple(seat_shape), critic_size=int(critic_size))
    return kwargs


def critic_size(meta: dict[str, Any]) -> int:
    """How many values a file's critic reads: the observation, or every seat's at `players` seats."""
    size = math.prod(meta["observation_shape"])
    return size * meta["players"] if meta["critic_input"] == "all_seats" else size


def critic_observation(meta: dict[str, Any], game: Game, seat: int) -> np.ndarray:
    """What the critic of the file `meta` describes reads to value `seat`'s position in the match `game`
    (a search's leaf evaluator calls it; no agent does): the seat's observation, or every seat's
    (`all_seats_observation`), which needs the file's game and player count."""
    from city_envs.core.privileged import all_seats_observation

    if meta["critic_input"] == "observation":
        return game.observation(seat).ravel().astype(np.float32, copy=False)
    if (game.name, game.num_players) != (meta["game"], meta["players"]):
        raise PolicyFileError(
            f"this policy's critic reads every seat of a {meta['players']}-player {meta['game']} match, "
            f"not of a {game.num_players}-player {game.name} one"
        )
    return all_seats_observation(game, seat)


def save_policy(
    policy, path: str | Path, *, game: str, players: int, net_arch: Any, activation: str, info: dict | None = None
) -> Path:
    """Write `policy`'s tensors and metadata to `path` (atomically: a crash leaves the old file); an
    entity head and a privileged critic are read from the policy itself, and the shape recorded is the
    seat's observation (what the actor reads), whatever the policy was trained on."""
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    seat_shape = tuple(getattr(policy, "seat_shape", policy.observation_space.shape))
    metadata = {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "game": game,
        "players": str(int(players)),
        "observation_shape": json.dumps(list(seat_shape)),
        "num_actions": str(int(policy.action_space.n)),
        "net_arch": json.dumps(normalize_net_arch(net_arch)),
        "activation": activation,
        "info": json.dumps(info or {}),
    }
    entity_head = getattr(policy, "entity_head", None)
    if entity_head is not None:
        metadata.update(format_version=str(ENTITY_FORMAT_VERSION), entity_head=json.dumps(entity_head))
    if getattr(policy, "critic_input", "observation") == "all_seats":
        if policy.critic_size != math.prod(seat_shape) * int(players):
            raise ValueError(
                f"the critic reads {policy.critic_size} values, not every seat's observation at {players} seats"
            )
        metadata.update(format_version=str(PRIVILEGED_FORMAT_VERSION), critic_input="all_seats")
    tensors = {k: v.detach().cpu().contiguous() for k, v in policy.state_dict().items()}
    with written_whole(path) as temporary:
        save_file(tensors, str(temporary), metadata=metadata)
    return path


FLOAT_DTYPES = ("F16", "BF16", "F32", "F64")  # safetensors' names; weights of any other type are refused


def _json_field(path: Path, raw: dict, key: str, default: str | None = None) -> Any:
    text = raw.get(key, default)
    if text is None:
        raise PolicyFileError(f"{path}: field {key!r} is missing from the metadata")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise PolicyFileError(f"{path}: field {key!r} is not valid JSON: {text[:80]!r}") from None


def _whole(path: Path, raw: dict, key: str, low: int, high: int) -> int:
    text = raw.get(key)
    if not isinstance(text, str) or not text.isascii() or not text.isdigit() or not low <= int(text) <= high:
        raise PolicyFileError(f"{path}: field {key!r} must be a whole number {low}..{high}, not {text!r}")
    return int(text)


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The decoded metadata of a policy file, each field checked (errors name the file and the field);
    reads the JSON header only."""
    from safetensors import safe_open

    from city_envs.core.registry import GAMES, game_class

    path = Path(path)
    if not path.is_file():
        raise PolicyFileError(f"no policy file at {path}")
    try:
        with safe_open(str(path), framework="pt") as handle:
            raw = handle.metadata() or {}
    except Exception as error:  # safetensors raises its own error types for a damaged header
        raise PolicyFileError(f"{path} is not a safetensors policy file: {error}") from None
    if raw.get("format") != FORMAT:
        raise PolicyFileError(f"{path} is a safetensors file but not a city-envs policy (format {raw.get('format')!r})")
    readable = tuple(str(v) for v in READABLE_VERSIONS)
    if raw.get("format_version") not in readable:
        raise PolicyFileError(
            f"{path} has policy format version {raw.get('format_version')!r}; "
            f"this city-envs reads versions {', '.join(readable[:-1])} and {readable[-1]}"
        )
    game = raw.get("game")
    if game not in GAMES:
        raise PolicyFileError(f"{path}: field 'game' must name one of {', '.join(GAMES)}, not {game!r}")
    players = _whole(path, raw, "players", 1, 64)
    try:
        game_class(game).check_num_players(players)
    except ValueError as error:
        raise PolicyFileError(f"{path}: field 'players': {error}") from None
    shape = _json_field(path, raw, "observation_shape")
    if (
        not isinstance(shape, list)
        or not 1 <= len(shape) <= 4
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in shape)
    ):
        raise PolicyFileError(
            f"{path}: field 'observation_shape' must be a list of 1 to 4 positive sizes, not {str(shape)[:80]}"
        )
    num_actions = _whole(path, raw, "num_actions", 1, 2**31 - 1)
    try:
        net_arch = normalize_net_arch(_json_field(path, raw, "net_arch"))
    except (TypeError, ValueError) as error:
        raise PolicyFileError(f"{path}: field 'net_arch': {error}") from None
    if raw.get("activation") not in ACTIVATIONS:
        raise PolicyFileError(
            f"{path}: field 'activation' must be one of {', '.join(ACTIVATIONS)}, not {raw.get('activation')!r}"
        )
    meta = {
        "game": game,
        "players": players,
        "observation_shape": tuple(shape),
        "num_actions": num_actions,
        "net_arch": net_arch,
        "activation": raw["activation"],
        "info": _json_field(path, raw, "info", "{}"),
        "entity_head": None,
        "critic_input": raw.get("critic_input", "observation"),
    }
    privileged = raw["format_version"] == str(PRIVILEGED_FORMAT_VERSION)
    if meta["critic_input"] not in CRITIC_INPUTS or (meta["critic_input"] == "all_seats") != privileged:
        raise PolicyFileError(
            f"{path}: field 'critic_input' must be 'all_seats' in format version {PRIVILEGED_FORMAT_VERSION} "
            f"and 'observation' (or absent) in the others, not {meta['critic_input']!r} in version "
            f"{raw['format_version']}"
        )
    if raw["format_version"] == str(ENTITY_FORMAT_VERSION) or (privileged and "entity_head" in raw):
        try:
            meta["entity_head"] = check_entity_head(
                _json_field(path, raw, "entity_head"), math.prod(meta["observation_shape"]), num_actions
            )
        except (TypeError, ValueError) as error:
            raise PolicyFileError(f"{path}: field 'entity_head': {error}") from None
    return meta


def _mlp_shapes(prefix: str, inputs: int, sizes: list[int]) -> tuple[dict[str, tuple[int, ...]], int]:
    shapes: dict[str, tuple[int, ...]] = {}
    for index, size in enumerate(sizes):
        shapes[f"{prefix}.{2 * index}.weight"], shapes[f"{prefix}.{2 * index}.bias"] = (size, inputs), (size,)
        inputs = size
    return shapes, inputs


def expected_shapes(meta: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """Every tensor the network `meta` describes, by state-dict name, with its shape: worked out from
    the metadata alone, so a file can be checked before any network is allocated."""
    inputs, actions, arch, head = (
        math.prod(meta["observation_shape"]),
        meta["num_actions"],
        meta["net_arch"],
        meta["entity_head"],
    )
    shapes, latent_pi = _mlp_shapes("mlp_extractor.policy_net", inputs, arch["pi"])
    value_shapes, latent_vf = _mlp_shapes("mlp_extractor.value_net", critic_size(meta), arch["vf"])
    shapes |= value_shapes
    shapes |= {"value_net.weight": (1, latent_vf), "value_net.bias": (1,)}
    if head is None:
        return shapes | {"action_net.weight": (actions, latent_pi), "action_net.bias": (actions,)}
    shapes |= {"action_net.flat.weight": (actions, latent_pi), "action_net.flat.bias": (actions,)}
    context = sum(len(range(begin, stop, step)) for begin, stop, step in head["context"])
    size = sum(width for _, width in head["rows"]) + head["count"] + context + latent_pi
    scorer, size = _mlp_shapes("action_net.scorer", size, head["hidden"])
    last = 2 * len(head["hidden"])
    return (
        shapes
        | scorer
        | {
            f"action_net.scorer.{last}.weight": (len(head["action_starts"]), size),
            f"action_net.scorer.{last}.bias": (len(head["action_starts"]),),
        }
    )


def check_tensor_index(path: Path, meta: dict[str, Any]) -> None:
    """The file's tensors (names, shapes, float types) are exactly the network its header describes;
    read from the header only, before anything is allocated (a lying header cannot ask for more)."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as handle:
            found = {
                name: (handle.get_slice(name).get_dtype(), tuple(handle.get_slice(name).get_shape()))
                for name in handle.keys()  # noqa: SIM118 - a safe_open handle is not iterable
            }
    except Exception as error:  # safetensors' own error types
        raise PolicyFileError(f"{path} is not a safetensors policy file: {error}") from None
    wanted = expected_shapes(meta)
    if set(found) != set(wanted):
        missing, extra = sorted(set(wanted) - set(found)), sorted(set(found) - set(wanted))
        raise PolicyFileError(
            f"{path}: field 'tensors' does not fit the network its metadata describes "
            f"(missing {missing[:4]}, unexpected {extra[:4]})"
        )
    for name, (dtype, shape) in found.items():
        if dtype not in FLOAT_DTYPES:
            raise PolicyFileError(
                f"{path}: tensor {name!r} holds {dtype} values; weights are floats ({', '.join(FLOAT_DTYPES)})"
            )
        if shape != wanted[name]:
            raise PolicyFileError(
                f"{path}: tensor {name!r} has shape {list(shape)}, but the metadata "
                f"(observation_shape, num_actions, net_arch, entity_head) describes "
                f"{list(wanted[name])}"
            )


def load_policy_file(path: str | Path, game: str | None = None, players: int | None = None):
    """(policy in eval mode on the CPU, metadata) from a policy file, refused with `PolicyFileError`
    (naming the file and the field) when its header or tensors are wrong, when a weight is not a
    finite float, or when it plays another `game` or `players` count than the one asked for."""
    import torch
    from safetensors.torch import load_file

    path = Path(path)
    meta = read_metadata(path)
    if game is not None and meta["game"] != game:
        raise PolicyFileError(f"{path}: field 'game' is {meta['game']!r}, but it is asked to play {game}")
    if players is not None and meta["players"] != players:
        raise PolicyFileError(
            f"{path}: field 'players' is {meta['players']}, but it is asked to play a {players}-player match"
        )
    if game is not None:
        from city_envs.core.registry import game_class

        cls = game_class(game)
        if tuple(meta["observation_shape"]) != tuple(cls.observation_shape) or meta["num_actions"] != cls.num_actions:
            raise PolicyFileError(
                f"{path}: fields 'observation_shape' {list(meta['observation_shape'])} and 'num_actions' "
                f"{meta['num_actions']} do not fit {game}'s {list(cls.observation_shape)} and {cls.num_actions}"
            )
    check_tensor_index(path, meta)
    tensors = load_file(str(path), device="cpu")
    for name, tensor in tensors.items():
        if not bool(torch.isfinite(tensor).all()):
            raise PolicyFileError(f"{path}: tensor {name!r} holds NaN or infinite weights")
    with torch.random.fork_rng(devices=[]):  # the initial weights are overwritten: leave the caller's RNG alone
        policy = build_policy(
            meta["observation_shape"],
            meta["num_actions"],
            meta["net_arch"],
            meta["activation"],
            meta["entity_head"],
            critic_size(meta) if meta["critic_input"] == "all_seats" else None,
        )
    try:
        policy.load_state_dict(tensors, strict=True)
    except RuntimeError as error:
        raise PolicyFileError(f"{path}: tensors do not fit the network its metadata describes: {error}") from None
    policy.set_training_mode(False)
    return policy, meta


def load_sb3_zip(path: str | Path, trust_pickle: bool = False):
    """The policy inside an SB3 MaskablePPO zip; refuses unless `trust_pickle` (the zip is a pickle)."""
    if not trust_pickle:
        raise PolicyFileError(f"{path} {PICKLE_WARNING}")
    import torch
    from sb3_contrib import MaskablePPO

    # loading reseeds the global RNGs with the model's seed: keep them as they were
    states = torch.get_rng_state(), np.random.get_state(), random.getstate()
    try:
        model = MaskablePPO.load(str(path), device="cpu")
    finally:
        torch.set_rng_state(states[0])
        np.random.set_state(states[1])
        random.setstate(states[2])
    model.policy.set_training_mode(False)
    return model.policy


def convert_sb3_zip(zip_path: str | Path, out: str | Path, game: str, players: int) -> Path:
    """Rewrite a trusted SB3 MaskablePPO zip as a policy file (same network, same play)."""
    policy = load_sb3_zip(zip_path, trust_pickle=True)
    arch = policy.net_arch
    activation = "relu" if policy.activation_fn.__name__.lower() == "relu" else "tanh"
    return save_policy(
        policy,
        out,
        game=game,
        players=players,
        net_arch=arch,
        activation=activation,
        info={"converted_from": Path(zip_path).name},
    )
