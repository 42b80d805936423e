"""SuperSuit: many matches of a game as one vector env (one row per seat per match).

A turn-based game becomes a parallel env with PettingZoo's `turn_based_aec_to_parallel` (every seat sends
an action each step; only the acting seat's counts, and `info["active_agent"]` names it), and SuperSuit
stacks copies of it: `obs["observation"]` and `obs["action_mask"]` get shape (num_envs * num_players, ...),
rows ordered match by match, seat by seat. Non-acting rows have an all-zero mask. Finished matches reset
on their own. `base_class="stable_baselines3"` gives an SB3 `VecEnv` instead of a Gymnasium one.
"""

from __future__ import annotations

from typing import Any

import supersuit
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import city_envs


def parallel_env(name: str, num_players: int, **options: Any):
    """The game as a turn-based PettingZoo `ParallelEnv`."""
    return turn_based_aec_to_parallel(city_envs.make_env(name, num_players, **options))


def vector_env(
    name: str, num_players: int, num_envs: int, num_cpus: int = 0, base_class: str = "gymnasium", **options: Any
):
    """`num_envs` matches stacked by SuperSuit; `num_cpus` > 0 steps them in that many worker processes."""
    if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, not {num_envs!r}")
    markov = supersuit.pettingzoo_env_to_vec_env_v1(parallel_env(name, num_players, **options))
    return supersuit.concat_vec_envs_v1(markov, num_envs, num_cpus=num_cpus, base_class=base_class)
