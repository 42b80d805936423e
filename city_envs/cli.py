"""`city-envs`: list the games, play one in the terminal, train a policy (the main job), evaluate bots,
benchmark agents and algorithms, play in the browser, run a demo."""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

from city_envs.core import progress
from city_envs.core.aec import ENV_VERSION
from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.native import ENGINE_VARIABLE, ENGINES
from city_envs.core.registry import GAMES, game_class, make_game
from city_envs.core.settings import parse_assignments, read_document

if TYPE_CHECKING:
    from city_envs.evaluation.workers import Runner


# ----- helpers ----------------------------------------------------------------------------------
def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def took(started: float) -> str:
    """The time since `started`, for a long command's closing line."""
    return progress.format_duration(time.time() - started)


def has_heuristic(name: str) -> bool:
    from city_envs.agents.registry import HEURISTICS

    return name in HEURISTICS


class Abandoned(Exception):
    """The person at the terminal quit the game (typed q, or closed the input)."""


class HumanAgent:
    """A person at the terminal: sees the public table, its own information and numbered actions."""

    def __init__(self, game: Game, stdin: TextIO, stdout: TextIO) -> None:
        self.game, self.stdin, self.stdout = game, stdin, stdout

    def act(self, info_set: InfoSet) -> int:
        out = self.stdout
        legal = self.game.presentation_order(info_set.legal_action_ids())
        print("\n" + self.game.render_text(), file=out)
        print(self.game.render_private(info_set.player), file=out)
        print(f"-- seat {info_set.player}, your decision:", file=out)
        chosen = self.game.describe_partial()
        if chosen:
            print(f"  so far: {chosen}", file=out)
        for number, action in enumerate(legal):
            print(f"  {number:>3}. {info_set.describe_action(action)}", file=out)
        while True:
            print("choose a number (q quits): ", end="", file=out, flush=True)
            line = self.stdin.readline()
            if not line or line.strip().lower() == "q":
                raise Abandoned
            text = line.strip()
            if text.isdigit() and int(text) < len(legal):
                return legal[int(text)]
            print(f"  please type a number from 0 to {len(legal) - 1}", file=out)


def play_match(game: Game, seats: list[str], seed: int, stdin: TextIO, stdout: TextIO, quiet: bool) -> Game:
    """Play to the end; bots' moves are printed as the table sees them (no secret choices)."""
    from city_envs.agents.registry import make_agent

    if len(seats) != game.num_players:
        raise ValueError(f"--seats names {len(seats)} seats for a {game.num_players}-player game")
    agents = [
        HumanAgent(game, stdin, stdout) if kind == "human" else make_agent(kind, game.name, seed + seat)
        for seat, kind in enumerate(seats)
    ]
    handles = [InfoSet(game, seat) for seat in range(game.num_players)]
    while not game.is_over():
        seat = game.current_player()
        action = agents[seat].act(handles[seat])
        if seats[seat] != "human" and not quiet:
            print(f"seat {seat} ({seats[seat]}): {game.describe_public_action(action)}", file=stdout)
        before = None if quiet else game.clone()  # only to say what the move revealed
        game.apply(action)
        if before is not None:
            for text in game.describe_outcome(before):
                print(f"  {text}", file=stdout)
    return game


def print_result(game: Game, seats: list[str], out: TextIO) -> None:
    print("\n" + game.render_text(), file=out)
    scores = game.scores()
    winners = set(game.winners())
    print("\nfinal scores:", file=out)
    for seat, (kind, points) in enumerate(zip(seats, scores, strict=True)):
        print(f"  seat {seat} ({kind}): {points:g}{'  <- winner' if seat in winners else ''}", file=out)
    if game.is_truncated():
        print("(stopped by the max_rounds safety valve)", file=out)


# ----- commands ---------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    for name in GAMES:
        cls = game_class(name)
        counts = f"{cls.min_players}-{cls.max_players}"
        heuristic = "yes" if has_heuristic(name) else "no"
        engine = getattr(cls, "engine", "python")
        print(f"{name}  (env {name}_v{ENV_VERSION}; {counts} players; heuristic agent: {heuristic}; engine: {engine})")
        for key, option in cls.options_spec.items():
            allowed = ", ".join(map(repr, option.choices)) if option.choices is not None else option.allowed
            print(f"    {key} = {option.default!r}  [{allowed}]  {option.doc}")
    return 0


def play_seats(args: argparse.Namespace) -> list[str]:
    """`--seats`, or by default a person at seat 0 and heuristic bots at the others."""
    return [s.strip() for s in (args.seats or ",".join(["human"] + ["heuristic"] * (args.players - 1))).split(",")]


