"""Replays keep who sat where (a game saved by the web app names its seats) and show the moves made
up to the position asked for, never one still to come."""

from __future__ import annotations

import html
import json
import re

import pytest

from city_envs import make_game

from .test_app import play_out, saved_game, start, text_of


def replay_log(page: str) -> list[str]:
    log = page.split('id="log"')[1].split("</ol>")[0]
    return [text_of(item) for item in re.findall(r"<li.*?</li>", log, re.S)]


def test_a_saved_game_replays_with_who_sat_where(client, replay_folder):
    url = start(client, "citadels", ["person", "heuristic"], seed=2)
    play_out(client, url)
    (replay_folder / "mine.json").write_text(client.get(f"{url}/save.json").text)
    page = text_of(client.get("/replay?src=0/mine.json&step=4").text)
    assert "Seats: seat 0 (person), seat 1 (heuristic)." in page
    assert "seat 1 (heuristic):" in " ".join(replay_log(client.get("/replay?src=0/mine.json&step=4").text))


@pytest.mark.parametrize("seats", [["person"], "person heuristic", ["person", 3], ["person", ""], ["a\nb", "c"]])
def test_a_saved_games_seats_must_name_each_seat(client, replay_folder, seats):
    data = saved_game(replay_folder) | {"seats": seats}
    (replay_folder / "bad.json").write_text(json.dumps(data))
    response = client.get("/replay?src=0/bad.json")
    assert response.status_code == 400
    assert "'seats' must list one agent name" in html.unescape(response.text)


def test_a_replay_at_step_k_lists_the_first_k_moves_only(client, replay_folder):
    saved_game(replay_folder)
    game = make_game("urban_sprawl", 2, seed=5)
    texts = []
    for _ in range(30):
        action = game.legal_action_ids()[-1]
        texts.append(game.describe_action(action))
        game.apply(action)
    for step in (0, 1, 12, 30):
        page = client.get(f"/replay?src=0/game.json&step={step}").text
        items = [item for item in replay_log(page) if item != "No move yet."]
        assert len(items) == step, (step, items[-3:])
        assert all(text in item for text, item in zip(texts, items, strict=False))
        status = text_of(page.split('id="status"')[1].split("</p>")[0])
        if step < 30:  # the next seat to choose is named, not what it will choose
            assert "to choose" in status and texts[step] not in status
