"""Big City's native engine: what the shared parity test does not reach in random matches.

The turn cap (a match loaded near it and played out), the full city (a match whose city is filled but one
plot, then built full), determinization where another seat's public choice
proves cards in its hand (DEAD_DISCARD, BUILD_SELECT), and the JSON door refusing
states it could not index safely.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from city_envs.big_city import components as cp
from city_envs.big_city import rules
from city_envs.big_city.game import BigCity
from city_envs.core.native import rng_words
from tests.native.parity import assert_same_raw, words

native = pytest.importorskip("city_envs._native")


def _native_of(game: BigCity):
    data = game.to_dict()
    return native.BigCity.from_json(
        game.num_players, "{}", json.dumps(data["state"]), rng_words(data["rng"]), data["history"]
    )


def _choose(game: BigCity, chooser: np.random.Generator) -> int:
    """A random legal action, a pass only when nothing else is legal (so that matches last)."""
    legal = np.flatnonzero(game.legal_actions())
    if len(legal) > 1:
        legal = legal[legal != 94]  # rules.PASS
    return int(chooser.choice(legal))


def _play(game: BigCity, twin, chooser: np.random.Generator, steps: int) -> None:
    for _ in range(steps):
        if game.is_over():
            return
        action = _choose(game, chooser)
        game.apply(action)
        assert twin.apply(action)
        assert_same_raw(game, twin, ("decision", len(game.history)))


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_turn_cap_truncates_as_python(num_players: int) -> None:
    game = BigCity(num_players, seed=num_players)
    chooser = np.random.default_rng(num_players)
    while game.state.turns < 15:
        game.apply(_choose(game, chooser))
    data = game.to_dict()
    data["state"]["turns"] = 595
    game = BigCity.from_dict(data)
    twin = _native_of(game)
    assert_same_raw(game, twin, "loaded")
    _play(game, twin, chooser, 400)
    assert game.is_truncated() and twin.is_truncated()


def _fill_but_one(game: BigCity) -> int | None:
    """Fill every free plot but one whose card the active seat holds with pieces from the supply (no points:
    the rules read neither), keeping a single-plot piece for it; that kind's BUILD, or None if none is left."""
    s = game.state
    last = min(rules.hand_plots(s, s.active))
    kept = cp.RES1 if s.supply[cp.RES1] else cp.BUS1
    if not s.supply[kept]:
        return None
    supply = list(s.supply)
    supply[kept] -= 1
    free = rules.free_plots(s) - {last}
    lines = (
        (3, (cp.RES3, cp.BUS3)),
        (2, (cp.RES2, cp.BUS2, cp.SHOPPING_CENTER)),
        (1, (cp.RES1, cp.BUS1, cp.CHURCH, cp.CINEMA, cp.POST_OFFICE, cp.BANK)),
    )
    for size, kinds in lines:
        for kind in kinds:
            while supply[kind] > 0 and (found := rules.shape_placements(s, free, size)):
                supply[kind] -= 1
                s.supply[kind] -= 1
                s.pieces.append(rules.Piece(kind, len(s.pieces) % s.n, found[0], 0))
                for p in found[0]:
                    s.occupant[p] = len(s.pieces) - 1
                    s.out[p] = True
                    free.discard(p)
                    for hand in s.hands:
                        if p in hand:
                            hand.remove(p)
                    for pile, known in zip(s.piles, s.pile_known, strict=True):
                        if p in pile:
                            del known[pile.index(p)]
                            pile.remove(p)
    assert not free
    rules.rebuild_piece_derived(s)
    game._mask = None
    return rules.BUILD + kept


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_full_city_ends_as_python(seed: int) -> None:
    game = BigCity(2, seed=seed)
    chooser = np.random.default_rng(seed)
    while (
        any(t is None for t in game.state.tiles)
        or game.decision_name() != "MAIN"
        or not rules.hand_plots(game.state, game.state.active)
    ):
        legal = np.flatnonzero(game.legal_actions())
        tiles = legal[(legal > rules.TILE + 1) & (legal < rules.EXCHANGE)]
        game.apply(
            int(chooser.choice(tiles)) if game.decision_name() == "MAIN" and len(tiles) else _choose(game, chooser)
        )
    build = _fill_but_one(game)
    assert build is not None
    twin = _native_of(game)
    assert_same_raw(game, twin, "loaded")
    for action in (build, min(rules.hand_plots(game.state, game.state.active))):
        game.apply(action)
        assert twin.apply(action)
        assert_same_raw(game, twin, ("decision", len(game.history)))
    assert game.is_over() and not game.is_truncated()


