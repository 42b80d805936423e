"""Metropolys for people: the board image (rgb_array), the public text (ansi), action descriptions."""

from __future__ import annotations

import re

import numpy as np
import pytest

import city_envs
from city_envs.metropolys import components as cp
from city_envs.metropolys import image
from city_envs.metropolys import rules as r
from city_envs.metropolys.game import Metropolys

from ..game_helpers import play_out, random_action
from .helpers import COUNTS, VERSIONS

SIZE = (640, 1000, 3)
CARD_NAMES = set(cp.FAMILY_CARD_NAMES + cp.COLOUR_NAMES + cp.EXPERT_AREA_NAMES)


def advance(game: Metropolys, steps: int, seed: int = 0) -> Metropolys:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over():
            break
        game.apply(random_action(game, rng))
    return game


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def other_secret_cards(game: Metropolys) -> Metropolys:
    """A clone whose secret cards differ from the game's (and nothing else does)."""
    other = game.clone()
    s = other.state
    if s.version == r.FAMILY:
        s.family_card = [(card + 1) % 4 if card >= 0 else card for card in s.family_card]
    else:
        s.colour_card = [(card + 1) % 5 for card in s.colour_card]
        s.area_card = [(card + 1) % 5 for card in s.area_card]
    return other


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_image_is_a_fixed_size_rgb_frame_that_follows_the_game(n, version):
    game = Metropolys(n, seed=n, version=version)
    start = game.render_image()
    assert start.dtype == np.uint8 and start.shape == SIZE and start.std() > 10
    game.apply(int(np.flatnonzero(game.legal_actions())[0]))  # the neighbourhood ...
    chosen = game.render_image()
    game.apply(int(np.flatnonzero(game.legal_actions())[0]))  # ... and the value: a bid is on the board
    assert game.state.bids
    bid = game.render_image()
    assert bid.shape == SIZE and not np.array_equal(chosen, bid)
    advance(game, 25, seed=n)
    assert game.render_image().shape == SIZE
    end = play_out(game, np.random.default_rng(n)).render_image()
    assert end.dtype == np.uint8 and end.shape == SIZE


@pytest.mark.parametrize("version", VERSIONS)
def test_image_lines_are_words_that_end_inside_the_frame(version, monkeypatch):
    """Every text line of the image, in play and at the end, ends inside the frame and names the
    tokens in words (not "T2 S1 A0")."""
    drawn: list[tuple[float, str, float, bool, bool]] = []
    original = image._Text.line

    def record(self, x, y, text, size=8.5, colour="black", bold=False, right=False):
        drawn.append((x, text, size, bold, right))
        original(self, x, y, text, size, colour, bold, right)

    monkeypatch.setattr(image._Text, "line", record)
    game = advance(Metropolys(4, seed=3, version=version), 30, seed=3)
    game.render_image()
    play_out(game, np.random.default_rng(3)).render_image()
    assert any("trendy" in text for _, text, *_ in drawn)
    for x, text, size, bold, right in drawn:
        assert not re.search(r"\bT\d+ S\d+ A\d+\b", text), text
        end = x if right else x + image._width(text, size, bold) * image.DPI / 72
        assert end <= image.WIDTH, f"{text!r} ends at {end:.0f} px, past {image.WIDTH}"


@pytest.mark.parametrize("version", VERSIONS)
def test_image_hides_secret_cards_until_the_end(version):
    game = advance(Metropolys(4, seed=5, version=version), 40, seed=5)
    assert not game.is_over()
    assert np.array_equal(game.render_image(), other_secret_cards(game).render_image())
    play_out(game, np.random.default_rng(5))
    assert not np.array_equal(game.render_image(), other_secret_cards(game).render_image())


def test_board_positions_cover_every_neighbourhood_inside_the_board():
    assert len(cp.POSITION) == cp.NUM_NBHDS
    assert all(0 <= x <= 100 and 0 <= y <= 100 for x, y in cp.POSITION)
    assert image.XY.shape == (cp.NUM_NBHDS, 2) and image.TOKEN_XY.shape == (cp.NUM_NBHDS, 2)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_env_ansi_shows_every_seat_and_no_secret_card_before_the_end(n, version):
    env = city_envs.make_env("metropolys", n, render_mode="ansi", version=version)
    env.reset(seed=n)
    game = env.unwrapped.game
    rng = np.random.default_rng(n)
    for step in range(60):
        text = env.render()
        assert isinstance(text, str) and all(f"seat {seat}:" in text for seat in range(n))
        assert "cards:" not in text and not words(text) & CARD_NAMES, text
        for seat in range(n):
            mine = {name for name in game.view(seat)["my_cards"].values() if name is not None}
            assert mine and not words(text) & mine
        if step % 20 == 0:
            assert text == other_secret_cards(game).render_text()
        action = random_action(game, rng)
        env.step(action)
        if game.is_over():
            break
    play_out(game, rng)
    final = env.render()
    assert final.count("cards:") == n and "winners" in final
    for seat in range(n):
        assert all(name in final for name in game.view(seat)["my_cards"].values() if name is not None)


def test_private_text_shows_only_my_cards():
    game = Metropolys(3, seed=4, version="expert")
    for seat in range(3):
        mine = game.view(seat)["my_cards"]
        text = game.render_private(seat)
        assert mine["neighbourhood"] in text and mine["area"] in text


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("n", COUNTS)
def test_every_legal_action_has_a_distinct_description(n, version):
    game = Metropolys(n, seed=n + 10, version=version)
    rng = np.random.default_rng(n)
    while not game.is_over():
        ids = np.flatnonzero(game.legal_actions()).tolist()
        texts = [game.describe_action(a) for a in ids]
        assert all(texts) and len(set(texts)) == len(texts), texts
        game.apply(random_action(game, rng))


def test_public_text_names_builders_and_bidders_by_seat():
    """A neighbourhood built or bid on reads "n=seatk:v" / "n?seatk:v" (with a legend line), never "=Pk"."""
    game = advance(Metropolys(3, seed=4), 40, seed=4)
    text = game.render_text()
    assert re.search(r"\b\d+=seat\d:\d+", text) and "neighbourhood n built by seat k" in text
    assert not re.search(r"[=?]P\d", text), text
