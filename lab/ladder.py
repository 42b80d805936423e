"""The strength ladder: one arena run per game and player count, gathered into one Markdown table.

    python -m lab.ladder --jobs 2 --out runs/ladder          # docs/leaderboard.md
    python -m lab.ladder --game citadels --players 2 --games 40 --out runs/ladder
    python -m lab.ladder --games 2:96,4:24 --out runs/ladder   # matches per player count

Each run plays the rungs (random, heuristic, ISMCTS at two budgets) against each other with the
arena's schedule, so every pair meets in every seat equally often, and writes its full reports to
`<out>/<game>_<n>p/`. A run whose reports already exist for the same rungs, match count and seed is
not played again, so an interrupted ladder picks up where it stopped, and runs of different sizes
(say 2 players with more matches than 4) can be made by separate calls into one folder.
`leaderboard.md` then lists every run in the folder: per game and player count, each rung's
OpenSkill rating, win rate with its 95% interval, and how often it finished ahead of the heuristic.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from city_envs import GAMES
from city_envs.core import progress
from city_envs.evaluation.arena import evaluate
from city_envs.evaluation.reports import write_reports
from city_envs.evaluation.workers import Runner

RUNGS = ("random", "heuristic", "ismcts:iters=10", "ismcts:iters=50")
# games whose heuristic plays a match out fast enough for ISMCTS rollouts to go to the end; the others
# keep the agent's default cut (40 decisions, valued by score rank)
FULL_ROLLOUTS = ("citadels", "metropolys")
# player counts per game: 2, and the count the game is most often played at
PLAYER_COUNTS: dict[str, tuple[int, ...]] = {
    "citadels": (2, 4),
    "metropolys": (2, 4),
    "blue_moon_city": (2, 4),
    "big_city": (2, 4),
    "urban_sprawl": (2, 4),
}
# matches per player count by default: every pair of rungs meets 8 times at 2 players (4 in each
# seat), and each rung sits twice in each seat at 4; ISMCTS at 50 iterations takes about a minute a
# match in the slowest games on a 2-core machine, so more is a choice for a bigger one
DEFAULT_MATCHES = "2:48,4:8"
HEADER = (
    "| game | players | agent | rating (mu ± sigma) | win rate (95% CI) | ahead of heuristic | truncated |\n"
    "|---|---|---|---|---|---|---|"
)


def leaderboard_rows(result: dict) -> list[str]:
    """One row per rung, best rating first; `ahead of heuristic` is the share of the matches it shared
    with the heuristic in which it finished ahead (ties count half)."""
    rows = []
    for agent, rating in sorted(result["ratings"].items(), key=lambda item: -item[1]["ordinal"]):
        low, high = result["win_rate_ci95"][agent]
        versus = result["pairwise"].get(agent, {}).get("heuristic")
        ahead = "—" if versus is None else f"{versus:.3f}"
        truncated = result["agents"][agent]["truncations"]
        rows.append(
            f"| {result['game']} | {result['num_players']} | {agent} | {rating['mu']:.1f} ± "
            f"{rating['sigma']:.1f} | {result['win_rate'][agent]:.3f} ({low:.3f}-{high:.3f}) | {ahead} | "
            f"{truncated} |"
        )
    if result["failures"]:
        rows.append(
            f"| {result['game']} | {result['num_players']} | ({len(result['failures'])} failed matches, "
            "see report.md) | | | | |"
        )
    return rows


def game_rungs(game: str, rungs: list[str]) -> list[str]:
    """The rungs as played in `game`: ISMCTS rollouts to the end where `FULL_ROLLOUTS` says so."""
    if game not in FULL_ROLLOUTS:
        return list(rungs)
    return [f"{r}:max_rollout=none" if r.startswith("ismcts") and "max_rollout" not in r else r for r in rungs]


def _finished(path: Path, rungs: list[str], matches: int, seed: int) -> dict | None:
    """The saved results of a run with these settings, if one is there."""
    if not path.exists():
        return None
    result = json.loads(path.read_text())
    same = result.get("lineup") == rungs and result.get("games") == matches and result.get("seed") == seed
    return result if same else None


def parse_matches(text: str) -> dict[int, int] | int:
    """`--games`: one number for every player count, or `count:matches` pairs such as `2:48,4:8`."""
    try:
        if ":" not in text:
            matches: dict[int, int] | int = int(text)
        else:
            matches = {int(count): int(number) for count, number in (item.split(":") for item in text.split(","))}
    except ValueError:
        raise ValueError(f"--games {text!r}: give a number, or count:matches pairs such as 2:48,4:8") from None
    if min(matches.values() if isinstance(matches, dict) else [matches]) < 1:
        raise ValueError(f"--games {text!r}: every number of matches must be at least 1")
    return matches


def matches_for(matches: dict[int, int] | int, num_players: int) -> int:
    if isinstance(matches, int):
        return matches
    if num_players not in matches:
        raise ValueError(f"--games names no match count for {num_players} players (it has {sorted(matches)})")
    return matches[num_players]


def run(
    games: list[str],
    counts: dict[str, tuple[int, ...]],
    rungs: list[str],
    matches: dict[int, int] | int,
    seed: int,
    jobs: int,
    out: Path,
) -> Path:
    """Play (or reuse) every game and player count's run, then write `leaderboard.md`; a progress bar
    counts the matches of the whole ladder."""
    total = sum(matches_for(matches, n) for game in games for n in counts[game])
    with progress.stage("ladder", total, "matches") as bar:
        for game in games:
            for n in counts[game]:
                run_dir = out / f"{game}_{n}p"
                played = matches_for(matches, n)
                if _finished(run_dir / "results.json", game_rungs(game, rungs), played, seed) is not None:
                    print(f"{game} {n}p: reusing {run_dir}", flush=True)
                    bar.advance(played)
                    continue
                result = evaluate(game, n, game_rungs(game, rungs), played, seed, Runner(jobs))
                write_reports(result, run_dir)
                print("\n".join(leaderboard_rows(result)), flush=True)
    return write_leaderboard(out)


def rung_label(game: str, agent: str) -> str:
    """The rung an agent of `game`'s run stands for (`game_rungs` undone), so games share a row."""
    return agent.removesuffix(":max_rollout=none") if game in FULL_ROLLOUTS else agent


