"""The README's tables of the committed baselines, written from their JSON, never typed by hand.

Per player count (2 and 4) one table: the policy's win rates against random seats and against the
heuristic (`training/baselines/<game>_<n>p.json`, written by `publish_baseline`), the point of its run
that became the policy, and the heuristic's own win rate against random seats on the same seed as a
reference (`<game>_<n>p_reference.json`, written by `measure_reference`). `city-envs baseline --tables
README.md` fills the page's `<!-- tables:baselines-2p -->` and `<!-- tables:baselines-4p -->` sections;
`city-envs baseline GAME` and `city-envs baseline GAME --reference` rewrite them after publishing.
"""

from __future__ import annotations

import json
from pathlib import Path

from city_envs.agents.policy_agent import baseline_path
from city_envs.core.markdown import write_sections
from city_envs.core.registry import GAMES
from city_envs.core.settings import read_toml
from city_envs.training.evaluation import evaluate_agent

PLAYER_COUNTS = (2, 4)
SECTIONS = tuple(f"baselines-{players}p" for players in PLAYER_COUNTS)
# the README beside the `training/` folder: present in a checkout (editable install), absent in a wheel
README = Path(__file__).resolve().parent.parent / "README.md"


def reference_path(game: str, players: int) -> Path:
    return baseline_path(game, players).with_name(f"{game}_{players}p_reference.json")


def measure_reference(game: str, players: int, games: int = 400, seed: int = 1000, jobs: int = 1) -> dict:
    """The heuristic against random seats on the baselines' evaluation seed, written beside the baseline:
    what the policy's figure against random is to be read against (even the heuristic loses some)."""
    evaluation = evaluate_agent("heuristic", game, players, games, seed, jobs, opponents=("random",), label="reference")
    if evaluation["random"]["failures"]:
        raise RuntimeError(f"failed reference matches ({evaluation['random']['failures']}): nothing written")
    record = {
        "game": game,
        "players": players,
        "eval_seed": seed,
        "agent": "heuristic",
        "command": f"city-envs baseline {game} --players {players} --reference --games {games} --eval-seed {seed}",
        "evaluation": evaluation,
    }
    reference_path(game, players).write_text(json.dumps(record, indent=2) + "\n")
    return record


def _rate(result: dict, games: int) -> str:
    low, high = result["ci95"]
    cell = f"{result['win_rate']:.3f} ({low:.3f}-{high:.3f})"
    return cell if result["games"] == games else f"{cell}, {result['games']} matches"


def _steps(step: int) -> str:
    return f"{step / 1e6:.1f}M" if step >= 1_000_000 else f"{round(step / 1000)}k"


def stage_label(record: dict, config: dict) -> str:
    """The run's point that became the policy (the selected one, else the last), and what set it apart."""
    point = record.get("selected") or record["curve"][-1]
    label = f"ppo {_steps(point['step'])}" if point["stage"] == "ppo" else point["stage"]
    if config.get("entity_head"):
        label += ", entity head"
    if config.get("reward") == "lead":
        label += ", lead reward"
    return label


def baseline_table(players: int) -> str:
    records = [json.loads(baseline_path(game, players).with_suffix(".json").read_text()) for game in GAMES]
    references = [json.loads(reference_path(game, players).read_text())["evaluation"]["random"] for game in GAMES]
    configs = [read_toml(baseline_path(game, players).with_suffix(".toml")) for game in GAMES]
    games = records[0]["evaluation"]["random"]["games"]
    rows = {
        "policy vs random": [_rate(r["evaluation"]["random"], games) for r in records],
        "policy vs heuristic": [_rate(r["evaluation"]["heuristic"], games) for r in records],
        "policy (stage)": [stage_label(r, c) for r, c in zip(records, configs, strict=True)],
        "heuristic vs random (reference)": [_rate(r, games) for r in references],
    }
    names = [game.replace("_", " ").title() for game in GAMES]
    lines = [
        f"| {players} players, {games} matches each | " + " | ".join(names) + " |",
        "|---" * (len(GAMES) + 1) + "|",
    ]
    lines += [f"| {row} | " + " | ".join(cells) + " |" for row, cells in rows.items()]
    return "\n".join(lines)


def baseline_tables() -> dict[str, str]:
    return {f"baselines-{players}p": baseline_table(players) for players in PLAYER_COUNTS}


def write_baseline_tables(page: str | Path = README) -> list[str]:
    """Fill the page's baseline sections from the committed JSON; the names of the sections filled."""
    try:
        tables = baseline_tables()
    except (OSError, KeyError, TypeError, IndexError, ValueError) as error:
        raise ValueError(
            f"a committed baseline record is missing or incomplete ({type(error).__name__}: {error}); nothing written"
        ) from None
    return write_sections(page, tables, required=SECTIONS)
