"""The choices of a turn: a forced one is played by the page itself, no list of any decision of any game
holds more than the limit of buttons, Big City's trams are chosen by street group and its new
neighbourhood is previewed before it is placed."""

from __future__ import annotations

import random
import re

import pytest

from city_envs import make_game
from city_envs.core.registry import GAMES
from city_envs.web.app import MAX_LIST, group_actions, split_long, subgroups

from .test_app import start
from .test_ownership import session_for


def test_a_forced_choice_is_played_by_the_page_not_offered_as_a_button(client):
    url = start(client, "urban_sprawl", ["person", "random"], seed=2, play_forced="on")
    session = session_for(client, url)
    pick = random.Random(2).choice
    for _ in range(200):
        if session.forced_choice() is not None:
            break
        if session.bot_to_move() is not None:
            session.advance(max_moves=1)
        else:
            session.act(0, pick(session.game.legal_action_ids()), len(session.game.history))
    assert session.forced_choice() is not None
    page = client.get(url).text
    assert 'data-bots-to-move="1"' in page and 'id="advance"' in page and 'id="actions"' not in page
    client.post(f"{url}/advance?moves=1")
    assert session.log[-1].forced and session.log[-1].seat == 0


def long_lists(name: str, players: int, seed: int, prefer=None):
    """(decision, shown lists) of each position of a random match with more than `MAX_LIST` choices, as
    the page folds them; `prefer(game)` picks the actions to play where it names any."""
    game = make_game(name, players, seed=seed)
    pick = random.Random(seed).choice
    while not game.is_over():
        ids = game.legal_action_ids()
        if len(ids) > MAX_LIST:
            groups = group_actions(game, game.presentation_order(ids))
            yield game, split_long(groups, subgroups(game))
        preferred = prefer(game, ids) if prefer else []
        game.apply(pick(preferred or ids))


@pytest.mark.parametrize("name", GAMES)
def test_every_long_list_of_every_decision_is_grouped_by_what_it_chooses(name):
    """Random matches of every game: a decision of more than the limit of choices is shown in groups of at
    most the limit, each named by what its choices share (a dragon, a district, a neighbourhood, a row of
    blocks), never cut into numbered runs."""
    decisions = set()
    for players, seed in ((2, 0), (4, 1)):
        for game, shown in long_lists(name, players, seed, prefer_trams):
            assert all(len(items) <= MAX_LIST for _, items, _ in shown), game.decision_name()
            assert not [heading for heading, _, _ in shown if "…" in heading], game.decision_name()
            decisions.add(game.decision_name())
    assert decisions or name == "citadels"


def prefer_trams(game, ids: list[int]) -> list[int]:
    """Big City's tram actions (the longest lists), else anything but a pass (all passing ends the match)."""
    if game.name != "big_city":
        return []
    from city_envs.big_city import rules as r

    trams = [a for a in ids if a == r.TRAM or (r.EDGE <= a < r.LOCAL_CELL and "TRAM" in game.decision_name())]
    return trams or [a for a in ids if a != r.PASS]


def separated(first: list[tuple[float, float]], second: list[tuple[float, float]]) -> bool:
    """Whether two convex polygons' insides are apart (a separating axis among their sides' normals)."""
    for polygon in (first, second):
        for (ax, ay), (bx, by) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
            nx, ny = by - ay, ax - bx
            one = [nx * x + ny * y for x, y in first]
            other = [nx * x + ny * y for x, y in second]
            if max(one) <= min(other) + 1e-9 or max(other) <= min(one) + 1e-9:
                return True
    return False


def test_big_citys_tram_places_on_the_board_never_overlap():
    checked = 0
    for game, _ in long_lists("big_city", 2, 3, prefer_trams):
        if "TRAM" not in game.decision_name():
            continue
        svg = game.render_svg({a: game.describe_action(a) for a in game.legal_action_ids()})
        places = [
            [tuple(map(float, point.split(","))) for point in points.split()]
            for points in re.findall(r'<g class="choice"[^>]*>.*?<polygon points="([-0-9., ]+)"', svg, re.S)
        ]
        assert len(places) > MAX_LIST
        for i, place in enumerate(places):
            assert all(separated(place, other) for other in places[i + 1 :])
        checked += 1
        if checked == 2:
            break
    assert checked