def cmd_play(args: argparse.Namespace) -> int:
    options = parse_assignments(args.option, "--option")
    seats = play_seats(args)
    game = make_game(args.game, args.players, seed=args.seed, **options)
    try:
        play_match(game, seats, args.seed, sys.stdin, sys.stdout, quiet=args.quiet)
    except Abandoned:
        print("\ngame abandoned")
        return 1
    print_result(game, seats, sys.stdout)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from city_envs import bench

    if args.seconds is None:
        args.seconds = 1.0 if args.all else 3.0
    if args.all:
        if args.game_name or args.option:
            raise ValueError("bench --all measures every game with its default options: name no game or --option")
        if args.docs:
            read_document(args.docs)  # a page it cannot rewrite is refused now, not after minutes of measuring
        result = bench.run_all(
            seconds=args.seconds,
            seed=args.seed,
            progress=lambda row: print(f"  measured {row['game']}, {row['num_players']} players", file=sys.stderr),
        )
        print(f"every game and player count, ~{args.seconds:g} s per measurement, seed {args.seed}")
        print(bench.text_table(result["rows"]))
        if args.json:
            bench.write_json(args.json, result)
        if args.docs:
            bench.write_doc(args.docs, result)
        return 0
    if args.docs:
        raise ValueError("--docs writes the table of --all: add --all")
    if not args.game_name:
        raise ValueError("name a game, or measure them all with --all")
    name = args.game_name
    cls = game_class(name)
    options = cls.check_options(parse_assignments(args.option, "--option"))
    cls.check_num_players(args.players)
    result = bench.run(name, args.players, seconds=args.seconds, seed=args.seed, search=args.search, **options)
    rows = [
        ("raw Game API decisions/s", f"{result['decisions_per_s']:,.0f}"),
        ("AEC agent-steps/s (last + step)", f"{result['aec_steps_per_s']:,.0f}"),
        ("games/s (raw)", f"{result['games_per_s']:,.1f}"),
        ("mean decisions per game", f"{result['decisions_per_game']:.1f}"),
        ("observation() us", f"{result['observation_us']:.1f}"),
        ("legal_actions() us (uncached)", f"{result['legal_actions_us']:.1f}"),
        ("clone() us", f"{result['clone_us']:.1f}"),
        ("determinize() us", f"{result['determinize_us']:.1f}"),
        ("heuristic self-play decisions/s", f"{result['heuristic_decisions_per_s']:,.0f}"),
    ]
    if result["connect_four_aec_steps_per_s"]:
        rows += [
            ("connect_four_v3 AEC agent-steps/s", f"{result['connect_four_aec_steps_per_s']:,.0f}"),
            ("AEC ratio vs connect_four_v3", bench.cell(result, "aec_ratio_vs_connect_four", "{:.2f}x")),
            ("raw ratio vs connect_four_v3 AEC", f"{result['raw_ratio_vs_connect_four']:.2f}x"),
            (
                "heuristic ratio vs connect_four_v3 AEC",
                bench.cell(result, "heuristic_ratio_vs_connect_four", "{:.2f}x"),
            ),
        ]
    else:
        rows.append(("connect_four_v3", "not installed (pip install 'pettingzoo[classic]')"))
    native_keys = {"game_api_ceiling_ratio_vs_python", "search_iteration_us"}
    native_keys |= {key for key in result if key.startswith("native_")}
    native_keys |= {key for _, key, _ in bench.BATCH_COLUMNS}
    rows += [
        (heading, bench.cell(result, key, fmt))
        for heading, key, fmt in bench.TABLE_COLUMNS
        if key in native_keys and result.get(key) is not None
    ]
    print(f"{name}, {args.players} players, random legal play, seed {args.seed}, ~{args.seconds:g} s each")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}}  {value:>12}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    return 0


def cmd_layout(args: argparse.Namespace) -> int:
    from city_envs.core.markdown import write_sections

    layout = game_class(args.game_name).observation_layout()
    if args.docs:
        write_sections(args.docs, {"observation": layout.markdown_table()}, required=("observation",))
    elif args.names:
        for index, name in enumerate(layout.feature_names()):
            print(index, name)
    else:
        print(layout.markdown_table())
    return 0


