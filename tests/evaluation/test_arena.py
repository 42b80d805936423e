"""city_envs.evaluation (the arena): seat rotation, reproducibility, shared wins and the Wilson interval."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from city_envs import make_game
from city_envs.agents.policy_agent import baseline_path
from city_envs.cli import main as cli_main
from city_envs.evaluation import evaluate, format_results, match_seeds, schedule, seat_lineup, wilson_interval, workers
from city_envs.evaluation.reports import write_reports
from city_envs.evaluation.workers import Runner


@pytest.mark.parametrize(
    "wins, n, low, high",
    [
        (5, 10, 0.236593, 0.763407),
        (0, 10, 0.0, 0.277530),
        (10, 10, 0.722470, 1.0),
        (81, 100, 0.722212, 0.874852),
        (1, 4, 0.045586, 0.699358),
    ],
)
def test_wilson_interval_known_values(wins, n, low, high):
    lo, hi = wilson_interval(wins, n)
    assert lo == pytest.approx(low, abs=1e-5) and hi == pytest.approx(high, abs=1e-5)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(2.5, 5)  # fractional wins from shared victories
    assert lo < 0.5 < hi and hi - 0.5 == pytest.approx(0.5 - lo)


def test_rotation_puts_every_agent_in_every_seat():
    kinds = ["heuristic", "random", "random", "random"]
    lineups = [seat_lineup(kinds, i) for i in range(8)]
    for seat in range(4):
        assert [lineup[seat] for lineup in lineups].count("heuristic") == 2
    assert seat_lineup(["a", "b"], 0) == ["a", "b"] and seat_lineup(["a", "b"], 1) == ["b", "a"]


def test_evaluate_balances_seats_and_aggregates_by_kind():
    results = evaluate("citadels", 4, ["heuristic", "random", "random", "random"], games=8, seed=5)
    assert results["seat_counts"] == {"heuristic": [2, 2, 2, 2], "random": [6, 6, 6, 6]}
    h, r = results["agents"]["heuristic"], results["agents"]["random"]
    assert h["appearances"] == 8 and r["appearances"] == 24
    assert h["wins"] + r["wins"] == pytest.approx(8)
    for a in (h, r):
        assert 0 <= a["ci_low"] <= a["win_rate"] <= a["ci_high"] <= 1
        assert a["mean_decisions"] > 0 and a["mean_score"] >= 0
    assert results["truncated"] == 0


def test_two_agents_alternate_seats():
    results = evaluate("citadels", 2, ["random", "heuristic"], games=6, seed=0)
    assert results["seat_counts"] == {"random": [3, 3], "heuristic": [3, 3]}


def test_same_seed_same_results_and_seeds_depend_on_match():
    a = evaluate("citadels", 3, ["heuristic", "random", "random"], games=6, seed=42)
    b = evaluate("citadels", 3, ["heuristic", "random", "random"], games=6, seed=42)
    c = evaluate("citadels", 3, ["heuristic", "random", "random"], games=6, seed=43)
    assert a == b
    assert a["agents"] != c["agents"]
    assert match_seeds(42, 0, 3) == match_seeds(42, 0, 3) != match_seeds(42, 1, 3)


def test_match_is_reproducible_alone():
    """Match i depends only on (seed, i): replaying it alone gives the same outcome."""
    lineup = seat_lineup(["heuristic", "random"], 3)
    one = workers.play_match("citadels", 2, lineup, seed=9, match=3)
    two = workers.play_match("citadels", 2, lineup, seed=9, match=3)
    assert one == two


def test_bad_arguments():
    with pytest.raises(ValueError):
        evaluate("citadels", 3, ["heuristic", "random"], games=2, seed=0)
    with pytest.raises(ValueError):
        evaluate("citadels", 2, ["heuristic", "random"], games=0, seed=0)


class _TieGame:
    """Just enough of the Game API for the arena: one move each, then everybody ties."""

    num_actions = 1

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.moves = 0

    def is_over(self) -> bool:
        return self.moves >= self.num_players

    def current_player(self) -> int:
        return -1 if self.is_over() else self.moves

    def legal_actions(self) -> np.ndarray:
        return np.ones(1, dtype=bool)

    def apply(self, action: int) -> None:
        self.moves += 1

    def winners(self) -> list[int]:
        return [0, 1] if self.num_players == 3 else list(range(self.num_players))

    def scores(self) -> list[float]:
        return [1.0] * self.num_players

    def is_truncated(self) -> bool:
        return False


def test_shared_wins(monkeypatch):
    monkeypatch.setattr(workers, "make_game", lambda name, n, seed=None, **options: _TieGame(n))
    results = evaluate("tie", 3, ["random", "random", "random"], games=3, seed=0)
    rand = results["agents"]["random"]
    assert rand["wins"] == pytest.approx(3.0)  # two seats share each match: 1/2 + 1/2
    assert rand["win_rate"] == pytest.approx(1 / 3)
    assert rand["mean_decisions"] == 1


# ----- scheduling, processes, failures, ratings and reports -------------------------------------
def test_more_agents_than_seats_plays_every_combination_in_every_seat():
    agents = ["a", "b", "c"]
    lineups = [schedule(agents, 2, match) for match in range(12)]
    pairs = [frozenset(lineup) for lineup in lineups]
    assert {p: pairs.count(p) for p in set(pairs)} == {frozenset("ab"): 4, frozenset("ac"): 4, frozenset("bc"): 4}
    for agent in agents:
        assert [lineup[0] for lineup in lineups].count(agent) == [lineup[1] for lineup in lineups].count(agent) == 4


def test_results_do_not_depend_on_the_number_of_processes():
    one = evaluate("metropolys", 3, ["heuristic", "random", "random"], games=6, seed=3)
    two = evaluate("metropolys", 3, ["heuristic", "random", "random"], games=6, seed=3, runner=Runner(2))
    assert one == two


class _Crasher:
    def __init__(self, seed=None) -> None:
        self.moves = 0

    def act(self, info_set) -> int:
        self.moves += 1
        if self.moves > 3:
            raise RuntimeError("boom")
        return info_set.legal_action_ids()[0]


def test_failed_matches_are_recorded_and_the_run_goes_on(monkeypatch):
    real = workers.make_agent
    monkeypatch.setattr(
        workers, "make_agent", lambda kind, game, seed: _Crasher() if kind == "crash" else real(kind, game, seed)
    )
    results = evaluate("citadels", 2, ["crash", "random"], games=4, seed=0)
    assert len(results["failures"]) == 4
    assert all("(crash): RuntimeError: boom" in f["reason"] and f["seed"] for f in results["failures"])
    crash, rand = results["agents"]["crash"], results["agents"]["random"]
    assert (crash["failures"], crash["win_rate"], crash["appearances"]) == (4, 0.0, 4)  # a loss for the culprit
    assert (rand["failures"], rand["win_rate"], rand["appearances"]) == (0, 1.0, 4)
    assert rand["mean_score"] == 0.0 and results["mean_length"] == 0.0  # failed matches have no scores
    assert results["ratings"]["random"]["mu"] > results["ratings"]["crash"]["mu"]
    assert results["pairwise"]["random"]["crash"] == 1.0
    assert "| crash | " in format_results(results) and " | 0.000 | 4 | " in format_results(results)


def test_ratings_rank_the_stronger_agent_higher_and_reports_are_written(tmp_path):
    results = evaluate("citadels", 2, ["heuristic", "random"], games=20, seed=4)
    ratings = results["ratings"]
    heuristic = ratings["heuristic"]
    assert heuristic["mu"] > ratings["random"]["mu"]
    assert heuristic["ordinal"] == pytest.approx(heuristic["mu"] - 3 * heuristic["sigma"])
    assert results["pairwise"]["heuristic"]["random"] + results["pairwise"]["random"]["heuristic"] == pytest.approx(1)
    paths = write_reports(results, tmp_path / "run")
    names = {p.name for p in paths}
    assert names == {"results.json", "matches.csv", "report.md", "ratings.png", "pairwise.png"}
    saved = json.loads((tmp_path / "run" / "results.json").read_text())
    for key in (
        "game",
        "num_players",
        "games",
        "seed",
        "agents",
        "ratings",
        "win_rate",
        "win_rate_ci95",
        "mean_score",
        "mean_length",
        "truncated",
    ):
        assert key in saved
    assert len((tmp_path / "run" / "matches.csv").read_text().splitlines()) == 21


def test_unknown_backend_and_stray_address_are_refused():
    with pytest.raises(ValueError, match="allowed: process, ray"):
        Runner(backend="dask")
    with pytest.raises(ValueError, match="ray backend"):
        Runner(address="10.0.0.1:6379")


def test_ray_backend_gives_the_process_backend_results():
    ray = pytest.importorskip("ray")
    lineup = ["heuristic", "random", "random"]
    local = evaluate("blue_moon_city", 3, lineup, games=6, seed=11, runner=Runner(2))
    try:
        on_ray = evaluate("blue_moon_city", 3, lineup, games=6, seed=11, runner=Runner(2, "ray"))
    finally:
        ray.shutdown()
    assert on_ray == local


# ----- faults: anything an agent raises, hangs, dead workers, streamed records and resuming --------
class _Misbehaving:
    """Plays its first legal move `after` times, then does `fault`."""

    def __init__(self, fault, after: int = 2) -> None:
        self.fault, self.after = fault, after

    def act(self, info_set) -> int:
        if self.after <= 0:
            return self.fault(info_set)
        self.after -= 1
        return info_set.legal_action_ids()[0]


def _raise(error):
    def fault(info_set):
        raise error

    return fault


def _spin(info_set):
    while True:  # CPU-bound, never checks a clock
        pass


FAULTS = {
    "exit": _raise(SystemExit(3)),
    "interrupt": _raise(KeyboardInterrupt()),
    "generator": _raise(GeneratorExit()),
    "hard_exit": lambda info_set: os._exit(7),
    "illegal": lambda info_set: int(np.flatnonzero(~info_set.legal_actions())[0]),
    "float": lambda info_set: 0.5,
}


@pytest.fixture
def faulty_agents(monkeypatch):
    """Agent kinds named after FAULTS misbehave on their third decision, "hang" spins at its first (forked
    workers inherit this)."""
    real = workers.make_agent

    def make(kind, game, seed):
        if kind == "hang":  # at once, so that the time limit can only catch it
            return _Misbehaving(_spin, after=0)
        return _Misbehaving(FAULTS[kind]) if kind in FAULTS else real(kind, game, seed)

    monkeypatch.setattr(workers, "make_agent", make)


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        ("exit", "SystemExit: 3"),
        ("interrupt", "KeyboardInterrupt"),
        ("generator", "GeneratorExit"),
        ("hard_exit", "WorkerDied: the match's process ended with exit code 7"),
        ("illegal", "IllegalActionError"),
        ("float", "Error: "),  # whichever error the rules give for a float, it is the agent's
    ],
)
def test_anything_an_agent_does_fails_its_match_only(faulty_agents, fault, reason):
    results = evaluate("citadels", 2, [fault, "random"], games=4, seed=1, runner=Runner(2))
    assert [f["match"] for f in results["failures"]] == [0, 1, 2, 3]
    for failure in results["failures"]:
        assert failure["culprit"] == failure["kinds"].index(fault)
        assert f"seat {failure['culprit']} ({fault}): " in failure["reason"] and reason in failure["reason"]
    assert results["agents"][fault]["failures"] == 4 and results["agents"]["random"]["win_rate"] == 1.0


def test_a_hanging_agent_is_stopped_by_the_match_timeout(faulty_agents):
    results = evaluate("metropolys", 2, ["hang", "heuristic"], games=2, seed=0, runner=Runner(2, match_timeout=3))
    assert [f["culprit"] for f in results["failures"]] == [0, 1]  # the hanging agent's seat in each
    for failure in results["failures"]:
        assert failure["reason"] == f"seat {failure['culprit']} (hang): MatchTimeout: no result within 3 s"
    assert results["agents"]["hang"]["failures"] == 2 and results["agents"]["heuristic"]["failures"] == 0


def test_a_fault_of_the_game_itself_blames_no_agent(monkeypatch):
    class _Broken(_TieGame):
        def winners(self):
            raise ArithmeticError("rules bug")

    monkeypatch.setattr(workers, "make_game", lambda name, n, seed=None, **options: _Broken(n))
    results = evaluate("broken", 2, ["random", "random"], games=2, seed=0)
    assert [f["culprit"] for f in results["failures"]] == [None, None]
    assert results["failures"][0]["reason"] == "match: ArithmeticError: rules bug"
    assert results["agents"]["random"]["appearances"] == 0 and results["ratings"]["random"]["mu"] == 25.0


def test_a_bad_agent_or_option_is_refused_before_any_match():
    with pytest.raises(ValueError, match="unknown agent 'genius'"):
        evaluate("citadels", 2, ["random", "genius"], games=2, seed=0)
    with pytest.raises(ValueError, match="max_rounds"):
        evaluate("citadels", 2, ["random", "random"], games=2, seed=0, max_rounds=0)
    with pytest.raises(ValueError, match="match_timeout"):
        Runner(match_timeout=-1)


def test_records_stream_to_the_log_and_resume_gives_the_uninterrupted_results(tmp_path):
    lineup = ["heuristic", "random", "random"]
    whole = evaluate("blue_moon_city", 3, lineup, games=6, seed=2, log=tmp_path / "whole.jsonl")
    lines = (tmp_path / "whole.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["run"]["lineup"] == lineup and len(lines) == 7
    assert sorted(json.loads(line)["match"] for line in lines[1:]) == list(range(6))
    # a run stopped after three matches, in the middle of writing a fourth
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:4]) + "\n" + lines[4][:25])
    resumed = evaluate("blue_moon_city", 3, lineup, games=6, seed=2, log=cut, resume=True, runner=Runner(2))
    assert resumed == whole
    assert len(cut.read_text().splitlines()) == 7
    assert evaluate("blue_moon_city", 3, lineup, games=6, seed=2, log=cut, resume=True) == whole  # nothing to play
    with pytest.raises(ValueError, match="not a log of this run"):
        evaluate("blue_moon_city", 3, lineup, games=6, seed=3, log=cut, resume=True)
    with pytest.raises(ValueError, match="resume needs the log"):
        evaluate("blue_moon_city", 3, lineup, games=6, seed=2, resume=True)


HANGING_RUN = """
from city_envs.evaluation import evaluate, workers

