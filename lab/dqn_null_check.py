"""`train_dqn`'s cost per learner step with Tianshou's stock NaN check and with `NewEntriesNullCheck`.

Tianshou's off-policy trainer checks the replay buffer for NaNs after every collection. The stock
check copies every stored transition; `NewEntriesNullCheck` (city_envs/integrations/tianshou.py) looks
at those added since it last answered, and both train the same networks bit for bit
(tests/integrations/test_tianshou.py). For each game at 2 players, `train_dqn` trains with its
defaults (seed 0) to as many learner steps as its replay buffer holds (20,000), then
`--steps` more; the figure is this process's CPU ms per learner step over those last steps, where
the stock check's cost no longer grows (the 1M-step runs of the benchmark spend 98% of their steps
there). Each repeat runs both arms, the first arm alternating, after one warm-up run that pays the
imports. The ratio is stock over new per repeat; its interval, a Student t 95% interval of the
mean log ratio over the repeats (`scipy.stats`).

    nohup python -m lab.dqn_null_check --out benchmarks/dqn_null_check/results.json --doc docs/benchmark.md &
    python -m lab.dqn_null_check --from-json benchmarks/dqn_null_check/results.json --doc docs/benchmark.md

`results.json` is rewritten after each run and a stopped study resumes from it (the same settings, or
one ValueError); the table reaches docs/benchmark.md only from it (`<!-- tables:dqn-null-check -->`).
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import tempfile
import time
from pathlib import Path

from city_envs.core.markdown import link_from, write_sections
from city_envs.core.registry import GAMES
from city_envs.core.settings import read_measurement
from lab.doc_option import add_doc_options, write_from_json

SECTION = "dqn-null-check"
ARMS = ("stock", "new")
WARM_UP_STEPS = 2_000


def default_buffer_size() -> int:
    """`train_dqn`'s replay buffer: from this many steps on, the stock check scans it whole."""
    import inspect

    from city_envs.integrations.tianshou import train_dqn

    return inspect.signature(train_dqn).parameters["buffer_size"].default


def cpu_ms_per_step(game: str, arm: str, steps: int, filled: int) -> float:
    """`train_dqn` on `game` at 2 players to `filled` steps, then `steps` more, with the `arm` check: this
    process's CPU ms per learner step over the last `steps` (timed at each checkpoint's save)."""
    import safetensors.torch
    from tianshou.data import VectorReplayBuffer

    import city_envs.integrations.tianshou as plugin

    saved: list[float] = []
    save_file, check = safetensors.torch.save_file, plugin.NewEntriesNullCheck

    def timed_save(*args, **kwargs) -> None:
        saved.append(time.process_time())
        save_file(*args, **kwargs)

    safetensors.torch.save_file = timed_save
    plugin.NewEntriesNullCheck = VectorReplayBuffer if arm == "stock" else check
    try:
        with tempfile.TemporaryDirectory(prefix="dqn-null-check-") as folder:
            plugin.train_dqn(game, 2, 0, [filled, filled + steps], Path(folder))
    finally:
        safetensors.torch.save_file, plugin.NewEntriesNullCheck = save_file, check
    return (saved[1] - saved[0]) * 1000 / steps


def ratio_interval(stock: list[float], new: list[float]) -> list[float]:
    """The mean stock/new ratio (geometric, over paired repeats) and its Student t 95% interval."""
    from scipy import stats

    logs = [math.log(s / n) for s, n in zip(stock, new, strict=True)]
    mean = sum(logs) / len(logs)
    if len(logs) < 2:
        return [math.exp(mean), math.nan, math.nan]
    low, high = stats.ttest_1samp(logs, 0.0).confidence_interval(0.95)
    return [math.exp(mean), math.exp(low), math.exp(high)]


