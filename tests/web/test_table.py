"""The play page as a board-game site shows it: the move log and the players' panels beside the board,
every payout on its own line, the last move marked on the board, bot moves one at a time, forced
choices played on request, long choice lists folded, one meaning per mark, and bots named in words."""

from __future__ import annotations

import json
import random
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from city_envs import make_game
from city_envs.core.registry import GAMES
from city_envs.core.svg import SEAT_COLOURS
from city_envs.web.app import MAX_LIST, split_long
from city_envs.web.replays import play_step

from .test_app import choices, start, step_of, text_of
from .test_ownership import session_for

SLOW_PAGES = {"metropolys", "big_city"}  # their many pages take a few seconds: in the slow run
STYLE = Path(__file__).resolve().parents[2] / "city_envs" / "web" / "static" / "style.css"


def log_items(page: str) -> list[str]:
    log = page.split('id="log"')[1].split("</ol>")[0]
    return [text_of(item) for item in re.findall(r"<li.*?</li>", log, re.S)]


def play_random(client, url: str, person_moves: int, seed: int = 0) -> str:
    """The person's random choices through the pages (the bots moving between them); the last page."""
    pick = random.Random(seed).choice
    page = client.get(url).text
    for _ in range(person_moves):
        page = client.get(url).text
        if 'id="game-over"' in page:
            break
        if 'data-bots-to-move="1"' in page:
            client.post(f"{url}/advance")
            continue
        client.post(f"{url}/act", data={"seat": "0", "action": str(pick(choices(page))), "step": str(step_of(page))})
    return client.get(url).text


# ----- the log ------------------------------------------------------------------------------------
def test_the_log_is_newest_first_with_a_line_for_each_payout(client):
    url = start(client, "blue_moon_city", ["person", "heuristic"], seed=3)
    page = play_random(client, url, 60)
    items = log_items(page)
    numbers = [int(n) for n in re.findall(r'<li value="(\d+)"', page.split('id="log"')[1])]
    assert numbers == sorted(numbers, reverse=True) and len(numbers) > 10
    # every change of a seat's crystals, cards in hand or markers has its own line, with its new value
    assert any(re.search(r"→ seat \d [+-]\d+ crystals \(now \d+\)", item) for item in items), items[:20]
    assert any(re.search(r"→ seat \d [+-]\d+ cards in hand \(now \d+\)", item) for item in items)


@pytest.mark.parametrize(
    ("game", "seats", "part"),
    [
        pytest.param("metropolys", ["random", "random"], "prestige of the secret Area card", marks=pytest.mark.slow),
        pytest.param("big_city", ["heuristic", "heuristic"], "points for", marks=pytest.mark.slow),
        ("urban_sprawl", ["random", "random"], ""),
    ],
)
def test_the_final_scoring_has_a_line_per_part_and_seat(client, game, seats, part):
    url = start(client, game, seats, seed=5)
    for _ in range(400):
        if 'id="game-over"' in client.get(url).text:
            break
        client.post(f"{url}/advance")
    items = log_items(client.get(url).text)
    final = [line for item in items for line in item.split("→ ") if line.startswith("final scoring")]
    for seat in range(2):
        mine = [line for line in final if line.startswith(f"final scoring: seat {seat}")]
        assert mine, (seat, items[:2])
        assert not part or any(part in line for line in mine), mine


def test_the_last_move_is_marked_on_the_board_and_named_under_it(client):
    url = start(client, "metropolys", ["person", "heuristic"], seed=2)
    page = play_random(client, url, 3)
    assert page.count('class="last-move"') == 1 and 'id="last-move-key"' in page
    marked = re.search(r'<polygon class="last-move" points="([-0-9., ]+)"/>', page)
    assert marked and "bid" in text_of(page.split('id="last-move-key"')[1].split("</p>")[0])
    assert 'class="newest' in page  # the newest log entry stands out


def test_a_hidden_move_is_not_marked(client):
    """Citadels' character choices are secret: the board never marks them."""
    url = start(client, "citadels", ["random", "random", "random"], seed=1)
    client.post(f"{url}/advance?moves=1")
    session = session_for(client, url)
    assert session.log[0].public != session.log[0].private and session.log[0].mark == ""
    assert 'class="last-move"' not in client.get(url).text


# ----- bot moves one at a time, forced choices ------------------------------------------------------
def test_advance_can_play_one_bot_move_at_a_time(client):
    url = start(client, "citadels", ["random", "random"])
    assert client.post(f"{url}/advance?moves=1").status_code == 200
    assert 'data-step="1"' in client.get(url).text
    for bad in ("0", "-1", "x", "101"):
        response = client.post(f"{url}/advance?moves={bad}")
        assert response.status_code == 400 and "moves" in response.text, bad


def play_session(session, moves: int) -> None:
    """The person's random choices straight on the session, the automatic moves between them."""
    pick = random.Random(0).choice
    for _ in range(moves):
        if session.game.is_over():
            return
        if session.bots_to_move():
            session.advance()
            continue
        session.act(0, pick(session.game.legal_action_ids()), len(session.game.history))


