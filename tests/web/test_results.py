"""The results pages: an arena run's, a ladder's and a benchmark's win rates with their 95% intervals,
read from the served files through the app's file doors, and a clear 4xx for anything else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from city_envs.evaluation import evaluate, write_reports
from city_envs.web.replays import MAX_SMALL_FILE_BYTES

from .test_app import text_of

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "agents" / "v1" / "heuristic"


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two arena runs in a ladder folder and a committed benchmark's results, made once for the module."""
    replay_folder = tmp_path_factory.mktemp("served")
    for game in ("citadels", "metropolys"):
        write_reports(
            evaluate(game, 2, ["heuristic", "random"], games=1, seed=3), replay_folder / "ladder" / f"{game}_2p"
        )
    bench = replay_folder / "bench"
    bench.mkdir()
    for name in ("results.json", "benchmark.json"):
        shutil.copy(BENCHMARK / name, bench / name)
    return replay_folder


@pytest.fixture()
def served_results(results_folder: Path, replay_folder: Path) -> Path:
    """The module's results, copied into this test's served folder."""
    shutil.copytree(results_folder, replay_folder, dirs_exist_ok=True)
    return replay_folder


def test_an_arena_run_shows_each_agents_win_rate_and_interval(client, served_results):
    results = json.loads((served_results / "ladder" / "citadels_2p" / "results.json").read_text())
    for src in ("0/ladder/citadels_2p", "0/ladder/citadels_2p/results.json"):
        page = text_of(client.get(f"/results?src={src}").text)
        for agent, stats in results["agents"].items():
            expected = f"{stats['win_rate']:.2f} [{stats['ci_low']:.2f}-{stats['ci_high']:.2f}]"
            assert f"{agent}{expected}" in page.replace("\n", ""), (agent, expected)
        assert "95% interval" in page and "Citadels, 2 players" in page


def test_a_ladder_shows_every_game_of_its_runs(client, served_results):
    page = client.get("/results?src=0/ladder").text
    text = text_of(page)
    assert "Citadels" in text and "Metropolys" in text and 'id="ladder-2"' in page
    metropolys = json.loads((served_results / "ladder" / "metropolys_2p" / "results.json").read_text())["agents"]
    assert f"{metropolys['heuristic']['win_rate']:.2f} [" in text


def test_a_benchmark_shows_its_aggregate_and_each_line_up(client, served_results):
    results = json.loads((BENCHMARK / "results.json").read_text())
    page = text_of(client.get("/results?src=0/bench").text)
    low, high = results["aggregate"]["ci95"]
    assert f"{results['aggregate']['iqm']:.2f} [{low:.2f}-{high:.2f}]" in page
    first = results["tasks"]["citadels:2"]["lineups"]["random"]
    assert f"{first['win_rate']:.2f} [{first['ci95'][0]:.2f}-{first['ci95'][1]:.2f}]" in page


def test_the_home_page_links_runs_ladders_and_benchmarks(client, served_results):
    page = client.get("/").text
    assert 'class="results-link"' in page and 'href="/results?src=0/ladder"' in page
    assert 'href="/results?src=0/bench"' in page


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("", 400, "unknown replay source"),
        ("src=0/../../etc", 400, "outside the served folders"),
        ("src=0/nothing", 404, "does not exist"),
        ("src=0/junk/results.json", 400, "not valid JSON"),
        ("src=0/wrong/results.json", 400, "not a benchmark result"),
        ("src=0/big/results.json", 413, "larger than"),
        ("src=0/empty", 400, "no results.json and no arena runs"),
        ("src=0/bench/benchmark.json", 400, "is not a results.json"),
    ],
)
def test_bad_results_requests_are_clear_4xx(client, replay_folder, query, status, message):
    for name, text in (("junk", "{not json"), ("wrong", json.dumps({"format": "other"}))):
        (replay_folder / name).mkdir()
        (replay_folder / name / "results.json").write_text(text)
    (replay_folder / "big").mkdir()
    (replay_folder / "big" / "results.json").write_text(" " * (MAX_SMALL_FILE_BYTES + 1))
    (replay_folder / "empty").mkdir()
    (replay_folder / "bench").mkdir()
    (replay_folder / "bench" / "benchmark.json").write_text("{}")
    response = client.get(f"/results?{query}")
    assert response.status_code == status and message in text_of(response.text), response.text[-400:]


def test_another_sites_page_cannot_read_results(client, served_results):
    response = client.get("/results?src=0/bench", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"})
    assert response.status_code == 403
    assert client.post("/results?src=0/bench").status_code == 405
