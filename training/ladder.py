"""The strength ladder: one arena run per game and player count, gathered into one Markdown table.

    python -m training.ladder --games 100 --jobs 2 --out runs/ladder
    python -m training.ladder --game citadels --players 2 --games 40 --out runs/ladder

Each run plays the rungs (random, heuristic, ISMCTS at two budgets) against each other with the
arena's schedule, so every pair meets in every seat equally often; `leaderboard.md` in the output
folder lists, per game and player count, each rung's OpenSkill rating and win rate with its 95%
interval, and every run's full reports sit in a subfolder.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from city_envs import GAMES
from training.arena import evaluate, write_reports

RUNGS = ("random", "heuristic", "ismcts:iters=25", "ismcts:iters=100")
# player counts per game: 2, and the count the game is most often played at
PLAYER_COUNTS = {"citadels": (2, 4), "metropolys": (2, 4), "blue_moon_city": (2, 4), "big_city": (2, 4),
                 "urban_sprawl": (2, 4)}


def leaderboard_rows(result: dict) -> list[str]:
    rows = []
    for agent, rating in sorted(result["ratings"].items(), key=lambda item: -item[1]["ordinal"]):
        low, high = result["win_rate_ci95"][agent]
        rows.append(f"| {result['game']} | {result['num_players']} | {agent} | {rating['mu']:.1f} ± "
                    f"{rating['sigma']:.1f} | {result['win_rate'][agent]:.3f} ({low:.3f}-{high:.3f}) |")
    return rows


def run(games: list[str], counts: dict[str, tuple[int, ...]], rungs: list[str], matches: int, seed: int,
        jobs: int, out: Path) -> Path:
    lines = ["| game | players | agent | rating (mu ± sigma) | win rate (95% CI) |", "|---|---|---|---|---|"]
    for game in games:
        for n in counts[game]:
            result = evaluate(game, n, rungs, matches, seed, jobs=jobs)
            write_reports(result, out / f"{game}_{n}p")
            rows = leaderboard_rows(result)
            if result["failures"]:
                rows.append(f"| {game} | {n} | ({len(result['failures'])} failed matches, see report.md) | | |")
            print("\n".join(rows), flush=True)
            lines += rows
    path = out / "leaderboard.md"
    header = f"Ladder: {matches} matches per game and player count, seed {seed}, rungs {', '.join(rungs)}.\n\n"
    path.write_text(header + "\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, help="one game (default: every game)")
    parser.add_argument("--players", type=int, help="one player count (default: 2 and the typical count)")
    parser.add_argument("--rungs", default=",".join(RUNGS), help="comma-separated agents")
    parser.add_argument("--games", type=int, default=100, help="matches per game and player count")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="runs/ladder")
    args = parser.parse_args(argv)
    games = [args.game] if args.game else list(GAMES)
    counts = {g: (args.players,) if args.players else PLAYER_COUNTS.get(g, (2,)) for g in games}
    path = run(games, counts, args.rungs.split(","), args.games, args.seed, args.jobs, Path(args.out))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
