"""Information-set Monte Carlo tree search, generic over every game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012), built only on the seat's information
set and the `Game` API (`determinize`, `legal_actions`, `apply`, `is_over`, `returns`, `standings`):

- every iteration draws a fresh determinization of the match from the seat's information set;
- the tree is keyed by the moves played from the root (every seat's, so a node knows what the
  searching seat will have seen by then); each edge keeps the statistics of the seat that chose it,
  and selection at a node maximizes that seat's UCB value (multi-player, max-n style);
- an action legal in only some determinizations is scored with its availability count in place of
  the parent's visit count;
- progressive bias: at each node the game's heuristic names the move it would play for the seat to
  move (in the determinization that created the node); that move is expanded first and gets a bonus
  `bias / (visits + 1)` in selection. With few iterations the search so defaults to the heuristic's
  choice, and leaves it only for a move whose rollouts are clearly better;
- with `opponents="heuristic"` the other seats are not searched: at their nodes they play the
  heuristic's move in the current determinization, so the tree branches only on the searching
  seat's choices and every iteration spends itself on a best response to that opponent model
  (stronger against the heuristic at small budgets; `"search"` is the full max-n tree);
- after one expansion the match is played out by the rollout policy (uniform random, or the game's
  heuristic agent for every seat) for at most `max_rollout` decisions (None: to the end); the values
  backed up are `returns()` at the end, or, when the rollout was cut short, each seat's place by
  `standings()` (points, then the rulebook's tie-breaks: Blue Moon City's crystals say who is closer
  to the next offering long before anyone makes one), mapped to [-1, 1].

The budget is a number of iterations or a number of seconds; the agent's generator makes every
random choice, so a seeded agent with an iteration budget is deterministic. On a native match the whole
search runs in C++ (native/core/ismcts.hpp) where the game has what it asks (its heuristic, when hints,
rollouts or the opponent model need one): the same move, the same statistics and the same draws from
the generator as this module's search on that match (`native=False` runs this one). `time_limit` stops the
search after that many seconds whatever the budget (the web app's hard deadline per move). The move played is the
root edge with the most visits; among equals the heuristic's move, then the best mean value.
"""

from __future__ import annotations

import math
import time

from city_envs.agents.base import Agent, make_rng
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet

ROLLOUTS = ("random", "heuristic")
OPPONENTS = ("search", "heuristic")


class Node:
    """A point in the tree: `edges` maps (seat, action) to the edge statistics of that move, and
    `hints` maps a seat to the move the heuristic picked for it here."""

    __slots__ = ("edges", "available", "hints")

    def __init__(self) -> None:
        self.edges: dict[tuple[int, int], Edge] = {}
        self.available: dict[tuple[int, int], int] = {}
        self.hints: dict[int, int] = {}


class Edge:
    """One move from a node: visits and summed value for the seat that made it, and the next node."""

    __slots__ = ("visits", "total", "child")

    def __init__(self) -> None:
        self.visits = 0
        self.total = 0.0
        self.child = Node()