def match_runner(args: argparse.Namespace) -> Runner:
    """How a command's matches run (`--jobs`, `--backend`, `--address`, `--match-timeout`)."""
    from city_envs.evaluation.workers import Runner

    return Runner(args.jobs, getattr(args, "backend", "process"), getattr(args, "address", None), args.match_timeout)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from city_envs.evaluation import evaluate, format_results, write_reports

    kinds = [k.strip() for k in args.agents.split(",")]
    options = parse_assignments(args.option, "--option")
    if args.resume and not args.out:
        raise ValueError("--resume finishes the run saved in --out DIR: name it")
    log = f"{args.out}/matches.jsonl" if args.out else None
    started = time.time()
    try:
        with progress.showing(not args.quiet):
            result = evaluate(
                args.game,
                args.players,
                kinds,
                args.games,
                args.seed,
                match_runner(args),
                log=log,
                resume=args.resume,
                **options,
            )
    except KeyboardInterrupt:
        saved = f"; the finished matches are in {log}, --resume plays the rest" if log else ""
        print(f"city-envs: evaluate interrupted{saved}", file=sys.stderr)
        return 130
    print(format_results(result))
    if args.out:
        for path in write_reports(result, args.out):
            print(f"wrote {path}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    print(f"{args.games} matches in {took(started)}" + (" (this part of the resumed run)" if args.resume else ""))
    if result["failures"]:
        print(f"city-envs: {len(result['failures'])} of {args.games} matches failed:", file=sys.stderr)
        for failure in result["failures"]:
            print(f"  match {failure['match']} (seed {failure['seed']}): {failure['reason']}", file=sys.stderr)
        return 1
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from city_envs.training.selfplay import run_command

    return run_command(args)


def cmd_baseline(args: argparse.Namespace) -> int:
    """Retrain a committed baseline from its own config (resuming a stopped run) and publish it, or measure
    its reference, or only write the baseline tables from the committed JSON; the first two rewrite the
    tables of the README and docs/training.md after."""
    from city_envs.agents.policy_agent import baseline_path, baseline_stem
    from city_envs.training.baseline_tables import PAGES, measure_reference, reference_path, write_baseline_tables

    if args.tables is not None:
        if args.game_name or args.reference or args.from_run:
            raise ValueError(
                "--tables writes the tables from the committed JSON alone: name no game, no --reference or --from-run"
            )
        for page in args.tables or PAGES:
            names = write_baseline_tables(page)
            print(f"wrote {', '.join(names)} into {page}")
        return 0
    if not args.game_name:
        raise ValueError("name a game, or write the baseline tables of README.md and docs/training.md with --tables")
    game_class(args.game_name).check_num_players(args.players)
    if args.reference:
        if args.from_run:
            raise ValueError("--reference measures the heuristic: it publishes no --from-run")
        record = measure_reference(args.game_name, args.players, args.games, args.eval_seed, args.jobs)
        published = reference_path(args.game_name, args.players)
    else:
        from city_envs.training.selfplay import check_finished_run, publish_baseline, retrain_baseline

        if args.from_run:
            if args.out:
                raise ValueError("--from-run publishes a finished run: it takes no --out")
            out = Path(args.from_run)
            check_finished_run(out, args.game_name, args.players)
        else:
            config_path = baseline_stem(args.game_name, args.players).with_suffix(".toml")
            if not config_path.is_file():
                raise ValueError(f"no baseline config {config_path} for {args.game_name} with {args.players} players")
            out = Path(args.out or f"runs/baseline_{args.game_name}_{args.players}p")
            retrain_baseline(config_path, out, log=lambda text: print(text, flush=True))
        record = publish_baseline(out, games=args.games, seed=args.eval_seed, jobs=args.jobs)
        published = baseline_path(args.game_name, args.players)
    for opponent, r in record["evaluation"].items():
        print(f"vs {opponent}: {r['win_rate']:.3f} ({r['ci95'][0]:.3f}-{r['ci95'][1]:.3f}), {r['games']} games")
    print(f"published {published}")
    for page in PAGES:
        try:
            names = write_baseline_tables(page)
            print(f"rewrote {', '.join(names)} of {page}")
        except ValueError as error:  # a wheel has no pages; a checkout's may lack a record still to measure
            print(
                f"city-envs baseline: the tables of {page} were not rewritten ({error}); in a checkout run "
                "`city-envs baseline --tables`",
                file=sys.stderr,
            )
    return 0


def cmd_convert_model(args: argparse.Namespace) -> int:
    """An SB3 MaskablePPO zip (a pickle) rewritten as a data-only policy file."""
    from city_envs.agents.policy_file import PICKLE_WARNING, convert_sb3_zip

    if not args.trust_pickle:
        raise ValueError(f"{args.zip} {PICKLE_WARNING}: pass --trust-pickle if you trust it")
    game_class(args.game).check_num_players(args.players)
    print(f"wrote {convert_sb3_zip(args.zip, args.out, args.game, args.players)}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """A first look without torch: one rendered match of the heuristic against random bots, then a
    short seat-rotated evaluation of the same line-up."""
    from city_envs.evaluation import evaluate, format_results

    seats = ["heuristic"] + ["random"] * (args.players - 1)
    game = make_game(args.game, args.players, seed=args.seed)
    play_match(game, seats, args.seed, sys.stdin, sys.stdout, quiet=True)
    print_result(game, seats, sys.stdout)
    if args.image:
        import matplotlib.image

        matplotlib.image.imsave(args.image, np.asarray(game.render_image()))
        print(f"final table drawn to {args.image}")
    print(f"\nseat-rotated evaluation, {args.games} games:")
    print(format_results(evaluate(args.game, args.players, seats, args.games, args.seed)))
    return 0


def cmd_benchmark_agent(args: argparse.Namespace) -> int:
    from city_envs.evaluation.benchmark import run_agent_benchmark
    from city_envs.evaluation.benchmark_report import format_agent_results
    from city_envs.evaluation.results import SALT_FILE
    from city_envs.evaluation.salt import read_salt
    from city_envs.evaluation.suite import load_suite

    suite = load_suite(args.suite)
    salt = None if args.salt_file is None else read_salt(args.salt_file)
    say = None if args.quiet else (lambda text: print(text, flush=True))
    matches = suite.matches * sum(len(suite.lineups_for(task)) for task in suite.tasks)
    started = time.time()
    try:
        with progress.showing(not args.quiet), progress.stage(f"{args.spec} on {suite.name}", matches, "matches"):
            results = run_agent_benchmark(
                args.spec,
                suite,
                args.out,
                match_runner(args),
                resume=args.resume,
                say=say,
                salt=salt,
            )
    except KeyboardInterrupt:
        print(
            f"city-envs: benchmark interrupted; the finished matches are in {args.out}, --resume plays the rest",
            file=sys.stderr,
        )
        return 130
    print(format_agent_results(results))
    print(f"wrote {Path(args.out) / 'results.json'}, report.md, tasks.png, profile.png, marl_eval.json")
    print(f"finished in {took(started)}" + (" (this part of the resumed run)" if args.resume else ""))
    if salt is not None:
        print(f"played on secret seeds: reveal the salt by copying {args.salt_file} to {Path(args.out) / SALT_FILE}")
    failed = sum(s["failures"] for t in results["tasks"].values() for s in t["lineups"].values())
    if failed:
        print(
            f"city-envs: the agent failed {failed} matches (each a loss): see the runs in {args.out}", file=sys.stderr
        )
        return 1
    return 0


def cmd_benchmark_compare(args: argparse.Namespace) -> int:
    from city_envs.evaluation.compare import format_comparison, write_comparison

    with progress.showing(sys.stdout.isatty()):
        comparison = write_comparison(args.results, args.out)
    print(format_comparison(comparison))
    print(f"wrote {Path(args.out) / 'comparison.json'}, comparison.md, tasks.png, profile.png")
    return 0


def cmd_benchmark_verify(args: argparse.Namespace) -> int:
    from city_envs.evaluation.fresh import fresh_check, fresh_suite
    from city_envs.evaluation.results import load_results
    from city_envs.evaluation.salt import read_salt
    from city_envs.evaluation.verify import engine_notes, format_verdict, verify_result

    salt = None if args.salt_file is None else read_salt(args.salt_file)
    results = {folder: load_results(folder) for folder in args.results}
    suites = {} if args.fresh is None else {f: fresh_suite(r, args.fresh) for f, r in results.items()}
    clean = True
    with progress.showing(sys.stdout.isatty()):
        for folder in args.results:
            differences, played = verify_result(folder, salt)
            print(format_verdict(folder, differences, played))
            print("".join(f"  note: {note}\n" for note in engine_notes(results[folder])), end="")
            clean = clean and not differences
            if folder in suites:
                fresh = fresh_check(results[folder], suites[folder], args.fresh, match_runner(args))
                clean = clean and fresh
    return 0 if clean else 1


def cmd_benchmark_tables(args: argparse.Namespace) -> int:
    from city_envs.evaluation.tables import write_tables

    names = write_tables(args.results, args.doc)
    print(f"wrote {len(names)} tables into {args.doc}: {', '.join(names)}")
    return 0


def cmd_benchmark_suites(args: argparse.Namespace) -> int:
    from city_envs.evaluation.suite import available_suites, load_suite

    for name in available_suites():
        suite = load_suite(name)
        description = suite.spec.variants[suite.variant].description
        print(f"{name}: {description}; {len(suite.tasks)} tasks, {suite.matches} matches per line-up")
        for task in suite.tasks:
            print(f"    {task.name}: against {', '.join(suite.lineups_for(task))}")
    return 0


def cmd_benchmark_train(args: argparse.Namespace) -> int:
    from city_envs.training.algorithms import run_command

    return with_progress(run_command, args)


def cmd_benchmark_exploit(args: argparse.Namespace) -> int:
    from city_envs.training.exploit import run_command

    return with_progress(run_command, args)


def with_progress(command, args: argparse.Namespace) -> int:
    """Run a long command with the progress bars of its stages (none with --quiet), then its time."""
    started = time.time()
    with progress.showing(not args.quiet):
        code = command(args)
    print(f"finished in {took(started)}" + (" (this part of the resumed run)" if args.resume else ""))
    return code


# ----- checks before any work -------------------------------------------------------------------
def agent_specs(args: argparse.Namespace) -> list[str]:
    """The bots a command will seat, as `make_agent` spells them."""
    if args.command == "play":
        seats = play_seats(args)
        if len(seats) != args.players:
            raise ValueError(f"--seats names {len(seats)} seats for a {args.players}-player game")
        return [kind for kind in seats if kind != "human"]
    if args.command == "evaluate":
        kinds = [k.strip() for k in args.agents.split(",")]
        if len(kinds) < args.players:
            raise ValueError(
                f"--agents names {len(kinds)} agents for a {args.players}-player game: list one per seat, or more"
            )
        return kinds
    if args.command == "demo":
        return ["heuristic", "random"]
    return []


def check_setup(args: argparse.Namespace) -> None:
    """Game, player count, options and every agent, checked before a command starts its work: each
    distinct agent is built once and prepared for a seat of a match like the command's (a PPO model
    is loaded and must fit the game and player count; a user's class is imported and constructed)."""
    if not hasattr(args, "game"):
        return
    from city_envs.agents.registry import make_agent, prepare_agents

    cls = game_class(args.game)
    options = cls.check_options(parse_assignments(getattr(args, "option", None), "--option"))
    if args.players is None:  # `train` without --players: its config file says how many
        return
    cls.check_num_players(args.players)
    kinds = list(dict.fromkeys(agent_specs(args)))
    if kinds:
        probe = cls(args.players, seed=args.seed, **options)
        agents = [make_agent(kind, args.game, args.seed) for kind in kinds]
        for start in range(0, len(agents), args.players):  # each agent at some seat of the probe match
            prepare_agents(agents[start : start + args.players], probe)


def check_listen(host: str, port: int) -> None:
    """One ValueError unless this machine can listen on `host`:`port` (a port of 1-65535, a name without
    blanks or control characters, an address of its own, free): tried with a socket bound and closed at
    once, before the server starts."""
    if not 1 <= port <= 65535:
        raise ValueError(f"--port {port} is not a port number (1-65535)")
    if not host.isprintable() or any(c.isspace() for c in host):  # the C resolver stops at a NUL, uvicorn does not
        raise ValueError(f"--host {host!r} is not a host name: it holds a blank or a control character")
    if not host.strip("0123456789.:") or ":" in host:  # looks like an address: it must be one
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"--host {host!r} is not an IP address") from None
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except (OSError, UnicodeError) as error:  # socket.gaierror is an OSError
        raise ValueError(f"cannot listen on {host} port {port}: {getattr(error, 'strerror', None) or error}") from None


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from city_envs.web.app import serve
    except ImportError as error:
        raise ValueError(f"serve needs the web extra (pip install 'city-envs[web]'): {error}") from None
    check_listen(args.host, args.port)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"city-envs: warning: listening on {args.host}, reachable from other machines", file=sys.stderr)
    serve(args.folders, host=args.host, port=args.port)
    return 0


