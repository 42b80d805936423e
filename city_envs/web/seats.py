"""The seats a web form may ask for: built-in agents only, each within the server's limits.

A form is text from anyone who can reach the page, so it is read as a built-in agent spec only
(`AgentSpec.parse_built_in`: no `module:Class`, which imports code, no `ppo:...:trust_pickle`, which
unpickles a zip), then held to the server's limits. A seat is one of

- `person`;
- `random`, `heuristic`;
- `ismcts[:iters=N][:seconds=S][:c=X][:max_rollout=N][:rollout=...][:bias=X][:opponents=...]`, with
  at most `MAX_ISMCTS_ITERS` iterations, `MAX_MOVE_SECONDS` seconds and rollouts of at most
  `MAX_ROLLOUT` decisions, and always a hard `time_limit` of `MAX_MOVE_SECONDS` inside the search;
- `ppo` or `ppo:sample` (the committed baseline), or `ppo:SRC[:sample]` with SRC a policy file
  (`*.safetensors`, data only) inside a folder named on the command line, as the replay list names it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

from city_envs.agents.base import Agent
from city_envs.agents.heuristics import heuristic_class
from city_envs.agents.spec import AgentSpec
from city_envs.web.replays import too_large

PERSON = "person"
BOTS_FILE = "bots.json"  # the bots the new-game page offers, with their names and sentences (data)


@dataclass(frozen=True)
class BotInfo:
    """A bot the new-game page offers: its seat spec, a name by strength, and one sentence about it."""

    spec: str
    name: str
    strength: int
    about: str


def bot_catalogue() -> tuple[BotInfo, ...]:
    """The offered bots from `BOTS_FILE`, in the file's order (weakest first)."""
    data = json.loads((resources.files("city_envs.web") / BOTS_FILE).read_text(encoding="utf-8"))
    return tuple(BotInfo(**bot) for bot in data["bots"])


BOTS = bot_catalogue()
MAX_SEAT_CHARS = 300
MAX_ISMCTS_ITERS = 2000
MAX_MOVE_SECONDS = 2.0  # the hard deadline of one bot move
MAX_ROLLOUT = 200
MAX_POLICY_BYTES = 64 * 2**20
SEARCH_LIMITS = (
    f"{MAX_ISMCTS_ITERS} ISMCTS iterations, {MAX_MOVE_SECONDS:g} seconds and rollouts of {MAX_ROLLOUT} decisions"
)
ALLOWED = (
    "person, random, heuristic, ismcts[:iters=N][:seconds=S]..., ppo, ppo:sample, "
    "or ppo:FOLDER/FILE.safetensors[:sample] for a policy file in a served folder"
)


@dataclass(frozen=True)
class SeatSpec:
    """A checked seat: `build(seed)` makes its agent (None for a person)."""

    text: str
    build: Callable[[int], Agent | None]


def _ismcts(spec: AgentSpec, game_name: str) -> Callable[[int], Agent]:
    from city_envs.agents.ismcts import ISMCTSAgent

    params = dict(spec.options)
    if params.get("iters") is not None and not 1 <= params["iters"] <= MAX_ISMCTS_ITERS:
        raise ValueError(f"ismcts iters must be 1..{MAX_ISMCTS_ITERS} here, not {params['iters']}")
    if "seconds" in params:
        if not 0 < params["seconds"] <= MAX_MOVE_SECONDS:
            raise ValueError(
                f"ismcts seconds must be more than 0 and at most {MAX_MOVE_SECONDS:g} here, not {params['seconds']}"
            )
        params.setdefault("iters", None)
    if "max_rollout" in params and (params["max_rollout"] is None or not 0 <= params["max_rollout"] <= MAX_ROLLOUT):
        raise ValueError(f"ismcts max_rollout must be 0..{MAX_ROLLOUT} here, not {params['max_rollout']}")
    for key in ("c", "bias"):
        if key in params and not 0 <= params[key] <= 100:
            raise ValueError(f"ismcts {key} must be 0..100, not {params[key]}")
    if "c" in params:
        params["exploration"] = params.pop("c")
    agent = ISMCTSAgent(0, time_limit=MAX_MOVE_SECONDS, **params)  # checks the remaining parameters
    if agent.needs_heuristic:
        heuristic_class(game_name)
    return lambda seed: ISMCTSAgent(seed, time_limit=MAX_MOVE_SECONDS, **params)


def _ppo(spec: AgentSpec, game_name: str, num_players: int, resolve: Callable[[str], Path]) -> Callable[[int], Agent]:
    if find_spec("sb3_contrib") is None or find_spec("torch") is None or find_spec("safetensors") is None:
        raise ValueError("the ppo agent needs the train extra: pip install 'city-envs[train]'")
    from city_envs.agents.policy_agent import PolicyAgent, baseline_path
    from city_envs.agents.policy_file import SUFFIX, PolicyFileError, load_policy_file

    if len(spec.flags) > 1:
        raise ValueError(f"a ppo seat is ppo, ppo:sample or ppo:FOLDER/FILE{SUFFIX}[:sample], not {spec.text!r}")
    sample = "sample" in spec.flags
    if spec.policy is not None:
        path = resolve(spec.policy)
        if path.suffix != SUFFIX:
            raise ValueError(
                f"a ppo seat plays a policy file ({SUFFIX}, data only), not {path.name}; "
                "pickled SB3 zips are refused here"
            )
        if path.stat().st_size > MAX_POLICY_BYTES:
            raise too_large(path, MAX_POLICY_BYTES)
    else:
        path = baseline_path(game_name, num_players)
        if not path.is_file():
            raise ValueError(
                f"no committed PPO baseline for {game_name} at {num_players} players; "
                "choose a policy file from a served folder or another agent"
            )
    try:
        load_policy_file(path, game=game_name, players=num_players)  # checked now, not at its first move
    except PolicyFileError as error:
        raise ValueError(str(error).replace(str(path), path.name)) from None
    return lambda seed: PolicyAgent(path, seed, greedy=not sample)


def parse_seat(text: str, game_name: str, num_players: int, resolve: Callable[[str], Path]) -> SeatSpec:
    """The seat `text` names, checked now; ValueError for anything else, saying what is allowed.

    `resolve` turns a served path (`0/run/policy.safetensors`) into a regular file inside a served
    folder, or raises ValueError."""
    text = text.strip()
    if len(text) > MAX_SEAT_CHARS:
        raise ValueError(f"a seat is at most {MAX_SEAT_CHARS} characters")
    if text == PERSON:
        return SeatSpec(text, lambda seed: None)
    spec = AgentSpec.parse_built_in(text, ALLOWED)
    if spec.kind == "random":
        from city_envs.agents.random_agent import RandomAgent

        return SeatSpec(text, RandomAgent)
    if spec.kind == "heuristic":
        return SeatSpec(text, heuristic_class(game_name))
    if spec.kind == "ismcts":
        return SeatSpec(text, _ismcts(spec, game_name))
    if spec.kind == "ppo":
        return SeatSpec(text, _ppo(spec, game_name, num_players, resolve))
    raise ValueError(f"{text!r}: the network-guided search is not offered here; a seat here is {ALLOWED}")
