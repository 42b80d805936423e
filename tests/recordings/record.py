"""Fingerprints of recorded matches, so a speed-up can be shown to change nothing a seat sees or does.

`python -m tests.recordings.record` (from the repository root) rewrites `matches.json` from the code
checked out; it was first run on the code before the speed work of issue 30, and
tests/test_recorded_matches.py requires the same fingerprints from the code of today:

- random play through the wrapped AEC env: every agent's observation and action mask after every
  step, the rewards, terminations and the actions chosen (`observe` for every seat, so a cache that
  let one seat's observation depend on another's hidden items would show);
- a determinization for the acting seat every few steps (its full state as JSON);
- heuristic self-play through the Game API: every move of every seat.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from city_envs.agents.registry import make_agent
from city_envs.core.infoset import InfoSet
from city_envs.core.registry import GAMES, make_env, make_game

RECORDING = Path(__file__).with_name("matches.json")
PLAYER_COUNTS = (2, 4)
SEEDS = (0, 1, 2)
# options other than the defaults whose code paths differ (the expert cards of Metropolys' heuristic)
OPTION_CASES = (("metropolys", {"version": "expert"}),)
DETERMINIZE_EVERY = 17  # steps between determinizations in the random matches


def _digest() -> hashlib.blake2b:
    return hashlib.blake2b(digest_size=16)


def random_aec_match(game: str, players: int, seed: int, options: dict | None = None) -> dict:
    """Fingerprint of one match of random legal play through the AEC env."""
    env = make_env(game, players, **(options or {}))
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    observations, determinized = _digest(), _digest()
    steps = 0
    for agent in env.agent_iter():
        for other in env.possible_agents:
            seen = env.observe(other)
            for value in seen.values():
                observations.update(value.dtype.str.encode() + value.tobytes())
        _, reward, termination, truncation, _ = env.last()
        observations.update(repr((agent, reward, termination, truncation)).encode())
        if termination or truncation:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask)
        action = int(legal[rng.integers(len(legal))])
        observations.update(repr(action).encode())
        base = env.unwrapped.game
        if steps % DETERMINIZE_EVERY == 0:
            twin = base.determinize(base.current_player(), np.random.default_rng(steps))
            determinized.update(json.dumps(twin.to_dict(), sort_keys=True).encode())
        env.step(action)
        steps += 1
    return {"steps": steps, "observations": observations.hexdigest(), "determinized": determinized.hexdigest()}


def heuristic_match(game_name: str, players: int, seed: int, options: dict | None = None) -> dict:
    """Fingerprint of one match of heuristic self-play: the moves, and the final state."""
    game = make_game(game_name, players, seed=seed, **(options or {}))
    agents = [make_agent("heuristic", game_name, seed * 10 + seat) for seat in range(players)]
    handles = [InfoSet(game, seat) for seat in range(players)]
    while not game.is_over():
        seat = game.current_player()
        game.apply(agents[seat].act(handles[seat]))
    moves = hashlib.blake2b(np.array(game.history, dtype=np.int64).tobytes(), digest_size=16).hexdigest()
    return {"moves": len(game.history), "history": moves, "scores": [float(s) for s in game.scores()]}


def cases() -> list[tuple[str, str, int, int, dict]]:
    """(key, game, players, seed, options) of every recorded match."""
    plain = [(game, {}) for game in GAMES]
    return [
        (f"{game}{''.join(f'[{k}={v}]' for k, v in options.items())}/{players}/{seed}", game, players, seed, options)
        for game, options in (*plain, *OPTION_CASES)
        for players in PLAYER_COUNTS
        for seed in SEEDS
    ]


def record() -> dict:
    return {
        key: {
            "random_aec": random_aec_match(game, players, seed, options),
            "heuristic": heuristic_match(game, players, seed, options),
        }
        for key, game, players, seed, options in cases()
    }


if __name__ == "__main__":
    RECORDING.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
