"""Impossible states are refused at `from_dict` with a `ValueError` naming the field (every game).

Each case takes a reachable mid-game state, breaks one thing (a negative amount, an id out of range,
a duplicated or lost card, a seat that does not exist, a seat count or history that disagrees, a
garbage generator state) and expects the refusal to name what was broken.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import city_envs
from city_envs.core.game import Game, IllegalActionError
from city_envs.core.registry import game_class, make_env, make_game, make_raw_env
from city_envs.core.validation import InvalidStateError

from ..game_helpers import random_action

Mutation = Callable[[dict], object]


def mid_game(name: str, n: int, steps: int = 40, seed: int = 5) -> Game:
    game = make_game(name, n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        game.apply(random_action(game, rng))
    assert not game.is_over(), "pick a mid-game position"
    return game


def set_at(*path) -> Mutation:
    """A mutation that sets data["state"][path[:-1]] to path[-1]."""
    *keys, value = path

    def mutate(data: dict) -> None:
        target = data["state"]
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return mutate


def duplicate(*keys) -> Mutation:
    """Append to the list at data["state"][keys] a copy of its first item (a card twice)."""

    def mutate(data: dict) -> None:
        target = data["state"]
        for key in keys:
            target = target[key]
        target.append(target[0])

    return mutate


def drop(*keys) -> Mutation:
    """Remove the last item of the list at data["state"][keys] (a card lost)."""

    def mutate(data: dict) -> None:
        target = data["state"]
        for key in keys:
            target = target[key]
        target.pop()

    return mutate


def envelope(key: str, value: object) -> Mutation:
    def mutate(data: dict) -> None:
        data[key] = value

    return mutate


def other_count(data: dict) -> None:
    cls = game_class(data["game"])
    data["num_players"] = next(n for n in cls.allowed_player_counts() if n != data["num_players"])


# (game, player count, steps played, description, mutation, field named)
CASES: list[tuple[str, int, int, str, Mutation, str]] = [
    # Citadels
    ("citadels", 4, 40, "gold -5", set_at("gold", 1, -5), "gold[1]"),
    ("citadels", 4, 40, "deck card id -3", set_at("deck", 0, -3), "deck[0]"),
    ("citadels", 4, 40, "deck card id 30", set_at("deck", 0, 30), "deck[0]"),
    ("citadels", 4, 40, "actor 9", set_at("actor", 9), "actor"),
    ("citadels", 4, 40, "a deck card twice", duplicate("deck"), "deck"),
    ("citadels", 4, 40, "a deck card lost", drop("deck"), "deck"),
    ("citadels", 4, 40, "negative hand count", set_at("hands", 0, 3, -1), "hands[0][3]"),
    ("citadels", 4, 40, "a district built twice", set_at("cities", 0, 0, 2), "cities[0][0]"),
    ("citadels", 4, 40, "crown on seat 7", set_at("crown", 7), "crown"),
    ("citadels", 4, 40, "city size disagrees", set_at("city_size", 2, 5), "city_size[2]"),
    ("citadels", 4, 40, "completion not the options'", set_at("completion", 8), "completion"),
    ("citadels", 4, 40, "max_rounds not the option's", set_at("max_rounds", 7), "max_rounds"),
    ("citadels", 4, 40, "rank held by a seat that did not pick it", set_at("holder", 1, 3), "holder"),
    ("citadels", 4, 40, "gold as text", set_at("gold", 0, "2"), "gold[0]"),
    ("citadels", 4, 40, "a fractional hand count", set_at("hands", 0, 0, 0.5), "hands[0][0]"),
    # Metropolys
    ("metropolys", 3, 30, "negative supply mask", set_at("supply", 0, -1), "supply[0]"),
    ("metropolys", 3, 30, "a building value twice", set_at("supply", 0, 8191), "supply[0]"),
    ("metropolys", 3, 30, "negative buildings built", set_at("built", 1, -1), "built[1]"),
    ("metropolys", 3, 30, "actor 9", set_at("actor", 9), "actor"),
    ("metropolys", 3, 30, "negative tokens taken", set_at("tokens", 0, 0, -2), "tokens[0][0]"),
    ("metropolys", 3, 30, "a token lost", set_at("tokens", 0, 0, 5), "tokens"),
    ("metropolys", 3, 30, "owner seat 7", set_at("owner", 20, 7), "owner[20]"),
    ("metropolys", 3, 30, "version not the option's", set_at("version", "expert"), "version"),
    ("metropolys", 3, 30, "calls disagree", set_at("calls", 99), "calls"),
    # Blue Moon City
    ("blue_moon_city", 3, 40, "crystals -5", set_at("crystals", 0, -5), "crystals[0]"),
    ("blue_moon_city", 3, 40, "negative hand count", set_at("hands", 1, 0, -1), "hands[1][0]"),
    ("blue_moon_city", 3, 40, "a deck card twice", duplicate("deck"), "deck"),
    ("blue_moon_city", 3, 40, "a deck card lost", drop("deck"), "deck"),
    ("blue_moon_city", 3, 40, "deck card id -3", set_at("deck", 0, -3), "deck[0]"),
    ("blue_moon_city", 3, 40, "negative markers", set_at("markers", 0, -1), "markers[0]"),
    ("blue_moon_city", 3, 40, "negative offerings", set_at("offerings", 2, -1), "offerings[2]"),
    ("blue_moon_city", 3, 40, "active 9", set_at("active", 9), "active"),
    ("blue_moon_city", 3, 40, "a tile twice", set_at("tile_at", 0, 1), "tile_at"),
    ("blue_moon_city", 3, 40, "scale supply -1", set_at("scale_supply", -1), "scale_supply"),
    ("blue_moon_city", 3, 40, "figure off the board", set_at("figures", 0, 30), "figures[0]"),
    # Big City
    ("big_city", 3, 20, "score -5", set_at("scores", 0, -5), "scores[0]"),
    ("big_city", 3, 20, "a hand card twice", duplicate("hands", 0), "hands"),
    ("big_city", 3, 20, "a hand card lost", drop("hands", 1), "hands"),
    ("big_city", 3, 20, "pile card id -3", set_at("piles", 7, 0, -3), "piles[7][0]"),
    ("big_city", 3, 20, "negative supply", set_at("supply", 0, -1), "supply[0]"),
    ("big_city", 3, 20, "active 9", set_at("active", 9), "active"),
    ("big_city", 3, 20, "a plot off the grid", set_at("px", 0, 99), "px[0]"),
    ("big_city", 3, 20, "a tram nowhere", set_at("trams", [0]), "trams[0]"),
    ("big_city", 3, 20, "hand limit not the count's", set_at("hand_limit", 9), "hand_limit"),
    # Urban Sprawl
    ("urban_sprawl", 3, 40, "wealth -5", set_at("wealth", 0, -5), "wealth[0]"),
    ("urban_sprawl", 3, 40, "negative prestige", set_at("prestige", 1, -1), "prestige[1]"),
    ("urban_sprawl", 3, 40, "a planning card twice", duplicate("planning_deck"), "planning_deck"),
    ("urban_sprawl", 3, 40, "planning card id -3", set_at("planning_deck", 0, -3), "planning_deck[0]"),
    ("urban_sprawl", 3, 40, "a contract lost", drop("decks", 2), "decks"),
    ("urban_sprawl", 3, 40, "decider 9", set_at("decider", 9), "decider"),
    ("urban_sprawl", 3, 40, "negative vocation supply", set_at("voc_supply", 0, -1), "voc_supply[0]"),
    ("urban_sprawl", 3, 40, "negative tile supply", set_at("tiles", 0, 0, -1), "tiles[0][0]"),
    ("urban_sprawl", 3, 40, "office held by seat 9", set_at("offices", 0, 9), "offices[0]"),
]

COMMON: list[tuple[str, Mutation, str]] = [
    ("num_players unlike the state's", other_count, "n"),
    ("garbage rng state", envelope("rng", {"bit_generator": "PCG64", "state": "garbage"}), "rng"),
    ("rng not a dict", envelope("rng", "seeded"), "rng"),
    ("rng naming a non-generator", envelope("rng", {"bit_generator": "SeedSequence", "state": {}}), "rng"),
    ("rng with a missing field", envelope("rng", {"bit_generator": "PCG64"}), "rng"),
    ("history id out of range", envelope("history", [-1]), "history[0]"),
    ("history of floats", envelope("history", [1.5]), "history[0]"),
    ("seed as text", envelope("seed", "seed"), "seed"),
]


def refusal(game: Game, mutate: Mutation, **kwargs) -> ValueError:
    data = game.to_dict()
    mutate(data)
    with pytest.raises(ValueError) as refused:
        type(game).from_dict(data, **kwargs)
    return refused.value


@pytest.mark.parametrize(
    ("name", "n", "steps", "what", "mutate", "field"), CASES, ids=[f"{case[0]}-{case[3]}" for case in CASES]
)
def test_impossible_value_refused_naming_the_field(name, n, steps, what, mutate, field):
    game = mid_game(name, n, steps)
    type(game).from_dict(game.to_dict())  # the untouched state loads
    error = refusal(game, mutate)
    assert isinstance(error, InvalidStateError), f"{what}: {error!r}"
    assert error.field.startswith(field), f"{what}: the error names {error.field!r}, not {field!r}"
    assert field in str(error)


@pytest.mark.parametrize("name", city_envs.GAMES)
@pytest.mark.parametrize(("what", "mutate", "field"), COMMON, ids=[case[0] for case in COMMON])
def test_impossible_envelope_refused_naming_the_field(name, what, mutate, field):
    game = mid_game(name, game_class(name).min_players + 1 if name != "urban_sprawl" else 3, 30)
    error = refusal(game, mutate)
    assert isinstance(error, InvalidStateError) and error.field.startswith(field), f"{what}: {error!r}"


def test_every_game_has_impossible_cases():
    assert {case[0] for case in CASES} == set(city_envs.GAMES)


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_history_is_verified_by_replay_when_asked(name):
    game = mid_game(name, game_class(name).min_players, 30)
    data = game.to_dict()
    assert type(game).from_dict(data, verify_history=True).to_dict() == data
    shorter = dict(data, history=data["history"][:-1])
    type(game).from_dict(shorter)  # loads: a history is only checked when asked
    with pytest.raises(InvalidStateError):
        type(game).from_dict(shorter, verify_history=True)
    other = mid_game(name, game_class(name).min_players, 30, seed=6)
    swapped = dict(data, history=other.history)
    with pytest.raises(InvalidStateError, match="history|differs"):
        type(game).from_dict(swapped, verify_history=True)
    determinized = game.determinize(0, np.random.default_rng(0)).to_dict()
    type(game).from_dict(determinized)
    with pytest.raises(InvalidStateError, match="seed"):
        type(game).from_dict(determinized, verify_history=True)


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_loaded_state_keeps_the_rng(name):
    """The generator is built (and checked) at load, and goes on drawing where the saved one stopped."""
    game = mid_game(name, game_class(name).min_players, 20)
    loaded = type(game).from_dict(game.to_dict())
    assert loaded.to_dict() == game.to_dict()
    rng = np.random.default_rng(1)
    for _ in range(30):
        if game.is_over():
            break
        action = random_action(game, rng)
        game.apply(action)
        loaded.apply(action)
    assert loaded.to_dict() == game.to_dict()


def test_envelope_refusals():
    game = make_game("citadels", 3, seed=0)
    data = game.to_dict()
    with pytest.raises(TypeError):
        type(game).from_dict([data])
    with pytest.raises(ValueError, match="lacks rng"):
        type(game).from_dict({k: v for k, v in data.items() if k != "rng"})
    with pytest.raises(ValueError, match="unknown key"):
        type(game).from_dict(dict(data, extra=1))
    with pytest.raises(ValueError, match="options"):
        type(game).from_dict(dict(data, options=[1]))


# ----- player counts and actions ---------------------------------------------------------------
@pytest.mark.parametrize("count", [2.0, np.float64(3), True, "2", None])
def test_non_integer_player_counts_refused_alike(count):
    with pytest.raises(ValueError, match="supports"):
        make_game("citadels", count)
    with pytest.raises(ValueError, match="supports"):
        make_env("citadels", count)


def test_numpy_integer_player_count_accepted():
    env = make_raw_env("citadels", np.int64(3))
    env.reset(seed=0)
    assert env.num_players == 3 and type(env.num_players) is int and len(env.agents) == 3


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_refused_step_changes_no_reward(name):
    """reward="score": a refused step keeps the actor's pending reward (it used to zero it)."""
    env = make_raw_env(name, game_class(name).min_players, reward="score")
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(10):
        env.step(random_action(env.game, rng))
    agent = env.agent_selection
    env.rewards[agent] = env._cumulative_rewards[agent] = 0.25  # a reward the agent has not collected yet
    before = (dict(env.rewards), dict(env._cumulative_rewards), env.agent_selection, env.game.to_dict())
    illegal = int(np.flatnonzero(~env.game.legal_actions())[0])
    for action in (illegal, env.num_actions, 1.0, float("inf"), "0", np.bool_(True)):
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert (dict(env.rewards), dict(env._cumulative_rewards), env.agent_selection, env.game.to_dict()) == before
    env.step(random_action(env.game, rng))
    assert env._cumulative_rewards[agent] != 0.25  # a legal step collects it


@pytest.mark.parametrize(
    "action", [float("inf"), float("nan"), 1.0, np.float32(0), np.array(0.0), np.bool_(True), "0", None]
)
def test_lose_mode_catches_every_refused_value(action):
    env = make_raw_env("citadels", 3, illegal_action="lose")
    env.reset(seed=0)
    agent = env.agent_selection
    env.step(action)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1.0
    assert env.infos[agent]["illegal_action"] is action
