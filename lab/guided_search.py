"""Strength and cost per decision of network-guided ISMCTS, against the heuristic, the network alone and
rollout ISMCTS.

    python -m lab.guided_search --game metropolys --players 2 --games 40 --out runs/guided
    python -m lab.guided_search --jobs 2 --out runs/guided     # every game, 2 and 4 players

Strength: per game and player count, one arena run per opponent (`heuristic`, `ppo`, rollout ISMCTS):
the guided search in one seat, the opponent in every other, seat-rotated and seeded as `city-envs
evaluate` plays them; the guided search's win rate with its Wilson 95% interval (chance is 1/players).
Each run's matches are logged under `<out>/<game>_<n>p/<opponent>/`, so a stopped measurement resumes.

Cost: `--timing-matches` more matches played in this process, the four agents taking the seats in turn,
every decision with two legal moves or more timed in CPU time (process time, which a machine busy with
other work does not inflate, unlike the wall clock); the mean milliseconds per such decision of each.

`<out>/results.json` gathers every figure, rewritten after each line-up and each timing, so a stopped
run has one; `<out>/report.md` tabulates it. A run into a folder that holds results of the same settings
adds to them (a line-up or a timing already there is not measured again); other settings are refused.

The project's goal for the search is to beat its own network on the baselines' seed, 400 matches a
game: `--lineups ppo --games 400 --seed 1000 --timing-matches 0 --out runs/guided_h2h` measures that
alone (no timing), and `--section guided-head-to-head` writes it into its own section of the page.

The figures reach the docs only from that JSON: `--doc PAGE` fills the page's `<!-- tables:guided-search
-->` section as the run goes, and `--from-json FILE --doc PAGE` measures nothing, so the committed copy
(`benchmarks/guided/results.json`) writes docs/leaderboard.md:

    python -m lab.guided_search --from-json benchmarks/guided/results.json --doc docs/leaderboard.md
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from city_envs import GAMES, make_game
from city_envs.agents.registry import make_agent, prepare_agents
from city_envs.core import progress
from city_envs.core.infoset import InfoSet
from city_envs.core.markdown import link_from, section_names, write_sections
from city_envs.core.settings import read_document
from city_envs.evaluation.arena import evaluate, policy_digests
from city_envs.evaluation.workers import Runner

GUIDED = "ismcts:net=ppo:iters=100"
ROLLOUT = "ismcts:iters=50:bias=3"  # the rollout search at the bias and budget it was first measured with
PLAYER_COUNTS = (2, 4)
SECTION = "guided-search"  # the page's <!-- tables:guided-search --> section
HEAD_TO_HEAD = "guided-head-to-head"
# the sections a page may hold, with the player counts each lists as not measured yet: the full table, and
# the head-to-head against the network on the seed the baselines are published on (`--lineups ppo --games
# 400 --seed 1000 --timing-matches 0`), whose goal (the interval above 0.5) is a 2-player one
SCOPES = {SECTION: PLAYER_COUNTS, HEAD_TO_HEAD: (2,)}
SECTIONS = tuple(SCOPES)
SETTINGS = ("guided", "rollout", "matches", "timing_matches", "seed")  # one results file, one value of each
LINEUPS = {"heuristic": "vs heuristic", "ppo": "vs ppo", "rollout": "vs rollout ISMCTS"}
COST_COLUMNS = ("ms/decision: guided", "rollout ISMCTS", "ppo", "heuristic")


def opponents(rollout: str) -> dict[str, str]:
    """Line-up name -> the agent in every other seat."""
    return {"heuristic": "heuristic", "ppo": "ppo", "rollout": rollout}


def strength(game: str, players: int, guided: str, opponent: str, matches: int, seed: int, jobs: int, out: Path):
    """The guided search's win rate and Wilson 95% interval in one seat against `opponent` in the others."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / "matches.jsonl"
    kinds = [guided] + [opponent] * (players - 1)
    result = evaluate(game, players, kinds, matches, seed, Runner(jobs), log=log, resume=log.is_file())
    (out / "results.json").write_text(json.dumps(result, indent=1))
    row = result["agents"][guided]
    return {
        "win_rate": row["win_rate"],
        "ci95": [row["ci_low"], row["ci_high"]],
        "matches": result["games"],
        "failures": row["failures"],
        "truncated": result["truncated"],  # matches ended by the game's turn cap rather than its rules
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
    """A line-up's win rate, Wilson interval and match count (with its failures and the matches the turn
    cap ended, if any)."""
    if figures is None:
        return "—"
    low, high = figures["ci95"]
    failed = f", {figures['failures']} failed" if figures["failures"] else ""
    capped = f", {figures['truncated']} at the turn cap" if figures.get("truncated") else ""
    return f"{figures['win_rate']:.2f} ({low:.2f}-{high:.2f}) n={figures['matches']}{failed}{capped}"


def ms(figures: dict | None) -> str:
    value = None if figures is None else figures["ms_per_decision"]
    return "—" if value is None else f"{value:.1f}"


def task_order(task: dict) -> tuple[int, int]:
    return (list(GAMES).index(task["game"]) if task["game"] in GAMES else len(GAMES), task["players"])


def report(results: dict, player_counts: tuple[int, ...] = PLAYER_COUNTS) -> str:
    """The results as Markdown: the settings, a row per measured task (— where a figure is not measured,
    with its legend only then), and the tasks of every game at `player_counts` not measured at all. A
    timed measurement shows every line-up and the cost columns; an untimed one (the head-to-head) only the
    line-ups it measured."""
    timed = bool(results["timing_matches"])
    names = [name for name in LINEUPS if timed or any(name in task["strength"] for task in results["tasks"])]
    columns = ["game", "players", "chance", *(LINEUPS[name] for name in names), *(COST_COLUMNS if timed else ())]
    rows = [f"| {' | '.join(columns)} |", f"|{'---|' * len(columns)}"]
    specs = (results["guided"], results["rollout"], "ppo", "heuristic")
    blank = False
    for task in sorted(results["tasks"], key=task_order):
        lineups, costs = task["strength"], task.get("cost", {})
        figures = [cell(lineups.get(name)) for name in names]
        if timed:
            figures += [ms(costs.get(spec)) for spec in specs]
        blank = blank or "—" in figures
        rows.append(f"| {task['game']} | {task['players']} | {1 / task['players']:.2f} | {' | '.join(figures)} |")
    settings = (
        f"Guided search `{results['guided']}` in one seat, the opponent in every other, seat-rotated (seed "
        f"{results['seed']})"
        + (f"; rollout ISMCTS is `{results['rollout']}`" if "rollout" in names else "")
        + ". Each cell: the guided search's win rate, "
        f"its Wilson 95% interval and the matches played ({results['matches']} per line-up; chance is "
        "1/players); "
        + ("`ppo` and the search's network are" if "net=ppo" in results["guided"].split(":") else "`ppo` is")
        + " each task's committed baseline (its SHA-256 in the JSON); "
        + (
            f"cost: CPU ms per decision with a choice over {results['timing_matches']} timed matches per task"
            if timed
            else "cost: not timed in this measurement"
        )
        + (". —: not measured." if blank else ".")
    )
    done = {(task["game"], task["players"]) for task in results["tasks"]}
    missing = [f"{game} {n}p" for game in GAMES for n in player_counts if (game, n) not in done]
    stale = [
        f"{task['game']} {task['players']}p"
        for task in sorted(results["tasks"], key=task_order)
        if task.get("network") != network_digest(task["game"], task["players"])
    ]
    lines = [settings, "", *rows]
    if missing:
        lines += ["", f"Not measured yet: {', '.join(missing)}."]
    if stale:
        lines += [
            "",
            f"Measured with an earlier network than the committed baseline (to measure again): {', '.join(stale)}.",
        ]
    return "\n".join(lines) + "\n"


def load_results(path: str | Path) -> dict:
    """A results.json this measurement wrote, checked for the settings and tasks a table reads; anything
    else (not JSON, another command's results, a figure missing) is one ValueError naming the file."""
    try:
        results = json.loads(read_document(path))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error})") from None
    if not isinstance(results, dict) or not {*SETTINGS, "tasks"} <= set(results):
        raise ValueError(f"{path} is not a guided-search results.json (it needs {', '.join(SETTINGS)} and tasks)")
    try:
        report(results)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as error:
        raise ValueError(
            f"{path} is a malformed guided-search results.json ({type(error).__name__}: {error})"
        ) from None
    return results


