"""Issue 49's attack sweep, bounded and reproducible: every input class the issue lists, tried as an
attacker would, counting the cases tried and the cases that went wrong.

Each class runs in a worker process of its own (this file with `--worker CLASS`) under an address-space
cap (`resource.setrlimit`), inside a temporary folder, with fixed seeds and a time budget; each case runs
under an alarm. A case is wrong on: an exception escaping the door (a traceback), a hang (the alarm), a
500, an exit code other than the clear error's, more than one line on stderr, memory beyond the cap
(MemoryError), a file written where it must not be, or a payload echoed raw.

    python lab/attacks/issue49_sweep.py --out lab/attacks/issue49_sweep.json [--budget 20] [--only CLASS ...]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import html
import io
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CASE_SECONDS = 60  # the alarm of one case: a refusal takes milliseconds, a compare with its plots 10-20 s here
LOAD_SECONDS = 2.0  # a saved game loads or is refused within this (building 2**40 cards took 10 s)
MEMORY_HEADROOM = 3 * 2**30  # address space a worker may add to what its imports take
HUGE = [2**31, 2**40, 2**63, 10**30, -1, -(2**40)]
XSS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "'><svg onload=alert(1)>",
    "</textarea><script>alert(2)</script>",
    "<!-- x --><iframe src=javascript:alert(1)>",
]
TEXT_PAYLOADS = [
    "evil\n<!-- /tables:agents-tiny -->\n<script>alert(1)</script>",
    "a | b | c",
    "line\r\nbreak&#10;<!--",
]


class Hang(Exception):
    """The alarm of a case rang."""


def _ring(signum, frame):
    raise Hang


class Worker:
    """Runs the cases of one class, each under the alarm; keeps tried and wrong."""

    def __init__(self, name: str, budget: float, seed: int, tmp: Path) -> None:
        self.name, self.budget, self.tmp = name, budget, tmp
        self.rng = random.Random(seed)
        self.started = time.monotonic()
        self.tried = 0
        self.wrong: list[dict] = []

    def begin(self) -> None:
        """The budget counts from here: the class's set-up (positions, results to edit) is done."""
        self.started = time.monotonic()

    def time_left(self) -> bool:
        """Whether to try another case: always for the first (a class is never skipped by a slow
        set-up), then while the budget lasts."""
        return self.tried == 0 or time.monotonic() - self.started < self.budget

    def case(self, label: str, check: Callable[[], str | None]) -> None:
        """Run `check` (None when the door gave its one clear answer, else what went wrong)."""
        self.tried += 1
        signal.signal(signal.SIGALRM, _ring)
        signal.alarm(CASE_SECONDS)
        try:
            why = check()
        except Hang:
            why = f"hang (over {CASE_SECONDS} s)"
        except MemoryError:
            why = "memory beyond the cap (MemoryError)"
        except BaseException as error:  # anything escaping the door is a traceback
            why = f"traceback: {type(error).__name__}: {str(error)[:160]}"
        finally:
            signal.alarm(0)
        if why:
            self.wrong.append({"case": label, "why": why})


def cli(argv: list[str], code: int = 2, message: str = "") -> str | None:
    """None when `city-envs argv` ends with exit `code` and, for an error, one line on stderr holding
    `message`; else what went wrong. An argparse refusal (usage line, then one error line) counts as
    one clear error."""
    from city_envs.cli import main

    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            rc = main(argv)
        except SystemExit as stop:  # argparse
            rc = stop.code if isinstance(stop.code, int) else 2
    lines = err.getvalue().strip().splitlines()
    if "Traceback" in err.getvalue():
        return f"traceback on stderr: {lines[-1][:160]}"
    if rc != code:
        return f"exit {rc}, not {code}: {(lines or [''])[-1][:160]}"
    if code == 0:
        return None
    errors = [line for line in lines if not line.startswith("usage:") and not line.startswith("  ")]
    if len(errors) != 1:
        return f"{len(errors)} lines on stderr: {' / '.join(errors)[:200]}"
    if message not in errors[0]:
        return f"the error does not say {message!r}: {errors[0][:160]}"
    return None


def tree_digest(folder: Path) -> str:
    """A digest of every file's path and bytes under `folder` (what 'nothing written' compares)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(str(path.relative_to(folder)).encode())
        if path.is_file() and not path.is_symlink():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def fifo(path: Path) -> Path:
    if path.exists() or path.is_symlink():
        path.unlink()
    os.mkfifo(path)
    return path


# ----- saved games: huge counts -------------------------------------------------------------------------
def integer_paths(value: object, path: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from integer_paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from integer_paths(item, (*path, i))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


def positions(rng: random.Random) -> dict[str, list[dict]]:
    """Each game's start and a mid-game state (random legal moves, fixed seed) at its fewest and most seats."""
    import city_envs
    from city_envs.core.registry import game_class, make_game

    found: dict[str, list[dict]] = {}
    for name in city_envs.GAMES:
        cls = game_class(name)
        found[name] = []
        for n in (cls.allowed_player_counts()[0], cls.allowed_player_counts()[-1]):
            game = make_game(name, n, seed=3)
            for step in range(40):
                if step in (0, 39) or game.is_over():
                    found[name].append(game.to_dict())
                if game.is_over():
                    break
                game.apply(rng.choice(list(game.legal_action_ids())))
    return found


