"""Seat-rotated matches between agents, with win rates and confidence intervals.

Generic over every game (`city_envs.make_game`) and every agent kind (`agents.registry.make_agent`).
Match i is seeded from (seed, i) alone, so any match can be replayed on its own and a whole run is
reproducible. Seats rotate so that each entry of the line-up sits in every seat equally often
(exactly so when the number of games is a multiple of the number of seats).

    >>> from training.arena import evaluate
    >>> evaluate("citadels", 4, ["heuristic", "random", "random", "random"], games=8, seed=0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.registry import make_agent
from city_envs import make_game
from city_envs.core.infoset import InfoSet

Z_95 = 1.959963984540054


def wilson_interval(wins: float, n: float, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a success rate (95% by default); (0, 1) when n is 0.

    `wins` may be fractional (shared wins of tied matches).
    """
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


def seat_lineup(agent_kinds: Sequence[str], match: int) -> list[str]:
    """Agent kind per seat in match `match`: the line-up rotated one seat further each match."""
    n = len(agent_kinds)
    shift = match % n
    return [agent_kinds[(seat - shift) % n] for seat in range(n)]


def match_seeds(seed: int, match: int, num_players: int) -> tuple[int, list[int]]:
    """(game seed, one seed per seat) derived from (seed, match index) only."""
    ss = np.random.SeedSequence([seed, match])
    game_ss, *seat_ss = ss.spawn(num_players + 1)
    as_int = lambda s: int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))  # noqa: E731
    return as_int(game_ss), [as_int(s) for s in seat_ss]


def play_match(
    game_name: str, num_players: int, kinds: Sequence[str], seed: int, match: int, **options: Any
) -> dict:
    """One match; returns per-seat kinds, scores, win shares, decisions and the truncation flag."""
    game_seed, agent_seeds = match_seeds(seed, match, num_players)
    game = make_game(game_name, num_players, seed=game_seed, **options)
    agents = [make_agent(kind, game_name, s) for kind, s in zip(kinds, agent_seeds, strict=True)]
    handles = [InfoSet(game, seat) for seat in range(num_players)]
    decisions = [0] * num_players
    while not game.is_over():
        seat = game.current_player()
        game.apply(agents[seat].act(handles[seat]))
        decisions[seat] += 1
    won = game.winners()
    share = [1.0 / len(won) if seat in won else 0.0 for seat in range(num_players)]
    return {
        "kinds": list(kinds),
        "scores": [float(x) for x in game.scores()],
        "win_share": share,
        "decisions": decisions,
        "truncated": bool(game.is_truncated()),
    }


def evaluate(
    game_name: str, num_players: int, agent_kinds: list[str], games: int, seed: int, **options: Any
) -> dict:
    """Play `games` seat-rotated matches of the line-up `agent_kinds` (one kind per seat).

    Results are aggregated by agent kind; with k seats of one kind, each match counts k
    appearances of it, so its `win_rate` is per seat and comparable with 1/num_players.
    A match won jointly by several seats gives each of them 1/k of a win.
    """
    if len(agent_kinds) != num_players:
        raise ValueError(f"{len(agent_kinds)} agent kinds for a {num_players}-player game")
    if games < 1:
        raise ValueError("games must be >= 1")
    kinds = list(dict.fromkeys(agent_kinds))
    acc = {k: {"appearances": 0, "wins": 0.0, "score": 0.0, "decisions": 0, "truncations": 0} for k in kinds}
    seat_counts = {k: [0] * num_players for k in kinds}
    truncations = 0
    for match in range(games):
        lineup = seat_lineup(agent_kinds, match)
        result = play_match(game_name, num_players, lineup, seed, match, **options)
        truncations += result["truncated"]
        for seat, kind in enumerate(lineup):
            a = acc[kind]
            a["appearances"] += 1
            a["wins"] += result["win_share"][seat]
            a["score"] += result["scores"][seat]
            a["decisions"] += result["decisions"][seat]
            a["truncations"] += result["truncated"]
            seat_counts[kind][seat] += 1
    per_kind = {}
    for kind, a in acc.items():
        n = a["appearances"]
        low, high = wilson_interval(a["wins"], n)
        per_kind[kind] = {
            "appearances": n,
            "wins": a["wins"],
            "win_rate": a["wins"] / n,
            "ci_low": low,
            "ci_high": high,
            "mean_score": a["score"] / n,
            "mean_decisions": a["decisions"] / n,
            "truncations": a["truncations"],
        }
    return {
        "game": game_name,
        "num_players": num_players,
        "lineup": list(agent_kinds),
        "games": games,
        "seed": seed,
        "options": dict(options),
        "agents": per_kind,
        "seat_counts": seat_counts,
        "truncations": truncations,
    }


def format_results(results: dict) -> str:
    """A small Markdown table of `evaluate`'s results."""
    lines = [
        f"{results['game']} {results['num_players']}p, {results['games']} games, seed {results['seed']}",
        "",
        "| agent | win rate | 95% CI | mean score | mean decisions |",
        "|---|---|---|---|---|",
    ]
    for kind, a in results["agents"].items():
        lines.append(
            f"| {kind} | {a['win_rate']:.3f} | {a['ci_low']:.3f}-{a['ci_high']:.3f} "
            f"| {a['mean_score']:.1f} | {a['mean_decisions']:.1f} |"
        )
    lines.append(f"\ntruncated matches: {results['truncations']}")
    return "\n".join(lines)
