"""Training-throughput benchmarks (pytest-benchmark; timings only with `--benchmark-enable`, never asserted).

The side-by-side figure the docs quote (reference set-up against the default, one run) is
`python -m city_envs.training.throughput`; these time the pieces it is made of.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from city_envs.training.pool import OpponentPool  # noqa: E402
from city_envs.training.vec_env import SelfPlayVecEnv  # noqa: E402


@pytest.mark.parametrize("n_envs", [1, 64])
def test_vector_env_steps(benchmark, n_envs):
    """64 env steps of Citadels (2 players, heuristic and random opponents), in one or in 64 matches."""
    env = SelfPlayVecEnv("citadels", 2, n_envs, seed=0, pool=OpponentPool("citadels", {"heuristic": 1, "random": 1}))
    env.reset()
    rng = np.random.default_rng(0)

    def steps():
        for _ in range(64 // n_envs):
            env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))

    benchmark(steps)
