"""Agents by name, as the command line and the arena spell them ("random", "heuristic")."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from city_envs.agents.base import Agent
from city_envs.agents.random_agent import RandomAgent
from city_envs.core.settings import parse_value

# game name -> "module:Class" of its HeuristicAgent
HEURISTICS: dict[str, str] = {
    "citadels": "city_envs.agents.citadels_heuristic:CitadelsHeuristicAgent",
    "metropolys": "city_envs.agents.metropolys_heuristic:MetropolysHeuristicAgent",
    "blue_moon_city": "city_envs.agents.blue_moon_city_heuristic:BlueMoonCityHeuristicAgent",
    "big_city": "city_envs.agents.big_city_heuristic:BigCityHeuristicAgent",
    "urban_sprawl": "city_envs.agents.urban_sprawl_heuristic:UrbanSprawlHeuristicAgent",
}
AGENT_KINDS = ("random", "heuristic", "ismcts", "ppo")
PPO_FLAGS = ("sample", "trust_pickle")
# `ismcts:key=value:...` parameters and their types


def _int_or_none(text: str) -> int | None:
    """An integer, or `none` for no limit (`max_rollout=none`: rollouts to the end)."""
    return None if text.lower() == "none" else int(text)


_int_or_none.__name__ = "int or none"
ISMCTS_PARAMS: dict[str, Callable[[str], object]] = {
    "iters": int,
    "seconds": float,
    "c": float,
    "max_rollout": _int_or_none,
    "rollout": str,
    "bias": float,
    "opponents": str,
}
# `ismcts:net=PATH|ppo:...`: the network-guided search (agents/guided_ismcts.py) and its parameters
GUIDED_ISMCTS_PARAMS: dict[str, Callable[[str], object]] = {
    "net": str,
    "iters": int,
    "seconds": float,
    "c_puct": float,
    "temperature": float,
    "batch": int,
}


def heuristic_class(game_name: str) -> type:
    if game_name not in HEURISTICS:
        raise ValueError(f"no heuristic agent for {game_name!r}; games with one: {', '.join(HEURISTICS)}")
    module_name, class_name = HEURISTICS[game_name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def parse_params(spec: str, allowed: Mapping[str, Callable[[str], object]]) -> dict:
    """`key=value:key=value` to typed keyword arguments; unknown keys or bad values raise ValueError."""
    params = {}
    for part in filter(None, spec.split(":")):
        key, _, text = part.partition("=")
        if key not in allowed or not text:
            raise ValueError(f"bad agent parameter {part!r}; allowed: {', '.join(f'{k}=...' for k in allowed)}")
        try:
            params[key] = allowed[key](text)
        except ValueError:
            raise ValueError(f"bad value in agent parameter {part!r}: expected {allowed[key].__name__}") from None
    return params


def user_agent(kind: str, seed: int | np.random.Generator | None) -> Agent:
    """`module:Class[:key=value...]`: the user's class, built as `Class(seed=seed, key=value, ...)`.

    Values are read as `--option` reads them (`depth=3`, `greedy=true` or `True`; text otherwise);
    `seed` is an int or None. The module must be importable (installed, on PYTHONPATH, or in the
    current directory). Every failure is a ValueError naming the spec.
    """
    module_name, _, rest = kind.partition(":")
    class_name, _, spec = rest.partition(":")
    params = {}
    for part in filter(None, spec.split(":")):
        key, sep, text = part.partition("=")
        if not sep or not key.isidentifier() or key == "seed":
            raise ValueError(f"bad parameter {part!r} in agent {kind!r}: expected key=value (seed is given)")
        params[key] = parse_value(text)
    if str(Path.cwd()) not in sys.path and "" not in sys.path:
        sys.path.append(str(Path.cwd()))  # `python -m` finds modules of the current directory; so does the CLI
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"agent {kind!r}: cannot import module {module_name!r} ({error})") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"agent {kind!r}: module {module_name!r} has no class {class_name!r}")
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(2**63))
    try:
        agent = cls(seed=seed, **params)
    except TypeError as error:
        raise ValueError(f"agent {kind!r}: {class_name}(seed=..., {', '.join(params)}) failed: {error}") from None
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent {kind!r}: {class_name} has no act(info_set) method")
    return agent


def is_user_agent(kind: str) -> bool:
    """Whether `kind` names a class (`module:Class...`) rather than a built-in agent."""
    name, _, rest = kind.partition(":")
    return name not in AGENT_KINDS and rest.partition(":")[0].isidentifier()


def make_agent(kind: str, game_name: str, seed: int | np.random.Generator | None = None) -> Agent:
    """A fresh agent of `kind` for `game_name`: random, heuristic, or ismcts[:iters=N|:seconds=S][:c=X]
    [:max_rollout=N|none][:rollout=random|heuristic][:bias=X][:opponents=heuristic|search], or
    ismcts:net=PATH|ppo[:iters=N|:seconds=S][:c_puct=X][:temperature=T][:batch=K] (guided by a policy
    file's actor and critic, no rollouts: `agents/guided_ismcts.py`), or
    ppo[:PATH][:sample][:trust_pickle] (a policy file, by default the committed baseline
    `training/baselines/<game>_<players>p.safetensors`; greedy, or sampling from its policy with `:sample`;
    an SB3 `.zip` only with `:trust_pickle`, since opening one can run code),
    or a class of the user's, `module:Class[:key=value...]` (see `user_agent`)."""
    if is_user_agent(kind):
        return user_agent(kind, seed)
    name, _, spec = kind.partition(":")
    if name == "random" and not spec:
        return RandomAgent(seed)
    if name == "heuristic" and not spec:
        return heuristic_class(game_name)(seed)
    if name == "ismcts" and any(part.startswith("net=") for part in spec.split(":")):
        from city_envs.agents.guided_ismcts import GuidedISMCTSAgent

        params = parse_params(spec, GUIDED_ISMCTS_PARAMS)
        if "seconds" in params:
            params.setdefault("iters", None)
        return GuidedISMCTSAgent(seed, game=game_name, **params)
    if name == "ismcts":
        from city_envs.agents.ismcts import ISMCTSAgent

        params = parse_params(spec, ISMCTS_PARAMS)
        if "c" in params:
            params["exploration"] = params.pop("c")
        if "seconds" in params:
            params.setdefault("iters", None)
        agent = ISMCTSAgent(seed, **params)
        if agent.needs_heuristic:
            heuristic_class(game_name)  # fail now, not at the first decision, for a game without one
        return agent
    if name == "ppo":
        from city_envs.agents.policy_agent import PolicyAgent

        parts = spec.split(":") if spec else []
        flags = {p for p in parts if p in PPO_FLAGS}
        paths = [p for p in parts if p not in PPO_FLAGS]
        if len(paths) > 1:
            raise ValueError(f"bad ppo spec {kind!r}: one path at most, then flags {', '.join(PPO_FLAGS)}")
        return PolicyAgent(
            paths[0] if paths else None, seed, greedy="sample" not in flags, trust_pickle="trust_pickle" in flags
        )
    raise ValueError(f"unknown agent {kind!r}; allowed: {', '.join(AGENT_KINDS)}, or module:Class[:key=value...]")


def make_opponents(kinds: Sequence[str], game_name: str, seed: int | None = None) -> list[Agent]:
    """Agents by name for the other seats of a `city_envs.SingleAgentEnv`, e.g. `["heuristic", "ppo"]`.

    Each gets its own seed (the env reseeds them on every `reset` anyway); a bad name raises ValueError.
    """
    seeds = np.random.SeedSequence(seed).spawn(len(kinds))
    return [make_agent(kind, game_name, np.random.default_rng(s)) for kind, s in zip(kinds, seeds, strict=True)]


def prepare_agents(agents: Sequence[Agent], game) -> None:
    """Let every agent check, before any match, that it can play its seat of `game`'s kind of match.

    An agent may define `prepare(info_set)` (the PPO agent loads its model and checks its shapes);
    its ValueError or ImportError then stops the command line before any work starts.
    """
    from city_envs.core.infoset import InfoSet

    for seat, agent in enumerate(agents):
        prepare = getattr(agent, "prepare", None)
        if prepare is not None:
            prepare(InfoSet(game, seat))
