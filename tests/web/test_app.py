"""The web app's routes on Starlette's TestClient: playing, replaying and every refusal (no browser)."""

from __future__ import annotations

import html
import json
import random
import re
import threading
from pathlib import Path

import pytest

from city_envs import make_game
from city_envs.core.registry import GAMES
from city_envs.evaluation import evaluate, write_reports

from .conftest import form_client

SHORT = {
    "citadels": {"opt_max_rounds": "2"},
    "blue_moon_city": {"opt_max_rounds": "2"},
    "urban_sprawl": {"opt_max_turns": "4"},
}


def start(client, game: str, seats: list[str], seed: int = 1, **fields: str) -> str:
    data = {"game": game, "players": str(len(seats)), "seed": str(seed)} | SHORT.get(game, {}) | fields
    data |= {f"seat{seat}": kind for seat, kind in enumerate(seats)}
    response = client.post("/games", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    return response.headers["location"]


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def choices(page: str) -> list[int]:
    return [int(value) for value in re.findall(r'name="action" value="(\d+)"', page)]


def step_of(page: str) -> int:
    return int(re.search(r'name="step" value="(\d+)"', page).group(1))


def play_out(client, url: str, limit: int = 3000) -> str:
    """Plays the person's seat (random choices) through the pages, letting the bots move, to the end."""
    pick = random.Random(0).choice
    for _ in range(limit):
        page = client.get(url).text
        if 'id="game-over"' in page:
            return page
        assert 'id="bot-error"' not in page
        if 'data-bots-to-move="1"' in page:
            assert client.post(f"{url}/advance").status_code == 200
            continue
        legal = choices(page)
        assert legal, page
        response = client.post(f"{url}/act", data={"seat": "0", "action": str(pick(legal)), "step": str(step_of(page))})
        assert response.status_code == 200, response.text
    raise AssertionError("the game did not end")


# ----- pages and play ---------------------------------------------------------------------------
def test_home_lists_every_game_and_says_when_nothing_is_served(client):
    page = client.get("/").text
    for name in GAMES:
        assert f'href="/new?game={name}"' in page
    assert "Nothing to replay" in page


@pytest.mark.parametrize("game", GAMES)
def test_a_person_plays_a_whole_game_against_a_bot(client, game):
    url = start(client, game, ["person", "random"])
    page = play_out(client, url)
    assert "seat 1 (random)" in page and 'id="scores"' in page
    saved = client.get(f"{url}/save.json")
    assert saved.status_code == 200
    data = saved.json()
    assert data.pop("seats") == ["person", "random"]  # who sat where; the rest is `to_dict()`
    assert make_game(game, 2).from_dict(data).is_over()
    replay = client.get(f"/replay?src=live/{url.rsplit('/', 1)[1]}&step=3")
    assert replay.status_code == 200 and '<b id="step">3</b>' in replay.text


def test_the_seed_shows_only_once_the_game_is_over(client):
    """A seed deals every hand: the form offers none, and a game's page names it only at the end."""
    form = client.get("/new?game=citadels").text
    assert re.search(r'name="seed" id="seed" value=""', form)
    url = start(client, "citadels", ["person", "random"], seed=424242)
    assert "424242" not in client.get(url).text
    assert "seed 424242" in text_of(play_out(client, url))


def test_the_page_shows_the_person_seat_and_never_the_bots_private_information(client):
    url = start(client, "citadels", ["person", "heuristic"], seed=11)
    page = client.get(url).text
    assert "you are seat 0; hand:" in html.unescape(page)
    assert "you are seat 1" not in html.unescape(page)
    game = make_game("citadels", 2, seed=11, max_rounds=2)
    assert html.escape(game.render_private(0), quote=False).split("\n")[0] in page


def test_bots_moves_are_logged_with_their_public_descriptions(client):
    url = start(client, "citadels", ["random", "person"], seed=3)
    client.post(f"{url}/advance")
    page = text_of(client.get(url).text)
    assert "seat 0 (random): chooses a character" in page  # the character itself stays secret


def test_a_turn_of_several_decisions_shows_what_was_chosen_so_far(client):
    url = start(client, "big_city", ["person", "random"], seed=4)
    page = client.get(url).text
    first = choices(page)[0]
    client.post(f"{url}/act", data={"seat": "0", "action": str(first), "step": str(step_of(page))})
    page = text_of(client.get(url).text)
    assert "So far: placing neighbourhood" in page


def test_a_bot_only_match_is_watched_to_its_end(client):
    url = start(client, "metropolys", ["random", "heuristic"])
    for _ in range(200):
        if 'id="game-over"' in client.get(url).text:
            break
        client.post(f"{url}/advance")
    page = client.get(url).text
    assert 'id="game-over"' in page and 'id="actions"' not in page


def test_the_board_is_a_png(client):
    url = start(client, "blue_moon_city", ["person", "random"])
    response = client.get(f"{url}/board.png")
    assert response.status_code == 200 and response.content[:8] == b"\x89PNG\r\n\x1a\n"


# ----- refusals ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"players": "9"}, "supports 2, 3, 4, 5, 6, 7 players, not 9"),
        ({"players": "two"}, "players must be a whole number"),
        ({"seat1": "genius"}, "unknown agent 'genius'"),
        ({"seat1": "ismcts:iters=lots"}, "bad value in agent parameter"),
        ({"opt_max_rounds": "-1"}, "invalid value -1 for option 'max_rounds'"),
        ({"seed": "x"}, "seed must be a whole number"),
    ],
)
def test_bad_setups_get_a_clear_error_page(client, fields, message):
    data = {"game": "citadels", "players": "2", "seat0": "person", "seat1": "random", "seed": "0"} | fields
    response = client.post("/games", data=data)
    assert response.status_code == 400
    assert message in html.unescape(response.text) and "Traceback" not in response.text


