"""Who sits where in each match, and the seeds of each match: a function of (seed, match index) alone,
so any match can be replayed on its own and a run's results do not depend on how it was scheduled.

With one agent per seat, the line-up rotates one seat per match, so each entry sits in every seat
equally often (exactly when the number of games is a multiple of the number of seats). With more
agents than seats, every combination of seats' worth of agents is played in turn, each rotated
through the seats the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np


def seat_lineup(agent_kinds: Sequence[str], match: int) -> list[str]:
    """Agent kind per seat in match `match`: the line-up rotated one seat further each match."""
    n = len(agent_kinds)
    shift = match % n
    return [agent_kinds[(seat - shift) % n] for seat in range(n)]


def schedule(agents: Sequence[str], num_players: int, match: int) -> list[str]:
    """The line-up of match `match`: rotations of each combination of `num_players` agents in turn."""
    if len(agents) < num_players:
        raise ValueError(f"{len(agents)} agents for a {num_players}-player game: list one per seat, or more")
    groups = list(combinations(agents, num_players))
    group = groups[(match // num_players) % len(groups)]
    return seat_lineup(group, match)


def match_seeds(seed: int, match: int, num_players: int) -> tuple[int, list[int]]:
    """(game seed, one seed per seat) derived from (seed, match index) only."""
    ss = np.random.SeedSequence([seed, match])
    game_ss, *seat_ss = ss.spawn(num_players + 1)
    as_int = lambda s: int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))  # noqa: E731
    return as_int(game_ss), [as_int(s) for s in seat_ss]
