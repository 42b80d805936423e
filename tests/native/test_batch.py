"""The native batch (native/core/batch.hpp through city_envs.core.vector.NativeBatch): its slots' matches
are dealt from the documented seeds, its observations and masks are those of its matches' positions on
both engines, and every door refuses bad input with one ValueError, playing nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from city_envs.core.native import _native
from city_envs.core.registry import GAMES, game_class, make_game
from city_envs.core.vector import NativeBatch, opponent_cdf

pytestmark = pytest.mark.skipif(_native is None, reason="the native engine is not built")
# one player count above 2 per game
LARGER = {"citadels": 5, "metropolys": 4, "blue_moon_city": 3, "big_city": 4, "urban_sprawl": 3}


def legal_choices(batch: NativeBatch, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in batch.masks])


def assert_views_are_the_matches(batch: NativeBatch) -> None:
    """Each slot's observation and mask are its match's own (native `Game`) for the learner's seat."""
    for i in range(batch.num_envs):
        game = batch.game(i)
        learner = batch.learner(i)
        assert not game.is_over() and game.current_player() == learner
        np.testing.assert_array_equal(batch.observations[i], game.observation(learner))
        np.testing.assert_array_equal(batch.masks[i], game.legal_actions())


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("larger", [False, True])
def test_observations_and_masks_are_the_slots_positions(game, larger):
    players = LARGER[game] if larger else 2
    batch = NativeBatch(game, players, 3, seed=11, opponents={"heuristic": 1.0, "random": 1.0})
    batch.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(60):
        assert_views_are_the_matches(batch)
        batch.step(legal_choices(batch, rng))
        finished += int((batch.terminated | batch.truncated).sum())
    assert_views_are_the_matches(batch)


@pytest.mark.parametrize("game", GAMES)
def test_a_slots_first_match_is_dealt_from_its_documented_seed(game):
    """Slot i's generator is default_rng([seed, first_index + i]) and its first match is dealt from
    default_rng(rng.integers(2**63)) with the learner at seat index % players: replayed on the Python
    engine from that seed, the slot's moves give the same observation and mask (a seed above 2**32 too)."""
    seed, first = 2**40 + 3, 5
    batch = NativeBatch(game, 2, 2, seed=seed, opponents={"random": 1.0}, first_index=first)
    batch.reset()
    for i in range(2):
        match_seed = int(np.random.default_rng([seed, first + i]).integers(2**63))
        replay = make_game(game, 2, seed=match_seed, engine="python")
        for action in batch.game(i).history:
            replay.apply(action)
        learner = (first + i) % 2
        assert batch.learner(i) == learner
        np.testing.assert_array_equal(batch.observations[i], replay.observation(learner))
        np.testing.assert_array_equal(batch.masks[i], replay.legal_actions())


def test_the_learner_rotates_and_finished_matches_restart():
    batch = NativeBatch("citadels", 2, 2, seed=3, opponents={"random": 1.0})
    batch.reset()
    rng = np.random.default_rng(1)
    seats = [[batch.learner(i)] for i in range(2)]
    while min(len(s) for s in seats) < 3:
        batch.step(legal_choices(batch, rng))
        for i in np.flatnonzero(batch.terminated | batch.truncated):
            assert batch.rewards[i] in (-1.0, 1.0, 0.0) and batch.wins[i] in (0.0, 0.5, 1.0)
            seats[i].append(batch.learner(i))
            assert batch._batch.slot_state(int(i))[2] == len(seats[i])  # matches started in the slot
    assert all(s[:3] in ([0, 1, 0], [1, 0, 1]) for s in seats)
    assert seats[0][0] != seats[1][0]


def test_opponent_weights_become_the_pools_cumulative_weights():
    assert opponent_cdf({"heuristic": 0.6, "random": 0.2}) == (["heuristic", "random"], [0.75, 1.0])
    assert opponent_cdf({"heuristic": 0.0}) == (["random"], [1.0])  # no weight: random play, as the pool
    assert opponent_cdf({"self": 1.0, "random": 1.0}) == (["random"], [1.0])  # `self` once there is a snapshot
    assert opponent_cdf({"self": 1.0, "random": 1.0}, snapshots=2) == (["self", "random"], [0.5, 1.0])
    with pytest.raises(ValueError, match="unknown opponent kinds"):
        opponent_cdf({"clone": 1.0})
    with pytest.raises(ValueError, match="finite and >= 0"):
        opponent_cdf({"random": -1.0})


# ----- doors ------------------------------------------------------------------------------------