def with_value(data: dict, path: tuple, value: int) -> dict:
    data = copy.deepcopy(data)
    target = data["state"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


def huge_draws(w: Worker) -> Iterator[tuple[str, dict, tuple, int]]:
    """(game, state, field, value) drawn without end: each game in turn, each field equally likely."""
    games = positions(w.rng)
    fields = {name: [(s, p) for s in states for p in integer_paths(s["state"])] for name, states in games.items()}
    w.begin()
    while True:
        for name in games:
            state, path = w.rng.choice(fields[name])
            yield name, state, path, w.rng.choice(HUGE)


def class_huge_counts_from_dict(w: Worker) -> None:
    from city_envs.core.registry import game_class

    def load(name: str, data: dict) -> str | None:
        started = time.perf_counter()
        with contextlib.suppress(ValueError):  # a refusal is right; anything else escapes to the case
            game_class(name).from_dict(data)
        took = time.perf_counter() - started
        return f"took {took:.1f} s" if took > LOAD_SECONDS else None

    for name, state, path, value in huge_draws(w):
        if not w.time_left():
            return
        w.case(f"{name} state{list(path)} = {value}", lambda n=name, d=(state, path, value): load(n, with_value(*d)))


def web_client(served: Path, **kwargs):
    """The app serving `served` on Starlette's TestClient, sending forms with the session's token."""
    from starlette.testclient import TestClient

    from city_envs.web.app import CSRF_COOKIE, CSRF_FIELD, create_app

    class FormClient(TestClient):
        def post(self, url, *args, data=None, token=True, **rest):
            if token and CSRF_COOKIE not in self.cookies:
                self.get("/")
            if token:
                data = {CSRF_FIELD: self.cookies[CSRF_COOKIE]} | dict(data or {})
            return super().post(url, *args, data=data, **rest)

    return FormClient(create_app([served]), base_url="http://127.0.0.1:8000", raise_server_exceptions=False, **kwargs)


def answered(response, statuses: tuple[int, ...] = (), payloads: list[str] = ()) -> str | None:
    """What is wrong with a response: a 5xx, a traceback, a status not in `statuses`, a payload echoed raw."""
    if response.status_code >= 500:
        return f"HTTP {response.status_code}"
    if "Traceback" in response.text:
        return "a traceback in the page"
    if statuses and response.status_code not in statuses:
        return f"HTTP {response.status_code}, not {statuses}"
    for payload in payloads:
        if payload in response.text:
            return f"echoed raw: {payload[:40]!r}"
    return None


def class_huge_counts_replay(w: Worker) -> None:
    served = w.tmp / "served"
    served.mkdir()
    with web_client(served) as client:
        for i, (name, state, path, value) in enumerate(huge_draws(w)):
            if not w.time_left():
                return
            (served / f"h{i}.json").write_text(json.dumps(with_value(state, path, value)))

            def get(i=i):
                started = time.perf_counter()
                response = client.get("/replay", params={"src": f"0/h{i}.json"})
                took = time.perf_counter() - started
                return answered(response) or (f"took {took:.1f} s" if took > 2 * LOAD_SECONDS else None)

            w.case(f"GET /replay {name} state{list(path)} = {value}", get)


# ----- baseline --from-run -------------------------------------------------------------------------------
def class_from_run(w: Worker) -> None:
    """Crafted run folders: each must be refused (exit 2, one line) before any match, with nothing
    copied into the baselines' folder (a copy of the committed one) and no code of the folder run."""
    import tomli_w

    from city_envs.agents import policy_agent
    from city_envs.core.settings import read_toml
    from city_envs.training import baseline_tables, selfplay

    baselines = w.tmp / "baselines"
    shutil.copytree(ROOT / "training" / "baselines", baselines, ignore=shutil.ignore_patterns("*_curve.png"))
    policy_agent.BASELINES_DIR = baselines
    baseline_tables.PAGES = ()  # the checkout's pages stay as they are
    evaluated: list[bool] = []

    def quiet_evaluation(*args, **kwargs):
        evaluated.append(True)
        return {k: {"games": 2, "win_rate": 0.5, "ci95": [0.1, 0.9], "failures": 0} for k in ("random", "heuristic")}

    selfplay.evaluate_model = quiet_evaluation
    marker = w.tmp / "code-ran"
    evil = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nclass Agent: pass\n"

    def make_run(i: int) -> Path:
        run = w.tmp / f"run{i}"
        run.mkdir()
        shutil.copyfile(baselines / "big_city_2p.toml", run / "config.toml")
        shutil.copyfile(policy_agent.baseline_path("big_city", 2), run / "model.safetensors")
        (run / "evaluation.json").write_text(json.dumps({"game": "big_city", "players": 2, "timesteps": 10}))
        (run / "evilteacher.py").write_text(evil)
        return run

    def set_config(run: Path, **values) -> None:
        (run / "config.toml").write_text(tomli_w.dumps({**read_toml(run / "config.toml"), **values}))

    outside = w.tmp / "outside.safetensors"
    shutil.copyfile(policy_agent.baseline_path("big_city", 2), outside)
    deep = "[" * 100_000 + "]" * 100_000
    crafts: list[tuple[str, Callable[[Path], None]]] = [
        ("teacher pickle", lambda r: set_config(r, teacher=f"ppo:{r / 'm.zip'}:trust_pickle")),
        ("teacher pickle, spaced", lambda r: set_config(r, teacher=f"ppo:{r / 'm.zip'}: trust_pickle")),
        ("teacher pickle, upper case", lambda r: set_config(r, teacher=f"ppo:{r / 'm.zip'}:TRUST_PICKLE")),
        ("teacher pickle=true", lambda r: set_config(r, teacher=f"ppo:{r / 'm.zip'}:trust_pickle=true")),
        ("teacher module", lambda r: set_config(r, teacher="evilteacher:Agent")),
        ("teacher module, spaced", lambda r: set_config(r, teacher=" evilteacher:Agent ")),
        ("teacher dotted module", lambda r: set_config(r, teacher="evilteacher.Agent")),
        ("init_from /etc/passwd", lambda r: set_config(r, init_from="/etc/passwd")),
        ("init_from a policy outside", lambda r: set_config(r, init_from=str(outside))),
        ("init_from ../ out of the run", lambda r: set_config(r, init_from=str(r / ".." / "outside.safetensors"))),
        (
            "init_from a link out of the run",
            lambda r: (
                (r / "p.safetensors").symlink_to("/etc/passwd"),
                set_config(r, init_from=str(r / "p.safetensors")),
            ),
        ),
        (
            "init_from a text file in the run",
            lambda r: (
                (r / "p.safetensors").write_text("root:x:0:0\n"),
                set_config(r, init_from=str(r / "p.safetensors")),
            ),
        ),
        (
            "init_from a FIFO in the run",
            lambda r: (fifo(r / "p.safetensors"), set_config(r, init_from=str(r / "p.safetensors"))),
        ),
        ("evaluation.json a list", lambda r: (r / "evaluation.json").write_text("[1, 2]")),
        ("evaluation.json nested", lambda r: (r / "evaluation.json").write_text(deep)),
        ("evaluation.json negative time", lambda r: (r / "evaluation.json").write_text('{"ppo_seconds": -5}')),
        ("evaluation.json NaN", lambda r: (r / "evaluation.json").write_text('{"timesteps": NaN}')),
        (
            "evaluation.json 400 digits",
            lambda r: (r / "evaluation.json").write_text('{"timesteps": ' + "9" * 400 + "}"),
        ),
        ("evaluation.json selected a list", lambda r: (r / "evaluation.json").write_text('{"selected": [1]}')),
        ("evaluation.json not UTF-8", lambda r: (r / "evaluation.json").write_bytes(b'{"x": "\xff"}')),
        ("evaluation.json a FIFO", lambda r: fifo(r / "evaluation.json")),
        ("config.toml nested", lambda r: (r / "config.toml").write_text("a = " + "[" * 50_000 + "]" * 50_000)),
        ("config.toml a FIFO", lambda r: fifo(r / "config.toml")),
        ("config.toml 400 digits", lambda r: set_config(r, timesteps=int("9" * 400) % 2**63 * 10**300)),
        ("model a FIFO", lambda r: fifo(r / "model.safetensors")),
        ("model not a policy", lambda r: (r / "model.safetensors").write_text("not a policy")),
        (
            "model of another game",
            lambda r: shutil.copyfile(policy_agent.baseline_path("metropolys", 2), r / "model.safetensors"),
        ),
        (
            "model of another player count",
            lambda r: shutil.copyfile(policy_agent.baseline_path("big_city", 4), r / "model.safetensors"),
        ),
        (
            "curve.csv a stage with <script>",
            lambda r: (r / "curve.csv").write_text("stage,step\n<script>x</script>,1\n"),
        ),
        (
            "curve.csv a NaN win rate",
            lambda r: (r / "curve.csv").write_text("stage,step,win_rate_vs_random\nppo,1,nan\n"),
        ),
        (
            "curve.csv a field over csv's limit",
            lambda r: (r / "curve.csv").write_text("a,b\n" + "x" * 200_000 + ",1\n"),
        ),
        ("curve.csv NUL bytes", lambda r: (r / "curve.csv").write_bytes(b"a,b\n\x00\x00,1\n")),
        ("curve.csv not UTF-8", lambda r: (r / "curve.csv").write_bytes(b"a,b\n\xff\xfe,1\n")),
        ("learning_curve.png a link to /etc/passwd", lambda r: (r / "learning_curve.png").symlink_to("/etc/passwd")),
    ]
    for i, (label, craft) in enumerate(crafts):
        if not w.time_left():
            return

        def attempt(i=i, craft=craft) -> str | None:
            run = make_run(i)
            try:
                craft(run)
            except (OverflowError, ValueError, TypeError) as error:  # tomli_w cannot write it: nothing to try
                return f"the case could not be written ({error})"
            before, evaluated[:] = tree_digest(baselines), []
            cwd = os.getcwd()
            os.chdir(run)
            sys.path.insert(0, str(run))
            try:
                why = cli(["baseline", "big_city", "--from-run", str(run), "--games", "2"])
            finally:
                os.chdir(cwd)
                sys.path.remove(str(run))
            if marker.exists():
                return "code of the run folder ran"
            if "evilteacher" in sys.modules:
                return "a module of the run folder was imported"
            if tree_digest(baselines) != before:
                return "files written into the baselines' folder" + (f" ({why})" if why else "")
            if evaluated:
                return "accepted: evaluated and published"
            return why

        w.case(label, attempt)


# ----- served files -----------------------------------------------------------------------------------
def class_served_files(w: Worker) -> None:
    """Large, slow and linked results.json and matches.jsonl in a served folder: a 4xx within the alarm,
    never a 500; a run within its caps answers the same, from the cache, again and again."""
    from city_envs.web import replays

    served = w.tmp / "served"
    served.mkdir()
    summary = {"game": "citadels", "num_players": 2, "seed": 2, "options": {}, "games": 1, "lineup": ["random"]}

    def run(name: str, results: str | None = None, matches: str | None = None) -> Path:
        folder = served / name
        folder.mkdir()
        (folder / "results.json").write_text(json.dumps(summary) if results is None else results)
        (folder / "matches.jsonl").write_text("{}\n" if matches is None else matches)
        return folder

    cases: list[tuple[str, Callable[[], None]]] = [
        ("results.json of 8 million zeros", lambda: run("zeros", results="[" + "0," * 4_000_000 + "0]")),
        ("results.json sparse, 2 GB", lambda: os.truncate(run("sparse") / "results.json", 2 * 2**30)),
        ("results.json nested", lambda: run("nested", results="[" * 100_000 + "]" * 100_000)),
        ("results.json a FIFO", lambda: fifo(run("fifo") / "results.json")),
        (
            "results.json a link out",
            lambda: ((p := run("link") / "results.json").unlink(), p.symlink_to("/etc/passwd")),
        ),
        ("results.json 400 digits", lambda: run("digits", results='{"games": ' + "9" * 400 + "}")),
        ("results.json NaN", lambda: run("nan", results='{"games": NaN}')),
        ("matches.jsonl of too many lines", lambda: run("lines", matches="{}\n" * (replays.MAX_MATCH_LINES + 1))),
        ("matches.jsonl sparse, 2 GB", lambda: os.truncate(run("sparse_m") / "matches.jsonl", 2 * 2**30)),
        ("matches.jsonl a FIFO", lambda: fifo(run("fifo_m") / "matches.jsonl")),
        (
            "matches.jsonl one 15 MB line",
            lambda: run("long", matches='{"match": 0, "x": "' + "a" * 15 * 2**20 + '"}\n'),
        ),
        ("matches.jsonl nested line", lambda: run("deep_m", matches="[" * 50_000 + "]" * 50_000 + "\n")),
    ]
    with web_client(served) as client:
        for label, make in cases:
            if not w.time_left():
                return

            def attempt(make=make) -> str | None:
                before = set(served.iterdir())
                make()
                (folder,) = set(served.iterdir()) - before
                why = None
                for route in ("/replay", "/replay/board.png"):
                    started = time.perf_counter()
                    response = client.get(route, params={"src": f"0/{folder.name}", "match": "0"})
                    why = why or answered(response, statuses=(400, 403, 404, 413, 422))
                    if time.perf_counter() - started > 5:
                        why = why or f"{route} took {time.perf_counter() - started:.1f} s"
                return why or answered(client.get("/"), statuses=(200,))

            w.case(label, attempt)
        big = run("big", matches="".join(json.dumps({"match": i, "x": "y" * 50}) + "\n" for i in range(90_000)))
        for k in range(6):  # six requests for one large list: parsed once, cached after
            if not w.time_left():
                return

            def again(k=k) -> str | None:
                started = time.perf_counter()
                response = client.get("/replay", params={"src": f"0/{big.name}", "match": "0"})
                took = time.perf_counter() - started
                return answered(response) or (f"took {took:.1f} s" if k and took > 2 else None)

            w.case(f"a 90,000-line matches.jsonl, request {k + 1}", again)
        for route in ("/replay", "/replay/board.png"):

            def cross(route=route) -> str | None:
                response = client.get(
                    route,
                    params={"src": f"0/{big.name}", "match": "0"},
                    headers={"sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors"},
                )
                return answered(response, statuses=(403,))

            w.case(f"cross-site GET {route} of a run", cross)


# ----- result files: benchmark compare, tables, evaluate --resume ---------------------------------------
TINY = """
name = "tiny"
env_version = 0
[lineups]
random = { opponent = "random", seed = 11 }
[variants.default]
description = "one quick task"
tasks = ["citadels:2"]
matches = 4
"""


def made_results(w: Worker) -> Path:
    """Benchmark results of the heuristic and random on a one-task suite, as `benchmark tables` reads them."""
    from city_envs.evaluation import suite as suite_module
    from city_envs.evaluation import workers
    from city_envs.evaluation.benchmark import run_agent_benchmark
    from city_envs.evaluation.suite import load_suite

    (w.tmp / "suites").mkdir()
    (w.tmp / "suites" / "tiny.toml").write_text(TINY)
    suite_module.SUITES_DIR = w.tmp / "suites"
    workers.worker_start_method = lambda: "fork"
    root = w.tmp / "made"
    for name in ("heuristic", "random"):
        run_agent_benchmark(name, load_suite("tiny"), root / "agents" / "tiny" / name, reps=50)
    w.begin()
    return root


PAGE = "intro\n<!-- tables:agents-tiny -->\n<!-- /tables:agents-tiny -->\nend\n"


def result_case(
    w: Worker, made: Path, label: str, change: Callable[[Path], None], message: str, payload: str = ""
) -> None:
    """`change` applied to a copy of random's results.json: compare and tables each end with one line
    holding `message` and exit 2, writing nothing; or, for a `payload` in a text the replay does not
    check (an agent's display name), accept it and write it escaped."""

    def attempt() -> str | None:
        root = Path(tempfile.mkdtemp(dir=w.tmp))
        shutil.copytree(made, root / "results")
        path = root / "results" / "agents" / "tiny" / "random" / "results.json"
        change(path)
        doc = root / "page.md"
        doc.write_text(PAGE)
        code = 0 if payload else 2
        compare = ["benchmark", "compare", str(path.parent.parent / "heuristic"), str(path), "--out", str(root / "cmp")]
        why = cli(compare, code, message)
        if why:
            return f"compare: {why}"
        if code and (root / "cmp").exists():
            return "compare wrote its folder"
        why = cli(["benchmark", "tables", str(root / "results"), str(doc)], code, message)
        if why:
            return f"tables: {why}"
        if code:
            return "tables rewrote the page" if doc.read_text() != PAGE else None
        for written in (doc, root / "cmp" / "comparison.md"):
            if payload in written.read_text() or "<script>" in written.read_text():
                return f"{written.name}: the text went in raw"
        return None

    w.case(label, attempt)


def edit(change: Callable[[dict], None]) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))

    return apply


