"""Urban Sprawl's named records: buildings, tasks, decision contexts and component rows, and their JSON form."""

from __future__ import annotations

import functools
import json
import re
import typing

import pytest

from city_envs.core.validation import InvalidStateError
from city_envs.urban_sprawl import components as cp
from city_envs.urban_sprawl import rules, validation
from city_envs.urban_sprawl.game import UrbanSprawl

from .helpers import mid_game_states

# the context each decision reads (rules.py), as validation.py checks it
CONTEXT_OF = {
    rules.Decision.VOC_SOURCE: rules.VocSourceContext,
    rules.Decision.VOC_PAYOUT: rules.VocPayoutContext,
    rules.Decision.TRIBUTE_PAY: rules.TributeContext,
    rules.Decision.PARK_LOT: rules.LotsContext,
    rules.Decision.MAYOR_PARK: rules.LotsContext,
    rules.Decision.MARKER_PLACE: rules.MarkerPlaceContext,
    rules.Decision.MARKER_MOVE_DST: rules.MarkerMoveContext,
    rules.Decision.ELECTION_TIE: rules.ElectionTieContext,
    rules.Decision.MEDIA_TIE: rules.MediaTieContext,
    rules.Decision.PICK_BUILDING: rules.PickBuildingContext,
    rules.Decision.BLIGHT_CHOICE: rules.BlightContext,
    rules.Decision.AUCTION: rules.AuctionContext,
    rules.Decision.DISASTER_CHOICE: rules.DisasterContext,
}


def _sample(kind: type) -> tuple:
    """A task record of `kind` with a plausible value in each field."""
    return kind(*("p" if name == "icon" else 1 + i for i, name in enumerate(kind._fields)))


@functools.cache
def _saved_state() -> str:
    for game in mid_game_states(3, range(40), per_game=8):
        if game.state.tasks and any(b is not None and b.owner >= 0 for b in game.state.buildings):
            return json.dumps(game.to_dict())
    pytest.fail("no state with pending tasks found")


def _loaded_state() -> dict:
    """The JSON form of a mid-game state with standing buildings and pending tasks (a fresh copy)."""
    return json.loads(_saved_state())


def test_every_task_record_round_trips_through_its_json_form():
    assert set(rules.TASKS) == set(rules.TASK_NAMES) == set(typing.get_args(rules.Task))
    for kind, name in rules.TASK_NAMES.items():
        task = _sample(kind)
        row = [name, *task]
        assert json.loads(json.dumps(row)) == row
        assert validation.tasks_from_json([row]) == [task]
        assert type(validation.tasks_from_json([row])[0]) is kind


def test_state_json_keeps_the_list_form_and_loads_as_records():
    """Buildings stay [zone, size, lots, owner] and tasks [name, *fields] in saved files (the format is
    unchanged); loading makes them records again, and writing them back gives the same data."""
    data = _loaded_state()
    state = data["state"]
    assert all(b is None or (type(b) is list and type(b[2]) is list and len(b) == 4) for b in state["buildings"])
    assert all(type(t) is list and t[0] in rules.TASK_TYPES for t in state["tasks"])
    game = UrbanSprawl.from_dict(data)
    assert all(b is None or type(b) is rules.Building for b in game.state.buildings)
    assert all(type(t) in rules.TASKS for t in game.state.tasks)
    assert game.to_dict() == data
    # index access reads the same fields as the names
    b = next(b for b in game.state.buildings if b is not None)
    assert (b[0], b[1], b[2], b[3]) == (b.zone, b.size, b.lots, b.owner)


def test_a_clone_shares_the_immutable_records_and_an_owner_change_stays_local():
    game = mid_game_states(3, [1], per_game=1)[0]
    twin = game.clone()
    assert twin.state.buildings == game.state.buildings and twin.state.buildings is not game.state.buildings
    bid = next(bid for bid, b in enumerate(game.state.buildings) if b is not None)
    rules._set_owner(twin.state, bid, 1 + (game.state.buildings[bid].owner % 2))
    assert twin.state.buildings[bid].owner != game.state.buildings[bid].owner


@pytest.mark.parametrize(
    ("where", "value", "field"),
    [
        ("buildings", [0, 1], "buildings[0]"),
        ("buildings", [0, 1, 5, -1], "buildings[0]"),
        ("buildings", "CIV", "buildings[0]"),
        ("buildings", [0, 1, ["3"], -1], "buildings[0]"),
        ("buildings", [0, 1.0, [3], -1], "buildings[0]"),
        ("tasks", ["no_such_task", 1], "tasks[0]"),
        ("tasks", ["election"], "tasks[0]"),
        ("tasks", ["election", 1, 2], "tasks[0]"),
        ("tasks", ("election", 1), "tasks[0]"),
        ("tasks", ["election", "1"], "tasks[0].office"),
        ("tasks", ["payout", "x", 2], "tasks[0].icon"),
        ("tasks", [7], "tasks[0]"),
    ],
)
def test_from_dict_refuses_a_malformed_record_with_one_clear_error(where, value, field):
    data = _loaded_state()
    rows = data["state"][where]
    rows[0] = value
    with pytest.raises(InvalidStateError, match=re.escape(field)):
        UrbanSprawl.from_dict(data)


def test_from_dict_refuses_missing_or_unknown_state_fields():
    data = _loaded_state()
    del data["state"]["ctx"]
    with pytest.raises(InvalidStateError, match="state"):
        UrbanSprawl.from_dict(data)
    data = _loaded_state()
    data["state"]["extra"] = 1
    with pytest.raises(InvalidStateError, match="state"):
        UrbanSprawl.from_dict(data)


def test_picked_purpose_must_name_a_picking_task():
    data = _loaded_state()
    data["state"]["decision"] = rules.Decision.PICK_BUILDING
    data["state"]["ctx"] = {"purpose": "next_turn", "lots": [0]}
    with pytest.raises(InvalidStateError, match=re.escape("ctx['purpose']")):
        UrbanSprawl.from_dict(data)


def test_each_decision_context_has_the_keys_validation_checks():
    assert set(CONTEXT_OF) == set(validation._CTX_KEYS)
    for decision, context in CONTEXT_OF.items():
        assert context.__required_keys__ == set(validation._CTX_KEYS[decision]), rules.Decision.name_of(decision)
    assert not rules.NoContext.__required_keys__


def test_contexts_met_in_play_are_their_decisions_shape():
    seen = set()
    for game in mid_game_states(3, range(12), per_game=12):
        s = game.state
        context = CONTEXT_OF.get(s.decision, rules.NoContext)
        assert set(s.ctx) == context.__required_keys__
        seen.add(s.decision)
    assert len(seen & set(CONTEXT_OF)) >= 4  # several kinds of context were met


def test_component_rows_are_records_of_their_tables():
    assert all(type(p) is cp.Permit for p in cp.PERMITS) and cp.PERMITS[4].zones == (cp.CIV, cp.RES)
    assert all(type(e) is cp.PlanningEvent for e in cp.PLANNING_EVENTS)
    assert all(type(c) is cp.Contract for c in cp.CONTRACTS)
    for contract in cp.CONTRACTS:
        assert contract.restriction is None or type(contract.restriction) is cp.Restriction
        for effect in contract.effects:
            assert type(effect) is cp.EFFECT_TYPES[effect.template] and effect[0] == effect.template
    assert set(cp.DISASTERS) == {e for e, row in enumerate(cp.CONTRACT_EVENTS) if row.kind == cp.DISASTER}
    assert cp.DISASTERS[1] == cp.Disaster(by_water=True, size=0, wealth=4, prestige=0)  # E01 Flood
