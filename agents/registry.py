"""Agents by spec, as the command line and the arena spell them (`agents/spec.py`): `make_agent`, the
opponents of a single-agent env, and the check every agent makes of its seat before any match."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from city_envs.agents.base import Agent
from city_envs.agents.heuristics import HEURISTICS, heuristic_class
from city_envs.agents.spec import AGENT_KINDS, AgentSpec, is_user_agent

__all__ = ["AGENT_KINDS", "HEURISTICS", "AgentSpec", "heuristic_class", "is_user_agent", "make_agent"]


def make_agent(kind: str | AgentSpec, game_name: str, seed: int | np.random.Generator | None = None) -> Agent:
    """A fresh agent for `game_name` from its spec (`agents/spec.py` lists the spellings: random, heuristic,
    ismcts[:...], ismcts:net=PATH|ppo[:...], ppo[:PATH][:sample][:trust_pickle], module:Class[:key=value...]);
    a bad spec is a ValueError."""
    spec = kind if isinstance(kind, AgentSpec) else AgentSpec.parse(kind)
    return spec.build(game_name, seed)


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
