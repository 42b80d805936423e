"""The guided-search measurement: CPU cost per decision of each agent, its report and results file, the
docs section written from the committed results, and its bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs.core.markdown import fill, section_names
from lab import guided_search

ROOT = Path(__file__).resolve().parents[2]


def test_cost_times_every_agent_in_turn_and_only_decisions_with_a_choice():
    figures = guided_search.cost("citadels", 2, ["random", "heuristic", "random"], matches=3, seed=0)
    assert set(figures) == {"random", "heuristic"}  # one spec listed twice is one agent
    for row in figures.values():
        assert row["decisions"] > 20 and 0 <= row["ms_per_decision"] < 1000


def task(game: str, players: int, lineups: dict, timed: bool = True, network: str | None = None) -> dict:
    """A task's results, measured with the committed baseline unless `network` names another digest."""
    entry = {"game": game, "players": players, "network": network or guided_search.network_digest(game, players)}
    entry["strength"] = lineups
    if timed:
        entry["cost"] = {name: {"ms_per_decision": 12.34, "decisions": 9} for name in ("g", "r", "ppo", "heuristic")}
    return entry


def results(*tasks: dict) -> dict:
    return {
        "measurement": "guided_search",
        "guided": "g",
        "rollout": "r",
        "matches": 8,
        "timing_matches": 2,
        "seed": 1,
        "commands": ["python -m lab.guided_search --games 8"],
        "tasks": list(tasks),
    }


FULL = task(
    "citadels",
    2,
    {
        "heuristic": {"win_rate": 0.625, "ci95": [0.3, 0.86], "matches": 8, "failures": 0},
        "ppo": {"win_rate": 0.5, "ci95": [0.2151, 0.7849], "matches": 8, "failures": 1, "truncated": 2},
        "rollout": {"win_rate": 0.25, "ci95": [0.0715, 0.5907], "matches": 8, "failures": 0},
    },
)


def test_report_has_a_row_per_task_with_every_figure_and_its_match_count():
    lines = guided_search.report(results(FULL)).splitlines()
    assert lines[2:5] == [
        "| game | players | chance | vs heuristic | vs ppo | vs rollout ISMCTS | ms/decision: guided | rollout ISMCTS "
        "| ppo | heuristic |",
        "|---|---|---|---|---|---|---|---|---|---|",
        "| citadels | 2 | 0.50 | 0.62 (0.30-0.86) n=8 | 0.50 (0.22-0.78) n=8, 1 failed, 2 at the turn cap "
        "| 0.25 (0.07-0.59) n=8 | 12.3 "
        "| 12.3 | 12.3 | 12.3 |",
    ]
    assert lines[0].startswith("Guided search `g` in one seat") and "over 2 timed matches" in lines[0]
    assert lines[0].endswith("timed matches per task.")  # no — in the table, so no legend for it
    assert "`ppo` is each task's committed baseline" in lines[0]  # `g` names no network of its own here
    guided = guided_search.report({**results(FULL), "guided": "ismcts:net=ppo:iters=9"}).splitlines()[0]
    assert "`ppo` and the search's network are each task's committed baseline" in guided
    assert lines[-1].startswith("Not measured yet: citadels 4p, metropolys 2p, ") and len(lines) == 7


def test_a_partial_run_shows_what_is_measured_and_names_the_tasks_not_measured():
    partial = results(
        task("metropolys", 4, {"heuristic": {"win_rate": 0.5, "ci95": [0.2, 0.8], "matches": 8, "failures": 0}}, False),
        FULL,
    )
    lines = guided_search.report(partial).splitlines()
    assert lines[4].startswith("| citadels | 2 |")  # the registry's order, whatever the file's
    assert lines[5] == "| metropolys | 4 | 0.25 | 0.50 (0.20-0.80) n=8 | — | — | — | — | — | — |"
    assert lines[0].endswith("timed matches per task. —: not measured.")
    missing = lines[-1].removeprefix("Not measured yet: ").removesuffix(".").split(", ")
    assert len(missing) == 8 and "citadels 2p" not in missing and "metropolys 4p" not in missing


