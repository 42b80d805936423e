"""`BigCity`: the Game API over rules.py (transitions), view.py (information) and render.py."""

from __future__ import annotations

import numpy as np

from city_envs.big_city import render, rules, view
from city_envs.big_city.rules import State
from city_envs.core.game import Game

DERIVED_FIELDS = ("grid", "outskirts", "holes", "exterior", "covered", "tram_set", "memo", "geo")


class BigCity(Game):
    """Big City, 2-5 players (shared/rules/big_city.md)."""

    name = "big_city"
    min_players = 2
    max_players = 5
    options_spec = {}
    num_actions = rules.NUM_ACTIONS
    observation_shape = (view.OBS_SIZE,)

    def _setup(self) -> None:
        self.state = rules.new_state(self.num_players, self.rng)

    # ----- play ---------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.state.active

    def decision_name(self) -> str:
        decision = self.state.decision
        return rules.DECISION_NAMES[decision] if decision >= 0 else "GAME_OVER"

    def _legal_actions(self) -> np.ndarray:
        return rules.legal_actions(self.state)

    def _apply(self, action: int) -> None:
        rules.apply_action(self.state, action)

    def is_over(self) -> bool:
        return self.state.decision == rules.GAME_OVER

    def is_truncated(self) -> bool:
        return self.state.truncated

    def scores(self) -> list[float]:
        return [float(x) for x in self.state.scores]

    def winners(self) -> list[int]:
        return list(self.state.winners) if self.is_over() else rules.ranking_winners(self.state)

    # ----- information --------------------------------------------------------------------------
    def view(self, player: int) -> dict:
        return view.view(self.state, player)

    def observation(self, player: int) -> np.ndarray:
        return view.observation(self.state, player)

    def _resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        self.state = view.determinize(self.state, player, rng)

    def _copy_state_from(self, other: BigCity) -> None:
        self.state = view.copy_state(other.state)

    # ----- serialization ------------------------------------------------------------------------
    def _state_to_dict(self) -> dict:
        data = dict(vars(self.state))
        for name in DERIVED_FIELDS:
            del data[name]
        return data

    def _state_from_dict(self, data: dict) -> None:
        self.state = State(**data)
        rules.rebuild_derived(self.state)

    # ----- people -------------------------------------------------------------------------------
    def describe_action(self, action: int) -> str:
        return render.describe_action(self.state, action)

    def describe_public_action(self, action: int) -> str:
        return render.describe_public_action(self.state, action)

    def render_private(self, player: int) -> str:
        return render.render_private(self.state, player)

    def render_text(self) -> str:
        return render.render_text(self.state)

    def render_image(self) -> np.ndarray:
        from city_envs.big_city.image import render_image

        return render_image(self.state)
