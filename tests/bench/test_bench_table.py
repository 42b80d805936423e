"""`city-envs bench --all`: one table, its JSON, and docs/speed.md written from that JSON alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs import bench
from city_envs.cli import main
from city_envs.core.registry import GAMES, game_class

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_docs_table_is_the_one_its_json_makes():
    result = json.loads((DOCS / "speed.json").read_text())
    page = (DOCS / "speed.md").read_text()
    assert bench.doc_section(result) in page, "docs/speed.md: rerun `city-envs bench --all --json ... --docs ...`"


def test_docs_json_covers_every_game_and_player_count():
    rows = json.loads((DOCS / "speed.json").read_text())["rows"]
    measured = {(row["game"], row["num_players"]) for row in rows}
    assert measured == {(name, n) for name in GAMES for n in game_class(name).allowed_player_counts()}
    for row in rows:
        for _, key, _ in bench.TABLE_COLUMNS:
            assert row[key] is not None, (row["game"], row["num_players"], key)


def fake_run(name, num_players, seconds=3.0, seed=0, search=False, **options):
    """Every figure `run` reports, without measuring."""
    figures = {key: 1.0 for _, key, _ in bench.TABLE_COLUMNS[2:]}
    return {
        "game": name,
        "num_players": num_players,
        "seconds": seconds,
        "seed": seed,
        "options": options,
        **figures,
        "search_iteration_us": 2.0 if search else None,
    }


def test_bench_all_prints_one_table_and_writes_json_and_docs(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(bench, "run", fake_run)
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{bench.DOC_BEGIN}\nold\n{bench.DOC_END}\noutro\n")
    figures = tmp_path / "bench.json"
    assert main(["bench", "--all", "--seconds", "0.1", "--json", str(figures), "--docs", str(page)]) == 0
    out = capsys.readouterr().out
    result = json.loads(figures.read_text())
    assert len(result["rows"]) == sum(len(game_class(name).allowed_player_counts()) for name in GAMES)
    assert all(name in out for name in GAMES) and "ISMCTS iteration" in out
    text = page.read_text()
    assert text.startswith("intro\n") and text.endswith("\noutro\n") and "old" not in text
    assert bench.doc_section(result) in text


def test_bench_all_refuses_a_game_or_options(capsys):
    assert main(["bench", "citadels", "--all"]) != 0
    assert main(["bench", "--docs", "x.md"]) != 0
    assert main(["bench"]) != 0


def test_paired_rates_take_turns_and_count_each_side_on_its_own_clock(monkeypatch):
    """The subject and the reference run in alternating slices of equal length (reference first, then
    the order flips), and each side's rate is its own steps over its own time."""
    subject, reference = iter(()), iter(())
    calls = []

    def fake_run_for(steps, seconds):
        calls.append((steps, seconds))
        return (10, 0.01) if steps is subject else (5, 0.02)

    monkeypatch.setattr(bench, "_run_for", fake_run_for)
    assert bench.paired_rates(subject, reference, seconds=1.2) == (pytest.approx(1000), pytest.approx(250))
    assert [steps for steps, _ in calls] == [reference, subject, subject, reference] * (bench.SLICES // 2)
    assert all(seconds == pytest.approx(1.2 / bench.SLICES) for _, seconds in calls)