# ----- entry point ------------------------------------------------------------------------------
class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, and none for options without one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == []:
            return action.help or ""
        return super()._get_help_string(action)


def add_benchmark_parser(sub, match_timeout: float) -> None:
    """`city-envs benchmark agent|compare|verify|tables|train|exploit|suites` (docs/benchmark.md)."""
    benchmark = sub.add_parser(
        "benchmark",
        help="score agents and training algorithms on a frozen suite",
        description="score agents and training algorithms on a frozen suite (docs/benchmark.md)",
        formatter_class=HelpFormatter,
    )
    verbs = benchmark.add_subparsers(dest="verb", required=True)

    def verb(name: str, helptext: str):
        return verbs.add_parser(name, help=helptext, description=helptext, formatter_class=HelpFormatter)

    def matches_options(command) -> None:
        command.add_argument(
            "--jobs", type=positive_int, default=1, help="worker processes (results do not depend on it)"
        )
        command.add_argument(
            "--backend",
            choices=("process", "ray"),
            default="process",
            help="local worker processes, or Ray tasks (pip install 'city-envs[cluster]')",
        )
        command.add_argument("--address", help="with --backend ray: the cluster to join (default: a local Ray)")
        command.add_argument(
            "--match-timeout",
            type=float,
            default=match_timeout,
            metavar="SECONDS",
            help="stop a match after this long, as a loss for the agent thinking (0: no limit)",
        )

    agent = verb("agent", "score one agent on every task of a suite")
    agent.add_argument(
        "spec",
        help="the agent, as evaluate --agents spells one: random, heuristic, ismcts[:...], "
        "ppo (each task's committed baseline), ppo:PATH, module:Class[:key=value...]",
    )
    agent.add_argument("--suite", default="v1", help="suite and variant: v1, v1-lite, v1-full (benchmark suites)")
    agent.add_argument(
        "--out",
        required=True,
        help="folder for the matches (as they end), results.json, report.md, plots and marl_eval.json",
    )
    agent.add_argument("--resume", action="store_true", help="finish the interrupted benchmark in --out")
    agent.add_argument(
        "--salt-file",
        metavar="FILE",
        help="play on secret seeds derived from the suite's and the salt in FILE (its SHA-256 is recorded; "
        "reveal it after the run as salt.txt in --out)",
    )
    agent.add_argument("--quiet", action="store_true", help="print only the final table")
    matches_options(agent)
    agent.set_defaults(func=cmd_benchmark_agent)

    compare = verb("compare", "rank benchmark results of one suite, with probabilities of improvement")
    compare.add_argument("results", nargs="+", help="benchmark folders (or their results.json)")
    compare.add_argument("--out", default="runs/compare", help="folder for comparison.json, .md and plots")
    compare.set_defaults(func=cmd_benchmark_compare)

    verify = verb(
        "verify",
        "replay every match of benchmark results from its seed and moves and recompute every figure "
        "(exit 0: verified; 1: what differs)",
    )
    verify.add_argument("results", nargs="+", help="benchmark folders (or their results.json)")
    verify.add_argument(
        "--salt-file", metavar="FILE", help="the salt of salted results (default: the salt.txt beside each)"
    )
    verify.add_argument(
        "--fresh",
        type=int,
        metavar="N",
        help="also play N new matches per task on fresh secret seeds with the recorded agent, and check each "
        "task's score against the recorded one (exit 1 if one lies outside)",
    )
    verify.add_argument("--jobs", type=positive_int, default=1, help="worker processes for --fresh")
    verify.add_argument(
        "--match-timeout",
        type=float,
        default=match_timeout,
        metavar="SECONDS",
        help="with --fresh: stop a match after this long, as a loss for the agent thinking (0: no limit)",
    )
    verify.set_defaults(func=cmd_benchmark_verify)

    verb("suites", "the suites, their tasks and line-ups").set_defaults(func=cmd_benchmark_suites)

    tables = verb("tables", "write the reference tables of a results folder into a page's marked sections")
    tables.add_argument("results", nargs="?", default="benchmarks", help="folder of agents/, algorithms/, exploit/")
    tables.add_argument("doc", nargs="?", default="docs/benchmark.md", help="the Markdown page to fill")
    tables.set_defaults(func=cmd_benchmark_tables)

    from city_envs.training.algorithms import add_arguments as add_train_arguments
    from city_envs.training.exploit import add_arguments as add_exploit_arguments

    train = verb("train", "train an algorithm on every task of a suite for K seeds, scoring checkpoints")
    add_train_arguments(train)
    matches_options(train)
    train.set_defaults(func=cmd_benchmark_train)

    exploit = verb("exploit", "train a MaskablePPO best response against a frozen agent")
    add_exploit_arguments(exploit)
    exploit.add_argument("--quiet", action="store_true", help="no progress bars")
    exploit.set_defaults(func=cmd_benchmark_exploit)


