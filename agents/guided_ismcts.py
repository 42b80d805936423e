"""Network-guided ISMCTS: a policy file's actor as prior (PUCT) and its critic as leaf value, no rollouts.

`ismcts:net=PATH` (or `net=ppo`, the committed baseline for the match's game and player count) searches
the same information-set tree as `agents/ismcts.py` (a fresh determinization of the match from the
seat's information set every iteration; nodes keyed by the moves played from the root; edges keyed by
(seat, action) with that seat's statistics; availability counts for moves legal in only some
determinizations), but an iteration costs a share of one batched forward pass instead of a playout:

- selection maximizes `Q + c_puct * P * sqrt(available) / (1 + visits)` for the seat to move, where
  `P` is the actor's softmax over the moves legal in this determinization (so no illegal move ever
  gets weight) from the logits that seat's observation gave when the node was first reached; an
  unvisited edge's `Q` is the node's own value for that seat (first-play urgency: the parent's value);
- a leaf is the first node where the seat to move has no priors yet, or the end of the match. Every
  seat's value there comes from the critic on that seat's view of the determinized state (its own
  observation, or the all-seats input for a file whose metadata says `critic_input = "all_seats"`);
  at the end of the match it is `returns()`;
- `batch` descents run before one forward pass evaluates all their leaves (the actor for each leaf's
  seat to move, the critic for every seat of every leaf); a descent adds a virtual loss to its edges so
  the next ones in the batch spread out. One descent per batch is plain sequential PUCT.

Values are on the scale the policy was trained on: the trainer's reward is the terminal `returns()`
plus, with `reward = "score"` or `"lead"`, `score_scale` times the change of the seat's score margin
(over the others' mean, or the best other), so the critic predicts the outcome plus the margin still to
come. The search adds the margin already earned to every leaf value (and to `returns()` at the end),
so that a leaf's value is the whole return the network was trained to maximize. The reward settings
are read from the run's config next to the file (`<name>.toml`, or `config.toml` in its folder, as
training writes them; for a committed policy, the config beside the record that names it in the policy
store); without one the reward is `win` (no margin).

The final move is the most visited root move (`temperature=0`; ties: the larger prior, then the lower
id), or one drawn with probability proportional to visits^(1/temperature). The agent's generator makes
every random choice and torch runs on one thread, so a seeded agent with an iteration budget is
deterministic. `act` is `choose(search(info_set))`: `search` hands out the root's visits (the targets
of expert iteration, `training/expert.py`) without playing.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from city_envs.agents.base import make_rng
from city_envs.agents.policy_agent import stored_record
from city_envs.agents.policy_file import PolicyFileError, critic_observation, load_policy_file, read_metadata
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.settings import read_toml

REWARDS = ("win", "score", "lead")  # the trainer's reward kinds (training/config.py)
MAX_ITERS = 1_000_000
MAX_BATCH = 1024
MAX_C_PUCT = 100.0
MAX_TEMPERATURE = 100.0
VIRTUAL_LOSS = 1.0


class RootStats(NamedTuple):
    """What a search leaves at its root for the seat to move, over every action id."""

    visits: np.ndarray  # float (num_actions,): each legal move's visits, zeros elsewhere
    logits: np.ndarray  # float (num_actions,): the actor's logits there (the tie-break)


class Node:
    """A point in the tree: per seat that was to move here, its moves' statistics (`Moves`), made when
    that seat was first to move here; and every seat's value from this node's first evaluation."""

    __slots__ = ("moves", "values")

    def __init__(self) -> None:
        self.moves: dict[int, Moves] = {}
        self.values: np.ndarray | None = None


class Moves:
    """One seat's moves at a node, as arrays over the action ids: the actor's logits there, visits,
    summed values for that seat, availability counts, and the child node of each move tried."""

    __slots__ = ("logits", "visits", "totals", "available", "children")

    def __init__(self, logits: np.ndarray) -> None:
        self.logits = logits
        self.visits = np.zeros(len(logits))
        self.totals = np.zeros(len(logits))
        self.available = np.zeros(len(logits))
        self.children: dict[int, Node] = {}


def reward_settings(path: Path) -> tuple[str, float]:
    """(reward kind, score_scale) of the run that trained `path`, from its config beside it (or, for a
    file of the policy store, beside the record that names it); `win` without one."""
    record = stored_record(path)
    for config in (path.with_suffix(".toml"), path.parent / "config.toml", record and record.with_suffix(".toml")):
        if config is not None and config.is_file():
            try:
                table = read_toml(config)
            except (OSError, ValueError) as error:
                raise PolicyFileError(f"{path}: its training config {config} cannot be read: {error}") from None
            reward, scale = table.get("reward", "win"), table.get("score_scale", 0.0)
            if reward not in REWARDS:
                raise PolicyFileError(f"{config}: reward must be one of {', '.join(REWARDS)}, not {reward!r}")
            if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 <= scale < math.inf:
                raise PolicyFileError(f"{config}: score_scale must be a number >= 0, not {scale!r}")
            return reward, float(scale) if reward != "win" else 0.0
    return "win", 0.0


class LeafEvaluator:
    """A policy file's actor and critic, evaluated in batches on determinized matches."""

    def __init__(self, path: Path, game_name: str, num_players: int) -> None:
        import torch

        torch.set_num_threads(1)  # small networks: more threads only contend (as the arena's workers run)
        self.path = path
        self.meta = read_metadata(path)  # every field checked, `critic_input` included
        self.critic_input = self.meta["critic_input"]
        if self.critic_input == "all_seats" and (self.meta["game"], self.meta["players"]) != (game_name, num_players):
            raise PolicyFileError(
                f"{path}: its critic reads every seat of a {self.meta['players']}-player {self.meta['game']} "
                f"match, so it cannot value a {num_players}-player {game_name} one"
            )
        self.policy, _ = load_policy_file(path, game_name, num_players)
        self.reward, self.score_scale = reward_settings(path)

    def margins(self, game: Game) -> np.ndarray:
        """Each seat's score margin as the trainer's reward measures it (zeros for `win`)."""
        n = game.num_players
        if self.score_scale == 0.0:
            return np.zeros(n)
        scores = np.asarray(game.scores(), dtype=float)
        if self.reward == "lead":
            others = [max(scores[other] for other in range(n) if other != seat) for seat in range(n)]
        else:
            others = [(scores.sum() - scores[seat]) / (n - 1) for seat in range(n)]
        return self.score_scale * (scores - np.asarray(others))

    def critic_features(self, game: Game, seat: int) -> np.ndarray:
        return critic_observation(self.meta, game, seat)

    def evaluate(self, games: list[Game]) -> tuple[np.ndarray, np.ndarray]:
        """For matches not over: the logits of each one's seat to move (batch, actions) and every seat's
        value, margin earned included (batch, seats): one actor and one critic pass for the batch."""
        import torch

        n = games[0].num_players
        shape = self.policy.observation_space.shape
        actor = np.stack([g.observation(g.current_player()) for g in games]).astype(np.float32, copy=False)
        critic = np.stack([self.critic_features(g, seat) for g in games for seat in range(n)])
        if self.critic_input == "observation":
            critic = critic.reshape((len(critic), *shape))
        with torch.no_grad():
            features = self.policy.extract_features(torch.as_tensor(actor), self.policy.pi_features_extractor)
            if isinstance(features, tuple):
                features = features[0]
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(features)).numpy()
            values = self.policy.predict_values(torch.as_tensor(critic.astype(np.float32, copy=False))).numpy()
        values = values.reshape(len(games), n).astype(float)
        return logits, values + np.stack([self.margins(g) for g in games])

    def final_values(self, game: Game) -> np.ndarray:
        """Every seat's return at the end of the match, on the critic's scale."""
        return np.asarray(game.returns(), dtype=float) + self.margins(game)