def test_the_report_names_the_tasks_measured_with_another_network_than_the_committed_baseline():
    earlier = task("metropolys", 2, FULL["strength"], network="0" * 64)
    lines = guided_search.report(results(FULL, earlier)).splitlines()
    assert (
        lines[-1] == "Measured with an earlier network than the committed baseline (to measure again): metropolys 2p."
    )
    legacy = {key: value for key, value in FULL.items() if key != "network"}  # measured before networks were kept
    assert guided_search.report(results(legacy)).splitlines()[-1].endswith("(to measure again): citadels 2p.")


# ----- the committed results and the page ------------------------------------------------------------
def page_agrees(root: Path) -> bool | None:
    """Whether docs/leaderboard.md under `root` has the section its committed JSON writes (None: no JSON
    committed); one function for the checkout and for a copy whose page is made to disagree."""
    page, source = root / "docs" / "leaderboard.md", root / "benchmarks" / "guided" / "results.json"
    text = page.read_text()
    assert guided_search.SECTION in section_names(text)
    if not source.is_file():
        return None
    section = guided_search.doc_section(guided_search.load_results(source), source, page)
    return fill(text, {guided_search.SECTION: section}) == text


def test_the_page_check_fails_when_the_json_exists_and_the_page_disagrees(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "leaderboard.md"
    page.write_text((ROOT / "docs" / "leaderboard.md").read_text())
    assert page_agrees(tmp_path) is None
    source = tmp_path / "benchmarks" / "guided" / "results.json"
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps(results(FULL)))
    assert page_agrees(tmp_path) is False  # the placeholder, with results committed
    assert guided_search.main(["--from-json", str(source), "--doc", str(page)]) == 0
    assert f"wrote guided-search into {page}" in capsys.readouterr().out
    assert page_agrees(tmp_path) is True
    text = page.read_text()
    assert "[results.json](../benchmarks/guided/results.json)" in text and "Not measured yet: citadels 4p" in text
    assert text.replace("0.62 (0.30-0.86)", "0.63 (0.30-0.86)") != text
    page.write_text(text.replace("0.62 (0.30-0.86)", "0.63 (0.30-0.86)"))
    assert page_agrees(tmp_path) is False


