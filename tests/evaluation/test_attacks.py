"""The attacks of issue 46 on the agent benchmark, each now refused, recorded as the attacker's failure
or caught by `benchmark verify`: the candidate plays in a process of its own on a match sampled from its
seat's information, and every figure is recomputed from the replayed matches."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from city_envs import make_game
from city_envs.cli import main
from city_envs.evaluation.benchmark import run_agent_benchmark
from city_envs.evaluation.compare import compare_results
from city_envs.evaluation.results import BenchmarkError, load_results
from city_envs.evaluation.scheduling import match_seeds
from city_envs.evaluation.suite import load_suite
from city_envs.evaluation.verify import read_log, require_verified, verify_result
from city_envs.evaluation.workers import Runner
from tests.conftest import TINY_REPS

REPS = TINY_REPS
ATTACKS = "tests.evaluation.attack_agents"


def figures(results: dict) -> dict:
    """What a result measured, by task and line-up."""
    return {
        (task, lineup): (s["win_share"], s["margin"], s["failures"])
        for task, t in results["tasks"].items()
        for lineup, s in t["lineups"].items()
    }


@pytest.mark.parametrize("attack", ["LiveWinner", "StackWalker"])
def test_an_agent_reaching_for_the_live_match_scores_what_its_moves_score(attack, tiny_one_result, tmp_path):
    """Making the live match report it as winner, or replacing the heuristic opponent's moves and the
    record's seed through the stack and gc: it plays random moves, so it scores exactly `random`."""
    suite = load_suite("tiny-one")
    honest = load_results(tiny_one_result)
    attacker = run_agent_benchmark(f"{ATTACKS}:{attack}", suite, tmp_path / "attack", reps=REPS)
    assert figures(attacker) == figures(honest)
    assert attacker["aggregate"] == honest["aggregate"]
    assert verify_result(tmp_path / "attack") == ([], 8)


def test_the_infoset_holds_a_sample_not_the_match(tiny_suites, tmp_path):
    """Reading the match behind InfoSet's name-mangled slot gives a sample drawn from the seat's
    information: no seed, no history, and the opponent's hand resampled."""
    suite = load_suite("tiny-one")
    out = tmp_path / "found.jsonl"
    run_agent_benchmark(f"{ATTACKS}:HandReader:out={out}", suite, tmp_path / "run", reps=REPS)
    found = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(found) == 8 and all(f["seed"] is None and f["history"] == [] for f in found)
    differ = 0
    for lineup in ("random", "heuristic"):
        seed = suite.seed(lineup)
        for match in range(4):
            game_seed, agent_seeds = match_seeds(seed, match, 2)
            seat = match % 2
            (mine,) = [f for f in found if f["agent_seed"] == agent_seeds[seat]]
            game = make_game("citadels", 2, seed=game_seed)
            log = tmp_path / "run" / "runs" / "citadels_2p" / lineup / "matches.jsonl"
            record = [json.loads(x) for x in log.read_text().splitlines()[1:] if json.loads(x)["match"] == match][0]
            for action in record["history"]:  # to the candidate's first decision
                if game.current_player() == seat:
                    break
                game.apply(action)
            differ += mine["hand"] != np.asarray(game.state.hands[1 - seat]).tolist()
    assert differ > 0


@pytest.mark.parametrize(
    ("attack", "reason", "timeout"),
    [("Crashes", "process ended", 120), ("Illegal", "IllegalActionError", 120), ("Hangs", "MatchTimeout", 2)],
)
def test_a_candidate_that_crashes_cheats_or_hangs_loses_its_matches(attack, reason, timeout, tiny_suites, tmp_path):
    """Two workers: the hanging candidate's eight matches wait out their 2 s timeouts two at a time
    (a margin for a replacement worker to start)."""
    suite = load_suite("tiny-one")
    runner = Runner(jobs=2, match_timeout=timeout)
    results = run_agent_benchmark(f"{ATTACKS}:{attack}", suite, tmp_path, runner, reps=REPS)
    for lineup in results["tasks"]["citadels:2"]["lineups"].values():
        assert lineup["failures"] == 4 and lineup["win_share"] == [0.0] * 4
    log = (tmp_path / "runs" / "citadels_2p" / "random" / "matches.jsonl").read_text().splitlines()[1:]
    assert all(reason in json.loads(line)["reason"] and json.loads(line)["culprit"] is not None for line in log)
    assert verify_result(tmp_path)[0] == []


