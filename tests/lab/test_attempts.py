"""The attempts ledger: an entry read from a run folder (finished or stopped, PPO or expert rounds), the
ledger file, its table, the docs section written from the committed ledger, and its doors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs.training.evaluation import write_curve
from lab import attempts

ROOT = Path(__file__).resolve().parents[2]
SECTION = "<!-- tables:attempts -->\nold\n<!-- /tables:attempts -->\n"


def row(stage: str, step: int, heuristic: float, random: float = 0.98, games: int = 100) -> dict:
    return {
        "stage": stage,
        "step": step,
        "seconds": 10.0,
        "win_rate_vs_random": random,
        "ci_low_vs_random": random - 0.05,
        "ci_high_vs_random": min(random + 0.01, 1.0),
        "games_vs_random": games,
        "win_rate_vs_heuristic": heuristic,
        "ci_low_vs_heuristic": heuristic - 0.05,
        "ci_high_vs_heuristic": heuristic + 0.05,
        "games_vs_heuristic": games,
        "policy": "somewhere/eval.safetensors",
    }


def make_run(folder: Path, *, finished: bool, expert: bool) -> Path:
    """A run folder as `city-envs train` leaves it: config, curve.csv, and, for expert rounds, the rounds'
    records and the curve of the rounds evaluated before the run chose its model."""
    folder.mkdir(parents=True)
    settings = 'game = "metropolys"\nplayers = 4\nseed = 0\ninit_from = "/somewhere/inits/metropolys_4p.safetensors"\n'
    settings += "pretrain = false\ntimesteps = 0\n" if expert else "pretrain = false\ntimesteps = 1000000\n"
    if expert:
        settings += "expert_rounds = 2\nexpert_matches = 60\nexpert_iters = 100\nexpert_temperature = 1.0\n"
    (folder / "config.toml").write_text(settings + 'reward = "score"\nlearning_rate = 0.0001\n')
    if expert:
        (folder / "expert").mkdir()
        rounds = [
            {
                "round": k,
                "matches": 60,
                "samples": 4800 + k,
                "search_win_rate": 0.25,
                "val_agreement": 0.8 + k / 100,
                "val_value_mse": 0.5,
                "play_seconds": 400.0,
                "fit_seconds": 9.0,
            }
            for k in (1, 2)
        ]
        (folder / "expert" / "rounds.json").write_text(json.dumps(rounds))
        (folder / "expert" / "curve.json").write_text(json.dumps([row("expert 1", 0, 0.2), row("expert 2", 0, 0.3)]))
        if finished:
            write_curve(folder, [row("expert 1", 0, 0.2)], "test")
    else:
        write_curve(folder, [row("ppo", 200_704, 0.09), row("ppo", 401_408, 0.12)], "test")
    if finished:
        (folder / "evaluation.json").write_text("{}")
    return folder


def baseline_record(tmp_path: Path, game: str = "metropolys", seed: int = 0) -> Path:
    path = tmp_path / "metropolys_4p.json"
    chosen = {k: v for k, v in row("dagger 1", 0, 0.14, 0.99).items() if k != "policy"}
    path.write_text(json.dumps({"game": game, "players": 4, "selected": chosen, "curve": [chosen]}))
    path.with_suffix(".toml").write_text(f'game = "{game}"\nplayers = 4\nseed = {seed}\n')
    return path


def test_a_stopped_ppo_run_gives_its_points_its_start_and_where_it_stopped(tmp_path):
    run = make_run(tmp_path / "run", finished=False, expert=False)
    entry = attempts.record(run, "PPO again", "the plain recipe, longer", baseline_record(tmp_path))
    assert entry["settings"]["init_from"] == "metropolys_4p.safetensors" and entry["settings"]["timesteps"] == 1_000_000
    assert [(p["stage"], p["step"]) for p in entry["curve"]] == [("ppo", 200_704), ("ppo", 401_408)]
    assert entry["curve"][0]["heuristic"] == {"win_rate": 0.09, "ci95": [0.09 - 0.05, 0.09 + 0.05], "games": 100}
    assert not entry["finished"] and entry["stopped_after"] == "ppo 401k"
    assert entry["start"]["record"] == "metropolys_4p.json" and entry["start"]["stage"] == "dagger 1"
    text = attempts.table({"measurement": "attempts", "attempts": [entry]})
    assert "| PPO again | metropolys 4p | PPO 1,000,000 steps; stopped after ppo 401k | start (dagger 1) " in text
    assert "| 0.14 (0.09-0.19) n=100 | 0.99 (0.94-1.00) n=100 |" in text
    assert "|  |  |  | ppo 401k | 0.12 (0.07-0.17) n=100 |" in text
    assert "- **PPO again**: the plain recipe, longer" in text


def test_expert_rounds_come_from_the_rounds_file_and_their_curve_even_before_the_run_chose_its_model(tmp_path):
    for finished in (False, True):
        run = make_run(tmp_path / f"run_{finished}", finished=finished, expert=True)
        entry = attempts.record(run, "EI", "")
        assert [p["stage"] for p in entry["curve"]] == ["expert 1", "expert 2"]
        assert [r["round"] for r in entry["expert_rounds"]] == [1, 2] and entry["finished"] == finished
    text = attempts.table({"measurement": "attempts", "attempts": [entry]})
    assert "2 expert rounds of 60 matches at 100 iterations" in text
    assert "| EI | 2 | 60 | 4,802 | 0.25 | 0.820 | 0.500 | 400 |" in text


def test_a_start_record_of_another_task_or_seed_and_a_folder_without_a_run_are_refused(tmp_path):
    run = make_run(tmp_path / "run", finished=True, expert=False)
    with pytest.raises(ValueError, match="is not a 4-player metropolys record"):
        attempts.record(run, "x", "", baseline_record(tmp_path, game="big_city"))
    with pytest.raises(ValueError, match="not this run's seed 0"):
        attempts.record(run, "x", "", baseline_record(tmp_path, seed=5))
    (tmp_path / "list.json").write_text("[]")
    with pytest.raises(ValueError, match="is not a 4-player metropolys record"):
        attempts.record(run, "x", "", tmp_path / "list.json")
    with pytest.raises(ValueError, match="holds no run"):
        attempts.record(tmp_path, "x", "")


def test_adding_keeps_the_order_and_replaces_an_entry_of_the_same_label(tmp_path):
    ledger = tmp_path / "attempts.json"
    run = make_run(tmp_path / "run", finished=False, expert=False)
    for label in ("a", "b"):
        attempts.add(ledger, attempts.record(run, label, "first"))
    attempts.add(ledger, attempts.record(run, "a", "second"))
    saved = attempts.load_ledger(ledger)
    assert [(a["label"], a["why"]) for a in saved["attempts"]] == [("a", "second"), ("b", "first")]


def test_the_command_adds_a_run_and_fills_the_page(tmp_path, capsys):
    page, ledger = tmp_path / "training.md", tmp_path / "attempts.json"
    page.write_text(SECTION)
    run = make_run(tmp_path / "run", finished=True, expert=True)
    argv = ["add", str(run), "--label", "EI", "--why", "w", "--ledger", str(ledger), "--doc", str(page)]
    assert attempts.main(argv) == 0
    assert "| EI | metropolys 4p |" in page.read_text() and "attempts.json" in page.read_text()
    page.write_text(SECTION)
    assert attempts.main(["--from-json", str(ledger), "--doc", str(page)]) == 0
    assert page.read_text().count("| EI | metropolys 4p |") == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["add", "RUN"], "add RUN --label TEXT adds a run"),
        (["--from-json", "LEDGER"], "--from-json only writes a --doc page"),
        (["add", "NOWHERE", "--label", "x"], "holds no run"),
        (["--from-json", "FOREIGN", "--doc", "PAGE"], "is not an attempts ledger"),
        (["--from-json", "LEDGER", "--doc", "BARE"], "has no <!-- tables:attempts --> section"),
    ],
)
def test_bad_input_is_one_clear_error(argv, message, tmp_path, capsys):
    (tmp_path / "foreign.json").write_text('{"measurement": "privileged_ab"}')
    (tmp_path / "page.md").write_text(SECTION)
    (tmp_path / "bare.md").write_text("no section\n")
    (tmp_path / "ledger.json").write_text('{"measurement": "attempts", "attempts": []}')
    names = {
        "RUN": str(tmp_path),
        "NOWHERE": str(tmp_path / "nowhere"),
        "LEDGER": str(tmp_path / "ledger.json"),
        "FOREIGN": str(tmp_path / "foreign.json"),
        "PAGE": str(tmp_path / "page.md"),
        "BARE": str(tmp_path / "bare.md"),
    }
    with pytest.raises(SystemExit) as exit_info:
        attempts.main([names.get(arg, arg) for arg in argv])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_a_finished_run_shows_its_final_evaluation_and_an_opponent_pool_of_its_own(tmp_path):
    run = make_run(tmp_path / "run", finished=True, expert=False)
    figures = {"games": 400, "win_rate": 0.08, "ci95": [0.057, 0.111], "mean_score": 29.5, "failures": 0}
    summary = {"timesteps": 303_104, "eval_seed": 2, "evaluation": {"heuristic": figures, "random": figures}}
    (run / "evaluation.json").write_text(json.dumps(summary))
    with open(run / "config.toml", "a") as config:
        config.write("pool_self = 0.0\npool_heuristic = 1.0\npool_random = 0.0\n")
    entry = attempts.record(run, "heuristics only", "")
    assert entry["final"] == {
        "stage": "final",
        "step": 303_104,
        "seed": 2,
        "heuristic": {"win_rate": 0.08, "ci95": [0.057, 0.111], "games": 400},
        "random": {"win_rate": 0.08, "ci95": [0.057, 0.111], "games": 400},
    }
    text = attempts.table({"measurement": "attempts", "attempts": [entry]})
    assert "| heuristics only | metropolys 4p | PPO 1,000,000 steps; opponents self 0, heuristic 1, random 0 |" in text
    assert "|  |  |  | final (seed 2) | 0.08 (0.06-0.11) n=400 |" in text
    unfinished = attempts.record(make_run(tmp_path / "other", finished=False, expert=False), "stopped", "")
    assert "final" not in unfinished and "opponents" not in attempts.table({"attempts": [unfinished]})
