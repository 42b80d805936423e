"""lab/ladder.py: one arena run per game and count, gathered into leaderboard.md."""

from __future__ import annotations

import pytest

from lab import ladder

RUNGS = "random,heuristic,ismcts:iters=3:max_rollout=5"


def rows_for(path, game: str, players: int) -> list[list[str]]:
    prefix = f"| {game} | {players} |"
    return [line.split(" | ") for line in path.read_text().splitlines() if line.startswith(prefix)]


def test_ladder_writes_a_leaderboard_row_per_rung_and_the_run_reports(tmp_path):
    assert (
        ladder.main(["--game", "citadels", "--players", "2", "--rungs", RUNGS, "--games", "6", "--out", str(tmp_path)])
        == 0
    )
    rows = rows_for(tmp_path / "leaderboard.md", "citadels", 2)
    assert sorted(row[2] for row in rows) == sorted(RUNGS.split(","))
    heuristic_row = next(row for row in rows if row[2] == "heuristic")
    assert heuristic_row[5] == "—"  # no "ahead of heuristic" for the heuristic itself
    assert all(0.0 <= float(row[5]) <= 1.0 for row in rows if row[2] != "heuristic")
    assert (tmp_path / "citadels_2p" / "results.json").exists()
    text = (tmp_path / "leaderboard.md").read_text()
    assert "| 2 players: mu · win rate · ahead of heuristic | citadels (6) |" in text
    for rung in RUNGS.split(","):
        _mu, win_rate, _ahead = (
            next(line for line in text.splitlines() if line.startswith(f"| {rung} |")).split(" | ")[1].split(" · ")
        )
        assert float(win_rate) == pytest.approx(float(next(r for r in rows if r[2] == rung)[4].split()[0]), abs=0.01)


def test_games_share_a_summary_row_whatever_their_rollout_suffix():
    assert ladder.game_rungs("citadels", ["heuristic", "ismcts:iters=5"]) == [
        "heuristic",
        "ismcts:iters=5:max_rollout=none",
    ]
    for game in ("citadels", "big_city"):
        assert [ladder.rung_label(game, agent) for agent in ladder.game_rungs(game, list(ladder.RUNGS))] == list(
            ladder.RUNGS
        )


def test_a_finished_run_is_reused_and_separate_calls_share_the_leaderboard(tmp_path, monkeypatch):
    args = ["--game", "metropolys", "--rungs", "random,heuristic", "--games", "4", "--out", str(tmp_path)]
    ladder.main([*args, "--players", "2"])
    before = (tmp_path / "metropolys_2p" / "results.json").read_text()

    def must_not_play(*_args, **_kwargs):
        raise AssertionError("a finished run was played again")

    monkeypatch.setattr(ladder, "evaluate", must_not_play)
    ladder.main([*args, "--players", "2"])
    assert (tmp_path / "metropolys_2p" / "results.json").read_text() == before
    with pytest.raises(AssertionError, match="played again"):  # other settings are a new run
        ladder.main([*args[:5], "6", *args[6:], "--players", "2"])
    monkeypatch.undo()
    ladder.main([*args[:3], "random,heuristic,random", *args[4:], "--players", "3"])
    board = tmp_path / "leaderboard.md"
    assert len(rows_for(board, "metropolys", 2)) == 2 and len(rows_for(board, "metropolys", 3)) == 2


def test_match_counts_per_player_count():
    assert ladder.parse_matches("12") == 12
    assert ladder.parse_matches("2:48,4:8") == {2: 48, 4: 8}
    assert ladder.matches_for({2: 48, 4: 8}, 4) == 8 and ladder.matches_for(12, 3) == 12
    with pytest.raises(ValueError, match="no match count for 3 players"):
        ladder.matches_for({2: 48, 4: 8}, 3)
    for bad in ("many", "2:48,4", "2:0"):
        with pytest.raises(ValueError, match="--games"):
            ladder.parse_matches(bad)


def test_a_bad_match_count_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        ladder.main(["--game", "citadels", "--players", "3", "--games", "2:48,4:8"])
    assert stop.value.code == 2 and "no match count for 3 players" in capsys.readouterr().err