@pytest.fixture
def result(tiny_results):
    """A finished tiny benchmark of `random` (this test's copy), and one of `heuristic` beside it."""
    return tiny_results / "random"


def test_a_result_verifies(result, capsys):
    assert main(["benchmark", "verify", str(result)]) == 0
    assert "verified (16 matches replayed" in capsys.readouterr().out


def test_a_hand_edited_result_does_not_verify_and_compare_refuses_it(result, capsys):
    path = result / "results.json"
    data = json.loads(path.read_text())
    task = data["tasks"]["citadels:2"]
    task["lineups"]["heuristic"]["win_share"] = [1.0] * 4
    task["lineups"]["heuristic"]["win_rate"] = 1.0
    task["score"] = 0.95
    data["aggregate"]["iqm"] = 0.95
    path.write_text(json.dumps(data))
    assert main(["benchmark", "verify", str(result)]) == 1
    out = capsys.readouterr().out
    for what in ("citadels:2 against heuristic: win_share", "win_rate", "citadels:2: task score", "aggregate iqm"):
        assert what in out
    assert main(["benchmark", "compare", str(result), str(result.parent / "heuristic")]) == 2
    err = capsys.readouterr().err.strip()
    assert "does not verify" in err and len(err.splitlines()) == 1
    with pytest.raises(BenchmarkError, match="does not verify"):
        compare_results([result, result.parent / "heuristic"], reps=REPS)


def test_edited_match_logs_are_refused(result, capsys):
    log = result / "runs" / "citadels_2p" / "heuristic" / "matches.jsonl"
    lines = log.read_text().splitlines()
    record = json.loads(lines[1])
    seat = record["match"] % 2
    record.update(win_share=[1.0 if s == seat else 0.0 for s in range(2)], winners=[seat])
    lines[1] = json.dumps(record)
    log.write_text("\n".join(lines) + "\n")
    assert main(["benchmark", "verify", str(result)]) == 1
    out = capsys.readouterr().out
    assert "citadels:2 against heuristic, match 0: win_share" in out and "match logs: SHA-256" in out
    (result / "results.json").unlink()  # as if the run had stopped: --resume takes the logs as they are
    with pytest.raises(BenchmarkError, match="does not replay as recorded"):
        run_agent_benchmark("random", load_suite("tiny"), result, resume=True, reps=REPS)
    record["history"][3], record["history"][4] = record["history"][4], record["history"][3]
    lines[1] = json.dumps(record)
    log.write_text("\n".join(lines[:2]) + "\n")
    assert main(["benchmark", "agent", "random", "--suite", "tiny", "--out", str(result), "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert "does not replay as recorded" in err and len(err.splitlines()) == 1


def test_a_result_without_logs_is_not_accepted(result, capsys):
    data = json.loads((result / "results.json").read_text())
    del data["logs"]
    (result / "results.json").write_text(json.dumps(data))
    assert main(["benchmark", "verify", str(result)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"{result}: a result without match logs: nothing to replay, so it cannot be verified")
    assert len(err.splitlines()) == 1
    with pytest.raises(BenchmarkError, match="without match logs"):
        require_verified(result)


@pytest.mark.parametrize("replace", ["fifo", "nan", "huge integer"])
def test_a_log_that_is_no_regular_file_of_json_is_one_line(replace, result, capsys):
    """A FIFO named like a match log would hang `verify`; NaN or a 400-digit integer is no record."""
    log = result / "runs" / "citadels_2p" / "heuristic" / "matches.jsonl"
    lines = log.read_text().splitlines()
    log.unlink()
    if replace == "fifo":
        os.mkfifo(log)
    else:
        bad = "NaN" if replace == "nan" else "9" * 400
        log.write_text("\n".join([lines[0], lines[1].replace('"match": 0', f'"match": {bad}', 1), *lines[2:]]) + "\n")
    with pytest.raises(BenchmarkError, match="not a regular file" if replace == "fifo" else "line 2"):
        read_log(log)
    if replace == "fifo":  # the logs' digest cannot be taken: one line, exit 2
        assert main(["benchmark", "verify", str(result)]) == 2
        err = capsys.readouterr().err.strip()
        assert "matches.jsonl is not a regular file" in err and len(err.splitlines()) == 1
    else:  # a log that is no record: the result does not verify, and the line says why
        assert main(["benchmark", "verify", str(result)]) == 1
        assert "matches.jsonl line 2 is not JSON a result can hold" in capsys.readouterr().out
