"""`StateGame`: the Game API forwarded to a game's rules, view, render and present modules.

Every shipped game keeps its whole mutable state in one `state` object that plain functions in
`rules.py`, `view.py`, `render.py` and `present.py` read and change. The forwarding is the same for all of them,
so it lives here once and each game's `game.py` only says what differs: options, setup, who acts,
scores, winners and how its state fields become JSON.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping, Sequence
from importlib import resources
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from city_envs.core.game import Game
from city_envs.core.regions import BoardMap
from city_envs.core.svg import choices_of

if TYPE_CHECKING:
    from typing_extensions import Self  # typing.Self from Python 3.11

SUMMARY_FILE = "summary.md"  # each game package's rules in short


class StateGame(Game):
    """A `Game` whose mutable state is `self.state`, handled by the modules named below.

    `rules_module` provides `Decision`, `GAME_OVER`, `legal_actions(state)`,
    `apply_action(state, action)` and `standing_keys(state)` (the per-seat ranking keys its winners
    are chosen by); `view_module` provides `view`, `observation`, `determinize` and `copy_state`;
    `render_module` provides `describe_action` and `render_text`, and may provide
    `describe_outcome(before, after)`, `describe_partial(state)` and `choice_group(state, action)`;
    the `image` module beside it provides `board_map(state, legal)`, and an `svg` module, where there is one,
    `render_svg(state, choices)`. `present_module` gives what a table page explains:
    `DECISION_WORDS` (each decision id in words), `card_texts()`, `legend(state, seats)`,
    `missing_choices(state, seat)` and `resources(state)`, and may give `score_parts(state)` (the
    public score broken down further than `score_parts()`); the package's `summary.md` is its rules
    in short. A game whose calls need more arguments (options, the chance proxy) overrides the method
    concerned.
    """

    rules_module: ClassVar[ModuleType]
    view_module: ClassVar[ModuleType]
    render_module: ClassVar[ModuleType]
    present_module: ClassVar[ModuleType]

    state: Any

    # ----- play ---------------------------------------------------------------------------------
    def decision_name(self) -> str:
        return self.rules_module.Decision.name_of(self.state.decision)

    def _legal_actions(self) -> np.ndarray:
        return self.rules_module.legal_actions(self.state)

    def _apply(self, action: int) -> None:
        self.rules_module.apply_action(self.state, action)

    def is_over(self) -> bool:
        return self.state.decision == self.rules_module.GAME_OVER

    def standings(self) -> list[tuple[float, ...]]:
        return self.rules_module.standing_keys(self.state)

    # ----- information --------------------------------------------------------------------------
    def view(self, player: int) -> dict:
        return self.view_module.view(self.state, player)

    def observation(self, player: int) -> np.ndarray:
        return self.view_module.observation(self.state, player)

    def _resample_hidden(self, player: int, rng: np.random.Generator) -> None:
        self.state = self.view_module.determinize(self.state, player, rng)

    def _copy_state_from(self, other: Self) -> None:
        self.state = self.view_module.copy_state(other.state)

    # ----- people -------------------------------------------------------------------------------
    def describe_action(self, action: int) -> str:
        return self.render_module.describe_action(self.state, self.action_id(action))

    def render_text(self) -> str:
        return self.render_module.render_text(self.state)

    def describe_table(self) -> str:
        describe = getattr(self.render_module, "describe_table", None)
        return describe(self.state) if describe else self.render_text()

    def describe_outcome(self, before: Self) -> list[str]:
        describe = getattr(self.render_module, "describe_outcome", None)
        return describe(before.state, self.state) if describe else []

    def describe_partial(self) -> str:
        describe = getattr(self.render_module, "describe_partial", None)
        return describe(self.state) if describe else ""

    def choice_group(self, action: int) -> str:
        group = getattr(self.render_module, "choice_group", None)
        return group(self.state, action) if group else ""

    def board_map(self) -> BoardMap | None:
        # imported on use: the image modules load matplotlib
        image = importlib.import_module(self.render_module.__name__.rpartition(".")[0] + ".image")
        return image.board_map(self.state, self.legal_actions())

    def render_svg(self, choices: Mapping[int, str] | None = None) -> str | None:
        # a game draws an SVG board once its package has an svg module beside image.py
        name = self.render_module.__name__.rpartition(".")[0] + ".svg"
        if importlib.util.find_spec(name) is None:
            return None
        svg = importlib.import_module(name)
        return svg.render_svg(self.state, choices_of(self.legal_actions(), choices or {}))

    # ----- the game at hand ---------------------------------------------------------------------
    @classmethod
    def rules_summary(cls) -> str:
        package = cls.rules_module.__name__.rpartition(".")[0]
        return (resources.files(package) / SUMMARY_FILE).read_text(encoding="utf-8")

    @classmethod
    def decision_texts(cls) -> dict[int, str]:
        return cls.present_module.DECISION_WORDS

    def decision_words(self) -> str:
        return self.present_module.DECISION_WORDS.get(self.state.decision, super().decision_words())

    @classmethod
    def card_texts(cls) -> dict[str, str]:
        return cls.present_module.card_texts()

    def legend(self, seats: Sequence[int]) -> list[tuple[str, str]]:
        return self.present_module.legend(self.state, seats)

    def missing_choices(self, seat: int) -> list[str]:
        if self.is_over() or self.current_player() != seat:
            return []
        return self.present_module.missing_choices(self.state, seat)

    def public_resources(self) -> list[list[tuple[str, int]]]:
        return self.present_module.resources(self.state)

    def public_score_parts(self) -> list[list[tuple[str, float]]] | None:
        parts = super().public_score_parts()
        broken_down = getattr(self.present_module, "score_parts", None)
        return broken_down(self.state) if parts is not None and broken_down is not None else parts
