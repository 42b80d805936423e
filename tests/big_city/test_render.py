"""Big City for people: text (ansi), the table image (rgb_array), action descriptions (that every
legal action has its own is checked for every game in tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np
import pytest

import city_envs
from city_envs.big_city import components as cp
from city_envs.big_city.game import BigCity

from ..game_helpers import random_action
from .bc_testlib import build, mid_game_states, position, tram


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_image_is_a_fixed_size_rgb_frame_that_follows_the_game(n):
    game = BigCity(n, seed=n)
    first = game.render_image()
    assert first.dtype == np.uint8 and first.shape == (640, 1000, 3)
    rng = np.random.default_rng(0)
    while game.decision_name() != "MAIN":
        game.apply(random_action(game, rng))
    assert not np.array_equal(first, game.render_image())


def test_image_shows_pieces_and_trams():
    game = position(hands={0: [17]}, hall=True)
    plain = game.render_image()
    tram(game, 17, cp.W)
    with_tram = game.render_image()
    assert not np.array_equal(plain, with_tram)
    red = (with_tram[:, :, 0] > 170) & (with_tram[:, :, 1] < 80) & (with_tram[:, :, 2] < 80)
    assert red.sum() > 50  # the tram line
    build(game, cp.RES1, [17])
    assert not np.array_equal(with_tram, game.render_image())


def test_env_render_modes():
    env = city_envs.make_env("big_city", 3, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (640, 1000, 3)
    env = city_envs.make_env("big_city", 3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert all(f"P{seat}:" in text for seat in range(3)) and "11" in text and "SETUP_TILE" in text


def test_public_text_never_shows_hands():
    for game in mid_game_states(3, range(3), per_game=2):
        text = game.render_text()
        assert "hand" not in text
        for seat in range(3):
            private = game.render_private(seat)
            assert all(cp.card_name(c) in private for c in game.state.hands[seat])


def test_exchange_choices_are_described_without_the_card_to_the_table():
    game = position(n=3, hands={0: [11, 12, 21, 31, 41]})
    game.apply(93)
    assert "11" in game.describe_action(0) and "11" not in game.describe_public_action(0)
    assert "pile 1" in game.describe_public_action(0)