class Spin:
    def act(self, info_set):
        while True:
            pass

workers.make_agent = lambda kind, game, seed: Spin()
evaluate("citadels", 2, ["a", "b"], games=4, seed=0, runner=workers.Runner(2, match_timeout=0))
"""


def test_workers_busy_in_a_match_end_with_a_killed_parent(tmp_path):
    psutil = pytest.importorskip("psutil")
    parent = subprocess.Popen(
        [sys.executable, "-c", HANGING_RUN], start_new_session=True, cwd=Path(__file__).resolve().parents[1]
    )
    deadline = time.monotonic() + 120
    while len(workers := psutil.Process(parent.pid).children()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # both are spinning inside an agent now
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    assert len(workers) == 2
    _gone, alive = psutil.wait_procs(workers, timeout=5)
    for process in alive:
        process.kill()
    assert not alive, "workers outlived the killed arena"


def test_a_match_record_keeps_the_actions_that_replay_it(tmp_path):
    results = evaluate("metropolys", 2, ["heuristic", "random"], games=2, seed=5)
    for record in results["matches"]:
        assert len(record["history"]) == sum(record["decisions"])
        game = make_game("metropolys", 2, seed=record["seed"])
        for action in record["history"]:
            game.apply(action)
        assert game.is_over() and game.scores() == record["scores"]
    write_reports(results, tmp_path)
    with open(tmp_path / "matches.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [list(map(int, row["actions"].split())) for row in rows] == [r["history"] for r in results["matches"]]
    report = (tmp_path / "report.md").read_text()
    assert "[watch](http://127.0.0.1:8000/replay?src=0&match=1)" in report


@pytest.fixture(autouse=True)
def forked_workers(monkeypatch):
    """These tests patch the arena's module; forked workers inherit the patches (none of them runs torch,
    so forking is safe even when another test module has loaded it)."""
    monkeypatch.setattr(workers, "worker_start_method", lambda: "fork")


@pytest.mark.parametrize("match", ['"1"', "-1", "true", "1.5", "null", "[1]"])
def test_resume_refuses_a_record_whose_match_is_not_a_match_number(tmp_path, match):
    log = tmp_path / "matches.jsonl"
    evaluate("citadels", 2, ["random", "random"], games=2, seed=0, log=log)
    with open(log, "a") as handle:
        handle.write('{"match": ' + match + ', "kinds": ["random", "random"]}\n')
    with pytest.raises(ValueError, match="line 4 is not a match record"):
        evaluate("citadels", 2, ["random", "random"], games=2, seed=0, log=log, resume=True)


class OneTorchThreadAgent:
    """Plays its first legal action, and fails its match unless torch runs on one thread where it plays."""

    def __init__(self, seed=None):
        pass

    def act(self, info_set):
        import torch

        if torch.get_num_threads() != 1:
            raise RuntimeError(f"torch runs {torch.get_num_threads()} threads in this worker")
        return int(np.flatnonzero(info_set.legal_actions())[0])


def test_each_worker_runs_torch_on_one_thread():
    """Two workers with two torch threads each on two cores played policies at half the speed of one."""
    pytest.importorskip("torch")
    spec = f"{__name__}:OneTorchThreadAgent"
    results = evaluate("citadels", 2, [spec, "random"], games=2, seed=0, runner=Runner(2))
    assert results["failures"] == [] and results["agents"][spec]["appearances"] == 2


@pytest.mark.parametrize("template", ["ppo:{}", "ismcts:net={}:iters=2"])
def test_a_run_resumes_from_a_moved_copy_of_its_policy_but_not_from_another_policy(tmp_path, template):
    """A policy agent, or a search guided by a policy file, is known by its file's content."""
    from safetensors import safe_open
    from safetensors.numpy import load_file, save_file

    baseline = baseline_path("citadels", 2)
    here, there = tmp_path / "here", tmp_path / "there"
    for folder in (here, there):
        folder.mkdir()
        (folder / baseline.name).write_bytes(baseline.read_bytes())
    log = tmp_path / "matches.jsonl"
    whole = evaluate("citadels", 2, [template.format(here / baseline.name), "random"], games=2, seed=0, log=log)
    moved = [template.format(there / baseline.name), "random"]
    renamed = {k.replace(str(here), str(there)): v for k, v in whole["agents"].items()}
    (here / baseline.name).unlink()  # the old checkout is gone: the log's recorded digest vouches for it
    assert evaluate("citadels", 2, moved, games=2, seed=0, log=log, resume=True)["agents"] == renamed
    assert str(tmp_path) not in log.read_text()  # a policy outside the run's folder: named by its file name
    # a log written before digests were recorded (and with absolute paths, of the policy where it lies
    # now): read from the file
    text = log.read_text()
    lines = (
        text.replace(f":{baseline.name}", f":{there / baseline.name}")
        .replace(f"={baseline.name}", f"={there / baseline.name}")
        .splitlines()
    )
    header = json.loads(lines[0])
    del header["run"]["policies"]
    legacy = tmp_path / "legacy.jsonl"
    legacy.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert evaluate("citadels", 2, moved, games=2, seed=0, log=legacy, resume=True)["agents"] == renamed
    # the same settings with other weights in the file: another run
    with safe_open(str(there / baseline.name), "np") as handle:
        metadata = handle.metadata()
    tensors = load_file(there / baseline.name)
    name = sorted(tensors)[0]
    tensors[name] = tensors[name] + 1
    save_file(tensors, there / baseline.name, metadata=metadata)
    with pytest.raises(ValueError, match="not a log of this run"):
        evaluate("citadels", 2, moved, games=2, seed=0, log=log, resume=True)


