"""Metropolys for people: text (ansi), the board image (rgb_array), action descriptions."""

from __future__ import annotations

import numpy as np
import pytest

import city_envs
from city_envs.metropolys import components as cp
from city_envs.metropolys.game import Metropolys

from .metropolys_testlib import play_out, random_action


def advance(game: Metropolys, steps: int, seed: int = 0) -> Metropolys:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        game.apply(random_action(game, rng))
    return game


@pytest.mark.parametrize(("n", "version"), [(2, "family"), (3, "expert"), (4, "family")])
def test_image_is_a_fixed_size_rgb_frame_that_follows_the_game(n, version):
    game = Metropolys(n, seed=n, version=version)
    first = game.render_image()
    assert first.dtype == np.uint8 and first.shape == (640, 1000, 3)
    game.apply(int(np.flatnonzero(game.legal_actions())[0]))
    game.apply(int(np.flatnonzero(game.legal_actions())[0]))  # a bid is on the board now
    second = game.render_image()
    assert second.shape == first.shape and not np.array_equal(first, second)
    assert play_out(game, np.random.default_rng(0)).render_image().shape == first.shape


def test_env_render_modes():
    env = city_envs.make_env("metropolys", 3, render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (640, 1000, 3)
    env = city_envs.make_env("metropolys", 3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert all(f"P{seat}:" in text for seat in range(3)) and "opens the call" in text


@pytest.mark.parametrize("version", ["family", "expert"])
def test_public_text_hides_secret_cards_until_the_end(version):
    game = advance(Metropolys(4, seed=2, version=version), 30)
    names = cp.FAMILY_CARD_NAMES + cp.COLOUR_NAMES + cp.EXPERT_AREA_NAMES
    text = game.render_text()
    assert "cards:" not in text
    assert not any(f"{kind} {name}" in text for kind in ("area", "neighbourhood") for name in names)
    play_out(game, np.random.default_rng(1))
    final = game.render_text()
    assert final.count("cards:") == 4 and "winners" in final


def test_private_text_shows_only_my_cards():
    game = Metropolys(3, seed=4, version="expert")
    for seat in range(3):
        mine = game.view(seat)["my_cards"]
        text = game.render_private(seat)
        assert mine["neighbourhood"] in text and mine["area"] in text


def test_every_legal_action_has_a_distinct_description():
    game = advance(Metropolys(4, seed=1), 9)
    for _ in range(40):
        ids = np.flatnonzero(game.legal_actions()).tolist()
        texts = [game.describe_action(a) for a in ids]
        assert len(set(texts)) == len(texts) and all(texts)
        game.apply(ids[0])
        if game.is_over():
            break
