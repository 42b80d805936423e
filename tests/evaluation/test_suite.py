"""Benchmark suites: v1 as shipped, its variants, the frozen reference policies and bad suite files."""

from __future__ import annotations

import hashlib

import pytest

from city_envs import GAMES
from city_envs.agents import policy_agent
from city_envs.agents.policy_agent import STORE, stored_policy
from city_envs.evaluation.suite import SUITES_DIR, SuiteError, available_suites, load_suite, parse_task


def test_v1_has_every_game_at_2_and_4_players_and_a_lite_and_full_variant():
    assert available_suites() == ["v1", "v1-lite", "v1-full"]
    default, lite, full = load_suite("v1"), load_suite("v1-lite"), load_suite("v1-full")
    assert {t.name for t in default.tasks} == {f"{g}:{n}" for g in GAMES for n in (2, 4)}
    assert {t.name for t in lite.tasks} == {f"{g}:2" for g in GAMES} and lite.matches < default.matches
    assert {t.name for t in full.tasks} == {t.name for t in default.tasks} | {"citadels:7", "big_city:5"}
    for suite in (default, lite, full):
        for task in suite.tasks:
            assert suite.matches % task.players == 0  # every seat equally often
            assert suite.lineups_for(task)[:2] == ["random", "heuristic"]


def test_the_reference_line_up_plays_the_stored_policy_of_each_frozen_digest():
    suite = load_suite("v1")
    for task in suite.tasks:
        assert suite.lineups_for(task) == ["random", "heuristic", "reference"]
        path = suite.reference_path(task)
        digest = suite.spec.references[task.name].sha256
        assert path == stored_policy(digest) and suite.opponent_spec(task, "reference") == f"ppo:{path}"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    full = load_suite("v1-full")
    assert full.lineups_for(parse_task("citadels:7")) == ["random", "heuristic"]  # no reference policy there


def test_seeds_differ_between_line_ups_and_from_training_seeds():
    seeds = [lineup.seed for lineup in load_suite("v1").spec.lineups.values()]
    assert len(set(seeds)) == len(seeds)
    assert not set(seeds) & {0, 1, 2, 3, 1000}  # the trainer's evaluation and selection seeds, the baselines'


def test_a_changed_or_missing_reference_policy_is_refused(tmp_path, monkeypatch):
    suite = load_suite("v1")
    task, other = parse_task("citadels:2"), parse_task("citadels:4")
    digest = suite.spec.references[task.name].sha256
    (tmp_path / STORE).mkdir()
    (tmp_path / STORE / f"{digest}.safetensors").write_bytes(stored_policy(digest).read_bytes() + b" ")
    monkeypatch.setattr(policy_agent, "BASELINES_DIR", tmp_path)
    with pytest.raises(SuiteError, match="not the frozen"):
        suite.opponent_spec(task, "reference")
    with pytest.raises(SuiteError, match="the reference policy of citadels:4 .* is missing"):
        suite.opponent_spec(other, "reference")


def test_a_suite_reference_of_no_digest_is_refused(tiny_suites):
    text = (SUITES_DIR / "v1.toml").read_text().replace('name = "v1"', 'name = "v9"')
    (tiny_suites / "v9.toml").write_text(text.replace('{ sha256 = "84123219', '{ sha256 = "../../84123219'))
    with pytest.raises(SuiteError, match="references.citadels:2.sha256"):
        load_suite("v9")


@pytest.mark.parametrize(
    "name, message",
    [
        ("v2", "unknown suite 'v2'; suites: "),
        ("v1-huge", "suite v1 has no variant 'huge'; it has: v1, v1-lite, v1-full"),
        ("v1-", "has no variant ''"),
        ("../v1", "unknown suite"),
        ("", "unknown suite"),
    ],
)
def test_unknown_suites_and_variants_are_named_in_one_line(name, message):
    with pytest.raises(SuiteError, match=message.replace("(", r"\(")):
        load_suite(name)


@pytest.mark.parametrize(
    "text, message",
    [
        ("chess:2", "unknown game 'chess'"),
        ("citadels:9", "citadels takes 2-7 players"),
        ("citadels", "expected game:players"),
        ("citadels:two", "expected game:players"),
        ("citadels:²", "expected game:players"),
    ],
)
def test_bad_tasks(text, message):
    with pytest.raises(SuiteError, match=message):
        parse_task(text)


@pytest.mark.parametrize(
    "change, message",
    [
        (("matches = 4", "matches = 3"), "do not seat every player"),
        (("matches = 4", "matches = 0"), "greater than or equal to 1"),
        (('tasks = ["citadels:2", "metropolys:2"]', 'tasks = ["citadels:2", "citadels:2"]'), "listed twice"),
        (('tasks = ["citadels:2", "metropolys:2"]', 'tasks = ["go:2"]'), "unknown game"),
        (("seed = 11", "seed = -1"), "greater than or equal to 0"),
        (('name = "tiny"', 'name = "other"'), "names itself 'other'"),
        (("env_version = 0", "env_version = 7"), "measures env version 7"),
        (("[variants.default]", "[variants.main]"), "no default variant"),
        (("[lineups]", "surprise = 1\n[lineups]"), "Extra inputs are not permitted"),
        (("[lineups]", "[lineups"), "suite file"),
    ],
)
def test_bad_suite_files_are_refused_with_the_field(tiny_suites, change, message):
    path = tiny_suites / "tiny.toml"
    path.write_text(path.read_text().replace(*change))
    with pytest.raises(SuiteError, match=message):
        load_suite("tiny")
