"""What a file costs a request: every route answering with a file refuses another site's page; a
served file over its size cap is one clear 413 before it is read; a run's files are parsed once per
version, and a changed file is read again."""

from __future__ import annotations

import json
import os
import time

import pytest

from city_envs.web import replays
from city_envs.web.app import OWNER_COOKIE, create_app

from .conftest import form_client
from .test_adversarial import _arena_run, _saved_game, call, new_game, refused

GOOD_RECORD = {"match": 0, "seed": 1, "kinds": ["random", "random"], "failed": False, "reason": "", "history": [0]}
CROSS_SITE = [
    {"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"},  # an <img> or <script> of another site
    {"sec-fetch-site": "cross-site", "sec-fetch-mode": "cors"},  # its fetch()
    {"sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors"},  # another port or subdomain
    {"origin": "http://evil.example"},  # a browser without fetch metadata names the fetching page
]
OWN_READS = [
    {},  # a client that sends no fetch metadata
    {"sec-fetch-site": "same-origin", "sec-fetch-mode": "no-cors"},  # this site's own page
    {"sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"},  # a link followed by the user
    {"sec-fetch-site": "none", "sec-fetch-mode": "navigate"},  # typed in the address bar
]


@pytest.fixture()
def web(replay_folder):
    with form_client(create_app([replay_folder]), raise_server_exceptions=False) as client:
        yield client


@pytest.fixture()
def parsed(monkeypatch):
    """The names of the JSON texts parsed (`replays.parse_json` spied on), in order."""
    names: list[str] = []
    parse = replays.parse_json

    def spy(text, name):
        names.append(name)
        return parse(text, name)

    monkeypatch.setattr(replays, "parse_json", spy)
    return names


def over_game(web) -> str:
    url = new_game(web, "citadels", ("random", "random"), opt_max_rounds="2")
    while 'id="game-over"' not in web.get(url).text:
        assert call(web.post, f"{url}/advance").status_code == 200
    return url


# ----- other sites' pages read no file --------------------------------------------------------------
@pytest.mark.parametrize("route", ["board.png", "save.json", "watch-board.png"])
def test_another_sites_page_cannot_read_a_games_files(web, route):
    url = over_game(web)
    if route == "watch-board.png":
        session = web.app.state.site.store.get(url.rsplit("/", 1)[1], web.cookies[OWNER_COOKIE])
        target = f"/watch/{session.watch_id}/board.png"
    else:
        target = f"{url}/{route}"
    for headers in CROSS_SITE:
        refused(call(web.get, target, headers=headers), 403, "another site")
    for headers in OWN_READS:
        assert call(web.get, target, headers=headers).status_code == 200, headers


@pytest.mark.parametrize("route", ["/replay", "/replay/board.png"])
def test_a_replay_refuses_an_origin_of_another_site(web, replay_folder, route):
    (replay_folder / "game.json").write_text(json.dumps(_saved_game()))
    refused(call(web.get, route, params={"src": "0/game.json"}, headers=CROSS_SITE[-1]), 403, "another site")
    assert call(web.get, route, params={"src": "0/game.json"}, headers={"origin": "http://127.0.0.1:8000"}).is_success


# ----- size caps, checked before reading -------------------------------------------------------------
def test_an_oversized_results_json_is_a_413_without_being_parsed(web, replay_folder, parsed):
    """Two million zeros (4 MB: within the old 16 MB cap, about 150 MB parsed) and a sparse 64 GB file."""
    _arena_run(replay_folder / "zeros", [GOOD_RECORD])
    summary = {"game": "citadels", "num_players": 2, "options": {}, "games": 1, "lineup": ["a"]}
    text = json.dumps(summary)[:-1] + ', "pad": [' + "0," * 2_000_000 + "0]}"
    (replay_folder / "zeros" / "results.json").write_text(text)
    _arena_run(replay_folder / "sparse", [GOOD_RECORD])
    with open(replay_folder / "sparse" / "results.json", "wb") as handle:
        handle.truncate(64 * 2**30)
    for run in ("zeros", "sparse"):
        for route in ("/replay", "/replay/board.png"):
            started = time.monotonic()
            response = call(web.get, route, params={"src": f"0/{run}", "match": "0"})
            refused(response, 413, "results.json is larger than 1 MB")
            assert time.monotonic() - started < 5
    assert call(web.get, "/").status_code == 200  # the home page lists neither
    assert "results.json" not in parsed


def test_an_oversized_saved_game_is_a_413(web, replay_folder, parsed):
    (replay_folder / "game.json").write_text(json.dumps(_saved_game() | {"pad": "x" * 2**21}))
    refused(call(web.get, "/replay", params={"src": "0/game.json"}), 413, "game.json is larger than 1 MB")
    assert parsed == []


def test_a_match_list_of_too_many_lines_is_a_413_before_a_line_is_parsed(web, replay_folder, parsed):
    """Five million lines of `{}` fit in 16 MB and took 25 s a request to parse."""
    _arena_run(replay_folder / "lines", [])
    (replay_folder / "lines" / "matches.jsonl").write_text("{}\n" * (replays.MAX_MATCH_LINES + 1))
    refused(call(web.get, "/replay", params={"src": "0/lines", "match": "0"}), 413, "more than 100,000 lines")
    assert not any(name.startswith("matches.jsonl") for name in parsed)


