"""The full-table input a privileged critic and a search's leaf evaluator read; never an agent's.

Every seat's own observation, rotated to start at the seat being valued: each seat sees its own
hand, so together they hold every hand, while what no seat sees (the order of a deck, face-down
supplies) stays out. Training and search read it from a whole match; the env a user holds and the
`InfoSet` an agent receives never expose it.
"""

from __future__ import annotations

import numpy as np

from city_envs.core.game import Game


def all_seats_size(game: Game) -> int:
    """Length of `all_seats_observation` for this match's game and player count."""
    return int(np.prod(game.observation_shape)) * game.num_players


def all_seats_observation(game: Game, seat: int) -> np.ndarray:
    """float32 vector: `observation(seat)`, then the next seats' observations in turn order."""
    n = game.num_players
    return np.concatenate([game.observation((seat + k) % n).ravel() for k in range(n)]).astype(np.float32, copy=False)
