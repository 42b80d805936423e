"""The `Game` base class contract, tested on a toy game (tests/core/nim_toy.py), no real game."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs.core.game import Game, IllegalActionError
from city_envs.core.infoset import InfoSet

from .nim_toy import Nim


def random_play(game: Game, rng: np.random.Generator, steps: int | None = None) -> Game:
    count = 0
    while not game.is_over() and (steps is None or count < steps):
        legal = np.flatnonzero(game.legal_actions())
        game.apply(int(rng.choice(legal)))
        count += 1
    return game


def snapshot(game: Game) -> str:
    return json.dumps(game.to_dict(), sort_keys=True)


# ----- construction and validation ------------------------------------------------------------
@pytest.mark.parametrize("count", [0, 1, 4, True, "2", None, 2.5])
def test_invalid_player_count_lists_allowed(count):
    with pytest.raises(ValueError, match="2, 3"):
        Nim(count)


@pytest.mark.parametrize(
    ("options", "allowed"),
    [
        ({"heap": -1}, "an integer >= 0"),
        ({"heap": 2.0}, "an integer >= 0"),
        ({"gusts": "no"}, "False, True"),
        ({"max_turns": 0}, "an integer >= 1"),
        ({"max_turns": True}, "an integer >= 1"),
        ({"wind": 3}, "gusts, heap, max_turns, repeat_on_one"),
    ],
)
def test_invalid_options_list_allowed(options, allowed):
    with pytest.raises(ValueError) as info:
        Nim(2, **options)
    assert allowed in str(info.value) and next(iter(options)) in str(info.value)


def test_options_get_defaults():
    assert Nim(2, heap=7).options == {"heap": 7, "gusts": False, "repeat_on_one": False, "max_turns": 200}
    assert Nim.allowed_player_counts() == (2, 3)


# ----- actions ---------------------------------------------------------------------------------
def test_legal_actions_mask_is_cached_and_read_only():
    game = Nim(2, heap=2)
    mask = game.legal_actions()
    assert mask.dtype == bool and mask.shape == (3,) and mask.tolist() == [True, True, False]
    assert game.legal_actions() is mask
    with pytest.raises(ValueError):
        mask[2] = True
    assert game.legal_action_ids() == [0, 1]
    game.apply(0)
    assert game.legal_actions().tolist() == [True, False, False]


@pytest.mark.parametrize("action", [2, -1, 3, 2.5, "x", None, [0]], ids=repr)
def test_illegal_action_raises_and_changes_nothing(action):
    game = Nim(2, heap=2, seed=0)
    game.apply(0)  # heap 1: only "take 1" (id 0) is legal
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    assert isinstance(info.value, ValueError)
    assert repr(action) in str(info.value) and "TAKE" in str(info.value)
    assert info.value.decision == "TAKE"
    assert snapshot(game) == before and game.history == [0]


def test_apply_after_the_end_raises():
    game = Nim(2, heap=1)
    game.apply(0)
    assert game.is_over() and game.current_player() == -1
    assert not game.legal_actions().any()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(0)


def test_integer_actions_of_every_kind():
    game = Nim(2, heap=9)
    game.apply(np.int64(2))
    game.apply(np.array(1, dtype=np.uint8))  # a 0-d integer array, as a policy's argmax may give
    game.apply(np.int8(0))
    assert game.history == [2, 1, 0] and all(type(a) is int for a in game.history)


@pytest.mark.parametrize(
    "action",
    [1.0, np.float32(1), np.array(1.0), True, np.bool_(True), "1", float("inf"), None, [1], np.array([1]), 1 + 0j],
)
def test_non_integer_actions_are_refused_by_type(action):
    game = Nim(2, heap=9)
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match=f"a {type(action).__name__} is not an action.*") as caught:
        game.apply(action)
    assert caught.value.decision == "TAKE" and "TAKE" in str(caught.value)
    assert game.to_dict() == before


# ----- returns ---------------------------------------------------------------------------------
def test_returns_two_players():
    game = Nim(2, heap=3)
    assert game.returns() == [0.0, 0.0]  # before the end
    game.apply(2)
    assert game.winners() == [0] and game.returns() == [1.0, -1.0]


def test_returns_three_players_share_the_loss():
    game = Nim(3, heap=4)
    game.apply(0)
    game.apply(2)
    assert game.winners() == [1]
    assert game.returns() == pytest.approx([-0.5, 1.0, -0.5])


class SharedNim(Nim):
    """Nim whose winners are forced, to test how `returns()` shares."""

    forced: list[int] = []

    def winners(self) -> list[int]:
        return self.forced


@pytest.mark.parametrize(
    ("n", "winners", "expected"),
    [
        (3, [0, 2], [0.5, -1.0, 0.5]),
        (3, [0, 1, 2], [0.0, 0.0, 0.0]),
        (2, [0, 1], [0.0, 0.0]),
        (2, [1], [-1.0, 1.0]),
    ],
)
def test_returns_shared_wins(n, winners, expected):
    game = SharedNim(n, heap=1)
    game.forced = winners
    game.apply(0)
    assert game.returns() == pytest.approx(expected)
    assert sum(game.returns()) == pytest.approx(0.0)


def test_returns_sum_to_zero_in_random_games():
    for seed in range(200):
        n = 2 + seed % 2
        game = random_play(Nim(n, seed=seed, gusts=True, max_turns=15), np.random.default_rng(seed))
        assert sum(game.returns()) == pytest.approx(0.0, abs=1e-12)
        assert len(game.returns()) == n


# ----- seeding, clone, serialization, replay ------------------------------------------------------
def test_same_seed_same_game_and_chance_matters():
    heaps = {Nim(2, seed=s).heap for s in range(30)}
    assert len(heaps) > 3
    a, b = Nim(2, seed=5, gusts=True), Nim(2, seed=5, gusts=True)
    random_play(a, np.random.default_rng(1))
    random_play(b, np.random.default_rng(1))
    assert snapshot(a) == snapshot(b)


def test_clone_is_independent_and_keeps_future_chance():
    game = Nim(3, seed=3, gusts=True, heap=30)
    random_play(game, np.random.default_rng(0), steps=4)
    before = snapshot(game)
    twin = game.clone()
    assert snapshot(twin) == before
    random_play(twin, np.random.default_rng(1))
    twin.taken.append(99)
    assert snapshot(game) == before
    # same actions from here: the clone's chance (gusts) is the original's
    twin = game.clone()
    actions = np.random.default_rng(2)
    while not game.is_over():
        action = int(actions.choice(np.flatnonzero(game.legal_actions())))
        game.apply(action)
        twin.apply(action)
    assert snapshot(twin) == snapshot(game)


def test_to_dict_round_trip_with_rng():
    game = Nim(2, seed=9, gusts=True, heap=25)
    random_play(game, np.random.default_rng(0), steps=3)
    data = json.loads(json.dumps(game.to_dict()))
    assert data["game"] == "nim" and data["history"] == game.history
    loaded = Nim.from_dict(data)
    assert snapshot(loaded) == snapshot(game)
    assert np.array_equal(loaded.legal_actions(), game.legal_actions())
    for rng_seed in range(3):  # continuing both with the same actions: the same game
        a, b = game.clone(), Nim.from_dict(json.loads(json.dumps(data)))
        actions = np.random.default_rng(rng_seed)
        while not a.is_over():
            action = int(actions.choice(np.flatnonzero(a.legal_actions())))
            a.apply(action)
            b.apply(action)
        assert snapshot(a) == snapshot(b)
    # a clone that never built its generator serializes too
    assert snapshot(Nim.from_dict(json.loads(snapshot(game.clone())))) == snapshot(game)


def test_from_dict_rejects_foreign_data():
    data = Nim(2, seed=0).to_dict()
    for key, value in (("game", "chess"), ("format", -1), ("state_version", 42)):
        with pytest.raises(ValueError):
            Nim.from_dict({**data, key: value})
    with pytest.raises(ValueError):
        Nim.from_dict({**data, "options": {**data["options"], "gusts": "maybe"}})


def test_replay():
    game = random_play(Nim(3, seed=4, gusts=True, repeat_on_one=True), np.random.default_rng(4))
    replayed = Nim.replay(3, 4, game.history, gusts=True, repeat_on_one=True)
    assert snapshot(replayed) == snapshot(game)


def test_truncation_flag():
    game = Nim(2, heap=15, max_turns=2)
    game.apply(0)
    game.apply(0)
    assert game.is_over() and game.is_truncated() and game.current_player() == -1
    assert game.winners() == [0, 1] and game.returns() == [0.0, 0.0]


def test_a_seat_state_is_refused_clearly_where_a_game_offers_none():
    with pytest.raises(NotImplementedError, match="nim does not offer a seat state"):
        InfoSet(Nim(2, seed=1), 0).seat_state()


def test_a_game_that_gives_no_texts_presents_itself_plainly():
    """The `Game` API's defaults for what a table page explains: the code name made readable, no
    texts, no legend or reasons, no resources, and the score parts (the toy counts no secret points)."""
    game = Nim(2, heap=5)
    assert game.decision_words() == "take"
    assert Nim.rules_summary() == "" and Nim.decision_texts() == {} and Nim.card_texts() == {}
    assert game.legend([0, 1]) == [] and game.missing_choices(game.current_player()) == []
    assert game.public_resources() == [[], []]
    assert game.public_score_parts() == game.score_parts()