@pytest.mark.parametrize("seed", range(6))
def test_determinize_with_proven_cards(seed: int) -> None:
    """Where the active seat's DEAD_DISCARD or BUILD_SELECT proves cards, both engines draw the same set."""
    num_players = 2 + seed % 4
    game = BigCity(num_players, seed=seed)
    twin = native.BigCity(num_players, "{}", words(np.random.default_rng(seed)))
    chooser = np.random.default_rng(seed + 50)
    checked = 0
    while not game.is_over() and checked < 30:
        if game.decision_name() in ("DEAD_DISCARD", "BUILD_SELECT"):
            for seat in range(num_players):
                draws_py = np.random.default_rng(1000 * seed + checked)
                draws_native = np.random.default_rng(1000 * seed + checked)
                assert_same_raw(
                    game.determinize(seat, draws_py),
                    twin.determinize(seat, draws_native.bit_generator.capsule),
                    ("determinize", seat, len(game.history)),
                )
                assert draws_py.bit_generator.state == draws_native.bit_generator.state
            checked += 1
        action = _choose(game, chooser)
        game.apply(action)
        assert twin.apply(action)
    assert checked > 0


def _mid_game() -> BigCity:
    game = BigCity(3, seed=7)
    chooser = np.random.default_rng(7)
    while game.state.turns < 30 or not game.state.pieces:
        game.apply(_choose(game, chooser))
    return game


def _hostile_states(state: dict):
    """(what, state) pairs the door must refuse: each would index out of its table if trusted."""

    def changed(edit):
        twin = copy.deepcopy(state)
        edit(twin)
        return twin

    yield "plot of a piece", changed(lambda s: s["pieces"][0].__setitem__(2, [200]))
    yield "piece kind", changed(lambda s: s["pieces"][0].__setitem__(0, 16))
    yield "occupant", changed(lambda s: s["occupant"].__setitem__(0, 99))
    yield "px", changed(lambda s: s["px"].__setitem__(0, 60))
    yield "hand card", changed(lambda s: s["hands"][0].append(72))
    yield "hand too long", changed(lambda s: s["hands"][0].extend([0, 1, 2, 3, 4, 5, 6]))
    yield "pile card twice", changed(lambda s: (s["piles"][0].append(s["piles"][0][0]), s["pile_known"][0].append(-1)))
    yield "pile_known length", changed(lambda s: s["pile_known"][1].append(-1))
    yield "pile_known seat", changed(lambda s: s["pile_known"][2].__setitem__(0, 3) if s["pile_known"][2] else None)
    yield "trams", changed(lambda s: s["trams"].extend(range(20)))
    yield "tram key", changed(lambda s: s["trams"].append(-4))
    yield "decision", changed(lambda s: s.__setitem__("decision", 12))
    yield "active", changed(lambda s: s.__setitem__("active", 3))
    yield "kind", changed(lambda s: s.__setitem__("kind", 16))
    yield "edge", changed(lambda s: s.__setitem__("edge", 272))
    yield "selected", changed(lambda s: s.__setitem__("selected", [68]))
    yield "tiles", changed(lambda s: s.__setitem__("tiles", s["tiles"][:7]))
    yield "tile rotation", changed(lambda s: s["tiles"][0].__setitem__(0, 4))
    yield "missing key", changed(lambda s: s.pop("truncated"))
    yield "unknown key", changed(lambda s: s.__setitem__("extra", 1))
    yield "a string for a number", changed(lambda s: s.__setitem__("turns", "5"))
    yield "build select without a kind", changed(lambda s: (s.__setitem__("decision", 6), s.__setitem__("kind", -1)))
    yield "tile cell without a tile", changed(lambda s: (s.__setitem__("decision", 3), s.__setitem__("tile", 0)))


def test_door_refuses_hostile_states() -> None:
    game = _mid_game()
    data = game.to_dict()
    rng = rng_words(data["rng"])
    native.BigCity.from_json(3, "{}", json.dumps(data["state"]), rng, [])  # the state itself is accepted
    for what, state in _hostile_states(data["state"]):
        with pytest.raises(ValueError):
            native.BigCity.from_json(3, "{}", json.dumps(state), rng, [])
            pytest.fail(f"accepted a state with a bad {what}")
    with pytest.raises(ValueError):
        native.BigCity.from_json(4, "{}", json.dumps(data["state"]), rng, [])  # n is 3
    with pytest.raises(ValueError):
        native.BigCity(3, '{"variant": 1}', rng)  # Big City has no options
