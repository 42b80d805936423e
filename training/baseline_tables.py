"""The tables of the committed baselines, written from their JSON, never typed by hand.

In the README, per player count (2 and 4) one table: the policy's win rates against random seats and
against the heuristic (`training/baselines/<game>_<n>p.json`, written by `publish_baseline`), the point
of its run that became the policy, and the heuristic's own win rate against random seats on the same
seed as a reference (`<game>_<n>p_reference.json`, written by `measure_reference`): sections
`<!-- tables:baselines-2p -->` and `<!-- tables:baselines-4p -->`. In docs/training.md, one table of how
each was made (`<!-- tables:baseline-runs -->`): its warm start and PPO times, its curve, its pick, and
above it the same for each policy it continued (`training/lineage.py`).
`city-envs baseline --tables` fills the sections of both pages (or of the pages it names);
`city-envs baseline GAME` and `city-envs baseline GAME --reference` rewrite them after publishing.
"""

from __future__ import annotations

import json
from pathlib import Path

from city_envs.agents.policy_agent import baseline_stem
from city_envs.core.markdown import section_names, write_sections
from city_envs.core.registry import GAMES
from city_envs.core.settings import read_document, read_toml
from city_envs.training.evaluation import evaluate_agent
from city_envs.training.lineage import lineage_chain

PLAYER_COUNTS = (2, 4)
README_SECTIONS = tuple(f"baselines-{players}p" for players in PLAYER_COUNTS)
RUNS_SECTION = "baseline-runs"
SECTIONS = (*README_SECTIONS, RUNS_SECTION)
# the pages beside the `training/` folder: present in a checkout (editable install), absent in a wheel
README = Path(__file__).resolve().parent.parent / "README.md"
TRAINING_DOC = README.parent / "docs" / "training.md"
PAGES = (README, TRAINING_DOC)


def reference_path(game: str, players: int) -> Path:
    return baseline_stem(game, players).with_name(f"{game}_{players}p_reference.json")


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
    return ", ".join([label, *_notes(config)])


def _notes(config: dict) -> list[str]:
    """What sets a run's config apart, in the tables' words."""
    return (
        ["entity head"] * bool(config.get("entity_head"))
        + ["lead reward"] * (config.get("reward") == "lead")
        + ["privileged critic"] * bool(config.get("privileged_critic"))
        + ["continues the previous policy"] * bool(config.get("init_from"))
    )


def _name(game: str) -> str:
    return game.replace("_", " ").title()


def baseline_table(players: int) -> str:
    records = [json.loads(baseline_stem(game, players).with_suffix(".json").read_text()) for game in GAMES]
    references = [json.loads(reference_path(game, players).read_text())["evaluation"]["random"] for game in GAMES]
    configs = [read_toml(baseline_stem(game, players).with_suffix(".toml")) for game in GAMES]
    games = records[0]["evaluation"]["random"]["games"]
    rows = {
        "policy vs random": [_rate(r["evaluation"]["random"], games) for r in records],
        "policy vs heuristic": [_rate(r["evaluation"]["heuristic"], games) for r in records],
        "policy (stage)": [stage_label(r, c) for r, c in zip(records, configs, strict=True)],
        "heuristic vs random (reference)": [_rate(r, games) for r in references],
    }
    names = [_name(game) for game in GAMES]
    lines = [
        f"| {players} players, {games} matches each | " + " | ".join(names) + " |",
        "|---" * (len(GAMES) + 1) + "|",
    ]
    lines += [f"| {row} | " + " | ".join(cells) + " |" for row, cells in rows.items()]
    return "\n".join(lines)


def _minutes(seconds: float) -> str:
    return f"{round(seconds)} s" if seconds < 120 else f"{round(seconds / 60)} min"


def _share(rate: float) -> str:
    """A curve point's win rate as measured (a share of 40 or 100 matches, ties split), at least 2 decimals."""
    decimals = len(f"{rate:.4f}".rstrip("0").split(".")[1])
    return f"{rate:.{max(2, decimals)}f}"