def doc_section(results: dict, source: str | Path, page: str | Path, section: str = SECTION) -> str:
    """The page's `section`: the report and a link to the JSON it was written from."""
    what = "with each agent's timed decisions" if results["timing_matches"] else "with the commands that measured it"
    return f"{report(results, SCOPES[section])}\nEvery figure, {what}: {link_from(page, source)}."


def write_doc(page: str | Path, source: str | Path, section: str = SECTION) -> None:
    """Fill `page`'s `section` from the results file `source` (one ValueError if the page has no such
    section or the file is not such results)."""
    write_sections(page, {section: doc_section(load_results(source), source, page, section)}, (section,))


def start_results(out: Path, settings: dict, command: str) -> dict:
    """The results to add to: `<out>/results.json` if it holds the same settings (one ValueError if not),
    else new ones."""
    path = out / "results.json"
    if not path.exists():
        return {"measurement": "guided_search", **settings, "commands": [command], "tasks": []}
    results = load_results(path)
    differ = [f"{key} {results[key]!r}, not {settings[key]!r}" for key in SETTINGS if results[key] != settings[key]]
    if differ:
        raise ValueError(f"{path} holds a measurement with other settings ({'; '.join(differ)}): pass another --out")
    if command not in results.setdefault("commands", []):
        results["commands"].append(command)
    return results