@pytest.mark.parametrize("kind", ["ppo", "ismcts:net=ppo:iters=2"])
def test_a_run_of_the_baseline_shorthand_does_not_resume_once_the_baseline_is_replaced(tmp_path, kind, monkeypatch):
    """`ppo` and `net=ppo` name whatever baseline is committed: the log records its digest, so matches
    against a replaced baseline never mix with the old one's."""
    folder = tmp_path / "baselines"
    folder.mkdir()
    policy = folder / "citadels_2p.safetensors"
    policy.write_bytes(baseline_path("citadels", 2).read_bytes())
    monkeypatch.setattr(
        "city_envs.agents.policy_agent.baseline_path", lambda game, players: folder / f"{game}_{players}p.safetensors"
    )
    log = tmp_path / "matches.jsonl"
    whole = evaluate("citadels", 2, [kind, "random"], games=1, seed=0, log=log)
    header = json.loads(log.read_text().splitlines()[0])["run"]
    assert set(header["policies"]) == {kind}
    assert evaluate("citadels", 2, [kind, "random"], games=1, seed=0, log=log, resume=True) == whole
    policy.write_bytes(baseline_path("citadels", 4).read_bytes())  # another baseline
    with pytest.raises(ValueError, match="not a log of this run"):
        evaluate("citadels", 2, [kind, "random"], games=1, seed=0, log=log, resume=True)