def every_lineup(data: dict) -> Iterator[dict]:
    for task in data["tasks"].values():
        yield from task["lineups"].values()


def class_result_numbers(w: Worker) -> None:
    """NaN, infinities, negative counts, 400-digit integers and short `ci95` in a result: refused by
    compare and tables with one line each."""
    made = made_results(w)
    nan, inf = float("nan"), float("inf")
    cases = [
        ("all scores NaN", edit(lambda r: [t.update(score=nan) for t in r["tasks"].values()]), "not a number"),
        ("iqm inf", edit(lambda r: r["aggregate"].update(iqm=inf)), "not a number"),
        ("iqm -inf", edit(lambda r: r["aggregate"].update(iqm=-inf)), "not a number"),
        ("iqm 1e999", lambda p: p.write_text(p.read_text().replace('"iqm": ', '"iqm": 1e999, "y": ', 1)), "not finite"),
        ("negative failures", edit(lambda r: [x.update(failures=-3) for x in every_lineup(r)]), "failures"),
        ("negative win rates", edit(lambda r: [x.update(win_rate=-0.5) for x in every_lineup(r)]), ""),
        ("negative seconds", edit(lambda r: r.update(seconds=-5.0)), ""),
        ("ci95 of one number", edit(lambda r: r["aggregate"].update(ci95=[0.1])), "ci95"),
        ("ci95 empty", edit(lambda r: r["aggregate"].update(ci95=[])), "ci95"),
        ("ci95 a string", edit(lambda r: r["aggregate"].update(ci95="x")), "ci95"),
        ("ci95 of a line-up short", edit(lambda r: [x.update(ci95=[0.2]) for x in every_lineup(r)]), ""),
        (
            "400-digit integer",
            lambda p: p.write_text(p.read_text().replace('"iqm": ', '"iqm": ' + "9" * 400 + ', "x": ', 1)),
            "out of range",
        ),
        ("nested 100,000 deep", lambda p: p.write_text("[" * 100_000 + "]" * 100_000), "nests too deeply"),
        (
            "nested inside the result",
            lambda p: p.write_text(p.read_text()[:-1] + ', "z": ' + "[" * 50_000 + "]" * 50_000 + "}"),
            "",
        ),
        ("a FIFO named results.json", lambda p: (p.unlink(), os.mkfifo(p)), "not a regular file"),
        ("a folder named results.json", lambda p: (p.unlink(), p.mkdir()), ""),
        ("not UTF-8", lambda p: p.write_bytes(b"\xff\xfe{}"), ""),
    ]
    for label, change, message in cases:
        if not w.time_left():
            return
        result_case(w, made, label, change, message)


