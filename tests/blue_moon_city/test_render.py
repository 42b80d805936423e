"""Blue Moon City for people, beyond what every game shows alike (tests/test_every_game.py): the
public text never shows a hand, the private text does."""

from __future__ import annotations

import re

from city_envs.blue_moon_city import components as cp
from city_envs.blue_moon_city.render import card_name

from .helpers import mid_game_states


def test_public_text_never_shows_hands():
    for game in mid_game_states(3, range(3), per_game=2):
        text = game.render_text()
        assert not any(card_name(x) in text for x in range(cp.NUM_TYPES))
        for seat in range(3):
            held = [x for x in range(cp.NUM_TYPES) if game.state.hands[seat][x]]
            assert all(card_name(x) in game.render_private(seat) for x in held)


def test_public_text_names_a_marker_by_its_seat():
    """A section's marker reads "=seat k" (with a legend line), never "=Pk"."""
    texts = [game.render_text() for game in mid_game_states(3, range(3), per_game=2)]
    assert any("=seat" in text for text in texts)
    for text in texts:
        assert "=seat k: seat k's marker" in text and not re.search(r"=P\d", text), text
