"""Speed measurements behind `city-envs bench`: random legal play from a fixed seed.

Every loop picks actions the same cheap way (`np.flatnonzero(mask)` then `rng.integers`), so
the comparison with PettingZoo's connect_four_v3 measures the environments, not the chooser.
"""

from __future__ import annotations

import time

import numpy as np

from city_envs.core.registry import game_class, make_env

_CLOCK = time.perf_counter


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def raw_game_speed(name: str, num_players: int, seconds: float, seed: int = 0, **options) -> dict:
    """Decisions/s and games/s through the Game API (legal_actions + apply)."""
    cls = game_class(name)
    rng = np.random.default_rng(seed)
    decisions = games = 0
    game = cls(num_players, seed=seed, **options)
    start = _CLOCK()
    while True:
        if game.is_over():
            games += 1
            if _CLOCK() - start >= seconds:
                break
            game = cls(num_players, seed=seed + games, **options)
        game.apply(_pick(game.legal_actions(), rng))
        decisions += 1
    elapsed = _CLOCK() - start
    return {
        "decisions_per_s": decisions / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_game": decisions / games,
    }


def aec_speed(env, seconds: float, seed: int = 0) -> float:
    """Agent-steps/s through the AEC loop with observations (`last()` + `step()`)."""
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = _CLOCK()
    while _CLOCK() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(_pick(observation["action_mask"], rng))
            steps += 1
    return steps / (_CLOCK() - start)


def sample_states(name: str, num_players: int, count: int, seed: int = 0, **options) -> list:
    """Positions from random games (never finished ones), for the per-call timings."""
    cls = game_class(name)
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        game = cls(num_players, seed=int(rng.integers(2**31)), **options)
        while not game.is_over():
            if rng.random() < 0.1:
                states.append(game.clone())
            game.apply(_pick(game.legal_actions(), rng))
    return states[:count]


def per_call_micros(states: list, repeats: int = 20) -> dict:
    """Microseconds per observation(), uncached legal_actions() and clone()."""

    def timed(call) -> float:
        start = _CLOCK()
        for _ in range(repeats):
            for game in states:
                call(game)
        return (_CLOCK() - start) / (repeats * len(states)) * 1e6

    return {
        "observation_us": timed(lambda g: g.observation(g.current_player())),
        "legal_actions_us": timed(lambda g: g._legal_actions()),  # the uncached computation
        "clone_us": timed(lambda g: g.clone()),
    }


def connect_four_speed(seconds: float, seed: int = 0) -> float | None:
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:  # pettingzoo[classic] not installed
        return None
    return aec_speed(connect_four_v3.env(), seconds, seed)


def run(name: str, num_players: int, seconds: float = 3.0, seed: int = 0, **options) -> dict:
    """All figures of `city-envs bench` for one game and player count."""
    result = {"game": name, "num_players": num_players, "seconds": seconds, "seed": seed, "options": options}
    result.update(raw_game_speed(name, num_players, seconds, seed, **options))
    result["aec_steps_per_s"] = aec_speed(make_env(name, num_players, **options), seconds, seed)
    result.update(per_call_micros(sample_states(name, num_players, 200, seed, **options)))
    reference = connect_four_speed(seconds, seed)
    result["connect_four_aec_steps_per_s"] = reference
    result["aec_ratio_vs_connect_four"] = result["aec_steps_per_s"] / reference if reference else None
    result["raw_ratio_vs_connect_four"] = result["decisions_per_s"] / reference if reference else None
    return result
