"""The strength-goal measurement: its settings file, a small run that resumes, the goal of each player
count, the docs section written from its JSON, and its bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs import GAMES
from lab import strength

ROOT = Path(__file__).resolve().parents[2]


def settings_file(folder: Path, bot: str = "ismcts:iters=5", **overrides) -> Path:
    values = {"seed": 3, "matches": 2, "timing_matches": 1, **overrides}
    lines = [f"{key} = {value}" for key, value in values.items()]
    lines += ["[bots]", *(f'{game} = "{bot}"' for game in GAMES)]
    path = folder / "strength.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_committed_settings_name_a_bot_for_every_game():
    settings = strength.load_settings()
    assert settings["matches"] == 400 and settings["timing_matches"] >= 1
    assert set(settings["bots"]) == {(game, n) for game in GAMES for n in (2, 4)}


def test_a_game_may_name_one_bot_per_player_count(tmp_path):
    path = settings_file(tmp_path)
    path.write_text(
        path.read_text().replace('citadels = "ismcts:iters=5"', 'citadels = { 2 = "random", 4 = "heuristic" }')
    )
    bots = strength.load_settings(path)["bots"]
    assert bots["citadels", 2] == "random" and bots["citadels", 4] == "heuristic"
    assert bots["metropolys", 2] == bots["metropolys", 4] == "ismcts:iters=5"
    path.write_text(path.read_text().replace('4 = "heuristic"', '3 = "heuristic"'))
    with pytest.raises(ValueError, match="one for each of 2 and 4 players"):
        strength.load_settings(path)


def test_a_run_measures_the_bot_against_heuristics_and_resumes(tmp_path):
    out = tmp_path / "run"
    argv = ["--game", "citadels", "--players", "2", "--settings", str(settings_file(tmp_path)), "--out", str(out)]
    assert strength.main([*argv, "--quiet"]) == 0
    results = strength.load_results(out / "results.json")
    (task,) = results["tasks"]
    assert task["bot"] == "ismcts:iters=5" and task["strength"]["matches"] == 2
    assert task["cost"]["decisions"] > 10 and 0 < task["cost"]["ms_per_decision"] <= task["cost"]["max_ms"]
    assert (out / "citadels_2p" / "matches.jsonl").is_file()
    before = (out / "results.json").read_text()
    assert strength.main([*argv, "--quiet"]) == 0  # everything is there: nothing measured again
    assert json.loads((out / "results.json").read_text())["tasks"] == json.loads(before)["tasks"]


def test_retime_times_a_task_again_and_keeps_the_earlier_timing(tmp_path):
    out = tmp_path / "run"
    argv = ["--game", "citadels", "--players", "2", "--settings", str(settings_file(tmp_path)), "--out", str(out)]
    assert strength.main([*argv, "--quiet"]) == 0
    (first,) = strength.load_results(out / "results.json")["tasks"]
    assert 0 <= first["cost"]["load_average"] and "earlier_costs" not in first
    assert strength.main([*argv, "--quiet", "--retime"]) == 0
    (again,) = strength.load_results(out / "results.json")["tasks"]
    assert again["strength"] == first["strength"]  # no match played again
    assert again["earlier_costs"] == [first["cost"]] and again["cost"]["decisions"] == first["cost"]["decisions"]
    assert strength.main([*argv, "--quiet", "--retime"]) == 0
    (third,) = strength.load_results(out / "results.json")["tasks"]
    assert third["earlier_costs"] == [first["cost"], again["cost"]]
    assert f"| {third['cost']['load_average']} |" in (out / "report.md").read_text()


def test_a_task_measured_with_another_bot_is_measured_again_its_logs_kept(tmp_path):
    out = tmp_path / "run"
    argv = ["--game", "citadels", "--players", "2", "--out", str(out), "--quiet"]
    assert strength.main([*argv, "--settings", str(settings_file(tmp_path))]) == 0
    assert strength.main([*argv, "--settings", str(settings_file(tmp_path, bot="ismcts:iters=3"))]) == 0
    (task,) = strength.load_results(out / "results.json")["tasks"]
    assert task["bot"] == "ismcts:iters=3"
    assert (out / "citadels_2p.previous-1" / "matches.jsonl").is_file() and (out / "citadels_2p").is_dir()


def test_runs_sharing_a_folder_at_once_keep_each_others_tasks(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    settings = strength.load_settings(settings_file(tmp_path))
    # both runs read the folder before either saves, as two queues started together do
    first = strength.start_results(out, settings, "python -m lab.strength --game citadels")
    second = strength.start_results(out, settings, "python -m lab.strength --game metropolys")
    strength.run([("citadels", 2)], settings["bots"], first, 1, out)
    strength.run([("metropolys", 2)], settings["bots"], second, 1, out)
    saved = strength.load_results(out / "results.json")
    assert [(t["game"], t["players"]) for t in saved["tasks"]] == [("metropolys", 2), ("citadels", 2)]
    assert all("cost" in t for t in saved["tasks"])
    assert saved["commands"] == ["python -m lab.strength --game metropolys", "python -m lab.strength --game citadels"]
    assert sorted(p.name for p in out.iterdir()) == ["citadels_2p", "metropolys_2p", "report.md", "results.json"]
    # a run that read the folder before another one timed a task again keeps that newer timing
    stale = strength.start_results(out, settings, "python -m lab.strength --game big_city")
    strength.run([("citadels", 2)], settings["bots"], strength.load_results(out / "results.json"), 1, out, retime=True)
    retimed = next(t for t in strength.load_results(out / "results.json")["tasks"] if t["game"] == "citadels")
    strength.run([("big_city", 2)], settings["bots"], stale, 1, out)
    tasks = {t["game"]: t for t in strength.load_results(out / "results.json")["tasks"]}
    assert set(tasks) == {"citadels", "metropolys", "big_city"}
    assert tasks["citadels"]["cost"] == retimed["cost"] and len(tasks["citadels"]["earlier_costs"]) == 1


def test_other_settings_are_refused_in_the_same_folder(tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--game", "citadels", "--players", "2", "--out", str(out), "--quiet"]
    assert strength.main([*argv, "--settings", str(settings_file(tmp_path))]) == 0
    with pytest.raises(SystemExit) as stop:
        strength.main([*argv, "--settings", str(settings_file(tmp_path, matches=3))])
    assert stop.value.code == 2 and "other matches" in capsys.readouterr().err


def task(players: int, win_rate: float, low: float, max_ms: float | None = 500.0) -> dict:
    figures = {"win_rate": win_rate, "ci95": [low, win_rate + 0.05], "matches": 400, "failures": 0, "truncated": 0}
    entry = {"game": "citadels", "players": players, "bot": "b", "strength": figures}
    if max_ms is not None:
        entry["cost"] = {"ms_per_decision": max_ms / 2, "max_ms": max_ms, "decisions": 9}
    return entry


def test_the_goal_is_the_lower_bound_at_two_players_and_the_rate_at_four_within_the_second():
    assert strength.goal_met(task(2, 0.6, 0.51)) and not strength.goal_met(task(2, 0.6, 0.5))
    assert strength.goal_met(task(4, 0.35, 0.3)) and not strength.goal_met(task(4, 0.349, 0.3))
    assert not strength.goal_met(task(4, 0.9, 0.8, max_ms=1000.5)) and not strength.goal_met(task(4, 0.9, 0.8, None))


def test_the_report_lists_each_task_its_verdict_and_what_is_not_measured():
    results = {"measurement": "strength", "seed": 1, "matches": 400, "timing_matches": 0}
    results["tasks"] = [task(4, 0.2, 0.16), task(2, 0.7, 0.65)]
    text = strength.report(results)
    rows = [line for line in text.splitlines() if line.startswith("| citadels")]
    assert rows[0].startswith("| citadels | 2 |") and rows[0].count("| yes |") == 1
    assert "**no**" in rows[1] and "0.200 (0.160-0.250) n=400" in rows[1]
    assert "at most 1 s." in text and "{" not in text
    assert "Not measured yet: metropolys 2p" in text and "citadels 2p" not in text.split("Not measured yet")[1]


@pytest.mark.parametrize(
    ("content", "message"),
    [("{", "not JSON"), ("[]", "not a strength"), ('{"measurement": "strength", "tasks": [{}]}', "malformed")],
)
def test_a_file_that_is_not_its_results_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "results.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        strength.load_results(path)


def test_bad_settings_and_options_stop_before_any_match(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('seed = 1\nmatches = 0\ntiming_matches = 0\n[bots]\ncitadels = "heuristic"\n')
    for argv in (["--settings", str(bad)], ["--jobs", "0"], ["--from-json", str(bad)]):
        with pytest.raises(SystemExit) as stop:
            strength.main([*argv, "--out", str(tmp_path / "never")])
        assert stop.value.code == 2
    assert not (tmp_path / "never").exists()
    unknown = settings_file(tmp_path, bot="nosuchbot")
    with pytest.raises(SystemExit):
        strength.main(["--settings", str(unknown), "--out", str(tmp_path / "never"), "--game", "citadels"])
    assert "nosuchbot" in capsys.readouterr().err


def test_a_stopped_tasks_log_of_other_settings_is_one_clear_error(tmp_path, capsys):
    out = tmp_path / "run"
    (out / "citadels_2p").mkdir(parents=True)
    (out / "citadels_2p" / "matches.jsonl").write_text('{"settings": "of another run"}\n')
    argv = ["--game", "citadels", "--players", "2", "--settings", str(settings_file(tmp_path)), "--out", str(out)]
    with pytest.raises(SystemExit) as stop:
        strength.main([*argv, "--quiet"])
    assert stop.value.code == 2 and "is not a log of this run" in capsys.readouterr().err