def test_from_json_fills_only_its_section(tmp_path):
    source = tmp_path / "results.json"
    source.write_text(json.dumps(results(FULL)))
    page = tmp_path / "page.md"
    page.write_text(
        "intro\n<!-- tables:guided-search -->\nold\n<!-- /tables:guided-search -->\n"
        "<!-- tables:x -->\nx\n<!-- /tables:x -->\n"
    )
    assert guided_search.main(["--from-json", str(source), "--doc", str(page)]) == 0
    assert page.read_text() == (
        "intro\n<!-- tables:guided-search -->\n"
        + guided_search.report(results(FULL))
        + "\nEvery figure, with each agent's timed decisions: [results.json](results.json).\n"
        "<!-- /tables:guided-search -->\n<!-- tables:x -->\nx\n<!-- /tables:x -->\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON"),
        ("[1, 2]", "is not a guided-search results.json"),
        ('{"agents": {}, "games": 8}', "is not a guided-search results.json"),  # the arena's results.json
        (json.dumps(results({"game": "citadels", "players": 2, "strength": {"ppo": {"win_rate": 0.5}}})), "KeyError"),
        (json.dumps({**results(), "tasks": "citadels"}), "malformed"),
    ],
)
def test_a_foreign_or_malformed_json_is_one_clear_error(content, message, tmp_path, capsys):
    source, page = tmp_path / "results.json", tmp_path / "page.md"
    source.write_text(content)
    page.write_text("<!-- tables:guided-search -->\nold\n<!-- /tables:guided-search -->\n")
    with pytest.raises(SystemExit) as stop:
        guided_search.main(["--from-json", str(source), "--doc", str(page)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and message in err and "Traceback" not in err
    assert page.read_text() == "<!-- tables:guided-search -->\nold\n<!-- /tables:guided-search -->\n"


@pytest.mark.parametrize(
    ("page_text", "argv", "message"),
    [
        ("# no section\n", [], "has no <!-- tables:guided-search --> section"),
        (None, [], "does not exist"),
        ("<!-- tables:guided-search -->\n<!-- /tables:guided-search -->\n", ["--no-doc"], "only writes a --doc"),
    ],
)
def test_a_page_without_the_section_is_one_clear_error(page_text, argv, message, tmp_path, capsys):
    source, page = tmp_path / "results.json", tmp_path / "page.md"
    source.write_text(json.dumps(results(FULL)))
    if page_text is not None:
        page.write_text(page_text)
    args = ["--from-json", str(source)] + ([] if argv else ["--doc", str(page)])
    with pytest.raises(SystemExit) as stop:
        guided_search.main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert message in err.splitlines()[-1] and err.count("error:") == 1


def test_a_run_saves_its_results_after_each_lineup_and_adds_to_them(tmp_path, monkeypatch):
    """A run stopped in its second line-up has the first in results.json, report.md and the page; started
    again it measures only what is missing; a run of other settings into the folder is refused."""
    measured: list[str] = []

    def fake_strength(game, players, guided, opponent, matches, seed, jobs, out):
        if opponent == "ppo" and "ppo" not in measured:
            measured.append("ppo")
            raise KeyboardInterrupt
        measured.append(opponent)
        return {"win_rate": 0.5, "ci95": [0.2, 0.8], "matches": matches, "failures": 0}

    def fake_cost(game, players, specs, matches, seed):
        measured.append("cost")
        return {spec: {"ms_per_decision": 1.0, "decisions": 5} for spec in specs}

    monkeypatch.setattr(guided_search, "strength", fake_strength)
    monkeypatch.setattr(guided_search, "cost", fake_cost)
    page = tmp_path / "page.md"
    page.write_text("<!-- tables:guided-search -->\n<!-- /tables:guided-search -->\n")
    out = tmp_path / "run"
    out.mkdir()
    settings = {"guided": "g", "rollout": "r", "matches": 8, "timing_matches": 2, "seed": 1}
    first = guided_search.start_results(out, settings, "first")
    with pytest.raises(KeyboardInterrupt):
        guided_search.run([("citadels", 2)], first, 1, out, ["heuristic", "ppo"], str(page))
    saved = json.loads((out / "results.json").read_text())
    network = guided_search.network_digest("citadels", 2)
    assert saved["tasks"] == [
        {
            "game": "citadels",
            "players": 2,
            "network": network,
            "strength": {"heuristic": saved["tasks"][0]["strength"]["heuristic"]},
        }
    ]
    assert "| citadels | 2 | 0.50 | 0.50 (0.20-0.80) n=8 | — |" in page.read_text()
    assert (out / "report.md").read_text() == guided_search.report(saved)
    again = guided_search.start_results(out, settings, "second")
    guided_search.run([("citadels", 2)], again, 1, out, ["heuristic", "ppo"], None)
    assert measured == ["heuristic", "ppo", "ppo", "cost"]
    saved = json.loads((out / "results.json").read_text())
    assert set(saved["tasks"][0]["strength"]) == {"heuristic", "ppo"} and saved["commands"] == ["first", "second"]
    with pytest.raises(ValueError, match=r"other settings \(matches 8, not 40\)"):
        guided_search.start_results(out, {**settings, "matches": 40}, "third")
    # the committed baseline replaced: the task is measured again, its old match logs set aside
    (out / "citadels_2p" / "ppo").mkdir(parents=True)
    monkeypatch.setattr(guided_search, "network_digest", lambda game, players: "f" * 64)
    guided_search.run([("citadels", 2)], guided_search.start_results(out, settings, "third"), 1, out, ["ppo"])
    saved = json.loads((out / "results.json").read_text())
    assert saved["tasks"][0]["network"] == "f" * 64 and set(saved["tasks"][0]["strength"]) == {"ppo"}
    assert (out / f"citadels_2p.network-{network[:12]}" / "ppo").is_dir() and not (out / "citadels_2p").exists()
    # replaced again, and stopped in its first line-up: the new network is saved at once, so the next run
    # resumes its logs rather than setting them aside as another network's
    monkeypatch.setattr(guided_search, "network_digest", lambda game, players: "e" * 64)

    def stopped_strength(game, players, guided, opponent, matches, seed, jobs, out):
        out.mkdir(parents=True)
        raise KeyboardInterrupt

    monkeypatch.setattr(guided_search, "strength", stopped_strength)
    with pytest.raises(KeyboardInterrupt):
        guided_search.run([("citadels", 2)], guided_search.start_results(out, settings, "fourth"), 1, out, ["ppo"])
    saved = json.loads((out / "results.json").read_text())
    assert saved["tasks"][0]["network"] == "e" * 64 and saved["tasks"][0]["strength"] == {}
    monkeypatch.setattr(guided_search, "strength", fake_strength)
    guided_search.run([("citadels", 2)], guided_search.start_results(out, settings, "fifth"), 1, out, ["ppo"])
    assert (out / "citadels_2p" / "ppo").is_dir() and not list(out.glob("citadels_2p.network-eeee*"))
    assert set(json.loads((out / "results.json").read_text())["tasks"][0]["strength"]) == {"ppo"}


def test_the_head_to_head_times_nothing_and_fills_its_own_section(tmp_path, monkeypatch):
    """`--timing-matches 0` measures strength alone (the report says it is not timed), and `--section
    guided-head-to-head` writes that section of the page, leaving the full table's alone."""
    won = {"win_rate": 0.7, "ci95": [0.65, 0.74], "matches": 400, "failures": 0}
    monkeypatch.setattr(guided_search, "strength", lambda *args: won)
    monkeypatch.setattr(guided_search, "cost", lambda *args: pytest.fail("timed"))
    monkeypatch.setattr(guided_search, "prepare_agents", lambda *args: None)
    page = tmp_path / "page.md"
    full = "<!-- tables:guided-search -->\nfull\n<!-- /tables:guided-search -->\n"
    page.write_text(full + "<!-- tables:guided-head-to-head -->\n<!-- /tables:guided-head-to-head -->\n")
    argv = ["--game", "metropolys", "--players", "2", "--lineups", "ppo", "--games", "400", "--seed", "1000"]
    argv += ["--timing-matches", "0", "--out", str(tmp_path / "h2h"), "--quiet", "--doc", str(page)]
    assert guided_search.main([*argv, "--section", "guided-head-to-head"]) == 0
    text = page.read_text()
    assert text.startswith(full) and "| game | players | chance | vs ppo |\n|---|---|---|---|\n" in text
    assert "| metropolys | 2 | 0.50 | 0.70 (0.65-0.74) n=400 |\n" in text  # only the line-up it measured
    assert "cost: not timed in this measurement" in text and "(seed 1000)" in text
    # the head-to-head is a 2-player goal: the tasks not measured yet are the other games at 2 players
    missing = next(line for line in text.splitlines() if line.startswith("Not measured yet: "))
    assert missing == "Not measured yet: citadels 2p, blue_moon_city 2p, big_city 2p, urban_sprawl 2p."
    assert (tmp_path / "h2h" / "report.md").read_text().count("Not measured yet: citadels 2p, blue") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--guided", "ismcts:net=ppo:c_puct=-1"], "c_puct must be"),
        (["--lineups", "heuristic,mirror"], "--lineups: choose among"),
        (["--games", "0"], "must be >= 1"),
        (["--timing-matches", "-1"], "--timing-matches >= 0"),
        (["--section", "elsewhere"], "invalid choice"),
    ],
)
def test_bad_input_stops_before_any_match(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        guided_search.main(["--game", "citadels", "--players", "2", "--out", str(tmp_path), *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "report.md").exists()


def test_strength_reads_the_arena_s_win_rate_failures_and_turn_cap_endings(tmp_path):
    figures = guided_search.strength("citadels", 2, "heuristic", "random", 2, 0, 1, tmp_path / "lineup")
    assert set(figures) == {"win_rate", "ci95", "matches", "failures", "truncated"}
    assert figures["matches"] == 2 and figures["failures"] == 0 and figures["truncated"] == 0
    assert (tmp_path / "lineup" / "matches.jsonl").is_file()
