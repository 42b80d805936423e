"""`BigCity`: the Game API over rules.py (transitions), view.py (information) and render.py."""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar

import numpy as np

from city_envs.big_city import present, render, rules, validation, view
from city_envs.core.state_game import StateGame


class BigCity(StateGame):
    """Big City, 2-5 players (docs/games/big_city.md)."""

    name = "big_city"
    min_players = 2
    max_players = 5
    options_spec = {}
    rules_module: ClassVar[ModuleType] = rules
    view_module: ClassVar[ModuleType] = view
    render_module: ClassVar[ModuleType] = render
    present_module: ClassVar[ModuleType] = present
    num_actions = rules.NUM_ACTIONS
    observation_shape = (view.LAYOUT.size,)
    entity_layout = view.ENTITY_LAYOUT
    obs_layout = view.LAYOUT

    def _setup(self) -> None:
        self.state = rules.new_state(self.num_players, self.rng)

    # ----- play ---------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.state.active

    def is_truncated(self) -> bool:
        return self.state.truncated

    def scores(self) -> list[float]:
        return [float(x) for x in self.state.scores]

    def winners(self) -> list[int]:
        return list(self.state.winners) if self.is_over() else rules.ranking_winners(self.state)

    def seat_state(self, player: int) -> rules.State:
        return view.seat_state_of(self.state, player)

    # ----- serialization ------------------------------------------------------------------------
    def _state_to_dict(self) -> dict:
        """The plain fields; the tile and piece records as lists (`validation.state_from_json` reads them)."""
        data = dict(vars(self.state))
        for name in rules.DERIVED_FIELDS:
            del data[name]
        data["tiles"] = [None if t is None else [t.rotation, t.ax, t.ay] for t in self.state.tiles]
        data["pieces"] = [[p.kind, p.owner, list(p.plots), p.points] for p in self.state.pieces]
        return data

    def _state_from_dict(self, data: dict) -> None:
        self.state = validation.state_from_json(data)
        validation.validate_state(self.state, self.num_players)  # the geometry below trusts these fields
        rules.rebuild_derived(self.state)

    def _validate_state(self) -> None:
        validation.validate_state(self.state, self.num_players)

    # ----- people -------------------------------------------------------------------------------
    def describe_public_action(self, action: int) -> str:
        return render.describe_public_action(self.state, self.action_id(action))

    def render_private(self, player: int) -> str:
        return render.render_private(self.state, player)

    def render_image(self) -> np.ndarray:
        from city_envs.big_city.image import render_image

        return render_image(self.state)
