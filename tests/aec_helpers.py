"""Helpers shared by the PettingZoo adapter tests of every game."""

from __future__ import annotations

import numpy as np


def run_episode(env, rng: np.random.Generator, seed: int | None = None) -> dict[str, float]:
    """Random legal play through the AEC loop; total reward per agent."""
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return totals