def game_command(sub, name: str, helptext: str, players: int | None) -> argparse.ArgumentParser:
    """A subcommand that plays one game: its name, `--players`, `--seed` and `--option`."""
    command = sub.add_parser(name, help=helptext, description=helptext, formatter_class=HelpFormatter)
    command.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    command.add_argument("--players", type=int, default=players, help="player count")
    command.add_argument("--seed", type=int, default=0, help="seed of the matches (and of the bots)")
    command.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option")
    return command


def add_play_parser(sub) -> None:
    """`city-envs play`."""
    play = game_command(sub, "play", "play in the terminal against bots", 4)
    play.add_argument(
        "--seats",
        help="comma-separated per seat: human, heuristic, random, ismcts, ppo[:PATH], "
        "module:Class[:key=value...] (default: human, then heuristic bots)",
    )
    play.add_argument("--quiet", action="store_true", help="do not print the bots' moves")
    play.set_defaults(func=cmd_play)


def add_bench_parser(sub) -> None:
    """`city-envs bench`."""
    helptext = "measure speed (random legal play, heuristic self-play; with --all also search)"
    bench = sub.add_parser("bench", help=helptext, description=helptext, formatter_class=HelpFormatter)
    # not `game`: check_setup checks a named game before any command, and with --all there is none
    bench.add_argument("game_name", metavar="game", nargs="?", help=f"one of: {', '.join(GAMES)} (none with --all)")
    bench.add_argument("--players", type=int, default=4, help="player count")
    bench.add_argument("--seed", type=int, default=0, help="seed of the matches (and of the bots)")
    bench.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option")
    bench.add_argument("--all", action="store_true", help="every game at every player count, as one table")
    bench.add_argument(
        "--seconds", type=positive_float, default=None, help="duration of each measurement (default 3, or 1 with --all)"
    )
    bench.add_argument(
        "--search", action="store_true", help="also one ISMCTS iteration's cost, Python and native (--all always does)"
    )
    bench.add_argument("--json", help="also write the figures to this file")
    bench.add_argument("--docs", help="with --all: rewrite the generated table of this Markdown file (docs/speed.md)")
    bench.set_defaults(func=cmd_bench)


