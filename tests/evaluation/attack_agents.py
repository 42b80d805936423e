"""Agents that try to fool the benchmark (issue 46), each playing random moves while it tries; named as
`tests.evaluation.attack_agents:Class` by the tests in test_attacks.py."""

from __future__ import annotations

import gc
import inspect
import json

import numpy as np

from city_envs import make_game
from city_envs.agents.base import Agent, HeuristicAgent
from city_envs.agents.random_agent import RandomAgent
from city_envs.agents.registry import make_agent
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.evaluation.scheduling import match_seeds


class LiveWinner(RandomAgent):
    """Makes the match it is handed (and every match of its class in its process) report it as winner."""

    def act(self, info_set: InfoSet) -> int:
        seat = info_set.player
        game = info_set._InfoSet__game  # type: ignore[attr-defined]  # the name-mangled slot
        type(game).winners = lambda self: [seat]  # type: ignore[method-assign]
        for obj in gc.get_objects():
            if isinstance(obj, Game) and obj is not game:
                obj.winners = lambda: [seat]  # type: ignore[method-assign]
        return super().act(info_set)


class HandReader(RandomAgent):
    """Reads the match behind its InfoSet at its first decision: the seed, the history, and the
    opponent's hand (Citadels, 2 players), written as one JSON line to `out` with its own seed."""

    def __init__(self, seed: int | None = None, out: str = "") -> None:
        super().__init__(seed)
        self.seed, self.out, self.done = seed, out, False

    def act(self, info_set: InfoSet) -> int:
        if not self.done:
            self.done = True
            game = info_set._InfoSet__game  # type: ignore[attr-defined]
            other = 1 - info_set.player
            found = {"agent_seed": self.seed, "seed": game.seed, "history": list(game.history)}
            found["hand"] = np.asarray(game.state.hands[other]).tolist()
            with open(self.out, "a") as handle:
                handle.write(json.dumps(found) + "\n")
        return super().act(info_set)


class StackWalker(RandomAgent):
    """Walks the call stack and the garbage collector: replaces every heuristic opponent's moves with
    the first legal move and rewrites any match record's seed."""

    def act(self, info_set: InfoSet) -> int:
        for obj in gc.get_objects():
            if isinstance(obj, HeuristicAgent):
                obj.act = lambda info: int(np.flatnonzero(info.legal_actions())[0])  # type: ignore[method-assign]
        for frame in inspect.stack():
            for value in list(frame.frame.f_locals.values()):
                if isinstance(value, dict) and {"match", "seed", "kinds"} <= set(value):
                    value["seed"] = 0
        return super().act(info_set)


class Crashes(RandomAgent):
    """Ends its own process in its first decision."""

    def act(self, info_set: InfoSet) -> int:
        import os

        os._exit(3)


class Illegal(RandomAgent):
    """Answers an action id the rules refuse."""

    def act(self, info_set: InfoSet) -> int:
        return int(np.flatnonzero(~info_set.legal_actions())[0])


class Hangs(RandomAgent):
    """Never answers."""

    def act(self, info_set: InfoSet) -> int:
        import time

        while True:
            time.sleep(1)


class SeedFinder(RandomAgent):
    """Knows the suite's public seeds (`seeds`, joined by `+`, and `matches` per line-up): at its first
    decision it looks for the match whose deal gave it its own hand. Where it finds one, it plays the
    heuristic (an author who knows the match can prepare for it); elsewhere random moves. Each search's
    findings go to `out` as one JSON line."""

    def __init__(self, seed: int | None = None, seeds: str | int = "", matches: int = 0, out: str = "") -> None:
        super().__init__(seed)
        self.seed, self.out = seed, out
        self.seeds = [int(s) for s in str(seeds).split("+") if s]
        self.matches = matches
        self.helper: Agent | None = None
        self.searched = False

    def act(self, info_set: InfoSet) -> int:
        if not self.searched:
            self.searched = True
            n, seat, hand = info_set.num_players, info_set.player, info_set.view()["hand"]
            found = [
                [seed, match]
                for seed in self.seeds
                for match in range(self.matches)
                if make_game(info_set.game_name, n, seed=match_seeds(seed, match, n)[0]).view(seat)["hand"] == hand
            ]
            with open(self.out, "a") as handle:
                handle.write(json.dumps({"agent_seed": self.seed, "found": found}) + "\n")
            if found:
                self.helper = make_agent("heuristic", info_set.game_name, self.seed)
        return self.helper.act(info_set) if self.helper is not None else super().act(info_set)
