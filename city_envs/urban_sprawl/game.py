"""`UrbanSprawl`: the Game API over rules.py (transitions), view.py (information) and render.py."""

from __future__ import annotations

from types import ModuleType
from typing import ClassVar

import numpy as np

from city_envs.core.game import Option, positive_int
from city_envs.core.state_game import StateGame
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import present, render, rules, validation, view


class UrbanSprawl(StateGame):
    """Urban Sprawl, 2-4 players (docs/games/urban_sprawl.md)."""

    name = "urban_sprawl"
    standing_names = ("prestige", "wealth")
    min_players = 2
    max_players = 4
    options_spec = {
        "variant": Option(
            "standard", "how deep the special events lie in the contract decks (3.4)", choices=view.VARIANTS
        ),
        "auto_single": Option(
            True,
            "play a choice for the seat when it is the only legal one, except investing a "
            "permit and the turn's main action (9.1)",
            choices=(True, False),
        ),
        "max_turns": Option(
            cp.TURN_LIMIT,
            "safety valve: stop (as truncation) after this many turns (9.1)",
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
        self.state = rules.new_state(self.num_players, self.options["variant"], self.rng)

    # ----- play ---------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.state.decider if self.state.decision != rules.GAME_OVER else -1

    def _apply(self, action: int) -> None:
        options = self.options
        mask = rules.apply_action(self.state, action, self.chance, options["auto_single"], options["max_turns"])
        if mask is not None:  # the next decision's mask, computed to play a single choice: `legal_actions` keeps it
            mask.setflags(write=False)
            self._mask = mask

    def is_truncated(self) -> bool:
        return self.state.truncated

    def scores(self) -> list[float]:
        """Prestige (final after the Olympic Games scoring)."""
        return [float(x) for x in self.state.prestige]

    def score_parts(self) -> list[list[tuple[str, float]]]:
        """Prestige from play, then what the final scoring paid; before it, prestige as one part."""
        if not self.is_over() or self.state.truncated:
            return super().score_parts()
        parts = []
        for seat, paid in enumerate(rules.final_payouts(self.state)):
            before = self.state.prestige[seat] - sum(points for _, points in paid)
            parts.append([("prestige during play", before), *paid])
        return parts

    def winners(self) -> list[int]:
        return list(self.state.winners) if self.is_over() else rules.ranking_winners(self.state)

    # ----- information --------------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return view.observation(self.state, player, self.options["variant"])

    def lot_planes(self, player: int) -> np.ndarray:
        """The city part of `observation(player)` as 12 x 12 x 20 planes, for convolutional encoders."""
        return view.lot_planes(self.state, player)

    def _resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        self.state = view.determinize(self.state, player, self.options["variant"], rng)

    # ----- serialization ------------------------------------------------------------------------
    def _state_to_dict(self) -> dict:
        """The state's fields; the building and task records as lists (`validation.state_from_json` reads them)."""
        data = view.copy_state(self.state).__dict__
        data["buildings"] = [None if b is None else [b.zone, b.size, list(b.lots), b.owner] for b in data["buildings"]]
        data["tasks"] = [[rules.TASK_NAMES[type(task)], *task] for task in data["tasks"]]
        return data

    def _state_from_dict(self, data: dict) -> None:
        self.state = validation.state_from_json(data)

    def _validate_state(self) -> None:
        validation.validate_state(self.state, self.num_players, self.options)

    # ----- people -------------------------------------------------------------------------------
    def presentation_order(self, actions: list[int]) -> list[int]:
        """Ending the turn or the investments, or declining, after the choices it ends (its id comes first)."""
        return sorted(actions, key=lambda action: action == rules.PASS)

    def render_image(self) -> np.ndarray:
        from city_envs.urban_sprawl.image import render_image

        return render_image(self.state)