def run_label(game: str, players: int, config: dict) -> str:
    name = f"{_name(game)} {players}p"
    return f"{name} ({', '.join(_notes(config))})" if _notes(config) else name


def curve_cell(record: dict) -> str:
    """The curve's points by stage (`clone`, `DAgger` rounds, `PPO` steps), the one that became the policy in bold."""
    chosen = record.get("selected") or record["curve"][-1]
    groups: list[tuple[str, list[str]]] = []
    for point in record["curve"]:
        stage = point["stage"]
        group = "DAgger" if stage.startswith("dagger") else "PPO" if stage == "ppo" else stage
        cell = f"{_share(point['win_rate_vs_heuristic'])}/{_share(point['win_rate_vs_random'])}"
        if stage == "ppo":
            cell = f"{_steps(point['step'])} {cell}"
        if (stage, point["step"]) == (chosen["stage"], chosen["step"]):
            cell = f"**{cell}**"
        if groups and groups[-1][0] == group:
            groups[-1][1].append(cell)
        else:
            groups.append((group, [cell]))
    return "; ".join(f"{group} {', '.join(cells)}" for group, cells in groups)


def runs_table() -> str:
    """How each committed baseline was made: its times, the matches of each curve point, its curve."""
    lines = [
        "| run | warm start | PPO | matches a point | curve: vs heuristic / vs random |",
        "|---|---|---|---|---|",
    ]
    for players in PLAYER_COUNTS:
        for game in GAMES:
            chain = lineage_chain(baseline_stem(game, players))
            lines += [run_row(game, players, path, continued=path != chain[-1]) for path in chain]
    return "\n".join(lines)


def run_row(game: str, players: int, path: Path, continued: bool) -> str:
    """One run's row from its record and config (`path` without their suffix); `continued`: an earlier
    policy of the baseline, the start of the next row."""
    record, config = json.loads(path.with_suffix(".json").read_text()), read_toml(path.with_suffix(".toml"))
    training = record["training"]
    ppo = "—"
    if training.get("timesteps"):
        total, timed = training["timesteps"], training.get("ppo_timed_steps", training["timesteps"])
        timing = f"{_minutes(training['ppo_seconds'])}, {training['ppo_steps_per_s']:,.0f} steps/s"
        if timed == total:
            ppo = f"{_steps(total)} steps, {timing}"
        elif timed:  # resumed: the seconds are its last sitting's
            ppo = f"{_steps(total)} steps; its last sitting {_steps(timed)} in {timing}"
        else:
            ppo = f"{_steps(total)} steps, timed in no sitting"
    games = sorted({p[f"games_vs_{side}"] for p in record["curve"] for side in ("heuristic", "random")})
    cells = [
        run_label(game, players, config) + ", the start of the next row" * continued,
        _minutes(training["warm_start_seconds"]) if "warm_start_seconds" in training else "—",
        ppo,
        str(games[0]) if len(games) == 1 else f"{games[0]}-{games[-1]}",
        curve_cell(record),
    ]
    return "| " + " | ".join(cells) + " |"


def baseline_tables() -> dict[str, str]:
    tables = {f"baselines-{players}p": baseline_table(players) for players in PLAYER_COUNTS}
    return {**tables, RUNS_SECTION: runs_table()}


def write_baseline_tables(page: str | Path) -> list[str]:
    """Fill those of the baseline sections the page has from the committed JSON (one ValueError if it has
    none), leaving its other sections alone; the names of the sections filled."""
    names = [name for name in section_names(read_document(page)) if name in SECTIONS]
    if not names:
        raise ValueError(f"{page} has no {' or '.join(f'<!-- tables:{name} -->' for name in SECTIONS)} section to fill")
    try:
        tables = baseline_tables()
    except (OSError, KeyError, TypeError, IndexError, ValueError) as error:
        raise ValueError(
            f"a committed baseline record is missing or incomplete ({type(error).__name__}: {error}); nothing written"
        ) from None
    return write_sections(page, {name: tables[name] for name in names})
