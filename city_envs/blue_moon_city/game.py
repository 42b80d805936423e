"""`BlueMoonCity`: the Game API over rules.py (transitions), view.py (information) and render.py."""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar

import numpy as np

from city_envs.blue_moon_city import present, render, rules, validation, view
from city_envs.blue_moon_city.rules import Payment, State
from city_envs.core.game import Option, positive_int
from city_envs.core.state_game import StateGame


class BlueMoonCity(StateGame):
    """Blue Moon City, 2-4 players (docs/games/blue_moon_city.md)."""

    name = "blue_moon_city"
    standing_names = ("offerings", "crystals")
    min_players = 2
    max_players = 4
    options_spec = {
        "center": Option(
            "fixed",
            "fixed: temples and palace round the Courtyard; random: only the Courtyard is fixed",
            choices=("fixed", "random"),
        ),
        "max_rounds": Option(
            100,
            "safety valve: stop (as truncation) after this many full rounds",
            check=positive_int,
            allowed="an integer >= 1",
        ),
    }
    rules_module: ClassVar[ModuleType] = rules
    view_module: ClassVar[ModuleType] = view
    render_module: ClassVar[ModuleType] = render
    present_module: ClassVar[ModuleType] = present
    num_actions = rules.NUM_ACTIONS
    observation_shape = (view.LAYOUT.size,)
    entity_layout = view.ENTITY_LAYOUT
    obs_layout = view.LAYOUT

    def _setup(self) -> None:
        self.state = rules.new_state(self.num_players, self.options["center"], self.rng)

    # ----- play ---------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.state.active

    def _apply(self, action: int) -> None:
        rules.apply_action(self.state, action, self.chance, self.options["max_rounds"])

    def is_truncated(self) -> bool:
        return self.state.truncated

    def scores(self) -> list[float]:
        """Offerings made (the game's own measure of progress)."""
        return [float(x) for x in self.state.offerings]

    def winners(self) -> list[int]:
        return list(self.state.winners) if self.is_over() else rules.ranking_winners(self.state)

    # ----- serialization ------------------------------------------------------------------------
    def _state_to_dict(self) -> dict:
        data = dict(vars(self.state))
        del data["city_memo"]
        data["payment"] = None if self.state.payment is None else dict(vars(self.state.payment))
        return data

    def _state_from_dict(self, data: dict) -> None:
        fields = dict(data)
        if fields["payment"] is not None:
            fields["payment"] = Payment(**fields["payment"])
        self.state = State(**fields)

    def _validate_state(self) -> None:
        validation.validate_state(self.state, self.num_players, self.options)

    # ----- people -------------------------------------------------------------------------------
    def render_private(self, player: int) -> str:
        return render.render_private(self.state, player)

    def render_image(self) -> np.ndarray:
        from city_envs.blue_moon_city.image import render_image

        return render_image(self.state)
