"""Deprecated: the arena moved to `city_envs.evaluation` (arena, scheduling, workers, ratings, reports).

This module re-exports its former names for one release and warns on import.
"""

import warnings

from city_envs.evaluation.arena import MatchLog, evaluate
from city_envs.evaluation.ratings import Z_95, counts, pairwise, rate, summarize, wilson_interval
from city_envs.evaluation.reports import VIEWER, format_results, write_reports
from city_envs.evaluation.scheduling import match_seeds, schedule, seat_lineup
from city_envs.evaluation.workers import (
    BACKENDS,
    DEFAULT_MATCH_TIMEOUT,
    check_lineup,
    play_match,
    run_matches,
    worker_start_method,
)

warnings.warn(
    "city_envs.training.arena is deprecated: import from city_envs.evaluation instead", DeprecationWarning, stacklevel=2
)

__all__ = [
    "BACKENDS",
    "DEFAULT_MATCH_TIMEOUT",
    "VIEWER",
    "Z_95",
    "MatchLog",
    "check_lineup",
    "counts",
    "evaluate",
    "format_results",
    "match_seeds",
    "pairwise",
    "play_match",
    "rate",
    "run_matches",
    "schedule",
    "seat_lineup",
    "summarize",
    "wilson_interval",
    "worker_start_method",
    "write_reports",
]
