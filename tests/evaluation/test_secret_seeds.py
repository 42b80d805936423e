"""Issue 46, item 3: matches a candidate cannot know. A salted run plays secret seeds derived from the
suite's and a salt whose SHA-256 is recorded before the first match, and verifies once the salt is
revealed; `verify --fresh N` plays new matches on fresh secret seeds and checks each task's score."""

from __future__ import annotations

import hashlib
import json

import pytest

from city_envs.cli import main
from city_envs.evaluation import benchmark, fresh
from city_envs.evaluation.benchmark import run_agent_benchmark
from city_envs.evaluation.results import BenchmarkError, load_results
from city_envs.evaluation.salt import salted_seed
from city_envs.evaluation.scheduling import match_seeds
from city_envs.evaluation.suite import load_suite
from city_envs.evaluation.verify import require_verified, verify_result

REPS = 50
SALT = b"6f1c0a9e3b7d4f2a8c5e1b9d7f3a6c0e2b8d4f1a7c3e9b5d0f6a2c8e4b1d7f3a"
FINDER = "tests.evaluation.attack_agents:SeedFinder:seeds=11+12:matches=4"


def figures(results: dict) -> dict:
    return {
        (task, lineup): (s["win_share"], s["margin"], s["failures"])
        for task, t in results["tasks"].items()
        for lineup, s in t["lineups"].items()
    }


def records(folder, lineup: str) -> list[dict]:
    log = folder / "runs" / "citadels_2p" / lineup / "matches.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()[1:]]


def test_a_salted_run_plays_secret_seeds_and_verifies_once_its_salt_is_revealed(tiny_one_result, tmp_path, monkeypatch):
    suite = load_suite("tiny-one")
    out = tmp_path / "salted"
    digest = hashlib.sha256(SALT).hexdigest()

    def stop(*args, **kwargs):
        assert json.loads((out / "benchmark.json").read_text())["salt_sha256"] == digest  # before any match
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(benchmark, "evaluate_task", stop)
        with pytest.raises(KeyboardInterrupt):
            run_agent_benchmark("random", suite, out, reps=REPS, salt=SALT)
    results = run_agent_benchmark("random", suite, out, reps=REPS, salt=SALT, resume=True)
    assert results["salt"]["sha256"] == digest
    for lineup in ("random", "heuristic"):
        secret = salted_seed(suite.seed(lineup), SALT)
        assert secret == int.from_bytes(hashlib.sha256(SALT + f":{suite.seed(lineup)}".encode()).digest()[:8]) >> 1
        assert results["tasks"]["citadels:2"]["lineups"][lineup]["seed"] == secret
        assert [r["seed"] for r in records(out, lineup)] == [match_seeds(secret, m, 2)[0] for m in range(4)]
    with pytest.raises(BenchmarkError, match="holds another benchmark: salt_sha256"):
        run_agent_benchmark("random", suite, out, reps=REPS, salt=SALT[::-1], resume=True)
    with pytest.raises(BenchmarkError, match=f"holds another benchmark: salt_sha256 '{digest}' \\(now None\\)"):
        run_agent_benchmark("random", suite, out, reps=REPS, resume=True)  # a salted run resumes with its salt
    assert verify_result(out)[0] == [
        "salt: played on secret seeds, and the salt is not revealed (salt.txt in its folder or --salt-file)"
    ]
    assert "not the" in verify_result(out, salt=SALT[::-1])[0][0]
    assert verify_result(out, salt=SALT) == ([], 8)
    with pytest.raises(BenchmarkError, match="not revealed"):
        require_verified(out)  # compare, tables and --resume refuse it until the salt is revealed
    (out / "salt.txt").write_bytes(SALT + b"\n")
    assert require_verified(out)["salt"]["sha256"] == digest
    public = load_results(tiny_one_result)  # the same agent and suite on the public seeds
    assert "one was given" in verify_result(tiny_one_result, salt=SALT)[0][0]
    assert [r["seed"] for r in records(tiny_one_result, "random")] != [r["seed"] for r in records(out, "random")]
    assert public["tasks"]["citadels:2"]["lineups"]["random"]["seed"] == 11