def hang(signum, frame):
    raise TimeoutError("the command hangs")


def record_line(log: Path, change) -> str:
    """The log's first record, changed by `change`, as a line."""
    record = json.loads(log.read_text().splitlines()[1])
    change(record)
    return json.dumps(record)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("nan_score", "is not a number a result can hold"),
        ("infinite_share", "is not a number a result can hold"),
        ("negative_decisions", "greater than or equal to 0"),
        ("missing_field", "Field required"),
        ("scores_not_a_list", "valid list"),
        ("short_scores", "scores has 1 entries for 2 seats"),
        ("stranger", "not in the line-up"),
        ("culprit_no_seat", "no seat of 2"),
        ("nested", "nests too deeply"),
        ("fifo", "is not a regular file"),
    ],
)
def test_evaluate_resume_refuses_a_bad_record_in_one_line(tmp_path, capsys, case, message):
    out = tmp_path / "run"
    argv = ["evaluate", "citadels", "--players", "2", "--agents", "random,random", "--games", "2"]
    assert cli_main([*argv, "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    log = out / "matches.jsonl"
    header, *records = log.read_text().splitlines()
    changes = {
        "nan_score": lambda r: r.update(scores=[float("nan"), 1.0]),
        "infinite_share": lambda r: r.update(win_share=[float("inf"), 0.0]),
        "negative_decisions": lambda r: r.update(decisions=[-4, 3]),
        "missing_field": lambda r: r.pop("win_share"),
        "scores_not_a_list": lambda r: r.update(scores=7),
        "short_scores": lambda r: r.update(scores=[1.0]),
        "stranger": lambda r: r.update(kinds=["heuristic", "random"]),
        "culprit_no_seat": lambda r: r.update(failed=True, culprit=5),
    }
    if case == "nested":
        log.write_text("\n".join([header, "[" * 100_000 + "]" * 100_000, ""]))
    elif case == "fifo":
        log.unlink()
        os.mkfifo(log)
    else:
        log.write_text("\n".join([header, record_line(log, changes[case]), ""]))
    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(30)  # reading a FIFO would block: the alarm ends the test instead of hanging the suite
    try:
        assert cli_main([*argv, "--out", str(out), "--quiet", "--resume"]) == 2
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    if (out / "results.json").is_file():
        assert "NaN" not in (out / "results.json").read_text() and "Infinity" not in (out / "results.json").read_text()
