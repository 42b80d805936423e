"""Long runs stay flat: no unbounded caches, and thousands of matches in one process hold memory steady."""

from __future__ import annotations

import functools
import importlib
import pkgutil

import numpy as np
import pytest

import city_envs
import city_envs.agents as agents
from city_envs import GAMES, make_game
from city_envs.blue_moon_city import view as blue_moon_city_view

KNOWN_OWNED_ELSEWHERE: set[str] = set()  # modules whose module-level state is bounded some other way


def package_modules() -> list[str]:
    names = []
    for package in (city_envs, agents):
        names += [info.name for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return names


def test_no_module_level_cache_is_unbounded():
    unbounded = []
    for name in package_modules():
        if name in KNOWN_OWNED_ELSEWHERE:
            continue
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.cache_parameters()["maxsize"] is None:
                unbounded.append(f"{name}.{attr}")
    assert not unbounded, f"unbounded caches: {unbounded}"


def test_blue_moon_city_layout_cache_stays_bounded():
    limit = blue_moon_city_view.static_city.cache_parameters()["maxsize"]
    assert limit is not None
    for seed in range(limit + 8):
        game = make_game("blue_moon_city", 2, seed=seed)
        game.observation(0)
    assert blue_moon_city_view.static_city.cache_info().currsize <= limit


def play_random(name: str, seed: int, rng: np.random.Generator) -> None:
    """One short two-player match of random legal play, observing every decision as an env would."""
    game = make_game(name, 2, seed=seed, **SHORT_MATCH.get(name, {}))
    while not game.is_over():
        seat = game.current_player()
        game.observation(seat)
        game.apply(int(rng.choice(np.flatnonzero(game.legal_actions()))))


# the long games are cut by their safety valves: every match still deals a new table
SHORT_MATCH = {"citadels": {"max_rounds": 3}, "blue_moon_city": {"max_rounds": 3}, "urban_sprawl": {"max_turns": 40}}
WARM_UP, MATCHES = 200, 2000
GROWTH_LIMIT = 8_000_000  # bytes of resident memory


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_thousands_of_matches_in_one_process_hold_memory_flat(name):
    """Resident memory after a warm-up (which fills the bounded caches) stays flat over the next
    1,800 matches. The old unbounded Blue Moon City layout cache grew it by ~38 MB here."""
    psutil = pytest.importorskip("psutil")
    process = psutil.Process()
    rng = np.random.default_rng(0)
    for seed in range(MATCHES):
        if seed == WARM_UP:
            after_warm_up = process.memory_info().rss
        play_random(name, seed, rng)
    growth = process.memory_info().rss - after_warm_up
    assert growth < GROWTH_LIMIT, f"{name}: resident memory grew {growth / 1e6:.1f} MB over {MATCHES - WARM_UP} matches"