def class_result_text(w: Worker) -> None:
    """Newlines, table markers and `<script>` in a result's texts: refused by the command (the edited
    result does not verify, exit 2, page untouched) and escaped in the tables and comparison written
    past the replay."""
    from city_envs.core.markdown import fill
    from city_envs.evaluation import compare as compare_module
    from city_envs.evaluation.compare import write_comparison
    from city_envs.evaluation.results import load_results
    from city_envs.evaluation.tables import all_tables

    made = made_results(w)
    for payload in TEXT_PAYLOADS:
        for where in ("agent spec", "agent name", "suite name"):
            if not w.time_left():
                return

            def change(r: dict, where=where, payload=payload) -> None:
                if where == "agent spec":
                    r["agent"]["spec"] = payload
                elif where == "agent name":
                    r["agent"]["name"] = payload
                else:
                    r["suite"]["suite"] = payload

            kept = payload if where == "agent name" else ""  # a display name: accepted, escaped
            outcome = "accepted, escaped" if kept else "refused"
            result_case(w, made, f"{where} {payload!r}: {outcome}", edit(change), "", kept)

            def escaped(change=change, payload=payload) -> str | None:
                root = Path(tempfile.mkdtemp(dir=w.tmp))
                shutil.copytree(made, root / "results")
                edit(change)(root / "results" / "agents" / "tiny" / "random" / "results.json")
                try:
                    text = fill(PAGE, all_tables(root / "results", verify=False))
                except ValueError:
                    text = PAGE  # refused even unverified
                verified = compare_module.require_verified
                compare_module.require_verified = load_results
                try:
                    folder = root / "results" / "agents" / "tiny"
                    write_comparison([folder / "heuristic", folder / "random"], root / "cmp", reps=50)
                    report = (root / "cmp" / "comparison.md").read_text()
                except ValueError:
                    report = ""
                finally:
                    compare_module.require_verified = verified
                later = [part.strip() for part in payload.splitlines()[1:] if part.strip() and part.strip() not in PAGE]
                for name, page in (("tables", text), ("comparison.md", report)):
                    if payload in page or "<script>" in page or page.count("<!-- /tables:agents-tiny -->") > 1:
                        return f"{name}: the text went in raw"
                    if any(line.strip().startswith(part) for line in page.splitlines() for part in later):
                        return f"{name}: the text's newline started a line of the page"
                return None

            w.case(f"{where} {payload!r}: escaped", escaped)


