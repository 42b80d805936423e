"""An information-set stand-in for agent tests: nothing but the view and the legal ids."""

from __future__ import annotations

import numpy as np

from city_envs.core.infoset import InfoSet


class SeatOnly:
    """Exposes nothing but what the brief allows an agent to use: the view and the legal ids."""

    __slots__ = ("_view", "_legal", "player", "num_players")

    def __init__(self, info_set: InfoSet) -> None:
        self._view = info_set.view()
        self._legal = info_set.legal_actions().copy()
        self.player = info_set.player
        self.num_players = info_set.num_players

    def view(self) -> dict:
        return self._view

    def legal_actions(self) -> np.ndarray:
        return self._legal

    def legal_action_ids(self) -> list[int]:
        return np.flatnonzero(self._legal).tolist()
