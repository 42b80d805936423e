"""Every figure in README.md comes from a committed JSON: the baseline tables are what `city-envs baseline
--tables` writes from `training/baselines/`, and each figure in its prose is checked against its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from city_envs.agents.policy_agent import baseline_path
from city_envs.cli import main
from city_envs.core.markdown import fill, section_names
from city_envs.core.registry import GAMES
from city_envs.core.settings import read_toml
from city_envs.training.baseline_tables import PLAYER_COUNTS, SECTIONS, baseline_tables, reference_path
from city_envs.training.evaluation import evaluate_agent

ROOT = Path(__file__).resolve().parents[1]
TASKS = [(game, players) for game in GAMES for players in PLAYER_COUNTS]


def readme() -> str:
    return (ROOT / "README.md").read_text()


def words(text: str) -> str:
    """The text with every run of white space one space: prose wraps anywhere."""
    return " ".join(text.split())


def stale_tables(page: str) -> bool:
    return fill(page, baseline_tables()) != page


def test_the_readme_baseline_tables_are_the_committed_json():
    page = readme()
    assert set(SECTIONS) <= set(section_names(page))
    assert not stale_tables(page), "run `city-envs baseline --tables README.md`"


@pytest.mark.parametrize(("old", "new"), [("0.", "0.9"), ("ppo ", "dagger "), ("-1.000)", "-0.999)")])
def test_a_table_figure_edited_by_hand_is_caught(old, new):
    page = readme()
    start = page.index("<!-- tables:baselines-4p -->")
    edited = page[:start] + page[start:].replace(old, new, 1)
    assert edited != page and stale_tables(edited)


def test_each_reference_is_the_heuristic_against_random_on_the_baselines_matches():
    for game, players in TASKS:
        reference = json.loads(reference_path(game, players).read_text())
        baseline = json.loads(baseline_path(game, players).with_suffix(".json").read_text())
        assert (reference["game"], reference["players"], reference["agent"]) == (game, players, "heuristic")
        assert reference["eval_seed"] == baseline["eval_seed"]
        assert set(reference["evaluation"]) == {"random"}
        figures = reference["evaluation"]["random"]
        assert figures["games"] == baseline["evaluation"]["random"]["games"] and figures["failures"] == 0


def test_the_readme_prose_names_the_baselines_matches_and_seed():
    records = [json.loads(baseline_path(g, n).with_suffix(".json").read_text()) for g, n in TASKS]
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


def test_baseline_tables_writes_a_page_and_refuses_one_without_its_sections(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text(
        "intro\n<!-- tables:baselines-2p -->\nold\n<!-- /tables:baselines-2p -->\n"
        "<!-- tables:baselines-4p -->\n<!-- /tables:baselines-4p -->\noutro\n"
    )
    assert main(["baseline", "--tables", str(page)]) == 0
    text = page.read_text()
    assert "old" not in text and all(table in text for table in baseline_tables().values())
    page.write_text("<!-- tables:baselines-2p -->\n<!-- /tables:baselines-2p -->\n")
    assert main(["baseline", "--tables", str(page)]) == 2
    assert "has no <!-- tables:baselines-4p --> section to fill" in capsys.readouterr().err
    assert main(["baseline", "citadels", "--tables", str(page)]) == 2
    assert main(["baseline"]) == 2
    assert "name a game, or write the README's tables with --tables README.md" in capsys.readouterr().err


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


def test_the_readme_layout_example_shows_what_the_env_says():
    from city_envs import citadels_v0

    env = citadels_v0.env(num_players=4)
    env.reset(seed=0)
    layout = env.observation_layout()
    seats = layout["seats"].view(env.observe(env.agent_selection)["observation"])
    text = readme()
    assert f'names.index("self.gold")  # {env.feature_names().index("self.gold")}: ' in text
    assert f"for block in layout:  # {', '.join(block.name for block in layout)}\n" in text
    assert f'seats = layout["seats"].view(obs["observation"])  # {seats.shape}: ' in text
