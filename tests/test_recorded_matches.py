"""Speed work changes nothing a seat sees or does: recorded matches replay bit for bit.

The fingerprints in tests/recordings/matches.json were made by `python -m tests.recordings.record` on
the code before the speed work of issue 30 (observations and masks of every seat after every step,
determinizations, and the heuristics' moves in self-play; see that module).
"""

from __future__ import annotations

import json

import pytest

from tests.recordings import record

RECORDED = json.loads(record.RECORDING.read_text())
CASES = {key: (game, players, seed, options) for key, game, players, seed, options in record.cases()}


def test_the_recording_covers_every_game_at_two_and_four_players():
    from city_envs.core.registry import GAMES

    assert set(RECORDED) == set(CASES)
    assert {game for game, _, _, _ in CASES.values()} == set(GAMES)
    assert {players for _, players, _, _ in CASES.values()} == set(record.PLAYER_COUNTS)


@pytest.mark.parametrize("key", sorted(CASES))
def test_random_play_observations_masks_and_determinizations_are_unchanged(key):
    assert record.random_aec_match(*CASES[key]) == RECORDED[key]["random_aec"]


@pytest.mark.parametrize("key", sorted(CASES))
def test_heuristic_self_play_moves_are_unchanged(key):
    assert record.heuristic_match(*CASES[key]) == RECORDED[key]["heuristic"]