class ISMCTSAgent:
    """`ismcts` in the agent registry, e.g. `ismcts:iters=200` or `ismcts:seconds=1.0:rollout=random`."""

    def __init__(
        self,
        seed=None,
        iters: int | None = 200,
        seconds: float | None = None,
        exploration: float = 0.7,
        max_rollout: int | None = 40,
        rollout: str = "heuristic",
        bias: float = 1.0,
        opponents: str = "heuristic",
        time_limit: float | None = None,
        native: bool = True,
    ) -> None:
        if (iters is None) == (seconds is None):
            raise ValueError("give exactly one budget: iters or seconds")
        if (iters is not None and iters < 1) or (seconds is not None and not seconds > 0):
            raise ValueError("the budget must be positive")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout {rollout!r}; allowed: {', '.join(ROLLOUTS)}")
        if max_rollout is not None and max_rollout < 0:
            raise ValueError("max_rollout must be >= 0 (or None: play rollouts to the end)")
        if opponents not in OPPONENTS:
            raise ValueError(f"unknown opponents {opponents!r}; allowed: {', '.join(OPPONENTS)}")
        if not 0 <= bias < math.inf:
            raise ValueError("bias must be a finite number >= 0 (0: no heuristic guidance in the tree)")
        if not math.isfinite(exploration):
            raise ValueError("exploration must be a finite number")
        if time_limit is not None and not time_limit > 0:
            raise ValueError("time_limit must be > 0 seconds (None: no limit beyond the budget)")
        self.rng = make_rng(seed)
        self.iters, self.seconds = iters, seconds
        self.exploration = exploration
        self.max_rollout = max_rollout
        self.rollout = rollout
        self.bias = bias
        self.opponents = opponents
        self.time_limit = time_limit  # a hard stop, whatever the budget: the web app's bots must answer in time
        self.last_iterations = 0
        self.last_values: dict[int, float] = {}  # the root's own moves: mean value, for analysis
        self.native = native  # search in C++ on a native match whose game has what the search asks

    def act(self, info_set: InfoSet) -> int:
        legal = info_set.legal_action_ids()
        if not legal:
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        if len(legal) == 1:
            return legal[0]
        if self.native:
            action = self._search_native(info_set)
            if action is not None:
                return action
        me = info_set.player
        heuristics = self._heuristics(info_set.game_name, info_set.num_players)
        root = Node()
        start = time.perf_counter()
        # the one budget given (iters or seconds) and the hard stop; what is not given never ends the search
        iters = math.inf if self.iters is None else self.iters
        deadline = math.inf if self.seconds is None else start + self.seconds
        stop = math.inf if self.time_limit is None else start + self.time_limit
        done = 0
        while done == 0 or (done < iters and time.perf_counter() < min(deadline, stop)):
            self._iterate(info_set.determinize(self.rng), me, root, heuristics)
            done += 1
        self.last_iterations = done
        self.last_values = {a: e.total / e.visits for (seat, a), e in root.edges.items() if seat == me and e.visits}
        hint = root.hints.get(me)
        return max(legal, key=lambda a: self._rank_at_root(root, me, a, hint))

    def _search_native(self, info_set: InfoSet) -> int | None:
        """The move of the native engine's search (setting `last_iterations` and `last_values`), or None
        where the match is not native or its game lacks the heuristic the search asks."""
        cap = 1 << 62  # no budget or rollout reaches it; the binding takes 64-bit integers
        found = info_set.ismcts_action(
            self.rng,
            self.needs_heuristic,
            iters=None if self.iters is None else min(self.iters, cap),
            seconds=self.seconds,
            time_limit=self.time_limit,
            exploration=self.exploration,
            max_rollout=None if self.max_rollout is None else min(self.max_rollout, cap),
            rollout=self.rollout,
            bias=self.bias,
            opponents=self.opponents,
        )
        if found is None:
            return None
        action, self.last_iterations, values = found
        self.last_values = dict(values)
        return action

    @staticmethod
    def _rank_at_root(root: Node, me: int, action: int, hint: int | None) -> tuple:
        """Most visits first; among equals (a budget smaller than the number of moves leaves many at
        one visit) the heuristic's move, then the better mean value, then the lower id."""
        edge = root.edges.get((me, action))
        if edge is None or edge.visits == 0:
            return -1, False, 0.0, -action
        return edge.visits, action == hint, edge.total / edge.visits, -action

    # ----- one iteration ------------------------------------------------------------------------
    def _iterate(self, game: Game, me: int, root: Node, heuristics: list[Agent] | None) -> None:
        node, path = root, []
        opponent_model = heuristics if self.opponents == "heuristic" else None
        while not game.is_over():
            seat = game.current_player()
            if seat != me and opponent_model is not None:
                action = opponent_model[seat].act(InfoSet(game, seat))
                node = node.edges.setdefault((seat, action), Edge()).child
                game.apply(action)
                continue
            moves = [(seat, a) for a in game.legal_action_ids()]
            for move in moves:
                node.available[move] = node.available.get(move, 0) + 1
            hint = self._hint(game, node, seat, heuristics)
            untried = [move for move in moves if move not in node.edges]
            if untried:
                move = hint if hint in untried else untried[int(self.rng.integers(len(untried)))]
                edge = node.edges[move] = Edge()
                game.apply(move[1])
                path.append((edge, seat))
                break
            move = max(moves, key=lambda m: self._ucb(node, m, hint))
            edge = node.edges[move]
            game.apply(move[1])
            path.append((edge, seat))
            node = edge.child
        if heuristics is not None and self.rollout == "heuristic":
            steps = 0
            while not game.is_over() and (self.max_rollout is None or steps < self.max_rollout):
                seat = game.current_player()
                game.apply(heuristics[seat].act(InfoSet(game, seat)))
                steps += 1
        else:  # uniform random moves (in C++ on a native match)
            game.playout(self.rng, self.max_rollout)
        values = self._values(game)
        for edge, seat in path:
            edge.visits += 1
            edge.total += values[seat]

    def _hint(self, game: Game, node: Node, seat: int, heuristics: list[Agent] | None) -> tuple[int, int] | None:
        """The heuristic's move for `seat` at `node` (asked once, on the node's first visit by that seat)."""
        if heuristics is None or self.bias == 0:
            return None
        if seat not in node.hints:
            node.hints[seat] = heuristics[seat].act(InfoSet(game, seat))
        return seat, node.hints[seat]

    def _ucb(self, node: Node, move: tuple[int, int], hint: tuple[int, int] | None) -> float:
        edge = node.edges[move]
        value = edge.total / edge.visits + self.exploration * math.sqrt(math.log(node.available[move]) / edge.visits)
        if move == hint:
            value += self.bias / (edge.visits + 1)
        return value

    @property
    def needs_heuristic(self) -> bool:
        """Whether rollouts, hints or the opponent model ask the game's heuristic agent."""
        return self.rollout == "heuristic" or self.bias > 0 or self.opponents == "heuristic"

    def _heuristics(self, game_name: str, num_players: int) -> list[Agent] | None:
        """One heuristic agent per seat, for rollouts, hints and the opponent model, if any uses one."""
        if not self.needs_heuristic:
            return None
        from city_envs.agents.heuristics import heuristic_class

        return [heuristic_class(game_name)(self.rng) for _ in range(num_players)]

    @staticmethod
    def _values(game: Game) -> list[float]:
        """Each seat's value: `returns()` at the end, else its place by `standings()` in [-1, 1]."""
        if game.is_over():
            return [float(x) for x in game.returns()]
        keys = game.standings()
        n = len(keys)
        ahead = [sum(mine > k for k in keys) + 0.5 * (sum(mine == k for k in keys) - 1) for mine in keys]
        return [2.0 * a / (n - 1) - 1.0 for a in ahead]
