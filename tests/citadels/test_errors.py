"""Bad input only Citadels has (the input every game rejects alike is in tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np

from city_envs.citadels.game import Citadels

from ..game_helpers import assert_rejected
from .helpers import harvest_kind


def test_error_names_the_pending_decision():
    game = harvest_kind(4, "KEEP_DRAWN", 1)[0]
    error = assert_rejected(game, 16)  # GATHER_GOLD while a drawn card must be kept
    assert "16" in str(error) and "KEEP_DRAWN" in str(error)


def test_valid_options_are_accepted():
    for n in range(2, 8):
        for classic in (False, True):
            game = Citadels(n, seed=0, classic_variant=classic, max_rounds=1)
            assert game.options == {"classic_variant": classic, "max_rounds": 1}
    assert Citadels(4, max_rounds=np.int64(7)).state.max_rounds == 7
