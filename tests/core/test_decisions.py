"""Each game declares its decision kinds once, as `rules.Decision`; ids and names derive from it."""

from __future__ import annotations

import importlib

import pytest

from city_envs.core.decisions import DecisionTable
from city_envs.core.registry import GAMES, make_game

# The ids observations one-hot and recorded matches store: they may never move.
FROZEN_IDS = {
    "citadels": ("SELECT_CHARACTER", "SELECT_DISCARD", "MAIN", "KEEP_DRAWN", "MAGICIAN_DISCARD", "GRAVEYARD"),
    "metropolys": ("NBHD", "VALUE"),
    "blue_moon_city": ("MOVE", "BUILD", "PAY", "OFFER", "DISCARD"),
    "big_city": (
        "SETUP_TILE",
        "TILE_ROTATION",
        "TILE_EDGE",
        "TILE_CELL",
        "DEAD_DISCARD",
        "MAIN",
        "BUILD_SELECT",
        "PIECE_SELECT",
        "TRAM_EDGE",
        "TRAM_EDGE_OPT",
        "EXCHANGE_SELECT",
        "DRAW",
    ),
    "urban_sprawl": (
        "INVEST",
        "MAIN",
        "PAY_PERMIT",
        "PLACE",
        "VOC_SOURCE",
        "VOC_PAYOUT",
        "MARKER_PLACE",
        "MARKER_MOVE_SRC",
        "MARKER_MOVE_DST",
        "PARK_LOT",
        "TRIBUTE_PAY",
        "ELECTION_TIE",
        "MAYOR_PARK",
        "AUCTION",
        "PICK_BUILDING",
        "DISASTER_CHOICE",
        "BLIGHT_CHOICE",
        "START_BUY",
        "MEDIA_TIE",
    ),
}


def rules_of(name: str):
    return importlib.import_module(f"city_envs.{name}.rules")


def test_every_game_is_covered():
    assert set(FROZEN_IDS) == set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_decision_ids_and_names_stay_as_recorded(name):
    decision = rules_of(name).Decision
    assert issubclass(decision, DecisionTable)
    assert decision.names == FROZEN_IDS[name]
    assert all(getattr(decision, kind) == number for number, kind in enumerate(FROZEN_IDS[name]))


@pytest.mark.parametrize("name", GAMES)
def test_the_decision_is_named_only_by_its_table(name):
    """No second list of names or ids beside the table (they drifted once: OFFERING / "OFFER")."""
    rules = rules_of(name)
    assert not hasattr(rules, "DECISION_NAMES")
    game = make_game(name, 2, seed=0)
    assert game.view(0)["decision"] == rules.Decision.name_of(game.state.decision)


@pytest.mark.parametrize("name", GAMES)
def test_the_game_names_its_pending_decision_from_the_table(name):
    rules, game = rules_of(name), make_game(name, 2, seed=0)
    assert game.decision_name() == rules.Decision.names[game.state.decision]
    assert rules.Decision.name_of(rules.GAME_OVER) == "GAME_OVER"


def test_a_table_refuses_a_gap_or_a_repeated_id():
    for ids in ((0, 2), (0, 0)):
        with pytest.raises(TypeError, match="each once"):
            type("Broken", (DecisionTable,), {"FIRST": ids[0], "SECOND": ids[1]})
