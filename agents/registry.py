"""Agents by name, as the command line and the arena spell them ("random", "heuristic")."""

from __future__ import annotations

import importlib

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
PPO_FLAGS = ("sample", "trust_pickle")
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
    ppo[:PATH][:sample][:trust_pickle] (a policy file, by default the committed baseline
    `training/baselines/<game>_<players>p.safetensors`; greedy, or sampling from its policy with `:sample`;
    an SB3 `.zip` only with `:trust_pickle`, since opening one can run code)."""
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

        parts = spec.split(":") if spec else []
        flags = {p for p in parts if p in PPO_FLAGS}
        paths = [p for p in parts if p not in PPO_FLAGS]
        if len(paths) > 1:
            raise ValueError(f"bad ppo spec {kind!r}: one path at most, then flags {', '.join(PPO_FLAGS)}")
        return PolicyAgent(paths[0] if paths else None, seed, greedy="sample" not in flags,
                           trust_pickle="trust_pickle" in flags)
    raise ValueError(f"unknown agent {kind!r}; allowed: {', '.join(AGENT_KINDS)}")
