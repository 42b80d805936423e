"""Statistics of match records: win rates with Wilson intervals, OpenSkill ratings, pairwise results,
and the per-agent summary of a run."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

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


def counts(record: dict) -> bool:
    """Whether a match counts in win rates, ratings and pairwise results: played to the end, or
    failed by a culprit (a loss for it)."""
    return not record["failed"] or record.get("culprit") is not None


def rate(records: list[dict], agents: Sequence[str]) -> dict[str, dict]:
    """OpenSkill Plackett-Luce ratings from the matches in order (a failed match ranks its culprit last
    and the other seats tied first; one without a culprit is skipped).

    Each seat is a one-player team ranked by win share then score. An agent holding several seats
    of one match is rated in each and takes the mean of the posteriors.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in dict.fromkeys(agents)}
    for record in records:
        if not counts(record):
            continue
        kinds = record["kinds"]
        keys = [(-share, -score) for share, score in zip(record["win_share"], record["scores"], strict=True)]
        order = sorted(set(keys))
        ranks: list[float] = [order.index(key) for key in keys]  # openskill types ranks as floats
        teams = [[model.rating(mu=ratings[k].mu, sigma=ratings[k].sigma, name=k)] for k in kinds]
        updated = model.rate(teams, ranks=ranks)
        for name in set(kinds):
            seats = [team[0] for team, k in zip(updated, kinds, strict=True) if k == name]
            ratings[name] = model.rating(
                mu=sum(r.mu for r in seats) / len(seats), sigma=sum(r.sigma for r in seats) / len(seats), name=name
            )
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()}


def pairwise(records: list[dict], agents: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Share of the shared matches in which the row agent finished ahead of the column agent."""
    names = list(dict.fromkeys(agents))
    ahead = {a: dict.fromkeys(names, 0.0) for a in names}
    met = {a: dict.fromkeys(names, 0) for a in names}
    for record in records:
        if not counts(record):
            continue
        keys = list(zip(record["win_share"], record["scores"], strict=True))
        for i, a in enumerate(record["kinds"]):
            for j, b in enumerate(record["kinds"]):
                if i != j and a != b:
                    met[a][b] += 1
                    ahead[a][b] += 1.0 if keys[i] > keys[j] else 0.5 if keys[i] == keys[j] else 0.0
    return {a: {b: (ahead[a][b] / met[a][b] if met[a][b] else None) for b in names} for a in names}


def summarize(
    records: list[dict],
    game_name: str,
    num_players: int,
    agent_kinds: Sequence[str],
    games: int,
    seed: int,
    options: dict,
) -> dict:
    """The results of a run from its match records (see `evaluate`)."""
    names = list(dict.fromkeys(agent_kinds))
    acc = {
        k: {"appearances": 0, "played": 0, "wins": 0.0, "score": 0.0, "decisions": 0, "truncations": 0, "failures": 0}
        for k in names
    }
    seat_counts = {k: [0] * num_players for k in names}
    played = [r for r in records if not r["failed"]]
    for record in filter(counts, records):
        if record["failed"]:
            acc[record["kinds"][record["culprit"]]]["failures"] += 1
        for seat, kind in enumerate(record["kinds"]):
            a = acc[kind]
            a["appearances"] += 1
            a["wins"] += record["win_share"][seat]
            seat_counts[kind][seat] += 1
            if not record["failed"]:
                a["played"] += 1
                a["score"] += record["scores"][seat]
                a["decisions"] += record["decisions"][seat]
                a["truncations"] += record["truncated"]
    per_kind = {}
    for kind, a in acc.items():
        n, m = a["appearances"], a["played"]
        low, high = wilson_interval(a["wins"], n)
        per_kind[kind] = {
            "appearances": n,
            "wins": a["wins"],
            "win_rate": a["wins"] / n if n else 0.0,
            "ci_low": low,
            "ci_high": high,
            "failures": a["failures"],
            "mean_score": a["score"] / m if m else 0.0,
            "mean_decisions": a["decisions"] / m if m else 0.0,
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
        "ratings": rate(records, agent_kinds),
        "win_rate": {k: v["win_rate"] for k, v in per_kind.items()},
        "win_rate_ci95": {k: [v["ci_low"], v["ci_high"]] for k, v in per_kind.items()},
        "mean_score": {k: v["mean_score"] for k, v in per_kind.items()},
        "mean_length": float(np.mean([sum(r["decisions"]) for r in played])) if played else 0.0,
        "truncated": sum(r["truncated"] for r in played),
        "failures": [
            {
                "match": r["match"],
                "seed": r["seed"],
                "kinds": r["kinds"],
                "culprit": r["culprit"],
                "reason": r["reason"],
            }
            for r in records
            if r["failed"]
        ],
        "pairwise": pairwise(records, agent_kinds),
        "seat_counts": seat_counts,
        "matches": records,
    }
