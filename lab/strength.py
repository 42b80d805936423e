"""Issue 45's strength goal: the strongest bot of each game, at most one second a decision on one core,
against the heuristic.

The goal, per game: at 2 players against the heuristic, the lower bound of the bot's win rate above 0.5;
at 4 players against three heuristics, a win rate of at least 0.35. Each task is 400 seat-rotated matches
(`city-envs evaluate` with the bot in one seat and the heuristic in every other) on a seed that no training
run and no choice of settings used. The bots, that seed and the match counts are data: `lab/strength.toml`,
which also says on which seed the bots were chosen.

Cost: `timing_matches` more matches per task, the bot in each seat in turn against heuristics, every
decision of the bot with two legal moves or more timed in CPU time (process time); the mean and the
largest milliseconds per such decision, and the machine's load average around the timing. A task meets the
goal only if its largest decision took at most one second (`MAX_MS`): a bot's budget is in iterations, so
that its moves do not depend on the machine's load, and the timing shows the budget fits in the second.
CPU time is not inflated by waiting for a core, but it still grows when other work shares the core's caches:
`--retime` times a task again (on a quiet machine, say), keeping the earlier timings in the JSON.

    python -m lab.strength --jobs 2 --out runs/strength            # every game, 2 and 4 players
    python -m lab.strength --game citadels --players 4 --out runs/strength
    python -m lab.strength --from-json benchmarks/strength/results.json --doc docs/leaderboard.md

Each task's matches are logged under `<out>/<game>_<n>p/`, so a stopped run resumes where it stopped;
`<out>/results.json` is rewritten after each task's matches and timing. Runs of other tasks may share a
folder at the same time: each save adds what the others saved since (under a lock on the folder). A run
into a folder that holds results of other settings is refused. The figures reach the docs only from that
JSON (`--doc PAGE` fills the page's `<!-- tables:strength-goal -->` section).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shlex
import sys
import time
from pathlib import Path

from city_envs import GAMES, make_game
from city_envs.agents.registry import make_agent, prepare_agents
from city_envs.core import progress
from city_envs.core.files import write_text_whole
from city_envs.core.infoset import InfoSet
from city_envs.core.markdown import link_from, write_sections
from city_envs.core.settings import read_document, read_toml
from lab.doc_option import add_doc_options, write_from_json
from lab.guided_search import strength

SETTINGS_FILE = Path(__file__).with_name("strength.toml")
SECTION = "strength-goal"  # the page's <!-- tables:strength-goal --> section
PLAYER_COUNTS = (2, 4)
GOAL_2P_LOWER_BOUND = 0.5  # at 2 players: the win rate's 95% lower bound above this
GOAL_4P_WIN_RATE = 0.35  # at 4 players, against three heuristics: the win rate at least this
MAX_MS = 1000.0  # one second of CPU a decision, on one core
SETTINGS = ("seed", "matches", "timing_matches")  # one results file, one value of each


def load_settings(path: Path = SETTINGS_FILE) -> dict:
    """The bots ((game, players) -> agent spec), the seed and the match counts of the measurement, checked.
    In the file, a game's bot is one spec for both player counts, or a table of one spec per count
    (`metropolys = { 2 = "...", 4 = "..." }`)."""
    data = read_toml(path)
    settings = {key: data.get(key) for key in SETTINGS}
    named = data.get("bots")
    if not isinstance(named, dict) or set(named) != set(GAMES):
        raise ValueError(f"{path}: [bots] names the bot of each of {', '.join(GAMES)}")
    bots = {}
    for game, spec in named.items():
        per_count = spec if isinstance(spec, dict) else {str(n): spec for n in PLAYER_COUNTS}
        if set(per_count) != {str(n) for n in PLAYER_COUNTS} or not all(isinstance(v, str) for v in per_count.values()):
            raise ValueError(f"{path}: the bot of {game} is one agent spec, or one for each of 2 and 4 players")
        bots.update({(game, int(n)): value for n, value in per_count.items()})
    settings["bots"] = bots
    for key in ("seed", "matches", "timing_matches"):
        if not isinstance(settings[key], int) or settings[key] < (1 if key == "matches" else 0):
            raise ValueError(f"{path}: {key} must be a whole number (matches >= 1, the others >= 0)")
    return settings


def cost(game: str, players: int, bot: str, matches: int, seed: int) -> dict:
    """The bot's mean and largest CPU milliseconds per decision with a choice, over `matches` matches
    against heuristics in every other seat, the bot in seat k % players in match k."""
    times: list[float] = []
    load = os.getloadavg()[0]
    for k in range(matches):
        match = make_game(game, players, seed=seed + k)
        mine = k % players
        agents = [make_agent(bot if s == mine else "heuristic", game, seed + 1000 * k + s) for s in range(players)]
        prepare_agents(agents, match)
        while not match.is_over():
            seat = match.current_player()
            timed = seat == mine and len(match.legal_action_ids()) > 1
            started = time.process_time()
            action = agents[seat].act(InfoSet(match, seat))
            if timed:
                times.append(1000 * (time.process_time() - started))
            match.apply(action)
    return {
        "ms_per_decision": sum(times) / len(times) if times else None,
        "max_ms": max(times, default=None),
        "decisions": len(times),
        "load_average": round(max(load, os.getloadavg()[0]), 2),  # one-minute average, before or after
    }


def goal_met(task: dict) -> bool:
    """Whether a task's win rate meets the goal of its player count, its bot within the second a decision
    (a task not timed does not meet it)."""
    figures, largest = task["strength"], task.get("cost", {}).get("max_ms")
    if largest is None or largest > MAX_MS:
        return False
    if task["players"] == 2:
        return figures["ci95"][0] > GOAL_2P_LOWER_BOUND
    return figures["win_rate"] >= GOAL_4P_WIN_RATE


def _cell(figures: dict) -> str:
    low, high = figures["ci95"]
    failed = f", {figures['failures']} failed" if figures["failures"] else ""
    capped = f", {figures['truncated']} at the turn cap" if figures.get("truncated") else ""
    return f"{figures['win_rate']:.3f} ({low:.3f}-{high:.3f}) n={figures['matches']}{failed}{capped}"


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def report(results: dict) -> str:
    """The results as Markdown: the settings, a row per measured task with its goal, the tasks not measured."""
    columns = ["game", "players", "bot", "goal", "win rate vs heuristic (95% CI)", "met"]
    columns += ["CPU ms/decision", "max ms", "load"]
    rows = [f"| {' | '.join(columns)} |", f"|{'---|' * len(columns)}"]
    order = {game: i for i, game in enumerate(GAMES)}
    for task in sorted(results["tasks"], key=lambda t: (order.get(t["game"], len(order)), t["players"])):
        goal = f"lower bound > {GOAL_2P_LOWER_BOUND}" if task["players"] == 2 else f">= {GOAL_4P_WIN_RATE}"
        spent = task.get("cost", {})
        rows.append(
            f"| {task['game']} | {task['players']} | `{task['bot']}` | {goal} | {_cell(task['strength'])} | "
            f"{'yes' if goal_met(task) else '**no**'} | {_ms(spent.get('ms_per_decision'))} | "
            f"{_ms(spent.get('max_ms'))} | {spent.get('load_average', '—')} |"
        )
    settings = (
        f"Each bot in one seat, the heuristic in every other, {results['matches']} seat-rotated matches per task "
        f"on seed {results['seed']} (chance is 1/players); the win rate's Wilson 95% interval. Cost: the bot's "
        f"CPU milliseconds per decision with a choice over {results['timing_matches']} more matches per task "
        f"(mean and largest) and the machine's one-minute load average around that timing (— where it was not "
        f"recorded); a task meets the goal only if its largest decision took at most {MAX_MS / 1000:g} s."
    )
    done = {(task["game"], task["players"]) for task in results["tasks"]}
    missing = [f"{game} {n}p" for game in GAMES for n in PLAYER_COUNTS if (game, n) not in done]
    lines = [settings, "", *rows]
    if missing:
        lines += ["", f"Not measured yet: {', '.join(missing)}."]
    return "\n".join(lines) + "\n"


def load_results(path: str | Path) -> dict:
    """A results.json this measurement wrote; anything else is one ValueError naming the file."""
    try:
        results = json.loads(read_document(path))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error})") from None
    if not isinstance(results, dict) or results.get("measurement") != "strength" or "tasks" not in results:
        raise ValueError(f"{path} is not a strength results.json")
    try:
        report(results)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise ValueError(f"{path} is a malformed strength results.json ({type(error).__name__}: {error})") from None
    return results


def doc_section(results: dict, source: str | Path, page: str | Path) -> str:
    """The page's section: the report and a link to the JSON it was written from."""
    return f"{report(results)}\nEvery figure, with the commands that measured it: {link_from(page, source)}."


