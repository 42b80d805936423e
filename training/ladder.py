"""Deprecated: the strength ladder moved to `city_envs.evaluation.ladder`
(`python -m city_envs.evaluation.ladder`). This module re-exports it for one release and warns."""

import warnings

from city_envs.evaluation.ladder import (
    DEFAULT_MATCHES,
    PLAYER_COUNTS,
    RUNGS,
    game_rungs,
    leaderboard_rows,
    main,
    matches_for,
    parse_matches,
    run,
    write_leaderboard,
)

warnings.warn(
    "city_envs.training.ladder is deprecated: use city_envs.evaluation.ladder instead", DeprecationWarning, stacklevel=2
)

__all__ = [
    "DEFAULT_MATCHES",
    "PLAYER_COUNTS",
    "RUNGS",
    "game_rungs",
    "leaderboard_rows",
    "main",
    "matches_for",
    "parse_matches",
    "run",
    "write_leaderboard",
]

if __name__ == "__main__":
    raise SystemExit(main())