def test_errors_come_as_json_when_asked_for(client):
    response = client.get("/games/nope", headers={"accept": "application/json"})
    assert response.status_code == 404 and "no such game" in response.json()["error"]
    assert client.get("/no/such/page", headers={"accept": "application/json"}).json() == {"error": "Not Found"}


def test_a_stale_page_another_seat_and_an_illegal_action_are_refused(client):
    url = start(client, "citadels", ["person", "random"])
    page = client.get(url).text
    step, legal = step_of(page), choices(page)
    illegal = next(a for a in range(200) if a not in legal)
    cases = [
        ({"seat": "0", "action": str(legal[0]), "step": str(step + 1)}, 409, "out-of-date page"),
        ({"seat": "1", "action": str(legal[0]), "step": str(step)}, 409, "not seat 1's turn"),
        ({"seat": "0", "action": str(illegal), "step": str(step)}, 409, f"illegal action {illegal}"),
        ({"seat": "0", "action": "1.5", "step": str(step)}, 400, "action must be a whole number"),
        ({"seat": "0", "step": str(step)}, 400, "missing action"),
    ]
    for data, status, message in cases:
        response = client.post(f"{url}/act", data=data)
        assert response.status_code == status and message in html.unescape(response.text), data
    assert step_of(client.get(url).text) == step  # nothing was applied
    assert client.get(f"{url}/save.json").status_code == 409  # not before the end: it holds hidden cards