def class_nested(w: Worker) -> None:
    """Deeply nested JSON and TOML at every door that reads them (besides results and run folders)."""
    deep_json = "[" * 100_000 + "]" * 100_000
    deep_toml = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"
    deep_table = "x = " + "{a = " * 5_000 + "1" + "}" * 5_000 + "\n"
    for label, text in (("nested array", deep_toml), ("nested inline tables", deep_table), ("nested JSON", deep_json)):
        config = w.tmp / f"config_{len(label)}.toml"
        config.write_text(text)
        w.case(
            f"train --config {label}",
            lambda c=config: cli(["train", "citadels", "--config", str(c), "--out", str(w.tmp / "t")]),
        )
    for label, text in (("nested JSON", deep_json), ("nested TOML", deep_toml)):
        w.case(
            f"--option with {label}",
            lambda t=text: cli(["play", "citadels", "--players", "2", "--option", f"max_rounds={t[:20_000]}"]),
        )
        w.case(
            f"train --set with {label}",
            lambda t=text: cli(["train", "citadels", "--set", f"timesteps={t[:20_000]}", "--out", str(w.tmp / "t2")]),
        )
    out = resume_run(w)
    w.case("evaluate --resume with a nested record", lambda: resume_case(w, out, lambda lines: [*lines[:2], deep_json]))
    for name in ("comparison.json", "summary.json"):
        root = w.tmp / f"tables_{name}"
        folder = (
            root
            / ("compare" if name == "comparison.json" else "algorithms")
            / "tiny"
            / ("" if name == "comparison.json" else "ppo")
        )
        folder.mkdir(parents=True)
        (folder / name).write_text(deep_json)
        doc = root / "page.md"
        doc.write_text("<!-- tables:compare-tiny -->\n<!-- /tables:compare-tiny -->\n")
        w.case(
            f"benchmark tables with a nested {name}",
            lambda root=root, doc=doc: cli(["benchmark", "tables", str(root), str(doc)]),
        )


EVALUATE = [
    "evaluate",
    "citadels",
    "--players",
    "2",
    "--agents",
    "random,random",
    "--games",
    "3",
    "--seed",
    "4",
    "--quiet",
]


def resume_run(w: Worker) -> Path:
    """A finished 3-match evaluation in a folder: its matches.jsonl is what the resume cases edit."""
    out = w.tmp / "evaluated"
    why = cli([*EVALUATE, "--out", str(out)], 0)
    if why:
        raise RuntimeError(f"the evaluation the resume cases edit failed: {why}")
    w.begin()
    return out


def resume_case(w: Worker, out: Path, change: Callable[[list[str]], list[str] | bytes], code: int = 2) -> str | None:
    """`change` applied to the lines of a copy of the run's matches.jsonl, then `evaluate --resume`: exit
    `code` (one line for an error), and never NaN or an infinity written into results.json."""
    run = Path(tempfile.mkdtemp(dir=w.tmp))
    shutil.copytree(out, run, dirs_exist_ok=True)
    (run / "results.json").unlink(missing_ok=True)
    changed = change((run / "matches.jsonl").read_text().splitlines())
    data = changed if isinstance(changed, bytes) else ("\n".join(changed) + "\n").encode()
    (run / "matches.jsonl").write_bytes(data)
    why = cli([*EVALUATE, "--out", str(run), "--resume"], code)
    written = run / "results.json"
    if written.is_file() and any(word in written.read_text() for word in ("NaN", "Infinity")):
        return "NaN written into results.json"
    return why


