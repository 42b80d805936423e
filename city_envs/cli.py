"""`city-envs`: list the games, play one in the terminal, benchmark, evaluate bots, run the demo."""

from __future__ import annotations

import argparse
import ast
import json
import sys
from typing import TextIO

import numpy as np

from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import ENV_VERSION, GAMES, game_class, make_game


# ----- helpers ----------------------------------------------------------------------------------
def parse_options(pairs: list[str] | None) -> dict:
    """`key=value` strings to options; values are Python literals when they parse as one."""
    options = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        if not sep:
            raise ValueError(f"option {pair!r} is not of the form key=value")
        try:
            options[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            options[key] = text
    return options


def has_heuristic(name: str) -> bool:
    from agents.registry import HEURISTICS

    return name in HEURISTICS


class HumanAgent:
    """A person at the terminal: sees the public table, its own information and numbered actions."""

    def __init__(self, game: Game, stdin: TextIO, stdout: TextIO) -> None:
        self.game, self.stdin, self.stdout = game, stdin, stdout

    def act(self, info_set: InfoSet) -> int:
        out = self.stdout
        legal = info_set.legal_action_ids()
        print("\n" + self.game.render_text(), file=out)
        print(self.game.render_private(info_set.player), file=out)
        print(f"-- seat {info_set.player}, your decision:", file=out)
        for number, action in enumerate(legal):
            print(f"  {number:>3}. {info_set.describe_action(action)}", file=out)
        while True:
            print("choose a number (q quits): ", end="", file=out, flush=True)
            line = self.stdin.readline()
            if not line or line.strip().lower() == "q":
                raise KeyboardInterrupt
            text = line.strip()
            if text.isdigit() and int(text) < len(legal):
                return legal[int(text)]
            print(f"  please type a number from 0 to {len(legal) - 1}", file=out)


def play_match(game: Game, seats: list[str], seed: int, stdin: TextIO, stdout: TextIO, quiet: bool) -> Game:
    """Play to the end; bots' moves are printed as the table sees them (no secret choices)."""
    from agents.registry import make_agent

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
        game.apply(action)
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
        print(f"{name}  (env {name}_v{ENV_VERSION}; {counts} players; heuristic agent: {heuristic})")
        for key, option in cls.options_spec.items():
            allowed = ", ".join(map(repr, option.choices)) if option.choices is not None else option.allowed
            print(f"    {key} = {option.default!r}  [{allowed}]  {option.doc}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    options = parse_options(args.option)
    seats = [s.strip() for s in (args.seats or ",".join(["human"] + ["heuristic"] * (args.players - 1))).split(",")]
    game = make_game(args.game, args.players, seed=args.seed, **options)
    try:
        play_match(game, seats, args.seed, sys.stdin, sys.stdout, quiet=args.quiet)
    except KeyboardInterrupt:
        print("\ngame abandoned")
        return 1
    print_result(game, seats, sys.stdout)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from city_envs import bench

    options = parse_options(args.option)
    result = bench.run(args.game, args.players, seconds=args.seconds, seed=args.seed, **options)
    rows = [
        ("raw Game API decisions/s", f"{result['decisions_per_s']:,.0f}"),
        ("AEC agent-steps/s (last + step)", f"{result['aec_steps_per_s']:,.0f}"),
        ("games/s (raw)", f"{result['games_per_s']:,.1f}"),
        ("mean decisions per game", f"{result['decisions_per_game']:.1f}"),
        ("observation() us", f"{result['observation_us']:.1f}"),
        ("legal_actions() us (uncached)", f"{result['legal_actions_us']:.1f}"),
        ("clone() us", f"{result['clone_us']:.1f}"),
    ]
    if result["connect_four_aec_steps_per_s"]:
        rows += [
            ("connect_four_v3 AEC agent-steps/s", f"{result['connect_four_aec_steps_per_s']:,.0f}"),
            ("AEC ratio vs connect_four_v3", f"{result['aec_ratio_vs_connect_four']:.2f}x"),
            ("raw ratio vs connect_four_v3 AEC", f"{result['raw_ratio_vs_connect_four']:.2f}x"),
        ]
    else:
        rows.append(("connect_four_v3", "not installed (pip install 'pettingzoo[classic]')"))
    print(f"{args.game}, {args.players} players, random legal play, seed {args.seed}, ~{args.seconds:g} s each")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label:<{width}}  {value:>12}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from training.arena import evaluate, format_results, write_reports

    kinds = [k.strip() for k in args.agents.split(",")]
    options = parse_options(args.option)
    with Progress(transient=True) as bar:
        task = bar.add_task(f"{args.game} {args.players}p", total=args.games)
        result = evaluate(args.game, args.players, kinds, args.games, args.seed, jobs=args.jobs,
                          progress=lambda: bar.advance(task), backend=args.backend, address=args.address,
                          **options)
    print(format_results(result))
    if args.out:
        for path in write_reports(result, args.out):
            print(f"wrote {path}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=2)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from training.selfplay import run_command

    return run_command(args)


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job for now: one rendered match of the heuristic against random bots, then a
    short seat-rotated evaluation of the same line-up."""
    from training.arena import evaluate, format_results

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


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from city_envs.web.app import serve
    except ImportError as error:
        raise ValueError(f"serve needs the web extra (pip install 'city-envs[web]'): {error}") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"city-envs: warning: listening on {args.host}, reachable from other machines", file=sys.stderr)
    serve(args.folders, host=args.host, port=args.port)
    return 0


# ----- entry point ------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="city-envs", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="games, player counts and options").set_defaults(func=cmd_list)

    def game_command(name: str, helptext: str, players: int):
        command = sub.add_parser(name, help=helptext)
        command.add_argument("game", help=f"one of: {', '.join(GAMES)}")
        command.add_argument("--players", type=int, default=players)
        command.add_argument("--seed", type=int, default=0)
        command.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option")
        return command

    play = game_command("play", "play in the terminal against bots", 4)
    play.add_argument("--seats", help="comma-separated per seat: human, heuristic, random, ismcts, ppo[:PATH]")
    play.add_argument("--quiet", action="store_true", help="do not print the bots' moves")
    play.set_defaults(func=cmd_play)

    bench = game_command("bench", "measure speed (random legal play)", 4)
    bench.add_argument("--seconds", type=float, default=3.0, help="duration of each measurement")
    bench.add_argument("--json", help="also write the figures to this file")
    bench.set_defaults(func=cmd_bench)

    evaluate = game_command("evaluate", "seat-rotated matches between bots, with win rates", 2)
    evaluate.add_argument("--agents", default="heuristic,random", help="comma-separated agents")
    evaluate.add_argument("--games", type=int, default=100)
    evaluate.add_argument("--jobs", type=int, default=1, help="worker processes (results do not depend on it)")
    evaluate.add_argument("--backend", choices=("process", "ray"), default="process",
                          help="local worker processes, or Ray tasks (pip install 'city-envs[cluster]')")
    evaluate.add_argument("--address", help="with --backend ray: the cluster to join (default: a local Ray)")
    evaluate.add_argument("--out", help="directory for results.json, matches.csv, report.md and plots")
    evaluate.add_argument("--json", help="also write the results to this file")
    evaluate.set_defaults(func=cmd_evaluate)

    train = game_command("train", "self-play MaskablePPO (needs the train extra)", 2)
    from training.selfplay import add_arguments

    add_arguments(train)
    train.set_defaults(func=cmd_train)

    serve = sub.add_parser("serve", help="play and replay in the browser (needs the web extra)")
    serve.add_argument("folders", nargs="*", help="folders to replay from: evaluate --out runs, saved games (JSON)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    serve.add_argument("--port", type=int, default=8000)
    serve.set_defaults(func=cmd_serve)

    demo = game_command("demo", "the main job: a rendered bot match and a short evaluation", 4)
    demo.add_argument("--games", type=int, default=100)
    demo.add_argument("--image", default="city-envs-demo.png", help="PNG of the final table ('' for none)")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as error:  # bad game, player count, option or seats: say so, no traceback
        print(f"city-envs: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
