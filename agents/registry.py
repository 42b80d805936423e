"""Agents by name, as the command line and the arena spell them ("random", "heuristic")."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from agents.random_agent import RandomAgent

# game name -> "module:Class" of its HeuristicAgent
HEURISTICS: dict[str, str] = {
    "citadels": "agents.citadels_heuristic:CitadelsHeuristicAgent",
    "metropolys": "agents.metropolys_heuristic:MetropolysHeuristicAgent",
    "blue_moon_city": "agents.blue_moon_city_heuristic:BlueMoonCityHeuristicAgent",
    "big_city": "agents.big_city_heuristic:BigCityHeuristicAgent",
    "urban_sprawl": "agents.urban_sprawl_heuristic:UrbanSprawlHeuristicAgent",
}
AGENT_KINDS = ("random", "heuristic", "ismcts", "ppo")
# `ismcts:key=value:...` parameters and their types


def _int_or_none(text: str) -> int | None:
    """An integer, or `none` for no limit (`max_rollout=none`: rollouts to the end)."""
    return None if text.lower() == "none" else int(text)


_int_or_none.__name__ = "int or none"
ISMCTS_PARAMS = {"iters": int, "seconds": float, "c": float, "max_rollout": _int_or_none, "rollout": str,
                 "bias": float, "opponents": str}


def heuristic_class(game_name: str) -> type:
    if game_name not in HEURISTICS:
        raise ValueError(f"no heuristic agent for {game_name!r}; games with one: {', '.join(HEURISTICS)}")
    module_name, class_name = HEURISTICS[game_name].split(":")
    return getattr(importlib.import_module(module_name), class_name)


def parse_params(spec: str, allowed: dict[str, type]) -> dict:
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


def make_agent(kind: str, game_name: str, seed: int | np.random.Generator | None = None) -> Agent:
    """A fresh agent of `kind` for `game_name`: random, heuristic, or ismcts[:iters=N|:seconds=S][:c=X]
    [:max_rollout=N|none][:rollout=random|heuristic][:bias=X][:opponents=heuristic|search], or
    ppo[:PATH][:sample] (a saved MaskablePPO model, by default the committed baseline
    `training/baselines/<game>_<players>p.zip`; greedy, or sampling from its policy with `:sample`)."""
    name, _, spec = kind.partition(":")
    if name == "random" and not spec:
        return RandomAgent(seed)
    if name == "heuristic" and not spec:
        return heuristic_class(game_name)(seed)
    if name == "ismcts":
        from agents.ismcts import ISMCTSAgent

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
        from agents.policy_agent import PolicyAgent

        sample = spec == "sample" or spec.endswith(":sample")
        path = spec.removesuffix("sample").removesuffix(":") if sample else spec
        return PolicyAgent(path or None, seed, greedy=not sample)
    raise ValueError(f"unknown agent {kind!r}; allowed: {', '.join(AGENT_KINDS)}")


def make_opponents(kinds: Sequence[str], game_name: str, seed: int | None = None) -> list[Agent]:
    """Agents by name for the other seats of a `city_envs.SingleAgentEnv`, e.g. `["heuristic", "ppo"]`.

    Each gets its own seed (the env reseeds them on every `reset` anyway); a bad name raises ValueError.
    """
    seeds = np.random.SeedSequence(seed).spawn(len(kinds))
    return [make_agent(kind, game_name, np.random.default_rng(s)) for kind, s in zip(kinds, seeds, strict=True)]