def test_two_games_are_isolated_and_one_game_takes_one_choice_at_a_time(client):
    first, second = start(client, "big_city", ["person", "random"]), start(client, "big_city", ["person", "random"])
    page = client.get(first).text
    before_second = client.get(second).text
    data = {"seat": "0", "action": str(choices(page)[0]), "step": str(step_of(page))}
    statuses = []

    def send() -> None:
        statuses.append(client.post(f"{first}/act", data=data).status_code)

    threads = [threading.Thread(target=send) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * 5
    assert step_of(client.get(second).text) == step_of(before_second)


def test_a_server_error_is_a_page_without_a_traceback(replay_folder, monkeypatch):
    from city_envs.web.app import create_app

    client = form_client(create_app([replay_folder]), raise_server_exceptions=False)
    url = start(client, "citadels", ["person", "random"])
    monkeypatch.setattr(type(make_game("citadels", 2)), "render_image", lambda self: 1 / 0)
    response = client.get(f"{url}/board.png")
    assert response.status_code == 500
    assert "internal error (ZeroDivisionError)" in response.text and "Traceback" not in response.text


def test_a_failing_bot_stops_the_game_with_its_reason(client, monkeypatch):
    url = start(client, "citadels", ["random", "person"])
    from city_envs.agents.random_agent import RandomAgent

    monkeypatch.setattr(RandomAgent, "act", lambda self, info_set: 10_000)
    client.post(f"{url}/advance")
    page = html.unescape(client.get(url).text)
    assert "seat 0 (random) failed: IllegalActionError: illegal action 10000" in page


# ----- replays ----------------------------------------------------------------------------------
def saved_game(folder: Path, name: str = "game.json", moves: int = 30) -> dict:
    game = make_game("urban_sprawl", 2, seed=5)
    for _ in range(moves):
        game.apply(game.legal_action_ids()[-1])
    data = game.to_dict()
    (folder / name).write_text(json.dumps(data))
    return data


def test_a_saved_game_replays_at_any_decision_and_from_any_seat(client, replay_folder):
    saved_game(replay_folder)
    assert 'href="/replay?src=0/game.json"' in client.get("/").text
    page = client.get("/replay?src=0/game.json&step=12&view=1").text
    assert '<b id="step">12</b>' in page and 'href="/replay?src=0%2Fgame.json&amp;step=11&amp;view=1"' in page
    assert client.get("/replay?src=0/game.json&step=30").status_code == 200
    board = client.get("/replay/board.png?src=0/game.json&step=30")
    assert board.content[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("src=0/game.json&step=31", "decision 31 is outside this replay (0..30)"),
        ("src=0/game.json&step=-1", "decision -1 is outside"),
        ("src=0/game.json&view=7", "view must be 'full' or a seat 0..1"),
        ("src=0/../../etc/passwd", "outside the served folders"),
        ("src=3/game.json", "no served folder '3'"),
        ("src=0/missing.json", "does not exist"),
        ("src=0/junk.json", "junk.json is not valid JSON"),
        ("src=0/other.json", "is not a saved city-envs game"),
        ("src=0/tampered.json", "is not a valid saved game"),
        ("src=0/richer.json", "does not give its saved state"),
        ("src=0", "not an arena run folder"),
        ("src=live/nope", "no such game"),
    ],
)
def test_bad_replay_requests_get_a_clear_error(client, replay_folder, query, message):
    data = saved_game(replay_folder)
    (replay_folder / "junk.json").write_text("{not json")
    (replay_folder / "other.json").write_text(json.dumps({"game": "go"}))
    data["state"]["wealth"][0] += 5
    (replay_folder / "richer.json").write_text(json.dumps(data))
    data["history"][-1] = 10_000
    (replay_folder / "tampered.json").write_text(json.dumps(data))
    response = client.get(f"/replay?{query}")
    assert response.status_code in (400, 404)
    assert message in html.unescape(response.text), response.text


def test_an_arena_match_replays_from_its_recorded_actions(client, replay_folder):
    write_reports(evaluate("big_city", 2, ["heuristic", "random"], games=2, seed=2), replay_folder / "run")
    home = client.get("/").text
    assert 'href="/replay?src=0/run&amp;match=1"' in home
    page = html.unescape(client.get("/replay?src=0/run&match=1&step=5").text)
    assert "match 1 (random, heuristic)" in page and "rebuilt" not in page
    assert "match 7 is not in this run (matches 0..1)" in html.unescape(client.get("/replay?src=0/run&match=7").text)
    assert "needs a match number" in client.get("/replay?src=0/run").text


def test_the_report_links_open_its_matches_when_its_folder_is_served(tmp_path):
    from city_envs.web.app import create_app

    write_reports(evaluate("metropolys", 2, ["heuristic", "random"], games=2, seed=1), tmp_path)
    links = re.findall(r"\(http://127\.0\.0\.1:8000(/replay\?[^)]+)\)", (tmp_path / "report.md").read_text())
    assert len(links) == 2
    client = form_client(create_app([tmp_path]))
    for link in links:
        assert "Metropolys, 2 players" in client.get(link).text


def test_a_run_without_actions_is_refused_rather_than_played_again(client, replay_folder):
    """Rebuilding a history means creating the recorded agents, and a file can name any agent: refused."""
    run = replay_folder / "old"
    write_reports(evaluate("citadels", 2, ["heuristic", "random"], games=2, seed=2), run)
    rows = (run / "matches.csv").read_text().splitlines()
    (run / "matches.csv").write_text("\n".join(row.rsplit(",", 1)[0] for row in rows) + "\n")
    response = client.get("/replay?src=0/old&match=0")
    assert response.status_code == 400
    assert "has no actions" in html.unescape(response.text) and "never plays the agents again" in response.text


def test_serve_listens_on_this_machine_only_by_default():
    from city_envs.cli import build_parser

    args = build_parser().parse_args(["serve", "runs"])
    assert (args.folders, args.host, args.port) == (["runs"], "127.0.0.1", 8000)