def _check_number(name: str, value, low: float, high: float, low_open: bool = False) -> None:
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value > low if low_open else value >= low)
        and value <= high
    )
    if not ok:
        bound = f"more than {low:g}" if low_open else f"{low:g}"
        raise ValueError(f"{name} must be a number from {bound} to {high:g}, not {value!r}")


class GuidedISMCTSAgent:
    """`ismcts:net=PATH|ppo` in the agent registry, e.g. `ismcts:net=ppo:iters=100:c_puct=1.5`."""

    def __init__(
        self,
        seed=None,
        net: str = "ppo",
        game: str | None = None,
        iters: int | None = 100,
        seconds: float | None = None,
        c_puct: float = 1.5,
        temperature: float = 0.0,
        batch: int = 8,
    ) -> None:
        if (iters is None) == (seconds is None):
            raise ValueError("give exactly one budget: iters or seconds")
        if iters is not None and (isinstance(iters, bool) or not isinstance(iters, int) or not 1 <= iters <= MAX_ITERS):
            raise ValueError(f"iters must be a whole number from 1 to {MAX_ITERS}, not {iters!r}")
        if seconds is not None:
            _check_number("seconds", seconds, 0, 3600, low_open=True)
        _check_number("c_puct", c_puct, 0, MAX_C_PUCT, low_open=True)
        _check_number("temperature", temperature, 0, MAX_TEMPERATURE)
        if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
            raise ValueError(f"batch must be a whole number from 1 to {MAX_BATCH}, not {batch!r}")
        if not isinstance(net, str) or not net:
            raise ValueError("net must be ppo (the committed baseline) or the path of a policy file")
        self.net = net
        if net != "ppo":
            meta = read_metadata(net)  # fail now on a missing or foreign file, not at the first move
            if game is not None and meta["game"] != game:
                raise PolicyFileError(f"{net}: field 'game' is {meta['game']!r}, but it is asked to play {game}")
        self.rng = make_rng(seed)
        self.iters, self.seconds = iters, seconds
        self.c_puct, self.temperature, self.batch = float(c_puct), float(temperature), batch
        self._evaluator: LeafEvaluator | None = None
        self._evaluator_for: tuple[str, int] | None = None  # the (game, players) it was loaded and checked for
        self.last_iterations = 0
        self.last_visits: dict[int, int] = {}  # the root's own moves: visits, for analysis

    # ----- the network ---------------------------------------------------------------------------
    def _path(self, game_name: str, num_players: int) -> Path:
        if self.net != "ppo":
            return Path(self.net)
        from city_envs.agents.policy_agent import baseline_path

        path = baseline_path(game_name, num_players)
        if not path.is_file():
            raise PolicyFileError(
                f"no PPO baseline for {game_name} with {num_players} players ({path}); use ismcts:net=PATH"
            )
        return path

    def _load(self, info_set: InfoSet) -> LeafEvaluator:
        key = (info_set.game_name, info_set.num_players)
        if self._evaluator is not None and self._evaluator_for == key:
            return self._evaluator
        evaluator = LeafEvaluator(self._path(*key), *key)
        expected = (tuple(evaluator.policy.observation_space.shape), int(evaluator.policy.action_space.n))
        actual = (info_set.observation().shape, info_set.num_actions)
        if expected != actual:
            raise PolicyFileError(
                f"{evaluator.path} expects (observation shape, actions) {expected}, "
                f"{info_set.game_name} {info_set.num_players}p has {actual}"
            )
        self._evaluator, self._evaluator_for = evaluator, key
        return evaluator

    def prepare(self, info_set: InfoSet) -> None:
        """Load and check the network for `info_set`'s game and player count before any match."""
        self._load(info_set)

    def __getstate__(self) -> dict:
        """The settings, not the network: a copied or pickled agent reloads it on its first move."""
        return {**self.__dict__, "_evaluator": None, "_evaluator_for": None}

    # ----- the search ----------------------------------------------------------------------------
    def act(self, info_set: InfoSet) -> int:
        return self.choose(self.search(info_set), info_set.legal_action_ids())

    def search(self, info_set: InfoSet) -> RootStats:
        """The search from `info_set`: the root's visits of the seat's moves and the actor's logits there
        (what `choose` picks from; expert iteration trains on the visits). A forced move is not searched:
        it gets the one visit and zero logits."""
        legal = info_set.legal_action_ids()
        if not legal:
            raise ValueError(f"seat {info_set.player} has no decision to make now")
        evaluator = self._load(info_set)
        if len(legal) == 1:
            self.last_iterations, self.last_visits = 0, {}
            forced = np.zeros(info_set.num_actions)
            forced[legal[0]] = 1.0
            return RootStats(forced, np.zeros(info_set.num_actions))
        me = info_set.player
        root = Node()
        self._evaluate(evaluator, [(info_set.determinize(self.rng), root, [])])
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        limit = self.iters or 0  # with a time budget the clock stops the search instead
        done = 0
        while done == 0 or (done < limit if deadline is None else time.perf_counter() < deadline):
            size = self.batch if deadline is not None else min(self.batch, limit - done)
            self._evaluate(evaluator, [self._descend(info_set.determinize(self.rng), root) for _ in range(size)])
            done += size
        moves = root.moves[me]
        self.last_iterations = done
        self.last_visits = {a: int(moves.visits[a]) for a in legal}
        visits = np.zeros(info_set.num_actions)
        visits[legal] = moves.visits[legal]
        return RootStats(visits, moves.logits.copy())

    def choose(self, stats: RootStats, legal: list[int]) -> int:
        """The move played after a search: the most visited (ties: the larger prior, then the lower id), or
        with a temperature one drawn in proportion to visits^(1/temperature); a forced move draws nothing."""
        if len(legal) == 1:
            return legal[0]
        visits = stats.visits[legal]
        if self.temperature > 0:
            weights = (visits / visits.max()) ** (1.0 / self.temperature)
            return legal[int(self.rng.choice(len(legal), p=weights / weights.sum()))]
        return max(legal, key=lambda a: (stats.visits[a], stats.logits[a], -a))

    def _descend(self, game: Game, root: Node) -> tuple[Game, Node, list[tuple[Moves, int, int]]]:
        """Select moves by PUCT from the root until a node without priors for its seat to move, or the
        end; each move taken carries a virtual loss until its leaf is evaluated."""
        node, path = root, []
        while not game.is_over():
            seat = game.current_player()
            moves = node.moves.get(seat)
            if moves is None:
                break
            legal = np.flatnonzero(game.legal_actions())
            moves.available[legal] += 1
            logits = moves.logits[legal]
            priors = np.exp(logits - logits.max())
            visits = moves.visits[legal]
            fpu = 0.0 if node.values is None else node.values[seat]
            q = np.where(visits > 0, moves.totals[legal] / np.maximum(visits, 1), fpu)
            scores = q + self.c_puct * (priors / priors.sum()) * np.sqrt(moves.available[legal]) / (1 + visits)
            action = int(legal[int(np.argmax(scores))])
            moves.visits[action] += 1
            moves.totals[action] -= VIRTUAL_LOSS
            path.append((moves, action, seat))
            game.apply(action)
            node = moves.children.setdefault(action, Node())
        return game, node, path

    def _evaluate(
        self, evaluator: LeafEvaluator, leaves: list[tuple[Game, Node, list[tuple[Moves, int, int]]]]
    ) -> None:
        """One batched evaluation of the leaves' priors and values, then their back-ups."""
        open_leaves = [leaf for leaf in leaves if not leaf[0].is_over()]
        values: dict[int, np.ndarray] = {}
        if open_leaves:
            logits, critic = evaluator.evaluate([game for game, _, _ in open_leaves])
            for (game, node, _), row, value in zip(open_leaves, logits, critic, strict=True):
                if game.current_player() not in node.moves:
                    node.moves[game.current_player()] = Moves(row)
                if node.values is None:
                    node.values = value
                values[id(game)] = value
        for game, _, path in leaves:
            value = values.get(id(game))
            if value is None:
                value = evaluator.final_values(game)
            for moves, action, seat in path:
                moves.totals[action] += VIRTUAL_LOSS + value[seat]