def test_a_match_list_linked_out_of_the_served_folder_is_refused(web, replay_folder, tmp_path):
    outside = tmp_path / "elsewhere"
    _arena_run(outside, [GOOD_RECORD])
    _arena_run(replay_folder / "linked", [GOOD_RECORD])
    for name in ("results.json", "matches.jsonl"):
        os.replace(replay_folder / "linked" / name, replay_folder / "linked" / f"{name}.bak")
        (replay_folder / "linked" / name).symlink_to(outside / name)
        refused(call(web.get, "/replay", params={"src": "0/linked", "match": "0"}), 400, "outside the served folders")
        (replay_folder / "linked" / name).unlink()
        os.replace(replay_folder / "linked" / f"{name}.bak", replay_folder / "linked" / name)


# ----- parsed once per version ------------------------------------------------------------------------
def test_a_runs_files_are_parsed_once_per_version(web, replay_folder, parsed):
    run = replay_folder / "run"
    summary = {"game": "citadels", "num_players": 2, "options": {}, "games": 3, "lineup": ["random", "random"]}
    _arena_run(run, [GOOD_RECORD | {"match": m, "history": []} for m in range(3)], summary)
    lines = (run / "matches.jsonl").read_text().splitlines()
    for _ in range(2):
        assert 'href="/replay?src=0/run&amp;match=2"' in web.get("/").text
        for match in (0, 1, 2, 0):
            assert call(web.get, "/replay", params={"src": "0/run", "match": str(match)}).status_code == 200
    assert parsed.count("results.json") == 1
    assert sum(name.startswith("matches.jsonl line") for name in parsed) == 3  # one pass over the list
    assert sum(name.startswith("matches.jsonl, match") for name in parsed) == 3  # each record once

    (run / "matches.jsonl").write_text("\n".join(lines[:2]) + "\n")  # a new version: read again
    refused(call(web.get, "/replay", params={"src": "0/run", "match": "2"}), 400, "match 2 is not in this run")
    (run / "results.json").write_text(json.dumps(summary | {"games": 17}))  # another size: another version
    assert "17 matches" in web.get("/").text
    assert parsed.count("results.json") == 2


def test_a_refused_file_is_not_parsed_again_until_it_changes(web, replay_folder, parsed):
    _arena_run(replay_folder / "deep", [GOOD_RECORD])
    (replay_folder / "deep" / "results.json").write_text("[" * 40 + "]" * 40)
    for _ in range(3):
        refused(call(web.get, "/replay", params={"src": "0/deep", "match": "0"}), 400, "nested more than 32 deep")
    assert parsed.count("results.json") == 1


def test_the_depth_check_keeps_nothing_for_the_numbers_of_a_list():
    """It walked a tuple for every number (about 500 MB for 8 million); now only for lists and tables."""
    import tracemalloc

    data = [0] * 1_000_000
    tracemalloc.start()
    try:
        assert replays.json_depth_ok(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


def test_a_policy_file_over_its_cap_is_a_413_before_it_is_read(web, replay_folder, monkeypatch):
    pytest.importorskip("torch")
    import city_envs.agents.policy_agent as policy_agent

    # patched where it is looked up: patching `policy_file` before `policy_agent` is first imported
    # would leave the stub bound in `policy_agent` for the rest of the process
    monkeypatch.setattr(policy_agent, "load_policy_file", lambda *a, **k: pytest.fail("the policy file was read"))
    with open(replay_folder / "big.safetensors", "wb") as handle:
        handle.truncate(65 * 2**20)
    response = call(
        web.post,
        "/games",
        data={"game": "citadels", "players": "2", "seat0": "ppo:0/big.safetensors", "seat1": "person"},
    )
    refused(response, 413, "big.safetensors is larger than 64 MB")


def test_a_summary_kept_for_the_listing_stays_small(web, replay_folder):
    """A results.json within its cap whose line-up is half a million names would be kept for every run
    listed: refused instead, so the cache of summaries stays small."""
    summary = {"game": "citadels", "num_players": 2, "options": {}, "games": 1, "lineup": ["a"] * 200_000}
    _arena_run(replay_folder / "crowd", [GOOD_RECORD], summary)
    refused(call(web.get, "/replay", params={"src": "0/crowd", "match": "0"}), 400, "take over 4,096 characters")
    assert "crowd" not in web.get("/").text


def test_a_csv_match_list_replays_its_matches_kept_as_text(web, replay_folder):
    from city_envs.evaluation import evaluate, write_reports

    write_reports(evaluate("big_city", 2, ["heuristic", "random"], games=2, seed=2), replay_folder / "run")
    listed = replays.read_match_list(replay_folder / "run" / "matches.csv")
    assert sorted(listed.records) == [0, 1] and all(isinstance(row, str) for row in listed.records.values())
    assert listed.record(1)["kinds"] == ["random", "heuristic"] and listed.record(1)["history"]
    (replay_folder / "run" / "matches.csv").write_text("seed,seats\n1,a b\n")
    refused(call(web.get, "/replay", params={"src": "0/run", "match": "0"}), 400, "has no match column")