def write_doc(page: str | Path, source: str | Path) -> None:
    """Fill `page`'s section from the results file `source`."""
    write_sections(page, {SECTION: doc_section(load_results(source), source, page)}, (SECTION,))


def start_results(out: Path, settings: dict, command: str) -> dict:
    """`<out>/results.json` if it holds the same settings (one ValueError if not), else new results."""
    path = out / "results.json"
    if not path.exists():
        return {
            "measurement": "strength",
            **{key: settings[key] for key in SETTINGS},
            "commands": [command],
            "tasks": [],
        }
    results = load_results(path)
    differ = [key for key in SETTINGS if results.get(key) != settings[key]]
    if differ:
        raise ValueError(f"{path} holds a measurement with other {', '.join(differ)}: pass another --out")
    if command not in results.setdefault("commands", []):
        results["commands"].append(command)
    return results


def merge_saved(results: dict, path: Path, bots: dict[tuple[str, int], str], own: set[tuple[str, int]]) -> None:
    """Take into `results` what other runs into the same folder saved since this one read it: every task
    but this run's own (`own`) as saved there, if measured with the bot the settings name, and their
    commands. This run's own tasks stay as it measured them."""
    if not path.exists():
        return
    saved = load_results(path)
    differ = [key for key in SETTINGS if saved.get(key) != results[key]]
    if differ:
        raise ValueError(f"{path} now holds a measurement with other {', '.join(differ)}")
    saved_tasks = {(task["game"], task["players"]): task for task in saved["tasks"]}
    theirs = {key: task for key, task in saved_tasks.items() if key not in own and bots.get(key) == task["bot"]}
    kept = [task for task in results["tasks"] if (task["game"], task["players"]) not in theirs]
    results["tasks"] = kept + list(theirs.values())
    results["commands"] += [c for c in saved.get("commands", []) if c not in results["commands"]]


