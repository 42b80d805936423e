"""Bad input only Metropolys has (the input every game rejects alike is in tests/test_every_game.py)."""

from __future__ import annotations

import pytest

from city_envs.core.game import IllegalActionError
from city_envs.metropolys.game import Metropolys


def test_opener_cannot_pass():
    game = Metropolys(4, seed=0)
    with pytest.raises(IllegalActionError, match="NBHD"):
        game.apply(68)


def test_valid_removals_are_accepted_in_any_order():
    assert Metropolys(2, removed_districts="west,north").state.removed == [1, 4]
    assert Metropolys(2, removed_districts=["south", "east"]).state.removed == [2, 3]
    assert Metropolys(3, removed_districts="east").state.removed == [2]
    assert Metropolys(4, removed_districts="").state.removed == []
