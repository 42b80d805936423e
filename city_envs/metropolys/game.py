"""`Metropolys`: the Game API over rules.py (transitions), view.py (information) and render.py."""

from __future__ import annotations

from types import ModuleType
from typing import Any, ClassVar, cast

import numpy as np

from city_envs.core.game import Option
from city_envs.core.state_game import StateGame
from city_envs.metropolys import components as cp
from city_envs.metropolys import present, render, rules, validation, view
from city_envs.metropolys.rules import State

_PERIPHERAL_NAMES = tuple(cp.DISTRICT_NAMES[d] for d in cp.PERIPHERAL)


def _district_names(value: Any) -> list[str] | None:
    """`removed_districts` as a list of names: "south,west", ["south", "west"] or None."""
    if value is None:
        return None
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)) and all(isinstance(part, str) for part in value):
        return list(value)
    return ["<invalid>"]


def _valid_district_names(value: Any) -> bool:
    names = _district_names(value)
    return names is None or (len(set(names)) == len(names) and all(name in _PERIPHERAL_NAMES for name in names))


def _non_negative_int(value: Any) -> bool | np.bool_:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0


def allowed_removals(num_players: int) -> list[tuple[str, ...]]:
    """The district removals a player count allows (2.5): none, one peripheral, or an adjacent pair."""
    if num_players == 3:
        return [(name,) for name in _PERIPHERAL_NAMES]
    if num_players == 2:
        return [tuple(cp.DISTRICT_NAMES[d] for d in sorted(pair)) for pair in cp.ADJACENT_PAIRS]
    return [()]


class Metropolys(StateGame):
    """Metropolys, family and expert versions, 2-4 players (docs/games/metropolys.md)."""

    name = "metropolys"
    standing_names = ("prestige", "buildings built")
    min_players = 2
    max_players = 4
    options_spec = {
        "version": Option(
            "family",
            "family (one Area card) or expert (Neighbourhood + expert Area cards, highest-building tokens)",
            choices=("family", "expert"),
        ),
        "layout": Option(
            "random",
            "token layout: random, or a first-game layout built to the rulebook's constraints "
            "(its picture was not available)",
            choices=("random", "first_game"),
        ),
        "removed_districts": Option(
            None,
            "2-3 players: the peripheral districts out of play, e.g. 'south,west' "
            "(2 players: an adjacent pair); default drawn by the seed",
            check=_valid_district_names,
            allowed="None or comma-separated names among north, east, south, west",
        ),
        "start_player": Option(
            0, "seat that opens the first call", check=_non_negative_int, allowed="a seat index 0..num_players-1"
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
        n = self.num_players
        removed = self._removed_districts()
        if self.options["start_player"] >= n:
            raise ValueError(f"invalid start_player {self.options['start_player']!r}; allowed: 0..{n - 1}")
        self.state = rules.new_state(
            n, self.options["version"], self.options["layout"], removed, self.options["start_player"], self.rng
        )

    def _removed_districts(self) -> list[int] | None:
        names = _district_names(self.options["removed_districts"])
        if names is None:
            return None
        allowed = allowed_removals(self.num_players)
        if tuple(sorted(names, key=_PERIPHERAL_NAMES.index)) not in allowed:
            listed = "; ".join(",".join(pair) or "(none)" for pair in allowed)
            raise ValueError(
                f"invalid removed_districts {self.options['removed_districts']!r} for {self.num_players} "
                f"players; allowed: None (drawn) or {listed}"
            )
        return sorted(cp.DISTRICT_NAMES.index(name) for name in names)

    # ----- play ---------------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.state.actor

    def scores(self) -> list[float]:
        return [float(rules.score(self.state, seat)) for seat in range(self.num_players)]

    def score_parts(self) -> list[list[tuple[str, float]]]:
        # whole points: a new list of list[tuple[str, int]], which no one reads as ints
        return cast(
            "list[list[tuple[str, float]]]", [rules.score_parts(self.state, seat) for seat in range(self.num_players)]
        )

    def public_scores(self) -> list[float]:
        """Tokens and the two public cards until the end; the secret objectives count only then."""
        if self.is_over():
            return self.scores()
        return [float(rules.token_points(self.state, seat)) for seat in range(self.num_players)]

    def winners(self) -> list[int]:
        return rules.winners(self.state)

    # ----- serialization ------------------------------------------------------------------------
    def _state_to_dict(self) -> dict:
        data = dict(vars(self.state))
        del data["board_memo"], data["view_memo"]
        data["bids"] = [list(bid) for bid in self.state.bids]
        return data

    def _state_from_dict(self, data: dict) -> None:
        fields = dict(data)
        fields["bids"] = [tuple(bid) for bid in fields["bids"]]
        self.state = State(**fields)

    def _validate_state(self) -> None:
        validation.validate_state(self.state, self.num_players, self.options, self._removed_districts())

    # ----- people -------------------------------------------------------------------------------
    def render_private(self, player: int) -> str:
        return render.render_private(self.state, player)

    def render_image(self) -> np.ndarray:
        from city_envs.metropolys.image import render_image

        return render_image(self.state)
