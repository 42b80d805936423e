"""Bad input only Big City has (the input every game rejects alike is in tests/test_every_game.py)."""

from __future__ import annotations

import pytest

from city_envs.big_city.game import BigCity
from city_envs.core.game import IllegalActionError


def test_tile_one_is_never_legal():
    game = BigCity(4, seed=0)
    with pytest.raises(IllegalActionError, match="SETUP_TILE"):
        game.apply(85)