def test_an_agent_that_knows_the_public_seeds_finds_its_match_but_not_a_secret_one(
    tiny_benchmarks, tiny_suites, tmp_path
):
    """Issue 46: from its own hand, an agent that knows the public seeds finds which match it is in (and
    so could know every dealt card); on salted seeds it finds nothing and plays as it would unaided."""
    suite = load_suite("tiny-one")
    spec = f"{FINDER}:out={tmp_path / 'public.jsonl'}"
    public = run_agent_benchmark(spec, suite, tmp_path / "public", reps=REPS)
    found = [json.loads(line) for line in (tmp_path / "public.jsonl").read_text().splitlines()]
    for lineup in ("random", "heuristic"):
        for match in range(4):
            seat_seed = match_seeds(suite.seed(lineup), match, 2)[1][match % 2]
            assert [f["found"] for f in found if f["agent_seed"] == seat_seed] == [[[suite.seed(lineup), match]]]
    heuristic = figures(load_results(tiny_benchmarks / "heuristic"))  # its citadels:2 plays tiny-one's seeds
    assert figures(public) == {key: value for key, value in heuristic.items() if key[0] == "citadels:2"}
    spec = f"{FINDER}:out={tmp_path / 'salted.jsonl'}"
    salted = run_agent_benchmark(spec, suite, tmp_path / "salted", reps=REPS, salt=SALT)
    found = [json.loads(line) for line in (tmp_path / "salted.jsonl").read_text().splitlines()]
    assert len(found) == 8 and all(f["found"] == [] for f in found)
    random = run_agent_benchmark("random", suite, tmp_path / "random", reps=REPS, salt=SALT)
    assert figures(salted) == figures(random)


def test_fresh_matches_catch_a_score_made_on_the_public_seeds(tiny_one_result, tmp_path, monkeypatch, capsys):
    """`verify --fresh N`: the seed finder's recorded score verifies (its moves replay) but its fresh
    score falls outside; an honest agent's lies within. One line per task, exit 1 when outside."""
    suite = load_suite("tiny-one")
    monkeypatch.setattr(fresh.secrets, "token_hex", lambda n: "f" * 2 * n)  # the same fresh seeds every run
    run_agent_benchmark(f"{FINDER}:out={tmp_path / 'found.jsonl'}", suite, tmp_path / "cheat", reps=REPS)
    assert main(["benchmark", "verify", str(tmp_path / "cheat")]) == 0
    capsys.readouterr()
    assert main(["benchmark", "verify", str(tmp_path / "cheat"), "--fresh", "40"]) == 1
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if line.startswith("citadels:2: fresh")]
    assert line.endswith("OUTSIDE") and "over 40 matches" in line
    assert main(["benchmark", "verify", str(tiny_one_result), "--fresh", "40"]) == 0
    [line] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("citadels:2: fresh")]
    assert line.endswith("within")


def test_fresh_matches_are_refused_for_an_agent_whose_files_changed(tiny_one_result, tmp_path, capsys):
    suite = load_suite("tiny-one")
    path = tmp_path / "r" / "results.json"
    results = json.loads(path.read_text())
    results["agent"]["files"] = {"mybot": {"path": "mybot.py", "sha256": "0" * 64}}
    path.write_text(json.dumps(results))
    assert fresh.fresh_check(load_results(tmp_path / "r"), suite, 4, say=print) is False
    assert "not played, the agent's files differ from the recorded ones: mybot" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("salt", "argv", "message"),
    [
        (None, ["agent", "random", "--suite", "tiny-one", "--salt-file", "nowhere"], "salt file nowhere: not a"),
        (b"short", ["agent", "random", "--suite", "tiny-one", "--salt-file", "salt"], "a salt of 5 characters"),
        (SALT[:20] + b" " + SALT, ["agent", "random", "--suite", "tiny-one", "--salt-file", "salt"], "printable"),
        (b"\xff" * 40, ["agent", "random", "--suite", "tiny-one", "--salt-file", "salt"], "printable ASCII"),
        (SALT, ["verify", "r", "--salt-file", "nowhere"], "salt file nowhere: not a regular file"),
        (SALT, ["verify", "r", "--fresh", "0"], "--fresh 0: the fresh matches per task must be at least 1"),
        (SALT, ["verify", "r", "--fresh", "6"], "--fresh 6: citadels:2 shares its matches among 2 line-ups"),
    ],
)
def test_bad_salts_and_fresh_counts_are_one_line_and_exit_2(
    salt, argv, message, tiny_one_result, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)  # `r`: a finished tiny-one result
    if salt is not None:
        (tmp_path / "salt").write_bytes(salt)
    assert main(["benchmark", *argv, "--out", "x"] if argv[0] == "agent" else ["benchmark", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "x").exists()
