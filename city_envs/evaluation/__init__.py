"""Evaluation: the arena (seat-rotated, seeded, resumable matches between any agents) and the
benchmark (a frozen suite of tasks, aggregate scores with bootstrap intervals).

Layers: it imports the games and the agents, and the trainer, the command line and the web app import
it; it never imports the trainer.
"""

from city_envs.evaluation.arena import MatchLog, evaluate
from city_envs.evaluation.ratings import pairwise, rate, summarize, wilson_interval
from city_envs.evaluation.reports import format_results, write_reports
from city_envs.evaluation.scheduling import match_seeds, schedule, seat_lineup
from city_envs.evaluation.workers import DEFAULT_MATCH_TIMEOUT, check_lineup, play_match, run_matches

__all__ = [
    "DEFAULT_MATCH_TIMEOUT",
    "MatchLog",
    "check_lineup",
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
    "write_reports",
]
