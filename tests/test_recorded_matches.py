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
KEYS = sorted(RECORDED)


def test_the_recording_covers_every_game_at_two_and_four_players():
    from city_envs.core.registry import GAMES

    assert {key.rsplit("/", 2)[0] for key in KEYS} == set(GAMES)
    assert {int(key.split("/")[1]) for key in KEYS} == set(record.PLAYER_COUNTS)


@pytest.mark.parametrize("key", KEYS)
def test_random_play_observations_masks_and_determinizations_are_unchanged(key):
    game, players, seed = key.split("/")
    assert record.random_aec_match(game, int(players), int(seed)) == RECORDED[key]["random_aec"]


@pytest.mark.parametrize("key", KEYS)
def test_heuristic_self_play_moves_are_unchanged(key):
    game, players, seed = key.split("/")
    assert record.heuristic_match(game, int(players), int(seed)) == RECORDED[key]["heuristic"]
