"""`city-envs bench --all`: one table, its JSON, and docs/speed.md written from that JSON alone (that the
committed page is current, `tests/lab/test_sections.py`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from city_envs import bench
from city_envs.cli import main
from city_envs.core.registry import GAMES, game_class

DOCS = Path(__file__).resolve().parents[2] / "docs"


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
    page.write_text("intro\n<!-- tables:speed -->\nold\n<!-- /tables:speed -->\noutro\n")
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


def test_paired_slices_take_turns_and_count_each_side_on_its_own_clock(monkeypatch):
    """The subject and the reference run in alternating slices of equal length (reference first, then
    the order flips), each slice pair is a row, and each side's rate is its own steps over its own time."""
    subject, reference = iter(()), iter(())
    calls = []

    def fake_run_for(steps, seconds):
        calls.append((steps, seconds))
        return (10 + len(calls), 0.01) if steps is subject else (5, 0.02)

    monkeypatch.setattr(bench, "_run_for", fake_run_for)
    measured = bench.paired(subject, reference, seconds=1.2)
    assert [steps for steps, _ in calls] == [reference, subject, subject, reference] * (bench.SLICES // 2)
    assert all(seconds == pytest.approx(1.2 / bench.SLICES) for _, seconds in calls)
    subject_steps = [10 + 1 + i for i, (steps, _) in enumerate(calls) if steps is subject]
    assert measured.pairs[:, 0].tolist() == subject_steps and measured.pairs[:, 2].tolist() == [5] * bench.SLICES
    assert measured.subject_rate == pytest.approx(sum(subject_steps) / (0.01 * bench.SLICES))
    assert measured.reference_rate == pytest.approx(250)
    assert measured.ratio == pytest.approx(measured.subject_rate / 250)


def synthetic(ratio: float, drift: float, noise: float, seed: int) -> bench.Paired:
    """Slice pairs whose subject runs `ratio` times the reference's rate: each pair shares a machine
    speed drawn with spread `drift` and a slice length, and each slice has its own multiplicative `noise`."""
    rng = np.random.default_rng(seed)
    speed = np.exp(rng.normal(0, drift, bench.SLICES))
    seconds = rng.uniform(0.09, 0.11, bench.SLICES)
    jitter = np.exp(rng.normal(0, noise, (bench.SLICES, 2)))
    subject = 1000 * ratio * speed * jitter[:, 0] * seconds
    reference = 1000 * speed * jitter[:, 1] * seconds
    return bench.Paired(np.column_stack([subject, seconds, reference, seconds]))


def test_an_interval_holds_the_ratio_and_collapses_without_noise():
    exact = synthetic(3.0, drift=0.3, noise=0.0, seed=0)
    assert exact.ratio == pytest.approx(3.0)
    assert exact.interval() == (pytest.approx(3.0), pytest.approx(3.0))
    noisy = synthetic(3.0, drift=0.3, noise=0.1, seed=1)
    low, high = noisy.interval()
    assert low < noisy.ratio < high and high - low < 0.6
    assert noisy.interval(seed=1) != (low, high) and noisy.interval() == (low, high), "seeded, and by its seed"


def test_an_interval_resamples_pairs_so_shared_drift_cancels():
    """Drift the two sides of a pair share cancels in the ratio: resampling the sides apart would not."""
    low, high = synthetic(2.0, drift=0.5, noise=0.01, seed=2).interval()
    assert low < 2.0 < high and high - low < 0.05


def test_intervals_cover_the_true_ratio_about_as_often_as_they_claim():
    covered = 0
    trials = 200
    for seed in range(trials):
        low, high = synthetic(1.5, drift=0.3, noise=0.1, seed=seed).interval(seed)
        covered += low <= 1.5 <= high
    assert 0.85 <= covered / trials <= 0.99


def test_a_ratio_cell_shows_its_interval():
    row = {"r": 11.6, "r_interval": [10.94, 12.31], "s": 2.5, "t": None}
    assert bench.cell(row, "r", "{:.1f}x") == "11.6x (10.9-12.3)"
    assert bench.cell(row, "s", "{:.2f}") == "2.50" and bench.cell(row, "t", "{:.2f}") == "-"


def test_the_search_is_timed_position_by_position_in_turns(monkeypatch):
    """A row per position with a choice: the native decisions (NATIVE_SEARCH_REPEATS of them) and the
    Python one at the same position, Python first, then the order flips; the ratio is Python's time
    per iteration over the native search's."""
    states = bench.sample_states("metropolys", 2, 6, seed=3)
    native_states = bench.sample_states("metropolys", 2, 6, seed=3, engine="native")
    calls = []

    def fake_search(agent, game, repeats):
        calls.append("native" if repeats == bench.NATIVE_SEARCH_REPEATS else "python")
        return agent.iters * repeats, 0.001 * repeats if repeats == 1 else 0.0001 * repeats

    monkeypatch.setattr(bench, "_search_decisions", fake_search)
    measured = bench.paired_search(states, native_states, iterations=4)
    positions = len(bench._with_choice(states))
    assert positions >= 2 and measured.pairs.shape == (positions, 4)
    assert calls == ["python", "native", "native", "python"] * (positions // 2) + ["python", "native"] * (positions % 2)
    assert measured.pairs[:, 0].tolist() == [4.0 * bench.NATIVE_SEARCH_REPEATS] * positions
    assert measured.pairs[:, 2].tolist() == [4.0] * positions
    assert measured.ratio == pytest.approx(10.0)
    assert measured.interval() == (pytest.approx(10.0), pytest.approx(10.0))


def test_the_search_refuses_positions_the_engines_do_not_share():
    states = bench.sample_states("metropolys", 2, 6, seed=3)
    others = bench.sample_states("metropolys", 2, 6, seed=4, engine="native")
    with pytest.raises(RuntimeError, match="engines disagree"):
        bench.paired_search(states, others, iterations=1)
