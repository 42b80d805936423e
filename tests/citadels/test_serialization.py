"""Citadels state round trips beyond what every game does alike (tests/test_every_game.py): options, lazy
generators, finished games, bad data, and clone independence down to every container of the state."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs.citadels.game import Citadels

from ..game_helpers import assert_same_game, json_round_trip, snapshot
from .helpers import harvest_kind, mid_game_states, play_out, random_action


@pytest.mark.parametrize("n", [4, 7])
def test_json_round_trip_classic_variant_and_options(n):
    game = Citadels(n, seed=3, classic_variant=True, max_rounds=40)
    rng = np.random.default_rng(0)
    for _ in range(150):
        game.apply(random_action(game, rng))
    loaded = json_round_trip(game)
    assert loaded.options == {"classic_variant": True, "max_rounds": 40}
    assert loaded.state.completion == 8 and loaded.state.max_rounds == 40
    assert_same_game(game, loaded)


def test_round_trip_is_json_safe_and_stable():
    game = harvest_kind(5, "GRAVEYARD", 1, seed0=900)[0]
    data = game.to_dict()
    assert json.loads(json.dumps(data)) == data, "to_dict must hold only lists, dicts, str, int, float, bool"
    assert data["game"] == "citadels" and data["num_players"] == 5
    assert json_round_trip(game).to_dict() == data
    # a round trip of a round trip changes nothing, and does not touch the source
    assert json_round_trip(json_round_trip(game)).to_dict() == data
    assert game.to_dict() == data


def test_round_trip_of_a_clone_with_a_lazy_rng():
    """Clones build their generator lazily; serializing one before it draws must still work."""
    game = Citadels(4, seed=11)
    rng = np.random.default_rng(1)
    for _ in range(40):
        game.apply(random_action(game, rng))
    twin = game.clone()
    loaded = json_round_trip(twin)
    assert_same_game(twin, loaded)
    play_rng_a, play_rng_b = np.random.default_rng(2), np.random.default_rng(2)
    play_out(game, play_rng_a)
    play_out(loaded, play_rng_b)
    assert game.to_dict() == loaded.to_dict()


def test_round_trip_of_a_finished_game():
    game = play_out(Citadels(3, seed=5), np.random.default_rng(5))
    loaded = json_round_trip(game)
    assert loaded.is_over() and loaded.current_player() == -1
    assert loaded.scores() == game.scores() and loaded.winners() == game.winners()
    assert loaded.returns() == game.returns() and loaded.is_truncated() == game.is_truncated()


def test_from_dict_rejects_other_data():
    data = Citadels(3, seed=0).to_dict()
    for key, value in (("game", "catan"), ("format", 99), ("state_version", 99)):
        bad = json.loads(json.dumps(data))
        bad[key] = value
        with pytest.raises(ValueError):
            Citadels.from_dict(bad)
    bad = json.loads(json.dumps(data))
    bad["num_players"] = 9
    with pytest.raises(ValueError):
        Citadels.from_dict(bad)


def test_replay_with_options_and_mid_game():
    game = Citadels(6, seed=21, classic_variant=True, max_rounds=30)
    rng = np.random.default_rng(21)
    for _ in range(200):
        game.apply(random_action(game, rng))
    replayed = Citadels.replay(6, 21, game.history, classic_variant=True, max_rounds=30)
    assert replayed.to_dict() == game.to_dict()
    # another seed, same actions: a different game (or the actions are not even legal there)
    try:
        other = Citadels.replay(6, 22, game.history, classic_variant=True, max_rounds=30)
    except ValueError:
        return
    assert other.to_dict()["state"] != game.to_dict()["state"]


def test_same_seed_same_game():
    a, b = Citadels(5, seed=123), Citadels(5, seed=123)
    assert a.to_dict() == b.to_dict()
    play_out(a, np.random.default_rng(0))
    play_out(b, np.random.default_rng(0))
    assert a.to_dict() == b.to_dict()


# ----- clone independence ------------------------------------------------------------------------
def mutate_everything(game: Citadels) -> None:
    """Touch every mutable container of the state in place."""
    s = game.state
    s.deck.append(0)
    s.hands += 1
    s.cities[:] = 1
    s.city_size.append(9)
    s.gold[0] += 100
    s.holder[1] = 5
    s.offered[0].append(255)
    s.sel_log.append((9, 9, 9))
    s.known_facedown[0] = 255
    s.revealed[1] = 3
    s.played[0] = not s.played[0]
    s.drawn.append(1)
    s.marked.append(2)
    s.events.append(("fake",))
    game.history.append(999)


@pytest.mark.parametrize("n", [2, 4, 7])
def test_clone_is_independent(n):
    rng = np.random.default_rng(n)
    for game in mid_game_states(n)[:6]:
        before = snapshot(game)
        # advancing the clone to the end never changes the original
        twin = game.clone()
        assert snapshot(twin) == before
        play_out(twin, rng)
        assert snapshot(game) == before
        # mutating every container of a clone in place never changes the original
        twin = game.clone()
        mutate_everything(twin)
        assert snapshot(game) == before
        # determinize, observation and view do not change the original either
        for p in range(n):
            game.determinize(p, rng)
            game.observation(p)
            game.view(p)
        assert snapshot(game) == before
        # and the other way round: advancing and mutating the original leaves a clone alone
        twin = game.clone()
        if not game.is_over():
            game.apply(random_action(game, rng))
        mutate_everything(game)
        assert snapshot(twin) == before


def test_to_dict_is_a_snapshot():
    """The returned data must not share lists with the live state: a saved position must not
    change when the game goes on."""
    game = Citadels(4, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(50):
        game.apply(random_action(game, rng))
    data = game.to_dict()
    frozen = json.dumps(data, sort_keys=True)
    game.apply(random_action(game, rng))
    mutate_everything(game)
    assert json.dumps(data, sort_keys=True) == frozen


def test_from_dict_copies_its_input():
    """Two games loaded from one dict are independent, and neither changes the dict."""
    game = Citadels(4, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(50):
        game.apply(random_action(game, rng))
    data = json.loads(json.dumps(game.to_dict()))
    frozen = json.dumps(data, sort_keys=True)
    first, second = Citadels.from_dict(data), Citadels.from_dict(data)
    play_out(first, rng)
    mutate_everything(first)
    assert json.dumps(data, sort_keys=True) == frozen
    assert snapshot(second) == frozen


def test_clone_keeps_the_future_chance():
    """A clone draws the same future shuffles as the original (its RNG state is copied)."""
    game = Citadels(4, seed=8)
    rng = np.random.default_rng(8)
    for _ in range(30):
        game.apply(random_action(game, rng))
    twin = game.clone()
    actions_rng = np.random.default_rng(99)
    while not game.is_over():
        action = random_action(game, actions_rng)
        game.apply(action)
        twin.apply(action)
    assert twin.to_dict() == game.to_dict()
