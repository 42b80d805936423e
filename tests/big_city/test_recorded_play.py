"""Big City's speed work changes nothing a seat sees or does, at every player count.

tests/test_recorded_matches.py covers two and four players; these fingerprints (made the same way, by
`tests.recordings.record`, on the code of commit 792416f, before Big City's speed work) add the
heuristic's moves at two to five players on other seeds, and random play's observations, masks and
determinizations at three and five.
"""

from __future__ import annotations

import pytest

from tests.recordings import record

HEURISTIC = {
    (2, 3): (224, "0d6758d414fd4e9e0ee595a287e2e7f4", [141.0, 115.0]),
    (2, 4): (217, "33c0248fe5dec1aafbebe7cecd594499", [195.0, 98.0]),
    (3, 3): (215, "87aa7c8370658911dd9181346c6e0b87", [66.0, 92.0, 115.0]),
    (3, 4): (226, "fd33b203b5eaac37f50c6c8271923ffb", [99.0, 91.0, 71.0]),
    (4, 3): (207, "477ea54947b0bc1b27658032febe72b8", [65.0, 51.0, 91.0, 56.0]),
    (4, 4): (224, "aa61c6ade0a430c6e485416eaea07f28", [74.0, 53.0, 75.0, 70.0]),
    (5, 3): (197, "224f3a2cc6b52303bc842e128517fbe8", [56.0, 47.0, 58.0, 39.0, 30.0]),
    (5, 4): (203, "e282d1ed40de9e24ca790156498f90e6", [52.0, 31.0, 61.0, 54.0, 47.0]),
}
RANDOM_AEC = {
    (3, 0): (393, "7809f0b0a41d8ec56112246e9b3436ff", "6d33fd3ee3353caa403728507ac37c6a"),
    (3, 1): (152, "02b1f21c8bd697efeefb71c05df62e4c", "2e0530abb7fd520834053326382f6310"),
    (5, 0): (413, "65ecd8e254e986fdc4dc407ac3271401", "6b3822445ccc8d6e53fed73c563dafba"),
    (5, 1): (1020, "7783f377094aa65ecd0b9228c1759cb9", "7b965f2bded0cd72b730766ddd688f05"),
}


@pytest.mark.parametrize(("players", "seed"), sorted(HEURISTIC))
def test_heuristic_self_play_moves_are_unchanged(players, seed):
    moves, history, scores = HEURISTIC[players, seed]
    assert record.heuristic_match("big_city", players, seed) == {"moves": moves, "history": history, "scores": scores}


@pytest.mark.parametrize(("players", "seed"), sorted(RANDOM_AEC))
def test_random_play_observations_masks_and_determinizations_are_unchanged(players, seed):
    steps, observations, determinized = RANDOM_AEC[players, seed]
    expected = {"steps": steps, "observations": observations, "determinized": determinized}
    assert record.random_aec_match("big_city", players, seed) == expected
