"""Seat-rotated matches between agents: win rates with confidence intervals, OpenSkill ratings, reports.

Generic over every game (`city_envs.make_game`) and every agent kind (`agents.registry.make_agent`).
Match i is seeded from (seed, i) alone and its line-up is fixed by i, so any match can be replayed
on its own and a run's results do not depend on how many worker processes played it.

Scheduling: with one agent per seat, the line-up rotates one seat per match, so each entry sits in
every seat equally often (exactly when the number of games is a multiple of the number of seats).
With more agents than seats, every combination of seats' worth of agents is played in turn, each
rotated through the seats the same way.

    >>> from training.arena import evaluate
    >>> evaluate("citadels", 4, ["heuristic", "random", "random", "random"], games=8, seed=0)
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path
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


def play_match(
    game_name: str, num_players: int, kinds: Sequence[str], seed: int, match: int, **options: Any
) -> dict:
    """One match; a failure (an agent raising, an illegal action) is recorded, not raised."""
    game_seed, agent_seeds = match_seeds(seed, match, num_players)
    record = {"match": match, "seed": game_seed, "kinds": list(kinds), "failed": False, "reason": ""}
    decisions = [0] * num_players
    history: list[int] = []  # the match's actions, so that a viewer can replay it
    try:
        game = make_game(game_name, num_players, seed=game_seed, **options)
        agents = [make_agent(kind, game_name, s) for kind, s in zip(kinds, agent_seeds, strict=True)]
        handles = [InfoSet(game, seat) for seat in range(num_players)]
        while not game.is_over():
            seat = game.current_player()
            action = agents[seat].act(handles[seat])
            game.apply(action)
            history.append(int(action))
            decisions[seat] += 1
    except Exception as error:  # noqa: BLE001 - the run goes on and the report counts it
        record.update(failed=True, reason=f"{type(error).__name__}: {error}", decisions=decisions,
                      scores=[0.0] * num_players, win_share=[0.0] * num_players, winners=[], truncated=False,
                      history=list(history))
        return record
    won = game.winners()
    record.update(
        scores=[float(x) for x in game.scores()],
        win_share=[1.0 / len(won) if seat in won else 0.0 for seat in range(num_players)],
        winners=list(won),
        decisions=decisions,
        truncated=bool(game.is_truncated()),
        history=list(history),
    )
    return record


def _play_indexed(job: tuple) -> dict:
    game_name, num_players, agents, seed, match, options = job
    return play_match(game_name, num_players, schedule(agents, num_players, match), seed, match, **options)


BACKENDS = ("process", "ray")


def run_matches(
    game_name: str, num_players: int, agents: Sequence[str], games: int, seed: int, jobs: int = 1,
    progress: Any = None, backend: str = "process", address: str | None = None, **options: Any,
) -> list[dict]:
    """Every match record, in match order. The records are the same whatever runs them: this
    process (`jobs` 1), `jobs` worker processes, or Ray tasks (`backend="ray"`, on the cluster at
    `address`, or on a local Ray instance of `jobs` CPUs when no address is given)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError("an address is for the ray backend (--backend ray)")
    work = [(game_name, num_players, list(agents), seed, match, options) for match in range(games)]
    if backend == "ray":
        return _run_on_ray(work, jobs, address, progress)
    if jobs <= 1:
        results = map(_play_indexed, work)
        return _collect(results, progress)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return _collect(pool.map(_play_indexed, work, chunksize=max(1, games // (8 * jobs))), progress)


def _collect(results: Any, progress: Any) -> list[dict]:
    records = []
    for record in results:
        records.append(record)
        if progress is not None:
            progress()
    return records


def _run_on_ray(work: list[tuple], jobs: int, address: str | None, progress: Any) -> list[dict]:
    """Each match a Ray task; results gathered in match order. Every node needs city-envs installed."""
    try:
        import ray
    except ImportError:
        raise ValueError("the ray backend needs Ray: pip install 'city-envs[cluster]'") from None
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=max(1, jobs), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    play = ray.remote(_play_indexed)
    pending = [play.remote(job) for job in work]
    index = {ref: i for i, ref in enumerate(pending)}
    records: list[dict | None] = [None] * len(work)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            records[index[ref]] = ray.get(ref)
            if progress is not None:
                progress()
    return records  # type: ignore[return-value]


def rate(records: list[dict], agents: Sequence[str]) -> dict[str, dict]:
    """OpenSkill Plackett-Luce ratings from the matches in order (failed matches are skipped).

    Each seat is a one-player team ranked by win share then score. An agent holding several seats
    of one match is rated in each and takes the mean of the posteriors.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in dict.fromkeys(agents)}
    for record in records:
        if record["failed"]:
            continue
        kinds = record["kinds"]
        keys = [(-share, -score) for share, score in zip(record["win_share"], record["scores"], strict=True)]
        order = sorted(set(keys))
        ranks = [order.index(key) for key in keys]
        teams = [[model.rating(mu=ratings[k].mu, sigma=ratings[k].sigma, name=k)] for k in kinds]
        updated = model.rate(teams, ranks=ranks)
        for name in set(kinds):
            seats = [team[0] for team, k in zip(updated, kinds, strict=True) if k == name]
            ratings[name] = model.rating(mu=sum(r.mu for r in seats) / len(seats),
                                         sigma=sum(r.sigma for r in seats) / len(seats), name=name)
    return {name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in ratings.items()}


def pairwise(records: list[dict], agents: Sequence[str]) -> dict[str, dict[str, float | None]]:
    """Share of the shared matches in which the row agent finished ahead of the column agent."""
    names = list(dict.fromkeys(agents))
    ahead = {a: dict.fromkeys(names, 0.0) for a in names}
    met = {a: dict.fromkeys(names, 0) for a in names}
    for record in records:
        if record["failed"]:
            continue
        keys = list(zip(record["win_share"], record["scores"], strict=True))
        for i, a in enumerate(record["kinds"]):
            for j, b in enumerate(record["kinds"]):
                if i != j and a != b:
                    met[a][b] += 1
                    ahead[a][b] += 1.0 if keys[i] > keys[j] else 0.5 if keys[i] == keys[j] else 0.0
    return {a: {b: (ahead[a][b] / met[a][b] if met[a][b] else None) for b in names} for a in names}


def evaluate(
    game_name: str, num_players: int, agent_kinds: list[str], games: int, seed: int, jobs: int = 1,
    progress: Any = None, backend: str = "process", address: str | None = None, **options: Any,
) -> dict:
    """Play `games` scheduled matches of the agents and aggregate them by agent.

    With k seats of one agent in a match, the match counts k appearances of it, so `win_rate` is per
    seat and comparable with 1/num_players. A match won jointly by several seats gives each 1/k of a
    win. Failed matches count in `failures` and nowhere else.
    """
    if games < 1:
        raise ValueError("games must be >= 1")
    if len(agent_kinds) < num_players:
        raise ValueError(f"{len(agent_kinds)} agent kinds for a {num_players}-player game")
    records = run_matches(game_name, num_players, agent_kinds, games, seed, jobs=jobs, progress=progress,
                          backend=backend, address=address, **options)
    names = list(dict.fromkeys(agent_kinds))
    acc = {k: {"appearances": 0, "wins": 0.0, "score": 0.0, "decisions": 0, "truncations": 0} for k in names}
    seat_counts = {k: [0] * num_players for k in names}
    played = [r for r in records if not r["failed"]]
    for record in played:
        for seat, kind in enumerate(record["kinds"]):
            a = acc[kind]
            a["appearances"] += 1
            a["wins"] += record["win_share"][seat]
            a["score"] += record["scores"][seat]
            a["decisions"] += record["decisions"][seat]
            a["truncations"] += record["truncated"]
            seat_counts[kind][seat] += 1
    per_kind = {}
    for kind, a in acc.items():
        n = a["appearances"]
        low, high = wilson_interval(a["wins"], n)
        per_kind[kind] = {
            "appearances": n,
            "wins": a["wins"],
            "win_rate": a["wins"] / n if n else 0.0,
            "ci_low": low,
            "ci_high": high,
            "mean_score": a["score"] / n if n else 0.0,
            "mean_decisions": a["decisions"] / n if n else 0.0,
            "truncations": a["truncations"],
        }
    ratings = rate(records, agent_kinds)
    return {
        "game": game_name,
        "num_players": num_players,
        "lineup": list(agent_kinds),
        "games": games,
        "seed": seed,
        "options": dict(options),
        "agents": per_kind,
        "ratings": ratings,
        "win_rate": {k: v["win_rate"] for k, v in per_kind.items()},
        "win_rate_ci95": {k: [v["ci_low"], v["ci_high"]] for k, v in per_kind.items()},
        "mean_score": {k: v["mean_score"] for k, v in per_kind.items()},
        "mean_length": float(np.mean([sum(r["decisions"]) for r in played])) if played else 0.0,
        "truncated": sum(r["truncated"] for r in played),
        "failures": [{"match": r["match"], "seed": r["seed"], "kinds": r["kinds"], "reason": r["reason"]}
                     for r in records if r["failed"]],
        "pairwise": pairwise(records, agent_kinds),
        "seat_counts": seat_counts,
        "matches": records,
    }


def format_results(results: dict) -> str:
    """A small Markdown table of `evaluate`'s results."""
    lines = [
        f"{results['game']} {results['num_players']}p, {results['games']} games, seed {results['seed']}",
        "",
        "| agent | rating (mu ± sigma) | win rate | 95% CI | mean score | mean decisions |",
        "|---|---|---|---|---|---|",
    ]
    for kind, a in results["agents"].items():
        rating = results["ratings"][kind]
        lines.append(
            f"| {kind} | {rating['mu']:.1f} ± {rating['sigma']:.1f} | {a['win_rate']:.3f} "
            f"| {a['ci_low']:.3f}-{a['ci_high']:.3f} | {a['mean_score']:.1f} | {a['mean_decisions']:.1f} |"
        )
    lines.append(f"\ntruncated matches: {results['truncated']}; failed matches: {len(results['failures'])}")
    return "\n".join(lines)


def write_reports(results: dict, out_dir: str | Path) -> list[Path]:
    """results.json, matches.csv (one row per match, with its actions, so that `city-envs serve` can
    replay it), report.md and two PNG plots (ratings, pairwise win rates)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = {k: v for k, v in results.items() if k != "matches"}
    (out / "results.json").write_text(json.dumps(summary, indent=2))
    with open(out / "matches.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["match", "seed", "seats", "scores", "winners", "length", "truncated", "failed", "reason",
                         "actions"])
        for r in results["matches"]:
            writer.writerow([r["match"], r["seed"], " ".join(r["kinds"]), " ".join(f"{x:g}" for x in r["scores"]),
                             " ".join(map(str, r["winners"])), sum(r["decisions"]), r["truncated"], r["failed"],
                             r["reason"], " ".join(map(str, r.get("history", ())))])
    report = [f"# {results['game']}, {results['num_players']} players", "", format_results(results), ""]
    if results["failures"]:
        report += ["## Failed matches", "", "| match | seed | seats | reason |", "|---|---|---|---|"]
        report += [f"| {f['match']} | {f['seed']} | {', '.join(f['kinds'])} | {f['reason']} |"
                   for f in results["failures"]]
    report += _match_links(results)
    (out / "report.md").write_text("\n".join(report) + "\n")
    paths = [out / "results.json", out / "matches.csv", out / "report.md"]
    paths += _plots(results, out)
    return paths


VIEWER = "http://127.0.0.1:8000"  # where `city-envs serve` listens by default


def _match_links(results: dict) -> list[str]:
    """Every match with a link that opens it in the web viewer started on this folder."""
    lines = ["## Matches", "",
             f"Watch any match: `city-envs serve <this folder>` (the `web` extra), then follow its link ({VIEWER}).",
             "", "| match | seats | winners | decisions | replay |", "|---|---|---|---|---|"]
    for r in results["matches"]:
        winners = ", ".join(f"seat {w}" for w in r["winners"]) if not r["failed"] else "failed"
        lines.append(f"| {r['match']} | {', '.join(r['kinds'])} | {winners} | {sum(r['decisions'])} "
                     f"| [watch]({VIEWER}/replay?src=0&match={r['match']}) |")
    return lines + [""]


def _plots(results: dict, out: Path) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(results["ratings"])
    fig = Figure(figsize=(6, 3.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    mus = [results["ratings"][k]["mu"] for k in names]
    sigmas = [results["ratings"][k]["sigma"] for k in names]
    ax.errorbar(range(len(names)), mus, yerr=sigmas, fmt="o", capsize=6)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("OpenSkill mu ± sigma")
    ax.set_title(f"{results['game']} {results['num_players']}p, {results['games']} games")
    fig.tight_layout()
    fig.savefig(out / "ratings.png")

    fig = Figure(figsize=(5, 4), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    grid = np.array([[np.nan if results["pairwise"][a][b] is None else results["pairwise"][a][b] for b in names]
                     for a in names], dtype=float)
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn")
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=9)
    ax.set_title("row finishes ahead of column")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(out / "pairwise.png")
    return [out / "ratings.png", out / "pairwise.png"]
