"""Each game declares its decision kinds once, as `rules.Decision`; ids and names derive from it."""

from __future__ import annotations

import importlib

import pytest

from city_envs.core.decisions import DecisionKind
from city_envs.core.registry import GAMES, make_game

# The ids observations one-hot and recorded matches store: they may never move.
FROZEN_IDS = {
    "citadels": ("SELECT_CHARACTER", "SELECT_DISCARD", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD"),
    "metropolys": ("NBHD", "VALUE"),
    "blue_moon_city": ("MOVE", "BUILD", "PAY", "OFFER", "DISCARD"),
    "big_city": ("SETUP_TILE", "TILE_ROTATION", "TILE_EDGE", "TILE_CELL", "DEAD_DISCARD", "MAIN", "BUILD_SELECT",
                 "PIECE_SELECT", "TRAM_EDGE", "TRAM_EDGE_OPT", "EXCHANGE_SELECT", "DRAW"),
    "urban_sprawl": ("INVEST", "MAIN", "PAY_PERMIT", "PLACE", "VOC_SOURCE", "VOC_PAYOUT", "MARKER_PLACE",
                     "MARKER_MOVE_SRC", "MARKER_MOVE_DST", "PARK_LOT", "TRIBUTE_PAY", "ELECTION_TIE", "MAYOR_PARK",
                     "AUCTION", "PICK_BUILDING", "DISASTER_CHOICE", "BLIGHT_CHOICE", "START_BUY", "MEDIA_TIE"),
}


def rules_of(name: str):
    return importlib.import_module(f"city_envs.{name}.rules")


def test_every_game_is_covered():
    assert set(FROZEN_IDS) == set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_decision_ids_and_names_stay_as_recorded(name):
    decision = rules_of(name).Decision
    assert issubclass(decision, DecisionKind)
    assert [(member.name, int(member)) for member in decision] == [(n, i) for i, n in enumerate(FROZEN_IDS[name])]


@pytest.mark.parametrize("name", GAMES)
def test_no_module_name_holds_a_decision_under_another_name(name):
    """A module-level alias of a member (kept for view.py) can only be the member's own name: no drift."""
    rules = rules_of(name)
    aliases = {attr: value for attr, value in vars(rules).items() if isinstance(value, rules.Decision)}
    assert all(attr == value.name for attr, value in aliases.items()), aliases
    assert getattr(rules, "DECISION_NAMES", tuple(m.name for m in rules.Decision)) == tuple(
        m.name for m in rules.Decision)


@pytest.mark.parametrize("name", GAMES)
def test_the_game_names_its_pending_decision_from_the_enum(name):
    game = make_game(name, 2, seed=0)
    assert game.decision_name() == rules_of(name).Decision(game.state.decision).name
    assert rules_of(name).Decision.name_of(rules_of(name).GAME_OVER) == "GAME_OVER"


def test_a_member_is_its_int_for_lookups():
    """Tables keyed by members answer the plain ints a state restored from JSON holds."""
    decision = rules_of("metropolys").Decision
    assert {decision.VALUE: "bid"}[1] == "bid" and decision.VALUE == 1 and hash(decision.VALUE) == hash(1)
