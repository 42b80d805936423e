"""The handle an agent receives: one seat's information set, and nothing more."""

from __future__ import annotations

from typing import Any

import numpy as np

from city_envs.core.game import Game


class InfoSet:
    """What one seat may use to choose an action.

    The match is held in a name-mangled attribute and only seat-safe questions are forwarded, so
    an agent written against this class cannot read another seat's hand by accident.
    """

    __slots__ = ("__game", "player")

    def __init__(self, game: Game, player: int) -> None:
        self.__game = game
        self.player = player

    @property
    def game_name(self) -> str:
        return self.__game.name

    @property
    def num_players(self) -> int:
        return self.__game.num_players

    @property
    def num_actions(self) -> int:
        return self.__game.num_actions

    @property
    def options(self) -> dict:
        return dict(self.__game.options)

    def view(self) -> dict:
        return self.__game.view(self.player)

    def seat_state(self) -> Any:
        """The game's State of what this seat knows (`Game.seat_state`), for rule-based agents."""
        return self.__game.seat_state(self.player)

    def observation(self) -> np.ndarray:
        return self.__game.observation(self.player)

    def legal_actions(self) -> np.ndarray:
        if self.__game.current_player() != self.player:
            return np.zeros(self.__game.num_actions, dtype=bool)
        return self.__game.legal_actions()

    def legal_action_ids(self) -> list[int]:
        return self.legal_actions().nonzero()[0].tolist()  # the mask is 1-D: no flatnonzero ravel

    def heuristic_action(self, rng: np.random.Generator) -> int | None:
        """The native engine's pick of the game's heuristic agent for this seat, ties drawn from `rng`;
        None where the match is not native or its game has no native heuristic."""
        if self.__game.current_player() != self.player:
            raise ValueError(f"seat {self.player} has no decision to make now")
        choose = getattr(self.__game, "heuristic_action", None)
        return None if choose is None else choose(rng)

    def ismcts_action(
        self, rng: np.random.Generator, needs_heuristic: bool, **options: Any
    ) -> tuple[int, int, list[tuple[int, float]]] | None:
        """The native engine's ISMCTS for this seat (agents/ismcts.py's search, `options` its settings): the
        move, the iterations run and the root's mean values; None where the match is not native or the
        search needs a heuristic its game lacks in C++."""
        if self.__game.current_player() != self.player:
            raise ValueError(f"seat {self.player} has no decision to make now")
        search = getattr(self.__game, "ismcts_action", None)
        return None if search is None else search(self.player, rng, needs_heuristic, **options)

    def determinize(self, rng: np.random.Generator) -> Game:
        """A full match sampled from this seat's beliefs (for search agents)."""
        return self.__game.determinize(self.player, rng)

    def describe_action(self, action: int) -> str:
        return self.__game.describe_action(action)
