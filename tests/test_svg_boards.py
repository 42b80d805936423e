"""Every game's SVG board (`Game.render_svg`), over positions of random matches: each label a legal
choice's button names is drawn as text on the board, readable (no text under `MIN_FONT` units, none
running off the board), the clickable places are exactly legal choices with their buttons' texts, seat
colours mark only seats, there is a legend, and the board is public (the same, byte for byte, in every
world a seat cannot tell from the true one)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import numpy as np
import pytest

from city_envs import make_game
from city_envs.core.game import Game
from city_envs.core.svg import MAX_WIDTH, MIN_FONT, MIN_SEAT_DISTANCE, SEAT_COLOURS, seat_distance

NS = "{http://www.w3.org/2000/svg}"
# how wide characters of the board's sans-serif font (DejaVu Sans) are, a little generously, per unit of size
NARROW, SLIM, WIDE = " .,:;!|il'()[]-", "fjrtI1", "mwMW@%"


def text_width(text: str, size: float, bold: bool) -> float:
    def one(char: str) -> float:
        if char in NARROW:
            return 0.34
        if char in SLIM:
            return 0.44
        if char in WIDE:
            return 0.92
        return 0.72 if char.isupper() else 0.64

    return sum(one(char) for char in text) * size * (1.1 if bold else 1.0)


def _big_city(text: str) -> list[str]:
    """Plots by number (also the plots of the tile being placed), and neighbourhoods by number."""
    return (
        re.findall(r"\bplots? (\d\d)\b", text)
        + re.findall(r"\band (\d\d)\b", text)
        + re.findall(r"\b(neighbourhood \d)\b", text)
    )


def _blue_moon_city(text: str) -> list[str]:
    """Places (p5) and tiles by name, sections by number, dragons by name."""
    places = re.findall(r"\b(p\d+) ([A-Z][a-z]+(?: [A-Z][a-z]+)*)", text)
    return (
        [label for place in places for label in place]
        + re.findall(r"\b(section \d)\b", text)
        + re.findall(r"\bthe (Fire|Earth|Water) dragon\b", text)
    )


def _citadels(text: str) -> list[str]:
    """Characters by name, seats, and the districts of a city by name."""
    return (
        re.findall(r"\b([A-Z][a-z]+) \(\d\)", text)
        + re.findall(r"\bwith (seat \d)\b", text)
        + [label for pair in re.findall(r"^destroy (.+) in (seat \d)'s city", text) for label in pair]
    )


def _metropolys(text: str) -> list[str]:
    """Neighbourhoods by number, and their colour and type (named in the legend)."""
    return re.findall(r"\bneighbourhood (\d+)\b", text) + re.findall(r"district, (\w+ \w+)\)", text)


def _metropolys(text: str) -> list[str]:
    """Neighbourhoods by number, and their colour and type (named in the legend)."""
    return re.findall(r"\bneighbourhood (\d+)\b", text) + re.findall(r"district, (\w+ \w+)\)", text)


def _urban_sprawl(text: str) -> list[str]:
    """Lots by name (a1..l12), grey circles, and the cards on offer with their spaces."""
    offered = re.findall(r"^(?:take|build) (.+?) from (.+?) for", text)
    return (
        re.findall(r"\b([a-l](?:1[0-2]|[1-9]))\b", text)
        + re.findall(r"^grey circle ([TR]\d)\b", text)
        + [label for pair in offered for label in pair]
    )


# per game with an SVG board: the labels a choice's text names, each to be found as a text on the board
LABELS: dict[str, Callable[[str], list[str]]] = {
    "big_city": _big_city,
    "blue_moon_city": _blue_moon_city,
    "citadels": _citadels,
    "metropolys": _metropolys,
    "urban_sprawl": _urban_sprawl,
}
SVG_GAMES = sorted(LABELS)


def positions(name: str, players: int, seed: int, limit: int) -> list[Game]:
    """`limit` positions drawn evenly at random from one whole random match (reservoir sampling), in
    order, and its end."""
    game = make_game(name, players, seed=seed)
    rng = np.random.default_rng(seed)
    kept: list[tuple[int, Game]] = []
    while not game.is_over():
        step = len(game.history)
        if step < limit:
            kept.append((step, game.clone()))
        elif (slot := int(rng.integers(step + 1))) < limit:
            kept[slot] = (step, game.clone())
        game.apply(int(rng.choice(game.legal_action_ids())))
    return [position for _, position in sorted(kept, key=lambda item: item[0])] + [game]


def texts_of(game: Game) -> dict[int, str]:
    return {action: game.describe_action(action) for action in game.legal_action_ids()}


def board(game: Game, choices: dict[int, str] | None = None) -> ET.Element:
    document = game.render_svg(choices)
    assert document is not None
    return ET.fromstring(document)


def view_box(root: ET.Element) -> tuple[float, float]:
    _, _, width, height = (float(v) for v in root.get("viewBox", "").split())
    return width, height


@pytest.mark.parametrize("name", SVG_GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_every_label_a_choice_names_is_on_the_board(name, players):
    labels = LABELS[name]
    checked = set()
    for game in positions(name, players, seed=players, limit=70):
        choices = texts_of(game)
        root = board(game, choices)
        drawn = {" ".join("".join(element.itertext()).split()) for element in root.iter(f"{NS}text")}
        for text in choices.values():
            missing = [label for label in labels(text) if label not in drawn]
            assert not missing, (name, game.decision_name(), text, missing)
            checked.update(labels(text))
        # the places on the board are legal choices, each with its button's text
        places = root.findall(f".//{NS}g[@class='choice']")
        for place in places:
            action = int(place.get("data-action", "-1"))
            assert action in choices and place.find(f"{NS}title").text == choices[action]
            assert place.get("aria-label") == choices[action]
    assert len(checked) >= 8, checked


@pytest.mark.parametrize("name", SVG_GAMES)
def test_only_legal_choices_are_clickable_and_some_are(name):
    clickable = 0
    for game in positions(name, 3, seed=11, limit=60):
        everything = {action: f"action {action}" for action in range(game.num_actions)}
        root = board(game, everything)
        actions = [int(place.get("data-action", "-1")) for place in root.iter(f"{NS}g") if place.get("data-action")]
        assert len(actions) == len(set(actions)) and set(actions) <= set(game.legal_action_ids())
        clickable += bool(actions)
        assert board(game).findall(f".//{NS}g[@class='choice']") == []  # no choices given, none drawn
    assert clickable > 5


@pytest.mark.parametrize("name", SVG_GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_readable_text_seat_colours_and_a_legend(name, players):
    for game in positions(name, players, seed=5 + players, limit=30):
        root = board(game, texts_of(game))
        width, height = view_box(root)
        assert width <= MAX_WIDTH
        for element in root.iter(f"{NS}text"):
            size = float(element.get("font-size", "0"))
            assert size >= MIN_FONT, element.text
            for line in element.findall(f"{NS}tspan") or [element]:  # each line of a text of several
                wide = text_width(line.text or "", size, element.get("font-weight") == "bold")
                x = float(line.get("x", "0"))
                left = {"start": x, "middle": x - wide / 2, "end": x - wide}[element.get("text-anchor", "start")]
                assert left >= -1 and left + wide <= width + 1, (line.text, left, wide, width)
            assert 0 <= float(element.get("y", "0")) <= height
        for element in root.iter():
            for paint in ("fill", "stroke"):
                colour = element.get(paint, "none")
                if colour.startswith("#") and seat_distance(colour) < MIN_SEAT_DISTANCE:
                    seat = element.get("data-seat")
                    assert seat is not None and colour == SEAT_COLOURS[int(seat)], (element.tag, element.attrib)
        legend = root.find(f".//{NS}g[@class='legend']")
        assert legend is not None
        seats = {element.get("data-seat") for element in legend.iter() if element.get("data-seat")}
        assert seats == {str(seat) for seat in range(players)}


@pytest.mark.parametrize("name", SVG_GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_the_board_is_the_same_in_every_world_a_seat_cannot_tell_apart(name, players):
    """Byte for byte: the public board for every seat, and the acting seat's board with its choices."""
    rng = np.random.default_rng(players)
    compared = 0
    for game in positions(name, players, seed=20 + players, limit=25):
        public = game.render_svg()
        actor = game.current_player()
        for seat in range(players):
            twin = game.determinize(seat, rng)
            assert twin.render_svg() == public, (name, seat, game.decision_name())
            if seat == actor:
                assert twin.render_svg(texts_of(twin)) == game.render_svg(texts_of(game))
            compared += 1
    assert compared > 20
