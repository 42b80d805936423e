"""Every figure in README.md comes from a committed JSON: the baseline tables (the README's and the runs'
table of docs/training.md) are what `city-envs baseline --tables` writes from `training/baselines/`, and
each figure in its prose is checked against its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs.agents.policy_agent import baseline_stem
from city_envs.cli import main
from city_envs.core.markdown import fill
from city_envs.core.registry import GAMES
from city_envs.core.settings import read_toml
from city_envs.training import baseline_tables as tables_module
from city_envs.training.baseline_tables import (
    PLAYER_COUNTS,
    README_SECTIONS,
    RUNS_SECTION,
    baseline_tables,
    curve_cell,
    reference_path,
    run_row,
)
from city_envs.training.evaluation import evaluate_agent

ROOT = Path(__file__).resolve().parents[1]
TASKS = [(game, players) for game in GAMES for players in PLAYER_COUNTS]


def readme() -> str:
    return (ROOT / "README.md").read_text()


def words(text: str) -> str:
    """The text with every run of white space one space: prose wraps anywhere."""
    return " ".join(text.split())


def training_doc() -> str:
    return (ROOT / "docs" / "training.md").read_text()


def stale_tables(page: str) -> bool:
    return fill(page, baseline_tables()) != page


@pytest.mark.parametrize(
    ("section", "old", "new"),
    [
        ("baselines-4p", "0.", "0.9"),
        ("baselines-4p", "ppo ", "dagger "),
        ("baselines-4p", "-1.000)", "-0.999)"),
        (RUNS_SECTION, " min |", " min (about) |"),
        (RUNS_SECTION, "steps/s", "steps/s (measured)"),
        (RUNS_SECTION, "**", ""),
        (RUNS_SECTION, "1.00", "0.99"),
    ],
)
def test_a_table_figure_edited_by_hand_is_caught(section, old, new):
    page = training_doc() if section == RUNS_SECTION else readme()
    start = page.index(f"<!-- tables:{section} -->")
    edited = page[:start] + page[start:].replace(old, new, 1)
    assert edited != page and stale_tables(edited)


def test_the_runs_table_bolds_the_point_that_became_the_policy():
    curve = [
        {"stage": "clone", "step": 0, "win_rate_vs_heuristic": 0.2, "win_rate_vs_random": 0.9},
        {"stage": "dagger 1", "step": 0, "win_rate_vs_heuristic": 0.2125, "win_rate_vs_random": 1.0},
        {"stage": "dagger 2", "step": 0, "win_rate_vs_heuristic": 0.1, "win_rate_vs_random": 0.975},
        {"stage": "ppo", "step": 102_400, "win_rate_vs_heuristic": 0.3, "win_rate_vs_random": 1.0},
        {"stage": "ppo", "step": 1_003_520, "win_rate_vs_heuristic": 0.25, "win_rate_vs_random": 1.0},
    ]
    assert curve_cell({"curve": curve, "selected": None}) == (
        "clone 0.20/0.90; DAgger 0.2125/1.00, 0.10/0.975; PPO 102k 0.30/1.00, **1.0M 0.25/1.00**"
    )
    assert curve_cell({"curve": curve, "selected": {**curve[1]}}) == (
        "clone 0.20/0.90; DAgger **0.2125/1.00**, 0.10/0.975; PPO 102k 0.30/1.00, 1.0M 0.25/1.00"
    )


def test_a_resumed_runs_time_is_its_last_sittings(tmp_path):
    """A run resumed from a checkpoint timed only its last sitting: the row says so, not a rate of all its steps."""
    point = {"stage": "ppo", "step": 5_001_216, "win_rate_vs_heuristic": 0.3, "win_rate_vs_random": 1.0}
    curve = [{**point, "games_vs_heuristic": 100, "games_vs_random": 100}]
    (tmp_path / "run.toml").write_text('game = "metropolys"\nplayers = 4\n')
    training = {"timesteps": 5_001_216, "ppo_seconds": 4278.3, "ppo_steps_per_s": 111.1}
    for timed, cell in (
        (5_001_216, "| 5.0M steps, 71 min, 111 steps/s |"),
        (475_136, "| 5.0M steps; its last sitting 475k in 71 min, 111 steps/s |"),
        (0, "| 5.0M steps, timed in no sitting |"),
    ):
        record = {"training": {**training, "ppo_timed_steps": timed}, "curve": curve, "selected": None}
        (tmp_path / "run.json").write_text(json.dumps(record))
        assert cell in run_row("metropolys", 4, tmp_path / "run", continued=False)


def test_each_reference_is_the_heuristic_against_random_on_the_baselines_matches():
    for game, players in TASKS:
        reference = json.loads(reference_path(game, players).read_text())
        baseline = json.loads(baseline_stem(game, players).with_suffix(".json").read_text())
        assert (reference["game"], reference["players"], reference["agent"]) == (game, players, "heuristic")
        assert reference["eval_seed"] == baseline["eval_seed"]
        assert set(reference["evaluation"]) == {"random"}
        figures = reference["evaluation"]["random"]
        assert figures["games"] == baseline["evaluation"]["random"]["games"] and figures["failures"] == 0


def test_the_readme_prose_names_the_baselines_matches_and_seed():
    records = [json.loads(baseline_stem(g, n).with_suffix(".json").read_text()) for g, n in TASKS]
    settings = {
        (r["evaluation"]["random"]["games"], r["evaluation"]["heuristic"]["games"], r["eval_seed"]) for r in records
    }
    assert len(settings) == 1
    games, _, seed = settings.pop()
    assert f"{games} seat-rotated matches on seed {seed}, which training never uses" in words(readme())


def test_the_main_job_sentence_is_its_config():
    config = read_toml(ROOT / "training" / "configs" / "citadels_quick.toml")
    assert config["dagger_rounds"] == 1 and config["timesteps"] == 0
    assert (
        f"(clone the heuristic from {config['bc_matches']} matches, one DAgger round of {config['dagger_matches']}) "
        f"and print its seat-rotated win rates against random play and against the heuristic, "
        f"{config['final_eval_games']} matches each"
    ) in words(readme())


def test_baseline_tables_writes_the_sections_a_page_has_and_refuses_one_without_any(tmp_path, capsys, monkeypatch):
    tables = baseline_tables()
    page = tmp_path / "page.md"
    page.write_text(
        "intro\n<!-- tables:baselines-2p -->\nold\n<!-- /tables:baselines-2p -->\n"
        "<!-- tables:other -->\nsomeone else's\n<!-- /tables:other -->\noutro\n"
    )
    doc = tmp_path / "doc.md"
    doc.write_text("<!-- tables:baseline-runs -->\n<!-- /tables:baseline-runs -->\n")
    assert main(["baseline", "--tables", str(page), str(doc)]) == 0
    text = page.read_text()
    assert "old" not in text and tables["baselines-2p"] in text and "someone else's" in text
    assert tables["baselines-4p"] not in text and doc.read_text().count(tables[RUNS_SECTION]) == 1
    assert f"wrote baselines-2p into {page}" in capsys.readouterr().out
    page.write_text("<!-- tables:other -->\n<!-- /tables:other -->\n")
    assert main(["baseline", "--tables", str(page)]) == 2
    assert "has no <!-- tables:baselines-2p --> or <!-- tables:baselines-4p --> or <!-- tables:baseline-runs -->" in (
        capsys.readouterr().err
    )
    assert main(["baseline", "citadels", "--tables", str(page)]) == 2
    assert main(["baseline"]) == 2
    assert "name a game, or write the baseline tables of README.md and docs/training.md with --tables" in (
        capsys.readouterr().err
    )
    # no PAGE: the checkout's pages (here stand-ins, so the test writes nothing of the checkout)
    readme_copy, doc_copy = tmp_path / "README.md", tmp_path / "training.md"
    readme_copy.write_text(fill(readme(), {name: "stale" for name in README_SECTIONS}))
    doc_copy.write_text(fill(training_doc(), {RUNS_SECTION: "stale"}))
    monkeypatch.setattr(tables_module, "PAGES", (readme_copy, doc_copy))
    assert main(["baseline", "--tables"]) == 0
    assert (readme_copy.read_text(), doc_copy.read_text()) == (readme(), training_doc())


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players"), TASKS)
def test_the_reference_figures_reproduce(game, players):
    reference = json.loads(reference_path(game, players).read_text())
    figures = reference["evaluation"]["random"]
    measured = evaluate_agent(
        "heuristic", game, players, figures["games"], reference["eval_seed"], opponents=("random",)
    )
    assert measured["random"]["win_rate"] == pytest.approx(figures["win_rate"])


def test_the_main_job_result_is_its_json():
    """docs/main_job.json is the `evaluation.json` the README's main job wrote (`--out runs/main`)."""
    config = read_toml(ROOT / "training" / "configs" / "citadels_quick.toml")
    result = json.loads((ROOT / "docs" / "main_job.json").read_text())
    assert (result["game"], result["players"], result["eval_seed"]) == ("citadels", 2, config["seed"] + 2)
    figures = [result["evaluation"][opponent] for opponent in ("random", "heuristic")]
    assert all(f["games"] == config["final_eval_games"] and f["failures"] == 0 for f in figures)
    rates = [f"{f['win_rate']:.3f} ({f['ci95'][0]:.3f}-{f['ci95'][1]:.3f})" for f in figures]
    text = words(readme())
    assert f"It printed {rates[0]} against random and {rates[1]} against the heuristic" in text
    assert f"took about {round(result['total_seconds'] / 60)} minutes on a 2-core machine" in text


def test_the_layout_example_shows_what_the_env_says():
    """docs/game_api.md's observation-layout example, as the env prints it."""
    from city_envs import citadels_v0

    env = citadels_v0.env(num_players=4)
    env.reset(seed=0)
    layout = env.observation_layout()
    seats = layout["seats"].view(env.observe(env.agent_selection)["observation"])
    text = (ROOT / "docs" / "game_api.md").read_text()
    assert f'names.index("self.gold")  # {env.feature_names().index("self.gold")}: ' in text
    assert f"for block in layout:  # {', '.join(block.name for block in layout)}\n" in text
    assert f'seats = layout["seats"].view(obs["observation"])  # {seats.shape}: ' in text