def add_layout_parser(sub) -> None:
    """`city-envs layout`."""
    helptext = "a game's observation layout: its blocks as a Markdown table, or each value's name"
    layout = sub.add_parser("layout", help=helptext, description=helptext, formatter_class=HelpFormatter)
    layout.add_argument("game_name", metavar="game", help=f"one of: {', '.join(GAMES)}")
    layout.add_argument("--names", action="store_true", help="print each observation index and its feature name")
    layout.add_argument(
        "--docs",
        help="rewrite the table between <!-- tables:observation --> marks of this Markdown file (docs/games/<game>.md)",
    )
    layout.set_defaults(func=cmd_layout)


def add_evaluate_parser(sub, match_timeout: float) -> None:
    """`city-envs evaluate`."""
    evaluate = game_command(sub, "evaluate", "seat-rotated matches between bots, with win rates", 2)
    evaluate.add_argument(
        "--agents",
        default="heuristic,random",
        help="comma-separated agents (one per seat or more): random, heuristic, ismcts[:...], "
        "ppo[:PATH], or your own class as module:Class[:key=value...]",
    )
    evaluate.add_argument("--games", type=positive_int, default=100, help="matches to play")
    evaluate.add_argument("--jobs", type=positive_int, default=1, help="worker processes (results do not depend on it)")
    evaluate.add_argument(
        "--backend",
        choices=("process", "ray"),
        default="process",
        help="local worker processes, or Ray tasks (pip install 'city-envs[cluster]')",
    )
    evaluate.add_argument("--address", help="with --backend ray: the cluster to join (default: a local Ray)")
    evaluate.add_argument(
        "--out",
        help="directory for results.json, matches.csv, report.md and plots, and "
        "matches.jsonl, which receives each match as it ends",
    )
    evaluate.add_argument("--resume", action="store_true", help="finish the interrupted run in --out")
    evaluate.add_argument(
        "--match-timeout",
        type=float,
        default=match_timeout,
        metavar="SECONDS",
        help="stop a match after this long, as a loss for the agent thinking (0: no limit)",
    )
    evaluate.add_argument("--json", help="also write the results to this file")
    evaluate.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluate.set_defaults(func=cmd_evaluate)


