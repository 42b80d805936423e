"""The differential run: many matches per game on both engines, compared after every decision.

    python -m tests.native.differential --matches 10000 --out benchmarks/native/parity.json [--games citadels,...]

Matches cycle through every player count and three line-ups (all random, all heuristic, mixed), from
seed 1,000,000 on (seeds the default tests do not use). After every decision the pending decision,
the legal actions, the scores and the acting seat's observation are compared; every seat's
observation and the whole JSON state every 25 decisions and at the end. The run resumes from its
JSON (written after every 100 matches) and records every difference it finds with its seed, and, for
each stretch of matches, the SHA-256 of the engines' sources it ran on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

from city_envs.core.registry import game_class
from tests.native.parity import native_games, play_pair

LINEUPS = ("random", "heuristic", "mixed")
FIRST_SEED = 1_000_000


def seats(lineup: str, num_players: int) -> list[str]:
    if lineup == "mixed":
        return ["heuristic" if seat % 2 else "random" for seat in range(num_players)]
    return [lineup] * num_players


ROOT = Path(__file__).resolve().parents[2]


def sources_digest(name: str) -> str:
    """SHA-256 over both engines' sources of a game (its folders and the core's), path by path."""
    folders = [ROOT / "native" / "core", ROOT / "native" / name, ROOT / "city_envs" / "core", ROOT / "city_envs" / name]
    digest = hashlib.sha256()
    paths = [path for folder in folders for path in folder.rglob("*") if path.suffix in (".hpp", ".cpp", ".py")]
    for path in sorted(paths):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def run_game(name: str, matches: int, record: dict, save) -> None:
    counts = game_class(name, "python").allowed_player_counts()
    done = record.setdefault("matches", 0)
    started = time.process_time() - record.get("cpu_seconds", 0.0)
    for index in range(done, matches):
        num_players = counts[index % len(counts)]
        lineup = LINEUPS[(index // len(counts)) % len(LINEUPS)]
        seed = FIRST_SEED + index
        outcome = play_pair(name, num_players, seed, seats(lineup, num_players), full_every=25)
        record["matches"] = index + 1
        record["decisions"] = record.get("decisions", 0) + outcome.decisions
        key = f"{num_players}p {lineup}"
        record.setdefault("by_lineup", {}).setdefault(key, 0)
        record["by_lineup"][key] += 1
        if outcome.difference is not None:
            record.setdefault("differences", []).append(
                {"seed": seed, "players": num_players, "lineup": lineup, "what": outcome.difference}
            )
        record["cpu_seconds"] = time.process_time() - started
        if (index + 1) % 100 == 0 or index + 1 == matches:
            save()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000, help="matches per game")
    parser.add_argument("--games", help="comma-separated games (default: every game with a native engine)")
    parser.add_argument("--out", required=True, help="the JSON record (resumed when it exists)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    result = json.loads(out.read_text()) if out.exists() else {"first_seed": FIRST_SEED, "games": {}}

    def save() -> None:
        out.write_text(json.dumps(result, indent=1) + "\n")

    for name in args.games.split(",") if args.games else native_games():
        record = result["games"].setdefault(name, {})
        stretches = record.setdefault("sources", [])
        digest = sources_digest(name)
        if record.get("matches", 0) < args.matches and (not stretches or stretches[-1]["sha256"] != digest):
            stretches.append({"from_match": record.get("matches", 0), "sha256": digest})
        run_game(name, args.matches, record, save)
        differences = len(record.get("differences", []))
        print(f"{name}: {record['matches']} matches, {record['decisions']:,} decisions, {differences} differences")
    save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
