"""Urban Sprawl for people: text (ansi), the table image (rgb_array), action descriptions (that every
legal action has its own is checked for every game in tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np
import pytest

import city_envs
from city_envs.urban_sprawl.game import UrbanSprawl

from ..game_helpers import random_action
from .us_testlib import bought


@pytest.mark.parametrize("n", [2, 3, 4])
def test_image_is_a_fixed_size_rgb_frame_that_follows_the_game(n):
    game = UrbanSprawl(n, seed=n)
    first = game.render_image()
    assert first.dtype == np.uint8 and first.shape == (640, 1120, 3)
    rng = np.random.default_rng(0)
    game.apply(random_action(game, rng))  # a starting building bought
    assert not np.array_equal(first, game.render_image())


def test_env_render_modes():
    env = city_envs.make_env("urban_sprawl", 3, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (640, 1120, 3)
    env = city_envs.make_env("urban_sprawl", 3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert all(f"player {seat}:" in text for seat in range(3)) and "values" in text and "C1 (1 AP)" in text


def test_text_shows_hands_offices_and_the_pending_decision():
    game = bought(4)
    s = game.state
    s.offices[0] = 2
    text = game.render_text()
    for seat in range(4):
        assert all(f"P{c:02d}" in text for c in s.hands[seat])
    assert "offices Mayor" in text and "pending INVEST for player 0" in text