@pytest.fixture
def batch() -> NativeBatch:
    made = NativeBatch("metropolys", 3, 3, seed=5, opponents={"heuristic": 1.0})
    made.reset()
    return made


def test_an_illegal_action_names_its_slot_and_plays_nothing(batch):
    before = (batch.slot_states(), batch.observations.copy())
    actions = legal_choices(batch, np.random.default_rng(0))
    actions[1] = int(np.flatnonzero(~batch.masks[1])[0])
    with pytest.raises(ValueError, match=r"^slot 1: action \d+ is not legal for its learner \(nothing was played\)$"):
        batch.step(actions)
    assert batch.slot_states() == before[0]
    np.testing.assert_array_equal(batch.observations, before[1])
    batch.step(legal_choices(batch, np.random.default_rng(0)))  # the batch still plays


@pytest.mark.parametrize(
    "actions, message",
    [
        ([0, 0], r"shape \(3,\)"),
        ([[0, 0, 0]], r"shape \(3,\)"),
        ([0.5, 0, 0], "one integer action per slot"),
        (["a", "b", "c"], "one integer action per slot"),
        ([-1, 0, 0], "actions must be in 0..68"),
        ([69, 0, 0], "actions must be in 0..68"),
    ],
)
def test_malformed_actions_are_refused(batch, actions, message):
    with pytest.raises(ValueError, match=message):
        batch.step(actions)


def test_a_batch_is_reset_before_it_steps():
    fresh = NativeBatch("citadels", 2, 2, seed=0)
    with pytest.raises(ValueError, match="reset the batch before stepping it"):
        fresh.step([0, 0])


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"players": 9}, "players"),
        ({"num_envs": 0}, "num_envs must be an integer in 1.."),
        ({"num_envs": True}, "num_envs must be an integer"),
        ({"seed": -1}, "seed must be an integer in 0..18446744073709551615"),
        ({"seed": 2**64}, "seed must be an integer"),
        ({"seed": "1"}, "seed must be an integer"),
        ({"first_index": 2**32}, "first_index must be an integer in 0..4294967295"),
        ({"reward": "money"}, "invalid reward 'money'"),
        ({"score_scale": float("nan")}, "score_scale must be finite"),
        ({"opponents": {"clone": 1.0}}, "unknown opponent kinds"),
        ({"options": {"no_such_option": 1}}, "no_such_option"),
    ],
)
def test_bad_arguments_are_one_value_error(arguments, message):
    settings = {"game": "citadels", "players": 2, "num_envs": 2, "seed": 0, **arguments}
    with pytest.raises(ValueError, match=message):
        NativeBatch(**settings)