def class_resume_records(w: Worker) -> None:
    """Incomplete and impossible match records for `evaluate --resume`."""
    out = resume_run(w)
    record = json.loads((out / "matches.jsonl").read_text().splitlines()[1])

    def with_record(new: dict | str) -> Callable[[list[str]], list[str]]:
        return lambda lines: [lines[0], new if isinstance(new, str) else json.dumps(new)]

    cases: list[tuple[str, Callable[[list[str]], list[str]], int]] = [
        (
            "a last line cut short (dropped, the run goes on)",
            lambda lines: "\n".join([*lines[:3], lines[3][:10]]).encode(),
            0,
        ),
        ("no header", lambda lines: lines[1:], 2),
        ("header not an object", lambda lines: ["[1]", *lines[1:]], 2),
        ("header of another run", lambda lines: [json.dumps({"run": {"game": "metropolys"}}), *lines[1:]], 2),
    ]
    for key in record:  # a record written before histories were kept has none: it resumes
        cases.append(
            (
                f"a record without {key}",
                with_record({k: v for k, v in record.items() if k != key}),
                2 - 2 * (key == "history"),
            )
        )
    for key, value in [
        ("scores", [float("nan")] * 2),
        ("scores", [1e308 * 10] * 2),
        ("win_share", [-1, 2]),
        ("win_share", [0.5]),
        ("match", -1),
        ("match", "0"),
        ("match", 2**70),
        ("seed", -5),
        ("kinds", ["evil:Agent", "random"]),
        ("culprit", 9),
        ("winners", [7]),
        ("decisions", [-1, 3]),
        ("history", [-1]),
        ("failed", "no"),
        ("extra", 1),
    ]:
        cases.append((f"a record with {key} = {str(value)[:30]}", with_record({**record, key: value}), 2))
    cases += [
        ("a record that is a list", with_record("[1, 2]"), 2),
        ("a record with NaN", with_record(json.dumps(record).replace("[", "[NaN, ", 1)), 2),
        (
            "a record with a 400-digit integer",
            with_record(json.dumps({**record, "match": 0}).replace('"match": 0', '"match": ' + "9" * 400)),
            2,
        ),
        ("a record not UTF-8", lambda lines: (lines[0] + '\n{"match": "\xff"}\n').encode("latin-1"), 2),
    ]
    for label, change, code in cases:
        if not w.time_left():
            return
        w.case(label, lambda change=change, code=code: resume_case(w, out, change, code))


def class_fifos(w: Worker) -> None:
    """FIFOs named like the files each command reads: one line and exit 2, never a read that blocks."""
    made = made_results(w)
    for label, target in (("results.json", "results.json"), ("a match log", "runs/citadels_2p/random/matches.jsonl")):
        root = Path(tempfile.mkdtemp(dir=w.tmp))
        shutil.copytree(made, root / "results")
        folder = root / "results" / "agents" / "tiny" / "random"
        fifo(folder / target)
        doc = root / "page.md"
        doc.write_text(PAGE)
        w.case(
            f"compare, {label} a FIFO",
            lambda f=folder, r=root: cli(["benchmark", "compare", str(f), "--out", str(r / "cmp")]),
        )
        w.case(
            f"tables, {label} a FIFO", lambda r=root, d=doc: cli(["benchmark", "tables", str(r / "results"), str(d)])
        )
        w.case(f"verify, {label} a FIFO", lambda f=folder: cli(["benchmark", "verify", str(f)]))
    page = fifo(w.tmp / "page.md")
    w.case("tables, the page a FIFO", lambda: cli(["benchmark", "tables", str(made), str(page)]))
    w.case("bench --docs a FIFO", lambda: cli(["bench", "--all", "--docs", str(page)]))
    w.case("baseline --tables a FIFO", lambda: cli(["baseline", "--tables", str(page)]))
    config = fifo(w.tmp / "config.toml")
    w.case(
        "train --config a FIFO", lambda: cli(["train", "citadels", "--config", str(config), "--out", str(w.tmp / "t")])
    )
    out = w.tmp / "fifo_run"
    out.mkdir()
    fifo(out / "matches.jsonl")
    w.case("evaluate --resume, matches.jsonl a FIFO", lambda: cli([*EVALUATE, "--out", str(out), "--resume"]))
    served = w.tmp / "served"
    served.mkdir()
    fifo(served / "game.json")
    fifo(served / "policy.safetensors")
    with web_client(served) as client:
        w.case(
            "GET /replay of a FIFO",
            lambda: answered(client.get("/replay", params={"src": "0/game.json"}), (400, 404, 413)),
        )
        seats = {"game": "citadels", "players": "2", "seat0": "ppo:0/policy.safetensors", "seat1": "random"}
        w.case("a seat of a FIFO policy", lambda: answered(client.post("/games", data=seats), (400,)))


def class_serve_args(w: Worker) -> None:
    """Bad `serve --port/--host`: one line and exit 2 before the server starts."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        cases = [["--port", p] for p in ("0", "-1", "65536", "99999", "9" * 30, "abc", "", "80.5", "0x50")]
        cases += [
            ["--host", h]
            for h in (
                "999.1.1.1",
                "1.2.3.4.5",
                "::1::",
                "256.0.0.1",
                "",
                " ",
                "fe80::zz",
                "a" * 300,
                "host.invalid",
                "1.2.3.4",
            )
        ]
        cases += [["--port", str(busy)], ["--host", "127.0.0.1\x00"]]
        for args in cases:
            w.case(f"serve {' '.join(args)!r}", lambda args=args: cli(["serve", *args]))


def class_web_seats(w: Worker) -> None:
    """Served policy files whose sizes do not fit the game or the player count: a 400 naming no path of
    the server's, within the alarm."""
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    from city_envs.agents.policy_agent import baseline_path

    served = w.tmp / "served"
    served.mkdir()
    lies = []
    for source, claims in [
        (("metropolys", 2), ("citadels", 2)),
        (("citadels", 2), ("citadels", 4)),
        (("citadels", 4), ("big_city", 4)),
        (("urban_sprawl", 2), ("blue_moon_city", 2)),
        (("blue_moon_city", 4), ("metropolys", 4)),
    ]:
        path = baseline_path(*source)
        with safe_open(str(path), framework="pt") as handle:
            metadata = handle.metadata()
        name = f"{source[0]}{source[1]}_as_{claims[0]}{claims[1]}.safetensors"
        save_file(
            load_file(str(path)),
            str(served / name),
            metadata={**metadata, "game": claims[0], "players": str(claims[1])},
        )
        lies.append((name, *claims))
    with web_client(served) as client:
        for name, game, players in lies:
            for seat in range(2):
                data = {"game": game, "players": str(players)} | {f"seat{i}": "random" for i in range(players)}
                data[f"seat{seat}"] = f"ppo:0/{name}"

                def attempt(data=data) -> str | None:
                    response = client.post("/games", data=data, follow_redirects=False)
                    why = answered(response, (400,))
                    if not why and (
                        str(served) in html.unescape(response.text) or str(w.tmp) in html.unescape(response.text)
                    ):
                        return "the error shows the server's path"
                    return why

                w.case(f"{name} at seat {seat} of {game} {players}p", attempt)