def add_training_parsers(sub) -> None:
    """`city-envs train` and `city-envs baseline`."""
    train = game_command(
        sub,
        "train",
        "the main job: warm start and self-play MaskablePPO, then evaluate the policy (needs the train extra)",
        None,
    )
    from city_envs.training.selfplay import add_arguments

    add_arguments(train)
    train.set_defaults(func=cmd_train, seed=None)  # the config file decides unless a flag says otherwise

    helptext = (
        "retrain a committed PPO baseline from its config and publish it, then rewrite the baseline tables of "
        "README.md and docs/training.md"
    )
    baseline = sub.add_parser("baseline", help=helptext, description=helptext, formatter_class=HelpFormatter)
    # not `game`: check_setup checks a named game before any command, and with --tables there is none
    baseline.add_argument(
        "game_name", metavar="game", nargs="?", help=f"one of: {', '.join(GAMES)} (none with --tables)"
    )
    baseline.add_argument("--players", type=int, default=2, help="player count")
    baseline.add_argument("--out", help="run directory (default runs/baseline_<game>_<n>p; resumed if it holds one)")
    baseline.add_argument("--games", type=positive_int, default=400, help="evaluation matches per opponent kind")
    baseline.add_argument("--eval-seed", type=int, default=1000, help="evaluation seed (training never uses it)")
    baseline.add_argument("--jobs", type=positive_int, default=1, help="evaluation worker processes")
    baseline.add_argument(
        "--reference",
        action="store_true",
        help="train nothing: measure the heuristic against random seats on the evaluation seed, the tables' "
        "reference row (training/baselines/<game>_<n>p_reference.json)",
    )
    baseline.add_argument(
        "--from-run",
        metavar="RUN",
        help="train nothing: publish this finished run of the game and player count (its config becomes the "
        "committed one; a policy it continued is kept in training/baselines/policies/, its record in lineage/)",
    )
    baseline.add_argument(
        "--tables",
        nargs="*",
        metavar="PAGE",
        help="measure nothing: write the baseline tables from the committed JSON into the sections these Markdown "
        "pages have (no PAGE: the checkout's README.md and docs/training.md)",
    )
    baseline.set_defaults(func=cmd_baseline)


