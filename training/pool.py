"""The opponent pool: who fills the other seats of a training match.

Each other seat of each episode gets an opponent drawn with the pool weights: `self` (a frozen
snapshot of the learner, sampling from its policy), `heuristic` (the game's rule-of-thumb agent)
or `random` (uniform legal play). Every opponent owns a numpy generator seeded from its env's
generator, so play is reproducible, and its state is plain data (`to_state`), so a checkpoint holds
no pickles. Snapshot opponents are not asked one at a time: the vector env gathers every match
whose seat to move is a snapshot and evaluates each snapshot once for the whole batch
(`training/vec_env.py`), then each opponent samples from its row with its own generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from city_envs.agents.base import Agent
from city_envs.agents.policy_agent import load_policy
from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.registry import HEURISTICS, heuristic_class
from city_envs.core.game import rng_from_state

KINDS = ("self", "heuristic", "random")


@dataclass
class Opponent:
    """One seat's opponent for one episode; `agent` plays the heuristic and random kinds."""

    kind: str
    rng: np.random.Generator
    snapshot: str | None = None
    agent: Agent | None = None

    def to_state(self) -> dict:
        return {"kind": self.kind, "snapshot": self.snapshot, "rng": self.rng.bit_generator.state}


class OpponentPool:
    """Draws opponents for `game` with relative weights per kind over the last `max_snapshots`."""

    def __init__(self, game: str, weights: dict[str, float], max_snapshots: int = 10) -> None:
        unknown = sorted(set(weights) - set(KINDS))
        if unknown:
            raise ValueError(f"unknown pool kinds {unknown}; allowed: {', '.join(KINDS)}")
        if min(weights.values(), default=0) < 0 or sum(weights.values()) <= 0:
            raise ValueError(f"pool weights must be >= 0 and not all 0: {weights}")
        if weights.get("heuristic", 0) > 0 and game not in HEURISTICS:
            raise ValueError(f"{game} has no heuristic agent: set pool_heuristic = 0")
        self.game = game
        self.weights = {k: float(weights.get(k, 0.0)) for k in KINDS}
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []

    def add_snapshot(self, path: str) -> None:
        self.snapshots = (self.snapshots + [str(path)])[-self.max_snapshots :]

    def draw(self, rng: np.random.Generator) -> Opponent:
        """An opponent of a kind drawn by weight (`self` only once a snapshot exists)."""
        weights = dict(self.weights)
        if not self.snapshots:
            weights["self"] = 0.0
        if sum(weights.values()) <= 0:  # only `self` was asked for and there is no snapshot yet
            weights["random"] = 1.0
        kinds = [k for k in KINDS if weights[k] > 0]
        p = np.array([weights[k] for k in kinds])
        kind = kinds[rng.choice(len(kinds), p=p / p.sum())]
        own = np.random.default_rng(int(rng.integers(2**63)))
        snapshot = self.snapshots[int(rng.integers(len(self.snapshots)))] if kind == "self" else None
        return self.build(kind, own, snapshot)

    def build(self, kind: str, rng: np.random.Generator, snapshot: str | None = None) -> Opponent:
        if kind == "random":
            return Opponent(kind, rng, agent=RandomAgent(rng))
        if kind == "heuristic":
            return Opponent(kind, rng, agent=heuristic_class(self.game)(rng))
        if kind == "self":
            if snapshot is None:
                raise ValueError("a 'self' opponent needs a snapshot (a policy file of an earlier iteration)")
            load_policy(snapshot)  # fail now on a missing snapshot
            return Opponent(kind, rng, snapshot=snapshot)
        raise ValueError(f"unknown opponent kind {kind!r}")

    def from_state(self, state: dict) -> Opponent:
        return self.build(state["kind"], rng_from_state(state["rng"]), state["snapshot"])