WRITES = [("/games", {"game": "citadels", "players": "2", "seat0": "person", "seat1": "random"})]


def class_cross_site(w: Worker) -> None:
    """Writes without the session's token or from another origin, and other sites' GETs of files: refused
    (403), nothing changed."""
    served = w.tmp / "served"
    served.mkdir()
    with web_client(served) as client:
        made = client.post("/games", data=WRITES[0][1], follow_redirects=False)
        url = made.headers["location"]
        game = url.rsplit("/", 1)[-1]
        from city_envs.web.app import CSRF_FIELD

        token = client.cookies.get("city_envs_csrf") or next(iter(client.cookies.values()), "")
        bodies = [
            ("no token", {}, {}),
            ("a wrong token", {CSRF_FIELD: "x" * 43}, {}),
            ("an empty token", {CSRF_FIELD: ""}, {}),
            ("the token, Origin of another site", {CSRF_FIELD: token}, {"origin": "http://evil.example"}),
            ("the token, Origin null", {CSRF_FIELD: token}, {"origin": "null"}),
            ("the token, cross-site fetch", {CSRF_FIELD: token}, {"sec-fetch-site": "cross-site"}),
            ("the token, same-site fetch", {CSRF_FIELD: token}, {"sec-fetch-site": "same-site"}),
            (
                "the token, Referer of another site",
                {CSRF_FIELD: token},
                {"referer": "http://evil.example/x", "origin": "http://evil.example"},
            ),
        ]
        routes = [
            ("/games", WRITES[0][1]),
            (f"{url}/act", {"seat": "0", "action": "0", "step": "0"}),
            (f"{url}/advance", {}),
            (f"{url}/delete", {}),
        ]
        for route, fields in routes:
            for label, extra, headers in bodies:
                w.case(
                    f"POST {route.replace(game, '<id>')}, {label}",
                    lambda route=route, fields=fields, extra=extra, headers=headers: answered(
                        client.post(route, data=fields | extra, headers=headers, token=False, follow_redirects=False),
                        (403,),
                    ),
                )
        w.case("the match is still there", lambda: answered(client.get(url), (200,)))
        (served / "game.json").write_text(json.dumps(_saved_game()))
        for route in (
            "/replay?src=0/game.json",
            "/replay/board.png?src=0/game.json",
            f"{url}/save.json",
            f"{url}/board.png",
        ):
            for site, mode in (
                ("cross-site", "no-cors"),
                ("cross-site", "cors"),
                ("same-site", "no-cors"),
                ("cross-site", "websocket"),
            ):
                w.case(
                    f"GET {route.replace(game, '<id>')} {site} {mode}",
                    lambda route=route, site=site, mode=mode: answered(
                        client.get(route, headers={"sec-fetch-site": site, "sec-fetch-mode": mode}), (403,)
                    ),
                )
        for route in ("/", "/static/app.js", "/nowhere", "/games", f"{url}/save.json"):
            w.case(
                f"security headers on GET {route.replace(game, '<id>')}",
                lambda route=route: headers_missing(client.get(route)),
            )


def headers_missing(response) -> str | None:
    wanted = {"x-content-type-options": "nosniff", "x-frame-options": "DENY"}
    missing = [k for k, v in wanted.items() if response.headers.get(k) != v]
    if "frame-ancestors 'none'" not in response.headers.get("content-security-policy", ""):
        missing.append("content-security-policy")
    return f"no {', '.join(missing)}" if missing else answered(response)


def _saved_game() -> dict:
    from city_envs import make_game

    game = make_game("urban_sprawl", 2, seed=5)
    for _ in range(20):
        game.apply(game.legal_action_ids()[-1])
    return game.to_dict()


def class_host(w: Worker) -> None:
    """Host spellings that are not the served address: a 400 on every route."""
    hosts = [
        "evil.example",
        "127.0.0.1.nip.io",
        "localhost.evil.example",
        "",
        "[::2]",
        "127.0.0.2",
        "attacker.test:8000",
        "a b",
        "127.0.0.1@evil.example",
        "LOCALHOST.",
        "localhost..",
        "127.1",
        "2130706433",
        "0x7f.0.0.1",
        "127.0.0.1:8000@evil",
        "127.0.0.1 evil",
        "127.0.0.1\tx",
        "[::ffff:127.0.0.1]",
        "0.0.0.0",
        "xn--lcalhost-9za",
    ]
    routes = [
        ("GET", "/"),
        ("GET", "/new"),
        ("POST", "/games"),
        ("GET", "/replay?src=0"),
        ("GET", "/static/app.js"),
        ("GET", "/rules/citadels"),
    ]
    served = w.tmp / "served"
    served.mkdir()
    with web_client(served) as client:
        for host in hosts:
            for method, route in routes:
                if not w.time_left():
                    return
                w.case(
                    f"{method} {route} Host {host!r}",
                    lambda host=host, method=method, route=route: answered(
                        client.request(method, route, headers={"host": host}), (400,)
                    ),
                )