def test_forced_choices_are_played_for_a_person_who_asks(client):
    url = start(client, "urban_sprawl", ["person", "random"], seed=2, play_forced="on")
    session = session_for(client, url)
    play_session(session, 40)
    forced = [event for event in session.log if event.forced]
    assert forced and all(event.seat == 0 for event in forced)
    assert "(your only choice, played for you)" in client.get(url).text
    other = start(client, "urban_sprawl", ["person", "random"], seed=2)
    play_session(session_for(client, other), 40)
    assert not any(event.forced for event in session_for(client, other).log)


# ----- the players' panels --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "words"),
    [
        ("citadels", ("gold", "cards in hand", "districts built")),
        ("metropolys", ("buildings left", "trendy tokens")),
        ("blue_moon_city", ("crystals", "cards in hand", "markers left")),
        ("big_city", ("cards in hand", "buildings")),
        ("urban_sprawl", ("wealth", "planning cards", "Favors")),
    ],
)
def test_each_seat_has_a_panel_with_its_score_and_resources(client, game, words):
    url = start(client, game, ["person", "heuristic"], seed=1)
    page = client.get(url).text
    panels = page.split('id="players"')[1].split("</section>")[0]
    for seat in range(2):
        panel = text_of(panels.split(f'id="panel-{seat}"')[1].split('<div class="panel ')[0])
        assert re.search(r"\d", panel) and all(word in panel for word in words), panel
    assert "(you)" in text_of(panels.split('id="panel-0"')[1])


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_PAGES else name for name in GAMES]
)
def test_a_seats_page_does_not_change_with_what_it_cannot_see(client, name):
    """The whole page of seat 0 (board, panels, log, legend, choices) is the same in a world that
    differs from the true one only in what seat 0 cannot see (`Game.determinize(0)`)."""
    url = start(client, name, ["person", "random", "random"], seed=4)
    session = session_for(client, url)
    rng, pick = np.random.default_rng(0), random.Random(4).choice
    compared = 0
    for move in range(60):
        game = session.game
        if game.is_over():
            break
        if move % 6 == 5:
            twin = game.determinize(0, rng)
            twin.history = list(game.history)  # the decisions made are public; determinize keeps none
            if np.array_equal(twin.observation(0), game.observation(0)):
                seen = client.get(url).text
                session.game = twin
                try:
                    assert client.get(url).text == seen, (name, move)
                finally:
                    session.game = game
                compared += 1
        session._apply(game.current_player(), pick(game.legal_action_ids()))
    assert compared >= 5


def test_payout_lines_do_not_change_with_what_a_seat_cannot_see():
    """The log's payout lines come from public scores and resources only (Metropolys' secret objectives
    are named only once the match is over)."""
    game = make_game("metropolys", 3, seed=5)
    rng, pick = np.random.default_rng(1), random.Random(5).choice
    while not game.is_over():
        observer = (game.current_player() + 1) % 3
        twin = game.determinize(observer, rng)
        action = pick(game.legal_action_ids())
        if twin.current_player() == game.current_player() and twin.legal_actions()[action]:
            a, b = game.clone(), twin.clone()
            first, second = play_step(a, action), play_step(b, action)
            if np.array_equal(a.observation(observer), b.observation(observer)) and not a.is_over():
                assert first.payouts == second.payouts
        step = play_step(game, action)
        if not game.is_over():
            assert not any("secret" in line for line in step.payouts)


# ----- choices -------------------------------------------------------------------------------------
def test_long_choice_lists_are_folded_in_runs_of_at_most_the_limit():
    items = [(action, f"lay a tram on street {action}") for action in range(118)]
    groups = split_long([("lay a tram segment", items), ("pass", [(200, "pass")])])
    folded = [group for group in groups if group[2]]
    assert len(folded) == 3 and all(len(run) <= MAX_LIST for _, run, _ in folded)
    assert [action for _, run, _ in folded for action, _ in run] == list(range(118))
    assert groups[-1] == ("pass", [(200, "pass")], False)
    assert "street 0" in folded[0][0] and "street 39" in folded[0][0]


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_PAGES else name for name in GAMES]
)
def test_no_page_lists_more_than_the_limit_of_buttons(client, name):
    url = start(client, name, ["person", "heuristic"], seed=6)
    pick = random.Random(6).choice
    for _ in range(40):
        page = client.get(url).text
        if 'id="game-over"' in page:
            break
        lists = re.findall(r'<(?:fieldset|details) class="group.*?</(?:fieldset|details)>', page, re.S)
        assert all(chunk.count('name="action"') <= MAX_LIST for chunk in lists)
        assert sum(chunk.count('name="action"') for chunk in lists) == len(choices(page))
        if 'data-bots-to-move="1"' in page:
            client.post(f"{url}/advance")
            continue
        client.post(f"{url}/act", data={"seat": "0", "action": str(pick(choices(page))), "step": str(step_of(page))})


