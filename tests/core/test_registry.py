"""The game registry: `GAMES`, `game_class`, `make_game`, `make_env`, PettingZoo's own registry."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import city_envs
from city_envs.core.aec import CityAECEnv
from city_envs.core.game import Game
from city_envs.core.registry import make_raw_env, register_with_pettingzoo

pytestmark = pytest.mark.filterwarnings(
    "ignore:Observation space for each agent:UserWarning", "ignore:Observation is not a NumPy array:UserWarning"
)

CITADELS_CONFIGS = [(n, False) for n in range(2, 8)] + [(n, True) for n in range(4, 8)]
UNKNOWN = ["chess", "Citadels", "citadels_v0", "", "catan "]


def test_games_listed():
    assert "citadels" in city_envs.GAMES
    for name in city_envs.GAMES:
        cls = city_envs.game_class(name)
        assert issubclass(cls, Game) and cls.name == name
        assert cls.min_players <= cls.max_players


def test_make_game():
    game = city_envs.make_game("citadels", num_players=3, seed=4, classic_variant=True)
    assert type(game).__name__ == "Citadels" and game.num_players == 3 and game.seed == 4
    assert game.options["classic_variant"] is True
    assert game.to_dict() == city_envs.make_game("citadels", 3, seed=4, classic_variant=True).to_dict()
    assert game.legal_actions().any() and game.current_player() >= 0


@pytest.mark.parametrize("name", UNKNOWN)
@pytest.mark.parametrize("maker", [city_envs.make_game, city_envs.make_env, make_raw_env, city_envs.game_class])
def test_unknown_game_lists_known_games(maker, name):
    with pytest.raises(ValueError) as info:
        maker(name) if maker is city_envs.game_class else maker(name, 3)
    message = str(info.value)
    assert repr(name) in message
    for known in city_envs.GAMES:
        assert known in message


def test_make_env_types():
    env = city_envs.make_env("citadels", num_players=5, render_mode="ansi", reward="score")
    assert isinstance(env, pettingzoo.AECEnv) and isinstance(env.unwrapped, CityAECEnv)
    assert env.unwrapped.num_players == 5 and env.unwrapped.render_mode == "ansi"
    assert env.unwrapped.reward_mode == "score"
    raw = make_raw_env("citadels", num_players=5)
    assert type(raw) is CityAECEnv


@pytest.mark.parametrize(("n", "classic"), CITADELS_CONFIGS)
def test_make_env_api_test(n, classic):
    api_test(city_envs.make_env("citadels", num_players=n, classic_variant=classic), num_cycles=1000)


@pytest.mark.parametrize(("n", "classic"), CITADELS_CONFIGS)
def test_make_env_seed_test(n, classic):
    seed_test(lambda: city_envs.make_env("citadels", num_players=n, classic_variant=classic), num_cycles=500)


def test_make_env_passes_options_to_the_game():
    env = city_envs.make_env("citadels", num_players=4, classic_variant=True, max_rounds=9)
    env.reset(seed=1)
    game = env.unwrapped.game
    assert game.options == {"classic_variant": True, "max_rounds": 9} and game.state.completion == 8


@pytest.mark.parametrize(
    "kwargs", [{"num_players": 8}, {"num_players": 4, "max_rounds": 0}, {"num_players": 4, "variant": "dark city"}]
)
def test_make_env_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        city_envs.make_env("citadels", **kwargs)


@pytest.mark.skipif(not hasattr(pettingzoo, "register"), reason="PettingZoo without its own registry")
def test_registered_with_pettingzoo():
    """`pettingzoo.make("aec", "city_envs/citadels_v0", ...)` (PettingZoo >= 1.27)."""
    env = pettingzoo.make("aec", "city_envs/citadels_v0", num_players=3)
    assert isinstance(env, pettingzoo.AECEnv)
    assert env.unwrapped.num_players == 3 and env.unwrapped.game_cls.name == "citadels"
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))


@pytest.mark.skipif(not hasattr(pettingzoo, "register"), reason="PettingZoo without its own registry")
def test_registering_twice_is_silent():
    """A second registration (e.g. a module reload) must neither warn nor break `make`."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_with_pettingzoo()
    assert pettingzoo.make("aec", "city_envs/citadels_v0", num_players=2).unwrapped.num_players == 2