def test_the_native_door_checks_its_arrays_and_arguments(batch):
    """The C++ class itself: rows that are not num_envs are a ValueError, arrays of the wrong dtype or
    width a TypeError (nanobind's), constructor arguments and restored slots are checked."""
    raw = batch._batch
    n, size, actions = 3, batch.observation_size, batch.num_actions
    outputs = [np.zeros_like(array) for array in batch._arrays]
    rest = outputs[2:]
    with pytest.raises(ValueError, match=r"observations has 2 rows, not num_envs \(3\)"):
        raw.reset(np.zeros((2, size), np.float32), np.zeros((n, actions), bool), *rest)
    with pytest.raises(TypeError):
        raw.reset(np.zeros((n, size), np.float64), np.zeros((n, actions), bool), *rest)
    with pytest.raises(TypeError):
        raw.reset(np.zeros((n, size + 1), np.float32), np.zeros((n, actions), bool), *rest)
    with pytest.raises(TypeError):
        raw.reset(np.zeros((n, 2 * size), np.float32)[:, ::2], np.zeros((n, actions), bool), *rest)  # not contiguous
    frozen = np.zeros((n, size), np.float32)
    frozen.setflags(write=False)
    with pytest.raises(TypeError):
        raw.reset(frozen, np.zeros((n, actions), bool), *rest)
    with pytest.raises(ValueError, match=r"actions has 2 rows"):
        raw.step(np.zeros(2, np.int64), *outputs)
    with pytest.raises(ValueError, match=r"wins has 4 rows"):
        raw.step(np.zeros(n, np.int64), *outputs[:6], np.zeros(4, np.float64), *outputs[7:])
    with pytest.raises(ValueError, match=r"request_masks has 2 rows"):
        raw.step(np.zeros(n, np.int64), *outputs[:-1], np.zeros((2, actions), bool))
    with pytest.raises(TypeError):
        raw.step(np.zeros(n, np.int32), *outputs)
    with pytest.raises(ValueError, match="the batch asks for no snapshot moves"):
        raw.answer(np.zeros((n, actions), np.float32), *outputs)
    kind = type(raw)
    good = (3, "{}", 0, 0, 2, ["random"], [1.0], "win", 0.0)
    for index, value, message in [
        (4, 0, "num_envs must be in 1.."),
        (3, 2**32, "first_index must be below 2\\*\\*32"),
        (5, ["clone"], "unknown seat kind 'clone'"),
        (5, ["self"], "'self' has a weight but there is no snapshot to draw"),
        (5, ["learner"], "'learner' is not an opponent kind"),
        (6, [0.5], "the last cumulative weight is 1"),
        (6, [1.5], "cumulative weights rise from 0 to 1"),
        (6, [], "one cumulative weight per opponent kind"),
        (7, "money", "invalid reward 'money'"),
        (8, float("inf"), "score_scale must be finite"),
        (1, "{", "JSON"),
        (0, 9, "supports 2-4 players"),
    ]:
        arguments = list(good)
        arguments[index] = value
        with pytest.raises(ValueError, match=message):
            kind(*arguments)
    state = raw.slot_state(0)
    match = raw.match(0)
    with pytest.raises(ValueError, match="slot 3 is not in 0..2"):
        raw.match(3)
    with pytest.raises(ValueError, match="the match must wait on its learner's decision"):
        raw.set_slot(0, match, state[0], (state[1] + 1) % 3, *state[2:])
    with pytest.raises(ValueError, match="the learner's seat and only it is 'learner'"):
        raw.set_slot(0, match, state[0], state[1], state[2], state[3], ["random"] * 3, state[5], state[6])
    with pytest.raises(ValueError, match="kinds, rngs and snapshots: one per seat"):
        raw.set_slot(0, match, state[0], state[1], state[2], state[3], state[4][:2], state[5], state[6])
    with pytest.raises(ValueError, match="an id >= 0 for each 'self' seat and -1 for the others"):
        raw.set_slot(0, match, *state[:6], [0] * 3)
    with pytest.raises(ValueError, match="'self' has a weight but there is no snapshot to draw"):
        raw.set_pool(["self"], [1.0], [])
    with pytest.raises(ValueError, match="snapshots: ids are >= 0"):
        raw.set_pool(["self"], [1.0], [-2])
    with pytest.raises(ValueError, match="increment is odd"):
        raw.set_slot(0, match, (0, 0, 0, 2, False, 0), *state[1:])
    with pytest.raises(ValueError, match="episodes must be at least 1"):
        raw.set_slot(0, match, state[0], state[1], 0, *state[3:])


def test_slot_states_restore_the_batchs_future(batch):
    """`slot_states` into another batch of the same arguments: both play on identically."""
    rng = np.random.default_rng(2)
    for _ in range(5):
        batch.step(legal_choices(batch, rng))
    twin = NativeBatch("metropolys", 3, 3, seed=99, opponents={"heuristic": 1.0})
    twin.set_slot_states(json.loads(json.dumps(batch.slot_states())))
    np.testing.assert_array_equal(twin.observations, batch.observations)
    np.testing.assert_array_equal(twin.masks, batch.masks)
    for _ in range(40):
        actions = legal_choices(batch, rng)
        batch.step(actions)
        twin.step(actions)
        for name in ("observations", "masks", "rewards", "terminated", "wins"):
            np.testing.assert_array_equal(getattr(twin, name), getattr(batch, name))
    assert twin.slot_states() == batch.slot_states()


def test_bad_slot_states_are_refused_whole(batch):
    states = batch.slot_states()
    before = batch.slot_states()
    snapshot = json.loads(json.dumps(states))
    seat = next(s for s, o in enumerate(snapshot[2]["opponents"]) if o is not None)
    snapshot[2]["opponents"][seat] = {"kind": "self", "snapshot": None, "rng": states[0]["rng"]}
    with pytest.raises(ValueError, match=f"env state slot 2: seat {seat} is played by 'self' \\(snapshot None\\)"):
        batch.set_slot_states(snapshot)
    snapshot[2]["opponents"][seat] = {"kind": "clone", "snapshot": None, "rng": states[0]["rng"]}
    with pytest.raises(ValueError, match=f"env state slot 2: seat {seat} is played by 'clone'"):
        batch.set_slot_states(snapshot)
    with pytest.raises(ValueError, match="env state slot 1: malformed"):
        batch.set_slot_states([states[0], {"match": states[1]["match"]}, states[2]])
    other = NativeBatch("metropolys", 2, 3, seed=5)
    other.reset()
    with pytest.raises(ValueError, match="env state slot 0: the match is not of 3 players"):
        batch.set_slot_states(other.slot_states())
    with pytest.raises(ValueError, match="one slot per env"):
        batch.set_slot_states(states[:2])
    assert batch.slot_states() == before  # nothing restored from a refused state


