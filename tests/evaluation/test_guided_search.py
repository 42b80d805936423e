"""The guided-search measurement: CPU cost per decision of each agent, its report, and its bad input."""

from __future__ import annotations

import pytest

from city_envs.evaluation import guided_search


def test_cost_times_every_agent_in_turn_and_only_decisions_with_a_choice():
    figures = guided_search.cost("citadels", 2, ["random", "heuristic", "random"], matches=3, seed=0)
    assert set(figures) == {"random", "heuristic"}  # one spec listed twice is one agent
    for row in figures.values():
        assert row["decisions"] > 20 and 0 <= row["ms_per_decision"] < 1000


def test_report_has_a_row_per_task_with_every_figure():
    results = {
        "guided": "g",
        "rollout": "r",
        "matches": 8,
        "timing_matches": 2,
        "seed": 1,
        "tasks": [
            {
                "game": "citadels",
                "players": 2,
                "strength": {"heuristic": {"win_rate": 0.625, "ci95": [0.3, 0.86]}},
                "cost": {name: {"ms_per_decision": 12.34, "decisions": 9} for name in ("g", "r", "ppo", "heuristic")},
            }
        ],
    }
    row = guided_search.report(results).splitlines()[-1]
    assert row == "| citadels | 2 | 0.62 (0.30-0.86) | — | — | 12.3 | 12.3 | 12.3 | 12.3 |"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--guided", "ismcts:net=ppo:c_puct=-1"], "c_puct must be"),
        (["--lineups", "heuristic,mirror"], "--lineups: choose among"),
        (["--games", "0"], "must be >= 1"),
    ],
)
def test_bad_input_stops_before_any_match(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as stop:
        guided_search.main(["--game", "citadels", "--players", "2", "--out", str(tmp_path), *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "report.md").exists()