def table(results: dict) -> str:
    """Per game: each arm's CPU ms per step (mean of the repeats) and the ratio with its interval."""
    options = results["options"]
    lines = [
        f"`train_dqn` at 2 players, CPU ms per learner step from step {options['filled']:,} to "
        f"{options['filled'] + options['steps']:,} (its buffer full), {options['repeats']} paired repeats; the "
        "ratio is stock over new, with a Student t 95% interval:",
        "",
        "| game | repeats | stock check, ms a step | new-entries check, ms a step | ratio (95% CI) |",
        "|---|---|---|---|---|",
    ]
    for game, runs in results["games"].items():
        stock, new = runs["stock"], runs["new"]
        pairs = min(len(stock), len(new))
        if pairs == 0:
            continue
        ratio, low, high = ratio_interval(stock[:pairs], new[:pairs])
        interval = "-" if math.isnan(low) else f"{low:.2f}-{high:.2f}"
        lines.append(
            f"| {game} | {pairs} | {sum(stock[:pairs]) / pairs:.3f} | {sum(new[:pairs]) / pairs:.3f} "
            f"| {ratio:.2f} ({interval}) |"
        )
    return "\n".join(lines) + "\n"


def load_results(path: str | Path) -> dict:
    """A results.json this study wrote, checked for every figure its table reads (one ValueError if not)."""

    def check(results: dict) -> None:
        for runs in results["games"].values():
            if any(not (isinstance(ms, float) and ms > 0) for arm in ARMS for ms in runs[arm]):
                raise ValueError("every figure must be a positive number of ms")
        table(results)
        if not all(isinstance(command, str) for command in results["commands"]):
            raise TypeError("commands must be a list of command lines")

    return read_measurement(path, "dqn_null_check", "a dqn_null_check results.json", check)


def doc_section(results: dict, source: str | Path, page: str | Path) -> str:
    commands = ", ".join(f"`{command}`" for command in results["commands"])
    return f"{table(results)}\nMade by {commands}; every figure: {link_from(page, source)}."


def write_doc(page: str | Path, source: str | Path) -> None:
    """Fill `page`'s dqn-null-check section from the results file `source`."""
    write_sections(page, {SECTION: doc_section(load_results(source), source, page)}, (SECTION,))


def run(out: Path, games: list[str], steps: int, repeats: int, doc: str | None, command: str) -> dict:
    """Every missing run, repeat after repeat (each repeat's games before the next), saving after each."""
    options = {"steps": steps, "filled": default_buffer_size()}
    if out.is_dir():
        raise ValueError(f"--out {out} is a folder: name the results file to write")
    if out.is_file():
        results = load_results(out)
        if {key: results["options"][key] for key in options} != options:
            raise ValueError(f"{out} holds a study of other settings ({results['options']}): pass another --out")
    else:
        results = {"measurement": "dqn_null_check", "options": options, "commands": [], "games": {}}
    results["options"]["repeats"] = max(repeats, results["options"].get("repeats", 0))
    if command not in results["commands"]:
        results["commands"].append(command)
    missing = [
        (repeat, game, arm)
        for repeat in range(repeats)
        for game in games
        for arm in (ARMS if repeat % 2 == 0 else ARMS[::-1])
        if len(results["games"].get(game, {}).get(arm, [])) <= repeat
    ]
    if missing:  # pays the imports before any timing
        cpu_ms_per_step(games[0], "new", WARM_UP_STEPS, WARM_UP_STEPS)
    for repeat, game, arm in missing:
        runs = results["games"].setdefault(game, {name: [] for name in ARMS})
        runs[arm].append(round(cpu_ms_per_step(game, arm, steps, options["filled"]), 4))
        print(f"{game} repeat {repeat} {arm}: {runs[arm][-1]:.3f} CPU ms a step", flush=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=1) + "\n")
        if doc:
            write_doc(doc, out)
    print(table(results), end="")
    return results


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m lab.dqn_null_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="runs/dqn_null_check/results.json", help="the results file")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--steps", type=int, default=10_000, help="timed learner steps after the buffer fills")
    parser.add_argument("--repeats", type=int, default=3, help="paired runs of both arms a game")
    add_doc_options(parser, SECTION, "results.json")
    args = parser.parse_args(argv)
    try:
        if write_from_json(args, SECTION, write_doc):
            return 0
        if args.steps < 1 or args.repeats < 1:
            raise ValueError("--steps and --repeats must be at least 1")
        command = f"python -m lab.dqn_null_check {shlex.join(argv)}"
        run(Path(args.out), args.games, args.steps, args.repeats, args.doc, command)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
