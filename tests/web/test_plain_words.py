"""No page speaks the developers' language: random matches of every game, every page a person sees
(its turns, the end, the watch link, the replay) read without the code names of spaces, tokens, seats
or decisions ("PL3", "T0 S2 A0", "player 0", "Decision 172"), nor a terminal's grid of letter codes (Urban
Sprawl's "R0 __ I1": zone and owner)."""

from __future__ import annotations

import random
import re

import pytest

from city_envs.core.registry import GAMES

from .test_app import choices, start, step_of, text_of
from .test_ownership import session_for

# the last: three cells in a row of Urban Sprawl's terminal grid (a zone letter and its owner's digit, or
# "." for no owner; "__" for an empty lot)
GRID_CELLS = r"(?<![\w.])(?:[CMIRP][\d.]|__)(?: +(?:[CMIRP][\d.]|__)){2,}(?![\w.])"
DEVELOPER_WORDS = re.compile(rf"\bPL\d\b|\bT\d+ S\d+ A\d+\b|\bplayer \d\b|\bDecision \d+|{GRID_CELLS}")
SLOW = {"metropolys", "big_city"}  # a few hundred pages each


def developer_words(page: str) -> set[str]:
    return set(DEVELOPER_WORDS.findall(text_of(page)))


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in GAMES]
)
def test_no_page_of_a_random_match_shows_developer_words(client, name):
    url = start(client, name, ["person", "random", "random"], seed=3)
    pick = random.Random(3).choice
    found: dict[str, int] = {}
    for page_number in range(1000):
        page = client.get(url).text
        found |= {word: page_number for word in developer_words(page)}
        if 'id="game-over"' in page:
            break
        if 'data-bots-to-move="1"' in page:
            client.post(f"{url}/advance")
            continue
        client.post(f"{url}/act", data={"seat": "0", "action": str(pick(choices(page))), "step": str(step_of(page))})
    else:
        pytest.fail("the match did not end")
    session = session_for(client, url)
    for other in (f"/watch/{session.watch_id}", f"/replay?src=live/{session.id}&step={len(session.game.history) // 2}"):
        found |= {word: -1 for word in developer_words(client.get(other).text)}
    assert not found, found


@pytest.mark.parametrize("engine", ["python", "native"])
def test_urban_sprawls_final_table_says_in_words_what_its_terminal_grid_codes(engine):
    """The web app's final table (`describe_table`) names each seat's buildings by zone, where the terminal's
    text (`render_text`, kept for `render_mode="ansi"`) draws the city as a grid of letter codes."""
    from city_envs import make_game

    game = make_game("urban_sprawl", 2, seed=3, engine=engine)
    pick = random.Random(3).choice
    while not game.is_over():
        game.apply(pick(game.legal_action_ids()))
    table = game.describe_table()
    assert re.search(GRID_CELLS, game.render_text()) and not DEVELOPER_WORDS.search(table)
    assert "seat 0: " in table and "buildings it controls: " in table and "winners: " in table