def network_digest(game: str, players: int) -> str | None:
    """The SHA-256 of the committed baseline that `ppo` (and a search with `net=ppo`) plays in the task:
    a task's `network`, which decides whether its figures still describe the committed baseline."""
    return policy_digests(["ppo"], game, players).get("ppo")


def set_aside(out: Path, task: dict) -> None:
    """A task measured with another network than the committed baseline (or before networks were
    recorded) is measured again: its match logs, which the arena could not tell from the new network's,
    move to `<game>_<n>p.network-<digest>` beside it, kept for the record."""
    folder = out / f"{task['game']}_{task['players']}p"
    old = str(task.get("network") or "unrecorded")[:12]
    if folder.exists():
        aside, number = folder.with_name(f"{folder.name}.network-{old}"), 1
        while aside.exists():
            number += 1
            aside = folder.with_name(f"{folder.name}.network-{old}-{number}")
        folder.rename(aside)
    name = f"{task['game']} {task['players']}p"
    print(f"{name}: measured with network {old}, not the committed baseline: measuring it again")


def run(
    tasks: list[tuple[str, int]],
    results: dict,
    jobs: int,
    out: Path,
    lineups: list[str],
    doc: str | None = None,
    section: str = SECTION,
) -> Path:
    """Measure what `results` lacks of `tasks` and `lineups`, saving the results (and `doc`) after each
    line-up and timing."""

    def save() -> None:
        (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
        (out / "report.md").write_text(report(results, SCOPES[section]))
        if doc:
            write_doc(doc, out / "results.json", section)

    guided, rollout, seed = results["guided"], results["rollout"], results["seed"]
    for game, players in tasks:
        task = next((t for t in results["tasks"] if (t["game"], t["players"]) == (game, players)), None)
        network = network_digest(game, players)
        stale = task is not None and task.get("network") != network
        if task is not None and stale:
            set_aside(out, task)
            results["tasks"].remove(task)
        if task is None or stale:
            task = {"game": game, "players": players, "network": network, "strength": {}}
            results["tasks"].append(task)
            results["tasks"].sort(key=task_order)
        if stale:  # at once: a run stopped now resumes the new network's logs instead of setting them aside
            save()
        for name, agent in opponents(rollout).items():
            if name in lineups and name not in task["strength"]:
                folder = out / f"{game}_{players}p" / name
                task["strength"][name] = strength(game, players, guided, agent, results["matches"], seed, jobs, folder)
                save()
        if "cost" not in task and results["timing_matches"]:
            task["cost"] = cost(game, players, [guided, rollout, "ppo", "heuristic"], results["timing_matches"], seed)
            save()
    save()  # also when every figure was there already: this run's command is recorded
    return out / "report.md"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, help="one game (default: every game)")
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, help="one player count (default: 2 and 4)")
    parser.add_argument("--guided", default=GUIDED, help="the guided search's spec")
    parser.add_argument("--rollout", default=ROLLOUT, help="the rollout search's spec")
    parser.add_argument(
        "--lineups", default="heuristic,ppo,rollout", help="opponents to measure strength against (comma-separated)"
    )
    parser.add_argument("--games", type=int, default=40, help="matches per line-up")
    parser.add_argument(
        "--timing-matches", type=int, default=4, help="timed matches per game and player count (0: no timing)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", default="runs/guided")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--doc", help="fill this page's <!-- tables:SECTION --> section from the results")
    parser.add_argument(
        "--section", choices=SECTIONS, default=SECTION, help="the page's section to fill (default: %(default)s)"
    )
    parser.add_argument("--from-json", dest="from_json", help="measure nothing: write --doc from this results.json")
    args = parser.parse_args(argv)
    if args.from_json or args.doc:
        try:  # a page without the section is refused before any match
            if args.from_json and not args.doc:
                raise ValueError("--from-json only writes a --doc page")
            if args.section not in section_names(read_document(args.doc)):
                raise ValueError(f"{args.doc} has no <!-- tables:{args.section} --> section to fill")
            if args.from_json:
                write_doc(args.doc, args.from_json, args.section)
                print(f"wrote {args.section} into {args.doc} from {args.from_json}")
                return 0
        except ValueError as error:
            parser.error(str(error))
    lineups = args.lineups.split(",")
    if not set(lineups) <= set(opponents(args.rollout)):
        parser.error(f"--lineups: choose among {', '.join(opponents(args.rollout))}, not {args.lineups!r}")
    if args.games < 1 or args.timing_matches < 0 or args.jobs < 1:
        parser.error("--games and --jobs must be >= 1, --timing-matches >= 0")
    games = [args.game] if args.game else list(GAMES)
    counts = [args.players] if args.players else list(PLAYER_COUNTS)
    tasks = [(game, n) for game in games for n in counts]
    out = Path(args.out)
    settings = {
        "guided": args.guided,
        "rollout": args.rollout,
        "matches": args.games,
        "timing_matches": args.timing_matches,
        "seed": args.seed,
    }
    try:
        for game, n in tasks:  # a bad spec or a missing network stops the run before any match
            for spec in (args.guided, args.rollout, "ppo"):
                prepare_agents([make_agent(spec, game, 0)], make_game(game, n, seed=0))
        results = start_results(out, settings, f"python -m lab.guided_search {shlex.join(argv)}")
    except ValueError as error:
        parser.error(str(error))
    started = time.time()
    out.mkdir(parents=True, exist_ok=True)
    with progress.showing(not args.quiet):
        path = run(tasks, results, args.jobs, out, lineups, args.doc, args.section)
    print(
        f"wrote {path}{f' and {args.doc}' if args.doc else ''}; took {progress.format_duration(time.time() - started)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
