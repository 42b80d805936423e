"""The choices of a turn: a forced one is played by the page itself, no list of any decision of any game
holds more than the limit of buttons, Big City's trams are chosen by street group and its new
neighbourhood is previewed before it is placed, Blue Moon City's dragon moves are chosen on the board
(the dragon and its way of moving first, then the tile)."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from city_envs import make_game
from city_envs.core.registry import GAMES
from city_envs.web.app import MAX_LIST, group_actions, split_long

from .test_app import choices, start, step_of, text_of
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
            yield game, split_long(groups, game.choice_group)
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


PLACE = re.compile(r'<g class="(choice|layer-switch)"([^>]*)>.*?<polygon points="([-0-9., ]+)"', re.S)


def board_places(svg: str) -> list[tuple[str, dict[str, str], list[tuple[float, float]]]]:
    """The board's clickable places: (class, attributes, polygon) of each choice and layer switch."""
    return [
        (
            kind,
            dict(re.findall(r'([a-z-]+)="([^"]*)"', attributes)),
            [tuple(map(float, p.split(","))) for p in points.split()],
        )
        for kind, attributes, points in PLACE.findall(svg)
    ]


def dragon_move_positions(players: int, seed: int, limit: int):
    """Up to `limit` positions of a random Blue Moon City match where the seat may move a dragon."""
    from city_envs.blue_moon_city import rules as r

    game = make_game("blue_moon_city", players, seed=seed)
    pick = random.Random(seed).choice
    found = 0
    while not game.is_over() and found < limit:
        ids = game.legal_action_ids()
        if any(action < r.FLIT_BOOST for action in ids):
            yield game
            found += 1
        game.apply(pick(ids))


def test_blue_moon_citys_dragon_moves_are_places_on_the_board_that_never_overlap():
    """Every dragon move is a tile on the board in the layer of its dragon and way of moving, shown by
    that layer's switch beside the city: the places of one layer never overlap (nor do the figure's, the
    layer of none), and the switches overlap nothing."""
    from city_envs.blue_moon_city import rules as r

    checked = 0
    for players, seed in ((2, 0), (4, 1)):
        for game in dragon_move_positions(players, seed, 6):
            ids = game.legal_action_ids()
            svg = game.render_svg({a: game.describe_action(a) for a in ids})
            places = board_places(svg)
            choices = {
                int(attrs["data-action"]): (attrs.get("data-layer", ""), shape)
                for kind, attrs, shape in places
                if kind == "choice"
            }
            switches = {attrs["data-layer"]: shape for kind, attrs, shape in places if kind == "layer-switch"}
            dragon_moves = [a for a in ids if a < r.FLIT_BOOST]
            assert set(dragon_moves) <= set(choices)
            assert all(choices[a][0] == game.choice_group(a) != "" for a in dragon_moves)
            assert set(switches) == {layer for layer, _ in choices.values() if layer}
            for layer in {layer for layer, _ in choices.values()}:
                shapes = [shape for other, shape in choices.values() if other == layer]
                for i, shape in enumerate(shapes):
                    assert all(separated(shape, other) for other in shapes[i + 1 :]), layer
            every = list(switches.values()) + [shape for _, shape in choices.values()]
            for i, shape in enumerate(switches.values()):
                assert all(separated(shape, other) for other in every[i + 1 :])
            checked += 1
    assert checked >= 6


def test_blue_moon_citys_dragon_move_is_played_from_its_place_on_the_page(client):
    from city_envs.blue_moon_city import rules as r

    url = start(client, "blue_moon_city", ["person", "random"], seed=1)
    page = client.get(url).text
    places = board_places(page[page.index("<svg") : page.index("</svg>")])
    dragon = [attrs for kind, attrs, _ in places if kind == "choice" and int(attrs["data-action"]) < r.FLIT_BOOST]
    assert dragon and any(kind == "layer-switch" for kind, _, _ in places)
    action = int(dragon[0]["data-action"])
    assert action in choices(page)  # the list keeps it too
    client.post(f"{url}/act", data={"seat": "0", "action": str(action), "step": str(step_of(page))})
    assert session_for(client, url).game.history[0] == action


# ----- a decision made in parts: previewed before its last part is played ------------------------
def to_the_last_part(client, url: str) -> str:
    """Big City's first neighbourhood chosen, turned and put beside the city: the page of its last part."""
    for _ in range(3):
        page = client.get(url).text
        assert 'form="preview-form"' not in page  # the parts before the last are played (and undone) at once
        client.post(f"{url}/act", data={"seat": "0", "action": str(choices(page)[0]), "step": str(step_of(page))})
    page = client.get(url).text
    assert "TILE_CELL" == session_for(client, url).game.decision_name()
    return page


def test_big_citys_new_neighbourhood_is_previewed_then_played(client):
    url = start(client, "big_city", ["person", "random"], seed=4)
    page = to_the_last_part(client, url)
    session = session_for(client, url)
    step, last = step_of(page), choices(page)
    assert page.count('form="preview-form"') == len(last) and 'id="preview-form"' in page
    preview = client.get(f"{url}?seat=0&step={step}&action={last[0]}").text
    assert len(session.game.history) == step  # nothing played yet
    text = session.game.describe_action(last[0])
    assert 'id="confirm"' in preview and text in text_of(preview) and 'id="choose-again"' in preview
    after = session.game.clone()
    after.apply(last[0])
    assert after.render_svg() in preview  # the board as it will be
    assert 'id="undo"' not in preview and choices(preview) == [last[0]]
    client.post(f"{url}/act", data={"seat": "0", "action": str(last[0]), "step": str(step)})
    assert session.game.history[step] == last[0]


def test_a_preview_is_refused_with_its_reason(client):
    url = start(client, "big_city", ["person", "random"], seed=4)
    page = client.get(url).text
    first = choices(page)[0]
    response = client.get(f"{url}?seat=0&step=0&action={first}")  # the tile: not the decision's last part
    assert response.status_code == 409 and "nothing to preview" in text_of(response.text)
    page = to_the_last_part(client, url)
    step, last = step_of(page), choices(page)[0]
    assert client.get(f"{url}?seat=0&step={step - 1}&action={last}").status_code == 409
    assert client.get(f"{url}?seat=1&step={step}&action={last}").status_code == 409
    assert client.get(f"{url}?seat=0&step={step}&action=x").status_code == 400
    from .conftest import form_client

    with form_client(client.app) as stranger:
        assert stranger.get(f"{url}?seat=0&step={step}&action={last}").status_code == 404


def test_a_preview_does_not_change_with_what_its_seat_cannot_see(client):
    """The preview page (the table after the choice, its button) is the same in a world redrawn from what
    seat 0 cannot see (the piles' order, the other hand)."""
    url = start(client, "big_city", ["person", "random"], seed=4)
    page = to_the_last_part(client, url)
    session = session_for(client, url)
    game, rng = session.game, np.random.default_rng(0)
    for action in choices(page):
        seen = client.get(f"{url}?seat=0&step={step_of(page)}&action={action}").text
        twin = game.determinize(0, rng)
        twin.history = list(game.history)
        session.game = twin
        try:
            assert client.get(f"{url}?seat=0&step={step_of(page)}&action={action}").text == seen
        finally:
            session.game = game
