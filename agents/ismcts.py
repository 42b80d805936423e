"""Information-set Monte Carlo tree search, generic over every game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012), built only on the seat's information
set and the `Game` API (`determinize`, `legal_actions`, `apply`, `is_over`, `returns`, `scores`):

- every iteration draws a fresh determinization of the match from the seat's information set;
- the tree is keyed by the moves played from the root (every seat's, so a node knows what the
  searching seat will have seen by then); each edge keeps the statistics of the seat that chose it,
  and selection at a node maximizes that seat's UCB value (multi-player, max-n style);
- an action legal in only some determinizations is scored with its availability count in place of
  the parent's visit count;
- after one expansion the match is played out by the rollout policy (uniform random, or the game's
  heuristic agent for every seat) for at most `max_rollout` decisions; the values backed up are
  `returns()` at the end, or, when the rollout was cut short, each seat's rank by current
  `scores()`, mapped to [-1, 1].

The budget is a number of iterations or a number of seconds; the agent's generator makes every
random choice, so a seeded agent with an iteration budget is deterministic. The move played is the
root edge with the most visits.
"""

from __future__ import annotations

import math
import time

import numpy as np

from agents.base import make_rng
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet

ROLLOUTS = ("random", "heuristic")


class Node:
    """A point in the tree; `edges` maps (seat, action) to the edge statistics of that move."""

    __slots__ = ("edges", "available")

    def __init__(self) -> None:
        self.edges: dict[tuple[int, int], Edge] = {}
        self.available: dict[tuple[int, int], int] = {}


class Edge:
    """One move from a node: visits and summed value for the seat that made it, and the next node."""

    __slots__ = ("visits", "total", "child")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.child = Node()


class ISMCTSAgent:
    """`ismcts` in the agent registry, e.g. `ismcts:iters=200` or `ismcts:seconds=1.0:rollout=random`."""

    def __init__(self, seed=None, iters: int | None = 200, seconds: float | None = None,
                 exploration: float = 0.7, max_rollout: int | None = 40, rollout: str = "heuristic") -> None:
        if (iters is None) == (seconds is None):
            raise ValueError("give exactly one budget: iters or seconds")
        if (iters is not None and iters < 1) or (seconds is not None and seconds <= 0):
            raise ValueError("the budget must be positive")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}; allowed: {', '.join(ROLLOUTS)}")
        if max_rollout is not None and max_rollout < 0:
            raise ValueError("max_rollout must be >= 0")
        self.rng = make_rng(seed)
        self.iters, self.seconds = iters, seconds
        self.exploration = exploration
        self.max_rollout = max_rollout
        self.rollout = rollout
        self.last_iterations = 0

    def act(self, info_set: InfoSet) -> int:
        legal = info_set.legal_action_ids()
        if not legal:
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        if len(legal) == 1:
            return legal[0]
        me = info_set.player
        policies = self._policies(info_set.game_name, info_set.num_players)
        root = Node()
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while (done < self.iters) if deadline is None else (done == 0 or time.perf_counter() < deadline):
            self._iterate(info_set.determinize(self.rng), root, policies)
            done += 1
        self.last_iterations = done
        visits = {a: root.edges[(me, a)].visits if (me, a) in root.edges else -1 for a in legal}
        return max(legal, key=lambda a: (visits[a], -a))

    # ----- one iteration ------------------------------------------------------------------------
    def _iterate(self, game: Game, root: Node, policies: list) -> None:
        node, path = root, []
        while not game.is_over():
            seat = game.current_player()
            moves = [(seat, a) for a in game.legal_action_ids()]
            for move in moves:
                node.available[move] = node.available.get(move, 0) + 1
            untried = [move for move in moves if move not in node.edges]
            if untried:
                move = untried[int(self.rng.integers(len(untried)))]
                edge = node.edges[move] = Edge()
                game.apply(move[1])
                path.append((edge, seat))
                break
            move = max(moves, key=lambda m: self._ucb(node, m))
            edge = node.edges[move]
            game.apply(move[1])
            path.append((edge, seat))
            node = edge.child
        steps = 0
        while not game.is_over() and (self.max_rollout is None or steps < self.max_rollout):
            seat = game.current_player()
            game.apply(self._policy_move(game, seat, policies[seat]))
            steps += 1
        values = self._values(game)
        for edge, seat in path:
            edge.visits += 1
            edge.total += values[seat]

    def _ucb(self, node: Node, move: tuple[int, int]) -> float:
        edge = node.edges[move]
        return edge.total / edge.visits + self.exploration * math.sqrt(math.log(node.available[move]) / edge.visits)

    def _policies(self, game_name: str, num_players: int) -> list:
        """The rollout policy of each seat: None for uniform random, else a heuristic agent."""
        if self.rollout == "random":
            return [None] * num_players
        from agents.registry import make_agent

        return [make_agent("heuristic", game_name, self.rng) for _ in range(num_players)]

    def _policy_move(self, game: Game, seat: int, policy) -> int:
        if policy is None:
            legal = np.flatnonzero(game.legal_actions())
            return int(legal[self.rng.integers(len(legal))])
        return policy.act(InfoSet(game, seat))

    @staticmethod
    def _values(game: Game) -> list[float]:
        """Each seat's value: `returns()` at the end, else its rank by current scores in [-1, 1]."""
        if game.is_over():
            return [float(x) for x in game.returns()]
        scores = game.scores()
        n = len(scores)
        ahead = [sum(mine > s for s in scores) + 0.5 * (sum(mine == s for s in scores) - 1) for mine in scores]
        return [2.0 * a / (n - 1) - 1.0 for a in ahead]