# ----- one meaning per mark ---------------------------------------------------------------------------
def css_rule(selector: str) -> dict[str, str]:
    css = STYLE.read_text()
    body = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert body, selector
    pairs = (part.split(":", 1) for part in body.group(1).split(";") if ":" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def test_choices_and_the_last_move_have_marks_of_their_own_on_every_board():
    """A choice is a solid outline in a colour no board, legend or seat uses, over a clear place (no
    shading, no dash: the legends' "out", "completed" and "bid" marks); the last move another such colour."""
    choice, last = css_rule(".board-svg-frame .choice polygon"), css_rule(".board-svg-frame .last-move")
    assert choice["fill-opacity"] == "0" and choice["stroke-dasharray"] == "none"
    assert last["fill"] == "none" and "stroke-dasharray" not in last
    # they multiply with the board: a number under an outline stays dark
    assert choice["mix-blend-mode"] == last["mix-blend-mode"] == "multiply"
    marks = {choice["stroke"].lower(), last["stroke"].lower()}
    assert len(marks) == 2 and not marks & {colour.lower() for colour in SEAT_COLOURS}
    for name in GAMES:
        game = make_game(name, 3, seed=2)
        pick = random.Random(2).choice
        for move in range(120):
            if game.is_over():
                break
            if move % 30 == 0:
                svg = game.render_svg({a: game.describe_action(a) for a in game.legal_action_ids()}) or ""
                drawn = {colour.lower() for colour in re.findall(r'(?:fill|stroke)="(#[0-9a-fA-F]{6})"', svg)}
                assert not drawn & marks, (name, drawn & marks)
            game.apply(pick(game.legal_action_ids()))


# ----- words ---------------------------------------------------------------------------------------
def test_the_new_game_page_names_each_bot_with_a_sentence_from_its_data_file(client):
    bots = json.loads((resources.files("city_envs.web") / "bots.json").read_text())["bots"]
    page = text_of(client.get("/new?game=citadels&players=3").text)
    for bot in bots:
        assert bot["name"] in page and bot["about"] in page
    assert "Max rounds" in page and "max_rounds" not in page.replace("opt_max_rounds", "")


def test_the_status_names_no_decision_number(client):
    url = start(client, "citadels", ["person", "heuristic"])
    status = text_of(client.get(url).text.split('id="status"')[1].split("</p>")[0])
    assert "Decision" not in status and "seat 0 (you) to choose" in status


# ----- undo of a decision still being made ------------------------------------------------------
def test_a_part_of_a_decision_still_being_made_can_be_taken_back(client):
    """Big City's setup tile is placed in three clicks (tile, turn, edge ...): the parts before the last
    are undone one by one, back to the position before them; a finished move cannot be."""
    url = start(client, "big_city", ["person", "random"], seed=4)
    page = client.get(url).text
    assert 'id="undo"' not in page
    session = session_for(client, url)
    before = session.game.to_dict()
    client.post(f"{url}/act", data={"seat": "0", "action": str(choices(page)[0]), "step": str(step_of(page))})
    page = client.get(url).text
    assert 'id="undo"' in page and "So far" in text_of(page)
    response = client.post(f"{url}/undo", data={"seat": "0", "step": str(step_of(page))})
    assert response.status_code == 200
    assert session_for(client, url).game.to_dict() == before and len(session.log) == 0
    # nothing to undo now, and a stale or malformed request is refused with its reason
    refused = client.post(f"{url}/undo", data={"seat": "0", "step": "0"})
    assert refused.status_code == 409 and "nothing to undo" in text_of(refused.text)
    assert client.post(f"{url}/undo", data={"seat": "0", "step": "5"}).status_code == 409
    assert client.post(f"{url}/undo", data={"seat": "x", "step": "0"}).status_code == 400


def test_a_move_that_shows_something_to_another_seat_is_not_undoable(client):
    """A Citadels character choice is no partial decision: once made, no undo is offered."""
    url = start(client, "citadels", ["person", "person"], seed=1)
    page = client.get(url).text
    client.post(f"{url}/act", data={"seat": "0", "action": str(choices(page)[0]), "step": str(step_of(page))})
    session = session_for(client, url)
    assert not any(session.undoable(seat) for seat in range(2))
    assert 'id="undo"' not in client.get(url).text


def test_another_browser_or_site_cannot_undo_or_advance(client):
    from .conftest import form_client

    url = start(client, "big_city", ["person", "random"], seed=4)
    page = client.get(url).text
    client.post(f"{url}/act", data={"seat": "0", "action": str(choices(page)[0]), "step": str(step_of(page))})
    step = str(step_of(client.get(url).text))
    with form_client(client.app) as stranger:
        assert stranger.post(f"{url}/undo", data={"seat": "0", "step": step}).status_code == 404
        assert stranger.post(f"{url}/advance?moves=1").status_code == 404
    cross_site = client.post(f"{url}/undo", data={"seat": "0", "step": step}, headers={"Origin": "http://evil.example"})
    assert cross_site.status_code == 403
    assert 'id="undo"' in client.get(url).text  # still there: nothing was taken back