def add_tool_parsers(sub) -> None:
    """`city-envs convert-model` and `city-envs serve`."""
    convert = sub.add_parser("convert-model", help="rewrite a trusted SB3 MaskablePPO zip as a policy file")
    convert.add_argument("zip", help="the SB3 zip (a pickle: opening it can run code)")
    convert.add_argument("out", help="the policy file to write (*.safetensors)")
    convert.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    convert.add_argument("--players", type=int, default=2)
    convert.add_argument("--trust-pickle", action="store_true", help="you trust the zip's author")
    convert.set_defaults(func=cmd_convert_model)

    serve = sub.add_parser("serve", help="play and replay in the browser (needs the web extra)")
    serve.add_argument("folders", nargs="*", help="folders to replay from: evaluate --out runs, saved games (JSON)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=cmd_serve)


def add_demo_parser(sub) -> None:
    """`city-envs demo`."""
    demo = game_command(sub, "demo", "a first look without torch: a rendered bot match and a short evaluation", 4)
    demo.add_argument("--games", type=positive_int, default=100, help="matches of the evaluation")
    demo.add_argument("--image", default="city-envs-demo.png", help="PNG of the final table ('' for none)")
    demo.set_defaults(func=cmd_demo)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="city-envs", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        help="which engine plays every match of the command, its workers' too (default: native where it is built)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser(
        "list",
        help="games, player counts and options",
        formatter_class=HelpFormatter,
        description="games, player counts and options",
    ).set_defaults(func=cmd_list)

    add_play_parser(sub)
    add_bench_parser(sub)
    add_layout_parser(sub)
    from city_envs.evaluation import DEFAULT_MATCH_TIMEOUT

    add_evaluate_parser(sub, DEFAULT_MATCH_TIMEOUT)
    add_training_parsers(sub)
    add_tool_parsers(sub)
    add_benchmark_parser(sub, DEFAULT_MATCH_TIMEOUT)
    add_demo_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Bad input ends with one line and exit 2, before any work, and so does a path the system refuses
    (a name too long, a folder not writable); Ctrl-C with exit 130 and a closed output pipe
    (`city-envs list | head -1`) with exit 1, both without a traceback."""
    try:
        args = build_parser().parse_args(argv)
        chosen = os.environ.get(ENGINE_VARIABLE)
        if args.engine is not None:  # read by every game_class/make_game call, here and in worker processes
            os.environ[ENGINE_VARIABLE] = args.engine
        try:
            check_setup(args)
            code = args.func(args)
        except BrokenPipeError:
            raise
        except (ValueError, ImportError, OSError) as error:  # bad game, count, option, agent, path, missing extra
            print(f"city-envs {args.command}: error: {error}", file=sys.stderr)
            return 2
        finally:
            if args.engine is not None:  # main() called in-process (tests) leaves the environment as it was
                if chosen is None:
                    del os.environ[ENGINE_VARIABLE]
                else:
                    os.environ[ENGINE_VARIABLE] = chosen
        sys.stdout.flush()  # a closed pipe shows here, where it is handled, not at interpreter exit
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Python's documented way: send the rest of the output to devnull, so the exit flush is quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
