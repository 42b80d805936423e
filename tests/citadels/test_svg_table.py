"""The Citadels SVG table at the end of a match: every line of a seat's column fits beside its city
(none runs under a district card), and no character is shown as being called once the game is over."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from city_envs import make_game
from city_envs.citadels import rules as r
from city_envs.citadels.svg import CALLED, INFO_W
from city_envs.core.native import NativeGame

NS = "{http://www.w3.org/2000/svg}"
CHAR_EM = 0.55  # a wide estimate of a sans-serif character's width, in ems


def finished_match(seed: int):
    game = make_game("citadels", 4, seed=seed)
    pick = random.Random(seed).choice
    while not game.is_over():
        game.apply(pick(game.legal_action_ids()))
    return game.reference() if isinstance(game, NativeGame) else game


def test_a_seats_column_fits_beside_its_city_with_every_mark():
    game = finished_match(3)
    s = game.state
    s.crown = s.revealed[5] = s.first_completer = max(range(s.n), key=lambda seat: s.city_size[seat])
    root = ET.fromstring(game.render_svg({}))
    column = [t for t in root.iter(f"{NS}text") if t.get("x") == "12" and t.get("text-anchor") == "start"]
    assert any("complete" in "".join(t.itertext()) for t in column)
    for text in column:
        words = "".join(text.itertext())
        assert 12 + len(words) * float(text.get("font-size", "0")) * CHAR_EM <= INFO_W, words


def test_no_character_is_being_called_after_the_game():
    game = finished_match(1)
    assert game.state.decision == r.GAME_OVER and game.state.called
    svg = game.render_svg({})
    assert svg.count(CALLED) == 1  # the legend's swatch only: no character is being called
    assert "(to act)" not in svg