def summary_tables(results: list[dict]) -> list[str]:
    """Per player count, a rung-by-game table: OpenSkill mu · win rate · share ahead of the heuristic."""
    lines = []
    for count in sorted({r["num_players"] for r in results}):
        runs = [r for r in results if r["num_players"] == count]
        cells: dict[str, dict[str, str]] = {}
        for result in runs:
            for agent, rating in result["ratings"].items():
                versus = result["pairwise"].get(agent, {}).get("heuristic")
                ahead = "—" if versus is None else f"{versus:.2f}"
                cells.setdefault(rung_label(result["game"], agent), {})[result["game"]] = (
                    f"{rating['mu']:.1f} · {result['win_rate'][agent]:.2f} · {ahead}"
                )
        lines += [
            "",
            f"| {count} players: mu · win rate · ahead of heuristic | "
            + " | ".join(f"{r['game']} ({r['games']})" for r in runs)
            + " |",
            "|---" * (len(runs) + 1) + "|",
        ]
        for label, row in cells.items():
            lines.append(f"| {label} | " + " | ".join(row.get(r["game"], "") for r in runs) + " |")
    return lines


def write_leaderboard(out: Path) -> Path:
    """`leaderboard.md` from every run folder in `out`, in the registry's game order: a summary table
    per player count, then every run's rows in full."""
    order = {name: i for i, name in enumerate(GAMES)}
    results = [json.loads(p.read_text()) for p in out.glob("*_*p/results.json")]
    results.sort(key=lambda r: (order.get(r["game"], len(order)), r["num_players"]))
    lines = ["# Strength ladder", *summary_tables(results), "", HEADER]
    for result in results:
        lines.append(
            f"| **{result['game']}** | {result['num_players']} | *{result['games']} matches, seed "
            f"{result['seed']}, mean length {result['mean_length']:.0f} decisions* | | | | |"
        )
        lines += leaderboard_rows(result)
    path = out / "leaderboard.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, help="one game (default: every game)")
    parser.add_argument("--players", type=int, help="one player count (default: 2 and the typical count)")
    parser.add_argument("--rungs", default=",".join(RUNGS), help="comma-separated agents")
    parser.add_argument(
        "--games", default=DEFAULT_MATCHES, help="matches per game and player count: a number, or count:matches pairs"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="runs/ladder")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    games = [args.game] if args.game else list(GAMES)
    counts: dict[str, tuple[int, ...]] = {
        g: (args.players,) if args.players else PLAYER_COUNTS.get(g, (2,)) for g in games
    }
    try:
        matches = parse_matches(args.games)
        for game in games:
            for n in counts[game]:
                matches_for(matches, n)
    except ValueError as error:
        parser.error(str(error))
    started = time.time()
    with progress.showing(not args.quiet):
        path = run(games, counts, args.rungs.split(","), matches, args.seed, args.jobs, Path(args.out))
    print(f"wrote {path}; the ladder took {progress.format_duration(time.time() - started)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
