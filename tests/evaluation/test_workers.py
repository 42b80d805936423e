"""The records of how matches run: a `MatchJob` is one match (its line-up rotated, its seeds from the
run's seed and its index), a `Runner` plays many and gives the same records as playing each job here."""

from __future__ import annotations

import pytest

from city_envs.evaluation.workers import MatchJob, Runner, run_matches


def test_a_job_knows_its_lineup_and_fresh_record_and_a_runner_plays_it_as_here():
    jobs = [MatchJob("citadels", 2, ("heuristic", "random"), 5, match) for match in range(2)]
    assert [job.lineup() for job in jobs] == [["heuristic", "random"], ["random", "heuristic"]]
    here = [job.play() for job in jobs]
    for job, record in zip(jobs, here, strict=True):
        fresh = job.fresh_record()
        assert (fresh["kinds"], fresh["seed"], fresh["match"]) == (record["kinds"], record["seed"], record["match"])
        assert not fresh["failed"] and not record["failed"]
    assert run_matches("citadels", 2, ["heuristic", "random"], 2, 5, Runner(jobs=2)) == here


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"backend": "dask"}, "unknown backend 'dask'"),
        ({"address": "10.0.0.1:6379"}, "an address is for the ray backend"),
        ({"match_timeout": float("nan")}, "match_timeout must be a number of seconds >= 0"),
    ],
)
def test_a_bad_runner_is_one_value_error(settings, message):
    with pytest.raises(ValueError, match=message):
        Runner(**settings)
