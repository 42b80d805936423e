"""The game at hand on the play and replay pages (issue 28, item 2): every game's rules summary one
click away (the same text as its docs page), card and character texts on the choice buttons and
beside the board, why an expected choice is missing, and none of it telling a seat what it may not see."""

from __future__ import annotations

import html
import json
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from city_envs import make_game
from city_envs.big_city import components as big
from city_envs.citadels import components as cit
from city_envs.citadels import rules as cit_rules
from city_envs.core.registry import GAMES
from city_envs.web import at_hand

from .test_app import start, text_of
from .test_hidden_information import sampled_states

ROOT = Path(__file__).resolve().parents[2]
BUTTON = re.compile(r'<button name="action" value="(\d+)" class="action[^"]*"(?: title="([^"]*)")?>([^<]*)</button>')


def buttons(page: str) -> list[tuple[int, str, str]]:
    """(action, tooltip, text) of each choice button of a play page."""
    return [(int(a), html.unescape(tip), html.unescape(text)) for a, tip, text in BUTTON.findall(page)]


def missing_lines(page: str) -> list[str]:
    """The reasons a play page gives for the choices it does not offer."""
    found = re.search(r'<ul id="missing"[^>]*>(.*?)</ul>', page, re.S)
    return [html.unescape(line) for line in re.findall(r"<li>(.*?)</li>", found.group(1))] if found else []


def session_of(client, url: str):
    from city_envs.web.app import OWNER_COOKIE

    return client.app.state.site.store.get(url.rsplit("/", 1)[1], client.cookies[OWNER_COOKIE])


def random_state(name: str, players: int, seed: int, wanted, limit: int = 3000):
    """The first state of a random match (seat 0 to choose) for which `wanted(game)` holds."""
    game = make_game(name, players, seed=seed)
    pick = random.Random(seed).choice
    while not game.is_over() and len(game.history) < limit:
        if game.current_player() == 0 and wanted(game):
            return game
        game.apply(pick(game.legal_action_ids()))
    return None