def class_xss(w: Worker) -> None:
    """XSS payloads in every form field and query parameter: never echoed raw, never a 500."""
    served = w.tmp / "served"
    served.mkdir()
    (served / "game.json").write_text(json.dumps(_saved_game()))
    with web_client(served) as client:
        made = client.post("/games", data=WRITES[0][1], follow_redirects=False)
        url = made.headers["location"]
        base = {"game": "citadels", "players": "2", "seed": "1", "seat0": "person", "seat1": "random"}
        doors: list[tuple[str, Callable[[str], object]]] = []
        for field in ("game", "players", "seed", "seat0", "seat1", "opt_max_rounds", "opt_classic_variant", "extra"):
            doors.append(
                (
                    f"POST /games {field}",
                    lambda p, f=field: client.post("/games", data=base | {f: p}, follow_redirects=False),
                )
            )
        for field in ("seat", "action", "step", "extra"):
            doors.append(
                (
                    f"POST act {field}",
                    lambda p, f=field: client.post(
                        f"{url}/act", data={"seat": "0", "action": "0", "step": "0"} | {f: p}
                    ),
                )
            )
        doors += [
            ("GET /new game", lambda p: client.get("/new", params={"game": p})),
            ("GET /new players", lambda p: client.get("/new", params={"players": p})),
            ("GET game seat", lambda p: client.get(url, params={"seat": p})),
            ("POST advance seat", lambda p: client.post(f"{url}/advance", params={"seat": p})),
            ("GET /replay src", lambda p: client.get("/replay", params={"src": p})),
            ("GET /replay src in folder", lambda p: client.get("/replay", params={"src": "0/" + p})),
            ("GET /replay step", lambda p: client.get("/replay", params={"src": "0/game.json", "step": p})),
            ("GET /replay view", lambda p: client.get("/replay", params={"src": "0/game.json", "view": p})),
            ("GET /replay match", lambda p: client.get("/replay", params={"src": "0", "match": p})),
            ("GET /rules/<name>", lambda p: client.get("/rules/" + p)),
            ("GET /games/<id>", lambda p: client.get("/games/" + p)),
            ("GET /watch/<id>", lambda p: client.get("/watch/" + p)),
            ("GET a path", lambda p: client.get("/" + p)),
        ]
        for label, door in doors:
            for payload in XSS:
                if not w.time_left():
                    return
                w.case(
                    f"{label} {payload!r}",
                    lambda door=door, payload=payload: answered(door(payload), payloads=[payload]),
                )
        (served / f"{XSS[1]}.json").write_text(json.dumps(_saved_game()))
        w.case("a served file named with a payload, listed", lambda: answered(client.get("/"), (200,), [XSS[1]]))


CLASSES: dict[str, Callable[[Worker], None]] = {
    "huge counts: from_dict": class_huge_counts_from_dict,
    "huge counts: GET /replay?src=": class_huge_counts_replay,
    "baseline --from-run folders": class_from_run,
    "served files: size, slowness, links": class_served_files,
    "result numbers: NaN, inf, negative, 400 digits, short ci95": class_result_numbers,
    "result texts in tables and compare": class_result_text,
    "deeply nested JSON/TOML": class_nested,
    "evaluate --resume records": class_resume_records,
    "FIFOs named like result files": class_fifos,
    "serve --port/--host": class_serve_args,
    "web seats whose sizes do not fit": class_web_seats,
    "cross-site writes and GETs, headers": class_cross_site,
    "Host spellings": class_host,
    "XSS payloads in every field": class_xss,
}


def address_space() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def run_worker(name: str, budget: float, seed: int) -> None:
    """One class in this process (the parent set the cap): its counts as one JSON line on stdout."""
    import torch  # noqa: F401  (imported before the cap is taken: the policy files need it)

    import city_envs.cli  # noqa: F401

    with contextlib.suppress(ImportError):  # the web app's imports take seconds on a busy machine: not the budget's
        import city_envs.web.app  # noqa: F401

    cap = address_space() + MEMORY_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (cap, resource.RLIM_INFINITY))
    real_stdout = sys.stdout
    with tempfile.TemporaryDirectory(prefix="issue49-") as folder:
        worker = Worker(name, budget, seed, Path(folder))
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                CLASSES[name](worker)
        except BaseException as error:  # the class's own set-up failed: one wrong, named
            worker.tried += 1
            worker.wrong.append({"case": "set-up", "why": f"{type(error).__name__}: {str(error)[:200]}"})
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(
        json.dumps({"tried": worker.tried, "wrong": worker.wrong, "max_rss_mb": rss, "cap_mb": cap >> 20}),
        file=real_stdout,
    )


def sweep(budget: float, seed: int, names: list[str]) -> dict:
    """Every class in a worker process of its own; a worker that outlives its wall time is one hang."""
    rows = {}
    for name in names:
        started = time.monotonic()
        wall = budget * 2 + 120  # imports, set-up and the last case's alarm
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--worker", name, "--budget", str(budget), "--seed", str(seed)],
                capture_output=True,
                text=True,
                timeout=wall,
                cwd=ROOT,
            )
            last = done.stdout.strip().splitlines()[-1:] or [""]
            try:
                row = json.loads(last[0])
            except json.JSONDecodeError:
                row = {
                    "tried": 1,
                    "wrong": [{"case": "worker", "why": f"exit {done.returncode}: {done.stderr[-300:]}"}],
                }
        except subprocess.TimeoutExpired:
            row = {"tried": 1, "wrong": [{"case": "worker", "why": f"hang: over {wall:.0f} s"}]}
        row["seconds"] = round(time.monotonic() - started, 1)
        rows[name] = row
        print(
            f"{name}: {row['tried']} tried, {len(row['wrong'])} wrong ({row['seconds']} s)", file=sys.stderr, flush=True
        )
    return {"budget_seconds": budget, "seed": seed, "classes": rows}


def table(report: dict) -> str:
    lines = ["| class | tried | wrong | what each wrong was |", "|---|---|---|---|"]
    for name, row in report["classes"].items():
        whats = "; ".join(f"{w['case']}: {w['why']}" for w in row["wrong"]).replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {name} | {row['tried']} | {len(row['wrong'])} | {whats or '-'} |")
    total_tried = sum(row["tried"] for row in report["classes"].values())
    total_wrong = sum(len(row["wrong"]) for row in report["classes"].values())
    lines.append(f"| all | {total_tried} | {total_wrong} | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write the counts as JSON to this file")
    parser.add_argument("--budget", type=float, default=8.0, help="seconds of cases per class")
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--only", action="append", metavar="CLASS", help="run this class (repeatable; default: all)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.budget, args.seed)
        return 0
    names = args.only or list(CLASSES)
    unknown = [n for n in names if n not in CLASSES]
    if unknown:
        parser.error(f"unknown classes {unknown}: choose from {list(CLASSES)}")
    report = sweep(args.budget, args.seed, names)
    print(table(report))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return 1 if any(row["wrong"] for row in report["classes"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
