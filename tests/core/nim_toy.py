"""A toy `Game` (Nim) for testing the core machinery without any real game.

Seats take 1-3 stones in turn; whoever takes the last stone wins. Options exercise the parts
of the contract a real game needs: chance (a random starting heap, random "gusts" that blow
stones back onto the heap), repeated decisions by one seat (`repeat_on_one`: taking exactly one
stone keeps the turn) and a truncating safety valve (`max_turns`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from city_envs.core.game import Game, Option, positive_int
from city_envs.core.validation import check_bool, check_int, check_ints


def _heap_option(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0


class Nim(Game):
    name = "nim"
    min_players = 2
    max_players = 3
    options_spec = {
        "heap": Option(
            0, "starting heap; 0 draws it from the match RNG (5..15)", check=_heap_option, allowed="an integer >= 0"
        ),
        "gusts": Option(False, "after each move the wind may put a stone back", choices=(False, True)),
        "repeat_on_one": Option(False, "taking exactly one stone keeps the turn", choices=(False, True)),
        "max_turns": Option(
            200, "stop (as truncation) after this many moves", check=positive_int, allowed="an integer >= 1"
        ),
    }
    num_actions = 3
    observation_shape = (4,)

    # ----- hooks ----------------------------------------------------------------------------------
    def _setup(self) -> None:
        self.heap = int(self.options["heap"]) or int(self.rng.integers(5, 16))
        self.to_move = 0
        self.taken = [0] * self.num_players
        self.last = -1
        self.turns = 0
        self.truncated = False

    def _legal_actions(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[: min(3, self.heap)] = True
        return mask

    def _apply(self, action: int) -> None:
        take = action + 1
        self.heap -= take
        self.taken[self.to_move] += take
        self.last = self.to_move
        self.turns += 1
        if self.heap and self.options["gusts"]:
            self.heap += int(self.chance.integers(0, 2))
        if not (self.options["repeat_on_one"] and take == 1):
            self.to_move = (self.to_move + 1) % self.num_players
        if self.heap and self.turns >= self.options["max_turns"]:
            self.truncated = True

    def _state_to_dict(self) -> dict:
        return {
            "heap": self.heap,
            "to_move": self.to_move,
            "taken": list(self.taken),
            "last": self.last,
            "turns": self.turns,
            "truncated": self.truncated,
        }

    def _state_from_dict(self, data: dict) -> None:
        self.heap, self.to_move, self.last = data["heap"], data["to_move"], data["last"]
        self.taken, self.turns, self.truncated = list(data["taken"]), data["turns"], data["truncated"]

    def _validate_state(self) -> None:
        check_int("heap", self.heap, 0)
        check_int("to_move", self.to_move, 0, self.num_players - 1)
        check_ints("taken", self.taken, self.num_players, 0)
        check_int("last", self.last, -1, self.num_players - 1)
        check_int("turns", self.turns, 0, self.options["max_turns"])
        check_bool("truncated", self.truncated)

    def _copy_state_from(self, other: Nim) -> None:
        self._state_from_dict(other._state_to_dict())

    def decision_name(self) -> str:
        return "TAKE" if not self.is_over() else "GAME_OVER"

    # ----- API ------------------------------------------------------------------------------------
    def current_player(self) -> int:
        return -1 if self.is_over() else self.to_move

    def is_over(self) -> bool:
        return self.heap == 0 or self.truncated

    def is_truncated(self) -> bool:
        return self.truncated

    def scores(self) -> list[float]:
        return [float(x) for x in self.taken]

    def winners(self) -> list[int]:
        if self.heap == 0:
            return [self.last]
        best = max(self.taken)
        return [seat for seat, x in enumerate(self.taken) if x == best]

    def view(self, player: int) -> dict:
        return {"player": player, "heap": self.heap, "to_move": self.current_player(), "taken": list(self.taken)}

    def observation(self, player: int) -> np.ndarray:
        return np.array(
            [self.heap / 20, self.current_player() == player, self.taken[player] / 20, self.is_over()], dtype=np.float32
        )

    def _resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        pass  # nothing is hidden

    def describe_action(self, action: int) -> str:
        return f"take {action + 1}"

    def render_text(self) -> str:
        return f"heap {self.heap}; taken {self.taken}; seat {self.current_player()} to move"

    def render_image(self) -> np.ndarray:
        image = np.zeros((20, 40, 3), dtype=np.uint8)
        image[:, : min(self.heap, 40)] = 255
        return image