# ----- the rules in short ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_every_game_has_its_rules_in_short_on_a_page_of_its_own(client, name):
    page = client.get(f"/rules/{name}")
    assert page.status_code == 200
    assert at_hand.summary_html(name) in page.text
    words = text_of(page.text)
    for part in ("Goal.", "The end" if name != "citadels" else "Scoring", f"docs/games/{name}.md"):
        assert part in words, part
    assert len(at_hand.summary_text(name).split()) < 600  # a page a player reads in a few minutes
    assert all(f'href="/rules/{other}"' in page.text for other in GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_the_docs_page_holds_the_summary_word_for_word(name):
    """docs/games/<game>.md carries the package's summary.md between its markers, so the two never disagree."""
    doc = (ROOT / "docs" / "games" / f"{name}.md").read_text(encoding="utf-8")
    found = re.search(r"\n## In short\n<!-- summary: [^\n]*-->\n(.*?)<!-- /summary -->\n", doc, re.S)
    assert found, f"docs/games/{name}.md has no '## In short' block"
    assert found.group(1) == at_hand.summary_text(name), (
        f"docs/games/{name}.md and city_envs/{name}/summary.md differ: copy the summary into the docs page"
    )


def test_the_summaries_are_shipped_and_rendered_without_raw_html():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["tool"]["scikit-build"]["wheel"]["packages"]["city_envs"] == "city_envs"  # every file of it ships
    for name in GAMES:
        assert (ROOT / "city_envs" / name / "summary.md").is_file()
        assert "<" not in at_hand.summary_text(name)
    assert any(dep.startswith("markdown>=") for dep in data["project"]["optional-dependencies"]["web"])
    rendered = at_hand.markdown_html('**bold** <script>alert(1)</script> <img src=x onerror="x()">\n\n<div>block</div>')
    assert "<strong>bold</strong>" in rendered
    assert "<script" not in rendered and "<img" not in rendered and "<div" not in rendered
    assert "&lt;script&gt;" in rendered


@pytest.mark.parametrize(
    "path",
    [
        "/rules/chess",
        "/rules/Citadels",
        "/rules/citadels%00",
        "/rules/%3Cscript%3Ealert(1)",
        "/rules/..%2f..%2fpyproject.toml",
        "/rules/" + "x" * 5000,
    ],
)
def test_the_rules_of_an_unknown_game_are_a_404_saying_so(client, path):
    page = client.get(path)
    assert page.status_code == 404
    if "%2f" not in path:
        assert "no rules for" in html.unescape(page.text) and "known games are citadels" in html.unescape(page.text)
        assert len(page.text) < 5000
        assert "<script>" not in page.text
    assert client.get(path, headers={"accept": "application/json"}).json()["error"]
    assert client.post("/rules/citadels").status_code == 405


@pytest.mark.parametrize("name", GAMES)
def test_the_play_and_replay_pages_link_the_rules_of_their_game(client, replay_folder, name):
    url = start(client, name, ["person", "random"] if name != "citadels" else ["person", "random", "random"])
    assert f'href="/rules/{name}" id="rules-link"' in client.get(url).text
    game = make_game(name, 2, seed=3)
    pick = random.Random(3).choice
    while len(game.history) < 20 and not game.is_over():
        game.apply(pick(game.legal_action_ids()))
    (replay_folder / f"{name}.json").write_text(json.dumps(game.to_dict()))
    for view in ("full", "0"):
        page = client.get(f"/replay?src=0/{name}.json&step=10&view={view}")
        assert page.status_code == 200
        assert f'href="/rules/{name}" id="rules-link"' in page.text
        assert 'id="legend"' in page.text


# ----- texts on the buttons and beside the board ------------------------------------------------------
def test_citadels_draft_buttons_carry_each_characters_ability(client):
    url = start(client, "citadels", ["person", "random", "random", "random"], seed=1)
    page = client.get(url).text
    seen = 0
    for _, tip, text in buttons(page):
        rank = next(r for r in cit.RANKS if cit.CHARACTERS[r].name in text)
        assert tip == f"{cit.CHARACTERS[rank].name}: {cit.CHARACTER_TEXT[rank]}"
        seen += 1
    assert seen >= 4
    legend = page.split('id="legend"')[1]
    assert all(cit.CHARACTER_TEXT[rank] in html.unescape(legend) for rank in cit.RANKS)


@pytest.mark.parametrize("name", GAMES)
def test_each_tooltip_is_the_text_of_what_its_button_names(client, name):
    """A button with a tooltip names each card, character or token the tooltip explains, and a button
    naming one has the tooltip."""
    texts, pattern = at_hand.catalogue(name)
    url = start(client, name, ["person", "random", "random"])
    session = session_of(client, url)
    found = 0
    for seed in range(6):
        game = random_state(
            name, 3, seed, lambda g: at_hand.action_notes(g, [(a, g.describe_action(a)) for a in g.legal_action_ids()])
        )
        if game is None:
            continue
        session.game = game
        for _, tip, text in buttons(client.get(url).text):
            named = list(dict.fromkeys(pattern.findall(text)))
            assert tip == " · ".join(f"{n}: {texts[n]}" for n in named), (text, tip)
            found += bool(named)
    assert found >= 3


def test_urban_sprawl_legend_shows_the_cards_on_the_table(client):
    url = start(client, "urban_sprawl", ["person", "random"])
    page = html.unescape(client.get(url).text)
    legend = page.split('id="legend"')[1].split("</details>")[0]
    assert legend.count("<dt>planning space") == 4 and "building permit worth" in legend
    assert "<dt>contract space 1: " in legend


def test_metropolys_legend_shows_only_the_viewers_secret_card(client):
    url = start(client, "metropolys", ["person", "random", "random"], seed=4)
    game = session_of(client, url).game
    page = html.unescape(client.get(url).text)
    assert "seat 0's secret card" in page and "seat 1's secret card" not in page and "seat 2's" not in page
    assert "trendy token" in page and "Subway card" in page
    assert game.state.family_card[0] >= 0


@pytest.mark.parametrize("name", GAMES)
def test_a_seats_page_does_not_change_when_only_another_seats_hidden_cards_change(client, name):
    """Seat 0's play page (its choices, their tooltips, the reasons for missing ones, the legend) in
    worlds that differ only in what seat 0 cannot see (`determinize(0)`) is the same page."""
    url = start(client, name, ["person", "random", "random"])
    session = session_of(client, url)
    rng = np.random.default_rng(0)
    compared = differed = 0
    for game in sampled_states(name, 3, seed=2, every=5, limit=24):
        twin = game.determinize(0, rng)
        twin.history = list(game.history)  # the page shows the decision count, which determinize drops
        session.game = game
        seen = client.get(f"{url}?seat=0").text
        session.game = twin
        other = client.get(f"{url}?seat=0").text
        assert seen == other, (name, game.decision_name(), len(game.history))
        compared += 1
        differed += json.dumps(game.to_dict()["state"], default=str) != json.dumps(twin.to_dict()["state"], default=str)
    assert compared >= 10 and (differed >= 5 or name == "urban_sprawl"), (compared, differed)


# ----- why a choice is missing --------------------------------------------------------------------------
def test_citadels_names_the_characters_laid_face_up(client):
    url = start(client, "citadels", ["person", "random", "random", "random"], seed=1)
    game = session_of(client, url).game
    face_up = [r for r in cit.RANKS if game.state.face_up & cit_rules.bit(r)]
    assert len(face_up) == 2
    page = client.get(url).text
    missing = " ".join(missing_lines(page))
    assert "face up, out of this round" in missing
    offered = " ".join(text for _, _, text in buttons(page))
    for rank in face_up:
        assert cit.CHARACTERS[rank].name in missing and cit.CHARACTERS[rank].name not in offered


def test_citadels_reasons_follow_the_rules_over_random_matches():
    for seed in range(4):
        game = make_game("citadels", 4, seed=seed)
        pick = random.Random(seed).choice
        while not game.is_over():
            seat, s = game.current_player(), game.state
            reasons = " ".join(at_hand.missing_choices(game, seat))
            if game.decision_name() == "SELECT_CHARACTER":
                for rank in cit.RANKS:
                    if s.face_up & cit_rules.bit(rank):
                        assert f"the {cit.CHARACTERS[rank].name}" in reasons.replace("The ", "the ")
            game.apply(pick(game.legal_action_ids()))


def test_big_city_says_why_a_pile_is_not_offered(client):
    """Each pile missing from the draw choices is explained (two drawn from it this turn, or empty),
    and no pile that is offered."""
    url = start(client, "big_city", ["person", "random", "random"])
    session = session_of(client, url)
    explained = 0
    for seed in range(8):
        game = random_state(
            "big_city", 3, seed, lambda g: g.decision_name() == "DRAW" and max(g.state.drawn) >= big.MAX_DRAWS_PER_PILE
        )
        if game is None:
            continue
        session.game = game
        page = client.get(url).text
        offered = {int(n) for _, _, text in buttons(page) for n in re.findall(r"draw from pile (\d)", text)}
        missing = missing_lines(page)
        named = {int(n) for line in missing if line.startswith("Pile") for n in re.findall(r"\d", line.split(":")[0])}
        assert named == set(range(1, 9)) - offered, (missing, offered)
        explained += any("the most one pile gives per turn" in line for line in missing)
    assert explained >= 3


def test_every_game_gives_reasons_only_to_the_seat_choosing():
    for name in GAMES:
        game = make_game(name, 3, seed=0)
        pick = random.Random(0).choice
        lines = 0
        for _ in range(400):
            if game.is_over():
                break
            seat = game.current_player()
            assert all(at_hand.missing_choices(game, other) == [] for other in range(3) if other != seat)
            lines += len(at_hand.missing_choices(game, seat))
            game.apply(pick(game.legal_action_ids()))
        assert lines > 0, name
