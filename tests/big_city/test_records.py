"""Big City's named records: tiles, pieces, component rows and view geometry, and their JSON form."""

from __future__ import annotations

import functools
import json
import re

import pytest

from city_envs.big_city import components as cp
from city_envs.big_city import rules, validation, view
from city_envs.big_city.game import BigCity
from city_envs.core.validation import InvalidStateError

from .helpers import mid_game_states


@functools.cache
def _saved_state() -> str:
    for game in mid_game_states(2, range(40), per_game=6):
        s = game.state
        if len(s.pieces) >= 3 and sum(t is not None for t in s.tiles) >= 4:
            return json.dumps(game.to_dict())
    pytest.fail("no state with several pieces and tiles found")


def _loaded_state() -> dict:
    """The JSON form of a mid-game state with pieces and placed tiles (a fresh copy)."""
    return json.loads(_saved_state())


def test_each_record_round_trips_through_its_json_form():
    tile = rules.Tile(rotation=3, ax=21, ay=26)
    piece = rules.Piece(kind=cp.RES2, owner=1, plots=(3, 7), points=6)
    tile_rows = json.loads(json.dumps(view.tiles_json([tile, None])))
    piece_rows = json.loads(json.dumps(view.pieces_json([piece])))
    assert tile_rows == [[3, 21, 26], None] and piece_rows == [[cp.RES2, 1, [3, 7], 6]]
    assert validation.tiles_from_json(tile_rows) == [tile, None]
    assert validation.pieces_from_json(piece_rows) == [piece]
    assert type(validation.pieces_from_json(piece_rows)[0].plots) is tuple


def test_state_json_keeps_the_list_form_and_loads_as_records():
    """Tiles stay [rotation, ax, ay] and pieces [kind, owner, plots, points] in saved files (the format is
    unchanged); loading makes them records again, and writing them back gives the same data."""
    data = _loaded_state()
    state = data["state"]
    assert all(t is None or (type(t) is list and len(t) == 3) for t in state["tiles"])
    assert all(type(p) is list and type(p[2]) is list and len(p) == 4 for p in state["pieces"])
    game = BigCity.from_dict(data)
    assert all(t is None or type(t) is rules.Tile for t in game.state.tiles)
    assert all(type(p) is rules.Piece and type(p.plots) is tuple for p in game.state.pieces)
    assert game.to_dict() == data
    piece = game.state.pieces[0]
    assert [piece.kind, piece.owner, list(piece.plots), piece.points] == state["pieces"][0]
    placed = next(n for n, t in enumerate(game.state.tiles) if t is not None)
    tile = game.state.tiles[placed]
    assert [tile.rotation, tile.ax, tile.ay] == state["tiles"][placed]
    # views show the same list form as saved states
    v = game.view(game.current_player())
    assert v["pieces"] == state["pieces"] and v["tiles"] == state["tiles"]


def test_a_clone_shares_the_immutable_records_and_a_new_piece_stays_local():
    game = BigCity.from_dict(_loaded_state())
    twin = game.clone()
    assert twin.state.pieces == game.state.pieces and twin.state.pieces is not game.state.pieces
    assert all(a is b for a, b in zip(twin.state.pieces, game.state.pieces, strict=True))
    assert twin.state.tiles is not game.state.tiles
    with pytest.raises(AttributeError):
        twin.state.pieces[0].points = 99  # type: ignore[misc]
    before = list(game.state.pieces)
    while len(twin.state.pieces) == len(before) and not twin.is_over():
        twin.apply(twin.legal_action_ids()[0])
    assert game.state.pieces == before and game.state.tiles == BigCity.from_dict(_loaded_state()).state.tiles
    game.validate()


def test_a_seat_state_shares_the_board_records():
    game = BigCity.from_dict(_loaded_state())
    seat = game.current_player()
    s = view.seat_state(game.view(seat))
    assert s.pieces == game.state.pieces and all(type(p) is rules.Piece for p in s.pieces)
    assert s.tiles == game.state.tiles and s.pieces is not game.state.pieces


@pytest.mark.parametrize(
    ("where", "value", "field"),
    [
        ("pieces", [0, 1], "pieces[0]"),
        ("pieces", [0, 0, 4, 2], "pieces[0]"),
        ("pieces", "RES1", "pieces[0]"),
        ("pieces", (0, 0, [4], 2), "pieces[0]"),
        ("pieces", [0, 0, ["4"], 2], "pieces[0].plots[0]"),
        ("pieces", [0.0, 0, [4], 2], "pieces[0].kind"),
        ("pieces", [0, 7, [4], 2], "pieces[0].owner"),
        ("pieces", [0, 0, [4], -2], "pieces[0].points"),
        ("tiles", [0, 25], "tiles[0]"),
        ("tiles", "start", "tiles[0]"),
        ("tiles", [0, 25, 25, 1], "tiles[0]"),
    ],
)
def test_from_dict_refuses_a_malformed_record_with_one_clear_error(where, value, field):
    data = _loaded_state()
    data["state"][where][0] = value
    with pytest.raises(InvalidStateError, match=re.escape(repr(field))):
        BigCity.from_dict(data)


def test_from_dict_refuses_a_misplaced_tile_naming_it():
    data = _loaded_state()
    placed = next(n for n, t in enumerate(data["state"]["tiles"]) if n > 0 and t is not None)
    data["state"]["tiles"][placed][0] = 9
    with pytest.raises(InvalidStateError, match=re.escape(f"'tiles[{placed}].rotation'")):
        BigCity.from_dict(data)


def test_from_dict_refuses_missing_or_unknown_state_fields():
    data = _loaded_state()
    del data["state"]["pieces"]
    with pytest.raises(InvalidStateError, match="field 'state'"):
        BigCity.from_dict(data)
    data = _loaded_state()
    data["state"]["grid"] = []  # a derived field is never saved
    with pytest.raises(InvalidStateError, match="field 'state'"):
        BigCity.from_dict(data)


def test_component_rows_are_records_of_their_tables():
    for n in range(1, cp.NUM_TILES + 1):
        size = cp.TILE_SIZE[n]
        assert type(size) is cp.Size
        for r, layout in enumerate(cp.LAYOUTS[n]):
            assert type(layout) is cp.Layout and len(layout.cells) == size.width * size.height
            assert (layout.width, layout.height) == (size if r % 2 == 0 else (size.height, size.width))
            assert all(0 <= c < layout.width and 0 <= w < layout.height for c, w in layout.cells)
    assert cp.FACILITY_OUTSKIRTS[cp.PARK2] == cp.OutskirtsLimit(low=0, high=1)
    assert all(type(limit) is cp.OutskirtsLimit for limit in cp.FACILITY_OUTSKIRTS.values())


def test_the_geometry_memos_are_records():
    game = BigCity.from_dict(_loaded_state())
    s = game.state
    game.observation(game.current_player())
    geometry = s.geo["plots"]
    assert type(geometry) is view.PlotGeometry and geometry.rows.shape == view.PLOTS.shape
    free = view._OCCUPANT + view.FREE_COLUMN
    assert type(geometry.empty) is view.BoardRows and (geometry.empty.pieces, geometry.empty.trams) == (0, 0)
    assert int(geometry.empty.rows[:, free].sum()) == sum(x >= 0 for x in s.px)
    board = s.memo["board"]
    assert type(board) is view.BoardRows and (board.pieces, board.trams) == (len(s.pieces), len(s.trams))
