"""The command line: list, play (bots and a scripted person), bench, evaluate, demo, errors."""

from __future__ import annotations

import io

import pytest

from city_envs import cli


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_names_every_game_and_option(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    assert "citadels" in out and "2-7 players" in out
    assert "classic_variant" in out and "max_rounds" in out


@pytest.mark.parametrize("players", [2, 5])
def test_play_with_bots_only_reaches_the_end(capsys, players):
    seats = ",".join(["heuristic"] + ["random"] * (players - 1))
    code, out, _ = run(capsys, "play", "citadels", "--players", str(players), "--seats", seats, "--seed", "3")
    assert code == 0
    assert "final scores:" in out and "<- winner" in out


def test_bots_moves_never_show_secret_choices(capsys):
    code, out, _ = run(capsys, "play", "citadels", "--players", "4", "--seats", "random,random,random,random")
    assert code == 0
    assert "chooses a character" in out
    assert "keep King" not in out and "keep Assassin" not in out  # picks are secret


def test_a_person_plays_to_the_end_and_bad_input_reprompts(monkeypatch, capsys):
    answers = io.StringIO("nonsense\n999\n" + "0\n" * 5000)
    monkeypatch.setattr("sys.stdin", answers)
    code, out, _ = run(capsys, "play", "citadels", "--players", "2", "--seats", "human,random", "--seed", "1")
    assert code == 0
    assert out.count("please type a number") == 2
    assert "you are seat 0; hand:" in out
    assert "final scores:" in out


def test_quitting_abandons_the_game(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, _ = run(capsys, "play", "citadels", "--players", "3", "--seats", "human,random,random")
    assert code == 1 and "abandoned" in out


def test_bench_reports_every_figure(capsys, tmp_path):
    path = tmp_path / "bench.json"
    code, out, _ = run(capsys, "bench", "citadels", "--players", "3", "--seconds", "0.2", "--json", str(path))
    assert code == 0 and "AEC agent-steps/s" in out
    import json

    figures = json.loads(path.read_text())
    for key in ("decisions_per_s", "aec_steps_per_s", "games_per_s", "decisions_per_game", "observation_us",
                "legal_actions_us", "clone_us"):
        assert figures[key] > 0, key


def test_evaluate_prints_win_rates(capsys):
    code, out, _ = run(capsys, "evaluate", "citadels", "--players", "2", "--agents", "heuristic,random",
                       "--games", "4", "--seed", "1")
    assert code == 0
    assert "heuristic" in out and "random" in out


def test_evaluate_writes_reports_with_worker_processes(capsys, tmp_path):
    code, out, _ = run(capsys, "evaluate", "blue_moon_city", "--players", "2", "--agents", "heuristic,random",
                       "--games", "4", "--jobs", "2", "--out", str(tmp_path / "run"))
    assert code == 0 and "rating" in out
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
        "matches.csv", "pairwise.png", "ratings.png", "report.md", "results.json"]


def test_demo_runs_the_main_job(capsys, tmp_path):
    image = tmp_path / "demo.png"
    code, out, _ = run(capsys, "demo", "citadels", "--players", "3", "--games", "4", "--image", str(image))
    assert code == 0
    assert "final scores:" in out and image.stat().st_size > 1000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "citadels", "--players", "9"], "supports 2, 3, 4, 5, 6, 7 players"),
        (["play", "chess", "--players", "2"], "known games: citadels"),
        (["play", "citadels", "--players", "2", "--option", "max_rounds=0"], "max_rounds"),
        (["play", "citadels", "--players", "2", "--option", "colour=red"], "unknown option"),
        (["play", "citadels", "--players", "2", "--seats", "human"], "--seats names 1 seats"),
        (["play", "citadels", "--players", "2", "--seats", "random,genius"], "unknown agent 'genius'"),
    ],
)
def test_bad_input_exits_2_with_the_reason(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
