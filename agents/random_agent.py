"""Uniformly random legal play: the floor of every strength ladder."""

from __future__ import annotations

import numpy as np

from city_envs.agents.base import make_rng
from city_envs.core.infoset import InfoSet


class RandomAgent:
    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        self.rng = make_rng(seed)

    def act(self, info_set: InfoSet) -> int:
        legal = np.flatnonzero(info_set.legal_actions())
        return int(legal[self.rng.integers(len(legal))])
