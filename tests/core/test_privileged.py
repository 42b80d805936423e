"""The privileged (all-seats) input: every seat's observation, rotated to the valued seat."""

import numpy as np
import pytest

from city_envs.core import GAMES, make_game
from city_envs.core.privileged import all_seats_observation, all_seats_size


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("players", [2, 4])
def test_all_seats_input_is_every_seat_observation_starting_at_the_valued_seat(name, players):
    game = make_game(name, players, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(15):
        game.apply(int(rng.choice(game.legal_action_ids())))
    size = int(np.prod(game.observation_shape))
    for seat in range(players):
        full = all_seats_observation(game, seat)
        assert full.dtype == np.float32 and full.shape == (all_seats_size(game),)
        for k in range(players):
            own = game.observation((seat + k) % players).ravel()
            np.testing.assert_array_equal(full[k * size : (k + 1) * size], own)