def test_every_game_has_a_batch_class():
    for game in GAMES:
        reference = game_class(game, "python")
        kind = getattr(_native, f"{reference.__name__}Batch")
        made = kind(2, "{}", 0, 0, 1, ["random"], [1.0], "win", 0.0)
        assert made.num_envs == 1 and made.num_players == 2


# ----- snapshot requests ---------------------------------------------------------------------------


@pytest.fixture
def asking() -> tuple[NativeBatch, int]:
    """A batch whose every opponent is one of two snapshots, reset: (the batch, its pending requests)."""
    made = NativeBatch("metropolys", 2, 4, seed=3, opponents={"self": 1.0})
    made.set_snapshots(["first", "second"])
    count = made.reset()
    assert count > 0
    return made, count


def uniform(batch: NativeBatch, count: int) -> np.ndarray:
    masks = batch.request_masks[:count].astype(np.float32)
    return masks / masks.sum(axis=1, keepdims=True)


def test_requests_are_the_seats_waiting_on_a_snapshot(asking):
    batch, count = asking
    for r in range(count):
        slot, seat = int(batch.request_slots[r]), int(batch.request_seats[r])
        game = batch.game(slot)
        assert game.current_player() == seat != batch.learner(slot)
        np.testing.assert_array_equal(batch.request_observations[r], game.observation(seat))
        np.testing.assert_array_equal(batch.request_masks[r], game.legal_actions())
        assert batch.seat_kinds(slot)[seat] == "self"
    assert set(batch.request_snapshots(count)) <= {"first", "second"}
    while count:
        count = batch.answer(uniform(batch, count))
    assert_views_are_the_matches(batch)


def test_a_snapshot_move_is_rng_choice_of_its_probabilities(asking):
    """The seat's generator samples as `rng.choice(len(p), p=p)` with the seat's numpy generator."""
    from city_envs.core.native import rng_state

    batch, count = asking
    rows = np.random.default_rng(0).random((count, batch.num_actions)).astype(np.float32) * batch.request_masks[:count]
    rows /= rows.sum(axis=1, keepdims=True)
    expected = []
    for r in range(count):
        slot, seat = int(batch.request_slots[r]), int(batch.request_seats[r])
        generator = np.random.default_rng()
        generator.bit_generator.state = rng_state(batch._batch.slot_state(slot)[5][seat])
        expected.append((slot, int(generator.choice(batch.num_actions, p=rows[r]))))
    histories = {slot: batch.game(slot).history for slot, _ in expected}
    batch.answer(rows)
    for slot, action in expected:
        assert batch.game(slot).history[: len(histories[slot]) + 1] == [*histories[slot], action]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda p, masks: np.where(masks, np.nan, p), "request 0: the probabilities are not a distribution"),
        (lambda p, masks: p * 2, "request 0: the probabilities are not a distribution"),
        (lambda p, masks: np.where(masks, p, 0.0) - np.where(masks, 0.0, 0.1), "not a distribution"),  # < 0
        (lambda p, masks: np.where(masks, 0.0, 1.0 / (~masks).sum(axis=1, keepdims=True)), "not a distribution"),
    ],
)
def test_bad_probabilities_name_their_request_and_play_nothing(asking, change, message):
    batch, count = asking
    before = batch.slot_states()
    probabilities = uniform(batch, count)
    with pytest.raises(ValueError, match=message):
        batch.answer(change(probabilities, batch.request_masks[:count]).astype(np.float32))
    assert batch.slot_states() == before
    with pytest.raises(ValueError, match="one row of 69 per request"):
        batch.answer(probabilities[:, :5])
    with pytest.raises(ValueError, match="fewer than the"):
        batch.answer(probabilities[: count - 1])
    batch.answer(probabilities)  # still answerable


def test_a_step_waits_for_the_answers(asking):
    batch, count = asking
    with pytest.raises(ValueError, match="answer the snapshot requests before the next step"):
        batch.step(np.zeros(batch.num_envs, np.int64))
    with pytest.raises(ValueError, match="answer the snapshot requests before restoring a slot"):
        batch.set_slot_states(batch.slot_states())
    assert batch.reset() > 0  # a reset drops the unanswered step and starts over
