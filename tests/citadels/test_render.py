"""Citadels for people: images, the public text table, action descriptions."""

from __future__ import annotations

import numpy as np
import pytest

from city_envs.citadels import components as cp
from city_envs.citadels.game import Citadels


def advanced(n: int, steps: int, seed: int = 0) -> Citadels:
    game = Citadels(n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over():
            break
        legal = np.flatnonzero(game.legal_actions())
        game.apply(int(legal[rng.integers(len(legal))]))
    return game


@pytest.mark.parametrize("n", range(2, 8))
@pytest.mark.parametrize("steps", [0, 120, 100_000])
def test_image_is_rgb_uint8(n, steps):
    image = advanced(n, steps).render_image()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 200 and image.shape[1] > 800
    assert image.std() > 10  # something is drawn


@pytest.mark.parametrize("n", [2, 5, 7])
def test_text_shows_every_seat_and_no_hand(n):
    game = advanced(n, 150, seed=n)
    text = game.render_text()
    for seat in range(n):
        assert f"seat {seat}:" in text
    other = game.clone()
    hands = other.state.hands
    donor = int(np.argmax(hands.sum(axis=1)))
    kind = int(np.flatnonzero(hands[donor])[0])
    hands[donor, kind] -= 1
    hands[donor, (kind + 1) % cp.NUM_KINDS] += 1  # same hand size, other card
    assert other.render_text() == text
    assert other.render_image().tobytes() == game.render_image().tobytes()


def test_descriptions_are_distinct_for_every_legal_action():
    for n in (2, 4, 7):
        for steps in (0, 40, 90, 200):
            game = advanced(n, steps, seed=steps)
            if game.is_over():
                continue
            texts = [game.describe_action(a) for a in np.flatnonzero(game.legal_actions())]
            assert all(texts) and len(set(texts)) == len(texts)


def test_public_descriptions_hide_secret_choices():
    game = Citadels(4, seed=0)
    picks = np.flatnonzero(game.legal_actions())
    assert {game.describe_public_action(int(a)) for a in picks} == {"chooses a character"}
    assert "King" in game.describe_action(3)


def test_private_text_shows_own_hand():
    game = Citadels(3, seed=2)
    text = game.render_private(1)
    for kind in np.flatnonzero(game.state.hands[1]):
        assert cp.DISTRICTS[kind].name in text