def set_aside(out: Path, task: dict) -> None:
    """A task measured with another bot than the settings name is measured again: its match logs move to
    `<game>_<n>p.previous-<k>` beside it, kept for the record."""
    folder = out / f"{task['game']}_{task['players']}p"
    number = 1
    while folder.with_name(f"{folder.name}.previous-{number}").exists():
        number += 1
    if folder.exists():
        folder.rename(folder.with_name(f"{folder.name}.previous-{number}"))
    print(f"{task['game']} {task['players']}p: measured with {task['bot']}, not the settings' bot: measuring it again")


def run(
    tasks: list[tuple[str, int]],
    bots: dict[tuple[str, int], str],
    results: dict,
    jobs: int,
    out: Path,
    doc: str | None = None,
    retime: bool = False,
) -> Path:
    """Measure what `results` lacks of `tasks` with each task's bot in `bots`, saving the results (and
    `doc`) after each figure. `retime` times the tasks again, their earlier timings kept in `earlier_costs`."""

    def save() -> None:
        folder = os.open(out, os.O_RDONLY)
        try:
            fcntl.flock(folder, fcntl.LOCK_EX)  # one run at a time reads, merges and writes
            merge_saved(results, out / "results.json", bots, set(tasks))
            write_text_whole(out / "results.json", json.dumps(results, indent=1) + "\n")
            write_text_whole(out / "report.md", report(results))
            if doc:
                write_doc(doc, out / "results.json")
        finally:
            os.close(folder)  # and with it the lock

    for game, players in tasks:
        bot = bots[game, players]
        task = next((t for t in results["tasks"] if (t["game"], t["players"]) == (game, players)), None)
        if task is not None and task["bot"] != bot:
            set_aside(out, task)
            results["tasks"].remove(task)
            task = None
        if task is None:
            folder = out / f"{game}_{players}p"
            figures = strength(game, players, bot, "heuristic", results["matches"], results["seed"], jobs, folder)
            task = {"game": game, "players": players, "bot": bot, "strength": figures}
            results["tasks"].append(task)
            save()
        if retime and "cost" in task:
            task.setdefault("earlier_costs", []).append(task.pop("cost"))
        if "cost" not in task and results["timing_matches"]:
            task["cost"] = cost(game, players, bot, results["timing_matches"], results["seed"])
            save()
    save()
    return out / "report.md"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, help="one game (default: every game)")
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, help="one player count (default: 2 and 4)")
    parser.add_argument("--settings", default=str(SETTINGS_FILE), help="the bots, seed and match counts (TOML)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="runs/strength")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument(
        "--retime", action="store_true", help="time the tasks' bots again, keeping the earlier timings in the JSON"
    )
    add_doc_options(parser, SECTION, "results.json")
    args = parser.parse_args(argv)
    try:
        if write_from_json(args, SECTION, write_doc):
            return 0
        if args.jobs < 1:
            raise ValueError("--jobs must be >= 1")
        settings = load_settings(Path(args.settings))
        tasks = [
            (game, n)
            for game in ([args.game] if args.game else GAMES)
            for n in ([args.players] if args.players else PLAYER_COUNTS)
        ]
        for game, n in tasks:  # a bad spec stops the run before any match
            prepare_agents([make_agent(settings["bots"][game, n], game, 0)], make_game(game, n, seed=0))
        out = Path(args.out)
        results = start_results(out, settings, f"python -m lab.strength {shlex.join(argv)}")
    except (ValueError, OSError) as error:
        parser.error(str(error))
    started = time.time()
    out.mkdir(parents=True, exist_ok=True)
    try:  # a task's log left by a run of other settings (another bot, seed or count) is refused by the arena
        with progress.showing(not args.quiet):
            path = run(tasks, settings["bots"], results, args.jobs, out, args.doc, args.retime)
    except ValueError as error:
        parser.error(str(error))
    print(f"wrote {path}; took {progress.format_duration(time.time() - started)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
