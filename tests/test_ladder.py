"""training.ladder: one arena run per game and count, gathered into leaderboard.md."""

from __future__ import annotations

from training import ladder


def test_ladder_writes_a_leaderboard_row_per_rung_and_the_run_reports(tmp_path):
    rungs = "random,heuristic,ismcts:iters=3:max_rollout=5"
    assert ladder.main(["--game", "citadels", "--players", "2", "--rungs", rungs, "--games", "6",
                        "--out", str(tmp_path)]) == 0
    lines = (tmp_path / "leaderboard.md").read_text().splitlines()
    rows = [line for line in lines if line.startswith("| citadels | 2 |")]
    assert sorted(row.split(" | ")[2] for row in rows) == sorted(rungs.split(","))
    assert (tmp_path / "citadels_2p" / "results.json").exists()
