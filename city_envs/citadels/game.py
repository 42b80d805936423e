"""`Citadels`: the Game API over rules.py (transitions), view.py (information) and render.py."""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar, cast

import numpy as np

from city_envs.citadels import components as cp
from city_envs.citadels import present, render, rules, validation, view
from city_envs.citadels.rules import State
from city_envs.core.game import Option, positive_int
from city_envs.core.state_game import StateGame

_ARRAY_FIELDS = {"hands": np.int16, "cities": np.int8}
_TUPLE_LIST_FIELDS = ("steps", "sel_log", "events")


class Citadels(StateGame):
    """Citadels, Classic edition, 2-7 players (docs/games/citadels.md)."""

    name = "citadels"
    standing_names = ("points", "the highest character revealed in the last round")
    min_players = 2
    max_players = 7
    options_spec = {
        "classic_variant": Option(
            False, "4-7 players: cities complete at 8 districts instead of 7", choices=(False, True)
        ),
        "max_rounds": Option(
            100,
            "safety valve: stop (as truncation) after this many rounds",
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
    obs_layout = view.LAYOUT

    def _setup(self) -> None:
        self.state = rules.new_state(
            self.num_players, self.rng, self.options["classic_variant"], self.options["max_rounds"]
        )

    # ----- play ---------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.state.actor

    def _apply(self, action: int) -> None:
        rules.apply_action(self.state, action, self.chance)

    def is_truncated(self) -> bool:
        return self.state.truncated

    def scores(self) -> list[float]:
        return [rules.score(self.state, seat) for seat in range(self.num_players)]

    def score_parts(self) -> list[list[tuple[str, float]]]:
        # whole points: a new list of list[tuple[str, int]], which no one reads as ints
        return cast(
            "list[list[tuple[str, float]]]", [rules.score_parts(self.state, seat) for seat in range(self.num_players)]
        )

    def winners(self) -> list[int]:
        return rules.winners(self.state)

    # ----- serialization ------------------------------------------------------------------------
    def _state_to_dict(self) -> dict:
        data = {}
        for key, value in vars(self.state).items():
            if key in _ARRAY_FIELDS:
                value = value.tolist()
            elif key in _TUPLE_LIST_FIELDS:
                value = [list(item) for item in value]
            data[key] = value
        return data

    def _state_from_dict(self, data: dict) -> None:
        fields = dict(data)
        validation.check_seats(fields.get("n"), self.num_players)
        validation.check_card_table("hands", fields.get("hands"), self.num_players, int(cp.COPIES.max()))
        validation.check_card_table("cities", fields.get("cities"), self.num_players, 1)
        for key, dtype in _ARRAY_FIELDS.items():
            fields[key] = np.array(fields[key], dtype=dtype).reshape(self.num_players, cp.NUM_KINDS)
        for key in _TUPLE_LIST_FIELDS:
            fields[key] = [tuple(item) for item in fields[key]]
        self.state = State(**fields)

    def _validate_state(self) -> None:
        validation.validate_state(self.state, self.num_players, self.options)

    # ----- people -------------------------------------------------------------------------------
    def describe_public_action(self, action: int) -> str:
        return render.describe_public_action(self.state, self.action_id(action))

    def render_private(self, player: int) -> str:
        return render.render_private(self.state, player)

    def render_image(self) -> np.ndarray:
        from city_envs.citadels.image import render_image  # matplotlib: imported when a picture is asked for

        return render_image(self.state)
