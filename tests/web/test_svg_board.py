"""The play and replay pages show a game's SVG board inline: its clickable places are the legal choices
with their buttons' texts (choosing one posts that action), and a replay's board is the public table."""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from city_envs import make_game

from ..test_svg_boards import NS, SVG_GAMES
from .test_app import start, step_of

BUTTON = re.compile(r'<button name="action" value="(\d+)" class="action[^"]*"[^>]*>([^<]+)</button>')


def board_of(page: str) -> ET.Element:
    found = re.search(r'<svg xmlns="http://www.w3.org/2000/svg".*?</svg>', page, re.S)
    assert found, "no inline SVG board"
    return ET.fromstring(found.group(0))


@pytest.mark.parametrize("name", SVG_GAMES)
def test_a_person_chooses_on_the_svg_board(client, name):
    import html

    url = start(client, name, ["person", "random"], seed=3)
    pick = random.Random(3).choice
    for _ in range(400):
        page = client.get(url).text
        assert 'id="game-over"' not in page, "the game ended before a choice was offered on the board"
        if 'data-bots-to-move="1"' in page:
            client.post(f"{url}/advance")
            continue
        places = board_of(page).findall(f".//{NS}g[@class='choice']")
        buttons = {int(action): html.unescape(text) for action, text in BUTTON.findall(page)}
        if places:
            break
        client.post(f"{url}/act", data={"seat": "0", "action": str(pick(list(buttons))), "step": str(step_of(page))})
    else:
        pytest.fail("no choice was offered on the board")
    assert 'id="board-hint"' in page and "<img" not in page
    for place in places:
        assert buttons[int(place.get("data-action"))] == place.find(f"{NS}title").text
    step = step_of(page)
    action = places[0].get("data-action")
    assert client.post(f"{url}/act", data={"seat": "0", "action": action, "step": str(step)}).status_code == 200
    after = client.get(url).text
    assert 'id="game-over"' in after or int(re.search(r'data-step="(\d+)"', after).group(1)) == step + 1


@pytest.mark.parametrize("name", SVG_GAMES)
def test_a_replay_shows_the_public_svg_board(client, replay_folder: Path, name):
    game = make_game(name, 2, seed=5)
    pick = random.Random(5).choice
    for _ in range(40):
        game.apply(pick(game.legal_action_ids()))
    (replay_folder / "game.json").write_text(json.dumps(game.to_dict()))
    for view in ("full", "1"):
        page = client.get(f"/replay?src=0/game.json&step=40&view={view}").text
        root = board_of(page)
        assert root.findall(f".//{NS}g[@class='choice']") == []
        assert ET.tostring(root) == ET.tostring(ET.fromstring(game.render_svg()))
