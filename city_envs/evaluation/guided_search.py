"""Strength and cost per decision of network-guided ISMCTS, against the heuristic, the network alone and
rollout ISMCTS.

    python -m city_envs.evaluation.guided_search --game metropolys --players 2 --games 40 --out runs/guided
    python -m city_envs.evaluation.guided_search --jobs 2 --out runs/guided     # every game, 2 and 4 players

Strength: per game and player count, one arena run per opponent (`heuristic`, `ppo`, rollout ISMCTS):
the guided search in one seat, the opponent in every other, seat-rotated and seeded as `city-envs
evaluate` plays them; the guided search's win rate with its Wilson 95% interval (chance is 1/players).
Each run's matches are logged under `<out>/<game>_<n>p/<opponent>/`, so a stopped measurement resumes.

Cost: `--timing-matches` more matches played in this process, the four agents taking the seats in turn,
every decision with two legal moves or more timed in CPU time (process time, which a machine busy with
other work does not inflate, unlike the wall clock); the mean milliseconds per such decision of each.

`<out>/results.json` gathers every figure and `<out>/report.md` tabulates it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from city_envs import GAMES, make_game
from city_envs.agents.registry import make_agent, prepare_agents
from city_envs.core import progress
from city_envs.core.infoset import InfoSet
from city_envs.evaluation.arena import evaluate

GUIDED = "ismcts:net=ppo:iters=100"
ROLLOUT = "ismcts:iters=50:bias=3"  # the rollout search as issue 26 measured it
PLAYER_COUNTS = (2, 4)
HEADER = (
    "| game | players | vs heuristic | vs ppo | vs rollout ISMCTS | ms/decision: guided | rollout ISMCTS | ppo | "
    "heuristic |\n|---|---|---|---|---|---|---|---|---|"
)


def opponents(rollout: str) -> dict[str, str]:
    """Line-up name -> the agent in every other seat."""
    return {"heuristic": "heuristic", "ppo": "ppo", "rollout": rollout}


def strength(game: str, players: int, guided: str, opponent: str, matches: int, seed: int, jobs: int, out: Path):
    """The guided search's win rate and Wilson 95% interval in one seat against `opponent` in the others."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "matches.jsonl"
    kinds = [guided] + [opponent] * (players - 1)
    result = evaluate(game, players, kinds, matches, seed, jobs=jobs, log=log, resume=log.is_file())
    (out / "results.json").write_text(json.dumps(result, indent=1))
    row = result["agents"][guided]
    return {
        "win_rate": row["win_rate"],
        "ci95": [row["ci_low"], row["ci_high"]],
        "matches": matches,
        "failures": row["failures"],
    }


def cost(game: str, players: int, specs: list[str], matches: int, seed: int) -> dict[str, dict]:
    """Mean CPU milliseconds per decision with a choice, of each agent in `specs`, over `matches` matches
    in which they take the seats in turn (match k seats specs[k], specs[k + 1], ... cyclically)."""
    spent = {spec: 0.0 for spec in specs}
    decisions = {spec: 0 for spec in specs}
    for k in range(matches):
        match = make_game(game, players, seed=seed + k)
        seated = [specs[(k + s) % len(specs)] for s in range(players)]
        agents = [make_agent(spec, game, seed + 1000 * k + s) for s, spec in enumerate(seated)]
        prepare_agents(agents, match)
        while not match.is_over():
            seat = match.current_player()
            choice = len(match.legal_action_ids()) > 1
            started = time.process_time()
            action = agents[seat].act(InfoSet(match, seat))
            if choice:
                spent[seated[seat]] += time.process_time() - started
                decisions[seated[seat]] += 1
            match.apply(action)
    return {
        spec: {"ms_per_decision": 1000 * spent[spec] / decisions[spec] if decisions[spec] else None, "decisions": n}
        for spec, n in decisions.items()
    }


def cell(figures: dict | None) -> str:
    if figures is None:
        return "—"
    low, high = figures["ci95"]
    return f"{figures['win_rate']:.2f} ({low:.2f}-{high:.2f})"


def ms(figures: dict) -> str:
    value = figures["ms_per_decision"]
    return "—" if value is None else f"{value:.1f}"


def report(results: dict) -> str:
    rows = [HEADER]
    for task in results["tasks"]:
        lineups, costs = task["strength"], task["cost"]
        rows.append(
            f"| {task['game']} | {task['players']} | "
            + " | ".join(cell(lineups.get(name)) for name in ("heuristic", "ppo", "rollout"))
            + " | "
            + " | ".join(ms(costs[spec]) for spec in (results["guided"], results["rollout"], "ppo", "heuristic"))
            + " |"
        )
    settings = (
        f"Guided: `{results['guided']}`; rollout ISMCTS: `{results['rollout']}`; {results['matches']} matches "
        f"per line-up (seed {results['seed']}), win rates of the guided search with Wilson 95% intervals; "
        f"cost over {results['timing_matches']} timed matches per task, CPU ms per decision with a choice."
    )
    return "\n".join([settings, "", *rows, ""])


def run(
    tasks: list[tuple[str, int]],
    guided: str,
    rollout: str,
    matches: int,
    timing_matches: int,
    seed: int,
    jobs: int,
    out: Path,
    lineups: list[str],
) -> Path:
    results: dict = {
        "guided": guided,
        "rollout": rollout,
        "matches": matches,
        "timing_matches": timing_matches,
        "seed": seed,
        "tasks": [],
    }
    for game, players in tasks:
        folder = out / f"{game}_{players}p"
        figures = {
            name: strength(game, players, guided, agent, matches, seed, jobs, folder / name)
            for name, agent in opponents(rollout).items()
            if name in lineups
        }
        timing = cost(game, players, [guided, rollout, "ppo", "heuristic"], timing_matches, seed)
        results["tasks"].append({"game": game, "players": players, "strength": figures, "cost": timing})
        (out / "results.json").write_text(json.dumps(results, indent=1))
        (out / "report.md").write_text(report(results))
    return out / "report.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, help="one game (default: every game)")
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, help="one player count (default: 2 and 4)")
    parser.add_argument("--guided", default=GUIDED, help="the guided search's spec")
    parser.add_argument("--rollout", default=ROLLOUT, help="the rollout search's spec")
    parser.add_argument(
        "--lineups", default="heuristic,ppo,rollout", help="opponents to measure strength against (comma-separated)"
    )
    parser.add_argument("--games", type=int, default=40, help="matches per line-up")
    parser.add_argument("--timing-matches", type=int, default=4, help="timed matches per game and player count")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="runs/guided")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    lineups = args.lineups.split(",")
    if not set(lineups) <= set(opponents(args.rollout)):
        parser.error(f"--lineups: choose among {', '.join(opponents(args.rollout))}, not {args.lineups!r}")
    if args.games < 1 or args.timing_matches < 1 or args.jobs < 1:
        parser.error("--games, --timing-matches and --jobs must be >= 1")
    games = [args.game] if args.game else list(GAMES)
    counts = [args.players] if args.players else list(PLAYER_COUNTS)
    tasks = [(game, n) for game in games for n in counts]
    try:
        for game, n in tasks:  # a bad spec or a missing network stops the run before any match
            for spec in (args.guided, args.rollout, "ppo"):
                prepare_agents([make_agent(spec, game, 0)], make_game(game, n, seed=0))
    except ValueError as error:
        parser.error(str(error))
    started = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with progress.showing(not args.quiet):
        path = run(
            tasks, args.guided, args.rollout, args.games, args.timing_matches, args.seed, args.jobs, out, lineups
        )
    print(f"wrote {path}; took {progress.format_duration(time.time() - started)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
