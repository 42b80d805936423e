"""Big City for people, beyond what every game shows alike (tests/test_every_game.py): what the table
image and the texts show and hide."""

from __future__ import annotations

import re

import numpy as np

from city_envs.big_city import components as cp

from .helpers import build, mid_game_states, position, tram


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


def test_public_text_never_shows_hands():
    for game in mid_game_states(3, range(3), per_game=2):
        text = game.render_text()
        assert "hand" not in text
        for seat in range(3):
            private = game.render_private(seat)
            assert all(cp.card_name(c) in private for c in game.state.hands[seat])


def test_public_text_counts_piles_and_hands_in_words():
    """The piles and each seat's cards by pile read as words ("2 from pile 6"), not "6:2"."""
    for game in mid_game_states(3, range(2), per_game=2):
        text = game.render_text()
        assert "cards left in piles 1-8:" in text and " from pile " in text
        assert not re.search(r"\b\d+:\d+\b", text), text


def test_exchange_choices_are_described_without_the_card_to_the_table():
    game = position(n=3, hands={0: [11, 12, 21, 31, 41]})
    game.apply(93)
    assert "11" in game.describe_action(0) and "11" not in game.describe_public_action(0)
    assert "pile 1" in game.describe_public_action(0)
