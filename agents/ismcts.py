"""Information-set Monte Carlo tree search (single observer), generic over every game.

Built only on the seat's information set and the `Game` API: each iteration draws a fresh
determinization (`info_set.determinize`), walks a tree of the seat's *own* decisions with UCT (the
other seats' moves, and chance, are played by the rollout policy inside the determinized match),
expands one node, plays the match out and backs up the seat's return. Actions that are legal in only
some determinizations are scored with availability counts (Cowling, Powley and Whitehouse, 2012).
The budget is a number of iterations or a number of seconds; the agent's generator makes every
choice, so a seeded agent with an iteration budget is deterministic.

Returns are the game's `returns()` at the end; a rollout stopped by `max_rollout` is scored from
the current `scores()` by rank, in [-1, 1].
"""

from __future__ import annotations

import math
import time

import numpy as np

from agents.base import make_rng
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet


class Node:
    """Statistics of one own-decision point: per action visits, summed reward and availability."""

    __slots__ = ("children", "visits", "total", "available")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.available: dict[int, int] = {}


class ISMCTSAgent:
    """`ismcts` in the agent registry: `ismcts:iters=500` or `ismcts:seconds=1.0`."""

    def __init__(self, seed=None, iters: int | None = 200, seconds: float | None = None,
                 exploration: float = 0.7, max_rollout: int | None = 200, game_name: str = "",
                 rollout: str = "random") -> None:
        if (iters is None) == (seconds is None):
            raise ValueError("give exactly one budget: iters or seconds")
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"unknown rollout {rollout!r}; allowed: random, heuristic")
        self.rng = make_rng(seed)
        self.iters, self.seconds = iters, seconds
        self.exploration = exploration
        self.max_rollout = max_rollout
        self.game_name = game_name
        self.rollout = rollout

    def act(self, info_set: InfoSet) -> int:
        legal = info_set.legal_action_ids()
        if not legal:
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        if len(legal) == 1:
            return legal[0]
        me = info_set.player
        policies = self._policies(info_set.num_players)
        root = Node()
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        done = 0
        while (done < self.iters) if deadline is None else (time.perf_counter() < deadline or done == 0):
            self._iterate(info_set.determinize(self.rng), me, root, policies)
            done += 1
        return max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1, -a))

    # ----- one iteration ------------------------------------------------------------------------
    def _iterate(self, game: Game, me: int, root: Node, policies: list) -> None:
        node, path = root, [root]
        expanded = False
        while not game.is_over() and not expanded:
            seat = game.current_player()
            if seat != me:
                game.apply(self._policy_move(game, seat, policies))
                continue
            actions = game.legal_action_ids()
            for a in actions:
                node.available[a] = node.available.get(a, 0) + 1
            untried = [a for a in actions if a not in node.children]
            if untried:
                action = untried[int(self.rng.integers(len(untried)))]
                node.children[action] = Node()
                expanded = True
            else:
                action = max(actions, key=lambda a: self._ucb(node, a))
            game.apply(action)
            node = node.children[action]
            path.append(node)
        steps = 0
        while not game.is_over() and (self.max_rollout is None or steps < self.max_rollout):
            game.apply(self._policy_move(game, game.current_player(), policies))
            steps += 1
        reward = self._value(game, me)
        for visited in path:
            visited.visits += 1
            visited.total += reward

    def _ucb(self, node: Node, action: int) -> float:
        child = node.children[action]
        return child.total / child.visits + self.exploration * math.sqrt(
            math.log(node.available[action]) / child.visits)

    def _policies(self, num_players: int) -> list:
        if self.rollout == "random":
            return [None] * num_players
        from agents.registry import make_agent

        return [make_agent("heuristic", self.game_name, self.rng) for _ in range(num_players)]

    def _policy_move(self, game: Game, seat: int, policies: list) -> int:
        policy = policies[seat]
        if policy is None:
            return int(self.rng.choice(np.flatnonzero(game.legal_actions())))
        return policy.act(InfoSet(game, seat))

    @staticmethod
    def _value(game: Game, me: int) -> float:
        if game.is_over():
            return float(game.returns()[me])
        scores = game.scores()
        others = [s for seat, s in enumerate(scores) if seat != me]
        ahead = sum(scores[me] > s for s in others) + 0.5 * sum(scores[me] == s for s in others)
        return 2.0 * ahead / len(others) - 1.0
