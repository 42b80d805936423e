"""Blue Moon City for people: text (ansi), the table image (rgb_array), action descriptions (that every
legal action has its own is checked for every game in tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np
import pytest

import city_envs
from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city.game import BlueMoonCity
from city_envs.blue_moon_city.render import card_name

from ..game_helpers import random_action
from .bmc_testlib import mid_game_states


@pytest.mark.parametrize("n", [2, 3, 4])
def test_image_is_a_fixed_size_rgb_frame_that_follows_the_game(n):
    game = BlueMoonCity(n, seed=n)
    first = game.render_image()
    assert first.dtype == np.uint8 and first.shape == (640, 1000, 3)
    rng = np.random.default_rng(0)
    while game.state.figures[0] == cp.COURTYARD_POSITION and not game.is_over():
        game.apply(random_action(game, rng))
    assert not np.array_equal(first, game.render_image())


def test_env_render_modes():
    env = city_envs.make_env("blue_moon_city", 3, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (640, 1000, 3)
    env = city_envs.make_env("blue_moon_city", 3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert all(f"P{seat}:" in text for seat in range(3)) and "Courtyard" in text


def test_public_text_never_shows_hands():
    for game in mid_game_states(3, range(3), per_game=2):
        text = game.render_text()
        assert not any(card_name(x) in text for x in range(cp.NUM_TYPES))
        for seat in range(3):
            held = [x for x in range(cp.NUM_TYPES) if game.state.hands[seat][x]]
            assert all(card_name(x) in game.render_private(seat) for x in held)
