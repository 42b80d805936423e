"""Speed measurements behind `city-envs bench`: random legal play, heuristic self-play and search.

Every random loop picks actions the same cheap way (`np.flatnonzero(mask)` then `rng.integers`), so
the comparison with PettingZoo's connect_four_v3 measures the environments, not the chooser. The
machine's speed drifts (load, caches, frequency: back-to-back seconds of connect_four_v3 alone differ
by up to 40% here), so each AEC and heuristic figure is a ratio to connect_four_v3 measured in the same
process in alternating slices (reference, subject, subject, reference, ...), so that both sides share
the drift, and every duration is the process's CPU time: time spent waiting for a core shared with
other jobs counts for neither side. Each such ratio comes with a bootstrap interval over its slice
pairs. The Python engine's figures name it explicitly; where a game's native engine is built, its
figures stand beside them, the native/Python ratio measured the same way (the search's in turns
position by position, its interval over the positions searched).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from city_envs.core.game import Game
from city_envs.core.infoset import InfoSet
from city_envs.core.markdown import write_sections
from city_envs.core.native import native_class
from city_envs.core.paired import Paired
from city_envs.core.registry import GAMES, game_class, make_env

_CLOCK = time.process_time
SEARCH_ITERATIONS = 10  # ISMCTS iterations per timed decision
NATIVE_SEARCH_REPEATS = 20  # the native search's decisions timed again, so that its column sums a measurable time
SEARCH_POSITIONS = 40  # sampled positions (those with a choice are searched) behind the search figures
CLOCK_EVERY = 16  # steps between two reads of the clock in a timed loop
SLICES = 12  # slices per side of a paired measurement, taken in turns with the other side's


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def raw_game_speed(name: str, num_players: int, seconds: float, seed: int = 0, **options) -> dict:
    """Decisions/s and games/s of the Python engine through the Game API (legal_actions + apply)."""
    cls = game_class(name, "python")
    rng = np.random.default_rng(seed)
    decisions = games = 0
    game = cls(num_players, seed=seed, **options)
    start = _CLOCK()
    while True:
        if game.is_over():
            games += 1
            if _CLOCK() - start >= seconds:
                break
            game = cls(num_players, seed=seed + games, **options)
        game.apply(_pick(game.legal_actions(), rng))
        decisions += 1
    elapsed = _CLOCK() - start
    return {
        "decisions_per_s": decisions / elapsed,
        "games_per_s": games / elapsed,
        "decisions_per_game": decisions / games,
    }


def _random_decisions(name: str, num_players: int, seed: int, engine: str, **options) -> Iterator[int]:
    """Yields once per decision of random legal play through the Game API, match after match."""
    cls = game_class(name, engine)
    rng = np.random.default_rng(seed)
    games = 0
    while True:
        game = cls(num_players, seed=seed + games, **options)
        while not game.is_over():
            game.apply(_pick(game.legal_actions(), rng))
            yield 1
        games += 1


def _aec_steps(env, seed: int) -> Iterator[int]:
    """Yields once per agent-step of random legal play through the AEC loop (`last()` + `step()`),
    episode after episode, so a measurement can stop and resume anywhere."""
    rng = np.random.default_rng(seed)
    episode = 0
    while True:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(_pick(observation["action_mask"], rng))
            yield 1


def _native_playouts(name: str, num_players: int, seed: int, **options) -> Iterator[int]:
    """Yields the decisions of random play inside the native engine (`NativeGame.playout`: the moves
    `_random_decisions` picks), a whole match at a time."""
    cls = game_class(name, "native")
    rng = np.random.default_rng(seed)
    games = 0
    while True:
        game = cls(num_players, seed=seed + games, **options)
        yield game.playout(rng)
        games += 1


def _choices(masks: list[np.ndarray], seed: int) -> Iterator[int]:
    """Yields once per `_pick` on the legal masks given, in turn: the chooser every Game-API loop here
    runs, with no game at all (what a loop that calls the engine once per decision cannot go below)."""
    rng = np.random.default_rng(seed)
    while True:
        for mask in masks:
            _pick(mask, rng)
            yield 1


def _heuristic_decisions(name: str, num_players: int, seed: int, engine: str = "python", **options) -> Iterator[int]:
    """Yields once per decision of the game's heuristic agent in every seat (Game API and `InfoSet`s;
    on the native engine the agents pick in C++ where the game's heuristic is there)."""
    from city_envs.agents.registry import make_agent

    cls = game_class(name, engine)
    games = 0
    while True:
        game = cls(num_players, seed=seed + games, **options)
        agents = [make_agent("heuristic", name, seed + games * num_players + seat) for seat in range(num_players)]
        handles = [InfoSet(game, seat) for seat in range(num_players)]
        while not game.is_over():
            seat = game.current_player()
            game.apply(agents[seat].act(handles[seat]))
            yield 1
        games += 1


def _run_for(steps: Iterator[int], seconds: float) -> tuple[int, float]:
    """Advance `steps` (each yield: the steps it took) for about `seconds` of CPU time: (steps taken,
    CPU seconds spent). The clock is read every CLOCK_EVERY steps: a read costs about a microsecond,
    as much as a native step."""
    count = checked = 0
    start = _CLOCK()
    while True:
        count += next(steps)
        if count - checked >= CLOCK_EVERY:
            checked = count
            if _CLOCK() - start >= seconds:
                return count, _CLOCK() - start


def paired(subject: Iterator[int], reference: Iterator[int], seconds: float) -> Paired:
    """`subject` and `reference`, each run for `seconds` in all, in turns of `seconds / SLICES`
    (reference-subject, then subject-reference, ...) so that drift hits both alike."""
    slices = np.zeros((SLICES, 4))
    for slice_pair in range(SLICES):
        for side in ("reference", "subject") if slice_pair % 2 == 0 else ("subject", "reference"):
            columns = slice(0, 2) if side == "subject" else slice(2, 4)
            slices[slice_pair, columns] = _run_for(subject if side == "subject" else reference, seconds / SLICES)
    return Paired(slices)


def ratio_figures(key: str, measured: Paired, seed: int = 0) -> dict[str, Any]:
    """A paired measurement's ratio under `key` and its interval under `key + "_interval"`."""
    return {key: measured.ratio, f"{key}_interval": list(measured.interval(seed))}


def _ratio_or_none(key: str, measured: Paired | None, seed: int) -> dict[str, Any]:
    """`ratio_figures`, or None for both where the reference was not measured."""
    return ratio_figures(key, measured, seed) if measured is not None else {key: None, f"{key}_interval": None}


def aec_speed(env, seconds: float, seed: int = 0) -> float:
    """Agent-steps/s through the AEC loop with observations (`last()` + `step()`)."""
    count, elapsed = _run_for(_aec_steps(env, seed), seconds)
    return count / elapsed


def heuristic_speed(name: str, num_players: int, seconds: float, seed: int = 0, **options) -> float:
    """Decisions/s of the game's heuristic agent playing every seat (Game API and `InfoSet`s)."""
    count, elapsed = _run_for(_heuristic_decisions(name, num_players, seed, **options), seconds)
    return count / elapsed


def sample_states(
    name: str, num_players: int, count: int, seed: int = 0, engine: str = "python", **options
) -> list[Game]:
    """Positions from random games (never finished ones), for the per-call timings."""
    cls = game_class(name, engine)
    rng = np.random.default_rng(seed)
    states: list[Game] = []
    while len(states) < count:
        game = cls(num_players, seed=int(rng.integers(2**31)), **options)
        while not game.is_over():
            if rng.random() < 0.1:
                states.append(game.clone())
            game.apply(_pick(game.legal_actions(), rng))
    return states[:count]


def per_call_micros(states: list[Game], repeats: int = 20, seed: int = 0) -> dict:
    """Microseconds per observation(), uncached legal_actions(), clone() and determinize(), each call on
    a fresh clone (made outside the timing), so that no memo kept on a position answers a repeat."""
    rng = np.random.default_rng(seed)

    def timed(call) -> float:
        elapsed = 0.0
        for _ in range(repeats):
            fresh = [game.clone() for game in states]
            start = _CLOCK()
            for game in fresh:
                call(game)
            elapsed += _CLOCK() - start
        return elapsed / (repeats * len(states)) * 1e6

    return {
        "observation_us": timed(lambda g: g.observation(g.current_player())),
        "legal_actions_us": timed(lambda g: g._legal_actions()),  # the uncached computation
        "clone_us": timed(lambda g: g.clone()),
        "determinize_us": timed(lambda g: g.determinize(g.current_player(), rng)),
    }


def _with_choice(states: list) -> list:
    """The positions where the player to move has more than one legal action (a search to run)."""
    return [game for game in states if len(game.legal_action_ids()) > 1]


def _search_decisions(agent, game, repeats: int) -> tuple[int, float]:
    """(ISMCTS iterations, CPU seconds) of `repeats` decisions of `agent` at `game`."""
    start = _CLOCK()
    for _ in range(repeats):
        agent.act(InfoSet(game, game.current_player()))
    return agent.iters * repeats, _CLOCK() - start


def search_iteration_micros(
    name: str, states: list, iterations: int = SEARCH_ITERATIONS, seed: int = 0, repeats: int = 1
) -> float:
    """Microseconds per iteration of the default ISMCTS agent (determinize, clone, the tree's and the
    rollout's moves, heuristic opponents and rollouts), over the positions with a choice to make, each
    searched `repeats` times. On native matches the whole search runs in C++ (native/core/ismcts.hpp)."""
    from city_envs.agents.ismcts import ISMCTSAgent

    agent = ISMCTSAgent(seed, iters=iterations)
    timed = [_search_decisions(agent, game, repeats) for game in _with_choice(states)]
    return sum(seconds for _, seconds in timed) / sum(count for count, _ in timed) * 1e6


def paired_search(
    python_states: list, native_states: list, iterations: int = SEARCH_ITERATIONS, seed: int = 0
) -> Paired:
    """The default ISMCTS agent's decision at each position with a choice, on the native engine
    (NATIVE_SEARCH_REPEATS times, so that it sums a measurable time) and on the Python engine, in turns
    (Python first, then the order flips): a row per position, (native iterations, native CPU s, Python
    iterations, Python CPU s), so the ratio's interval resamples positions. `native_states[i]` is
    `python_states[i]` played on the native engine (the same match and move)."""
    from city_envs.agents.ismcts import ISMCTSAgent

    python_games, native_games = _with_choice(python_states), _with_choice(native_states)
    if [game.legal_action_ids() for game in python_games] != [game.legal_action_ids() for game in native_games]:
        raise RuntimeError("the native engine's sampled positions are not the Python engine's: the engines disagree")
    python_agent, native_agent = ISMCTSAgent(seed, iters=iterations), ISMCTSAgent(seed, iters=iterations)
    rows = []
    for index, (python_game, native_game) in enumerate(zip(python_games, native_games, strict=True)):
        if index % 2 == 0:
            python = _search_decisions(python_agent, python_game, 1)
            native = _search_decisions(native_agent, native_game, NATIVE_SEARCH_REPEATS)
        else:
            native = _search_decisions(native_agent, native_game, NATIVE_SEARCH_REPEATS)
            python = _search_decisions(python_agent, python_game, 1)
        rows.append((*native, *python))
    return Paired(np.array(rows, dtype=float))


def connect_four_steps(seed: int = 0) -> Iterator[int] | None:
    """The reference loop: random legal play in PettingZoo's connect_four_v3 (None if not installed)."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError:  # pettingzoo[classic] not installed
        return None
    return _aec_steps(connect_four_v3.env(), seed)


def _beside_reference(subject: Iterator[int], seconds: float, seed: int) -> tuple[float, Paired | None]:
    """The subject's rate, and its measurement in alternating slices beside connect_four_v3 (None if
    the reference is not installed: then the subject alone)."""
    reference = connect_four_steps(seed)
    if reference is None:
        count, elapsed = _run_for(subject, seconds)
        return count / elapsed, None
    measured = paired(subject, reference, seconds)
    return measured.subject_rate, measured


def run(name: str, num_players: int, seconds: float = 3.0, seed: int = 0, search: bool = False, **options) -> dict:
    """All figures of `city-envs bench` for one game and player count (`search`: the ISMCTS cost too)."""
    result: dict[str, Any] = {
        "game": name,
        "num_players": num_players,
        "seconds": seconds,
        "seed": seed,
        "options": options,
    }
    result.update(raw_game_speed(name, num_players, seconds, seed, **options))
    python_env = make_env(name, num_players, engine="python", **options)
    aec, beside_aec = _beside_reference(_aec_steps(python_env, seed), seconds, seed)
    result["aec_steps_per_s"] = aec
    states = sample_states(name, num_players, 200, seed, **options)
    result.update(per_call_micros(states, seed=seed))
    reference = beside_aec.reference_rate if beside_aec else None
    result["connect_four_aec_steps_per_s"] = reference
    result.update(_ratio_or_none("aec_ratio_vs_connect_four", beside_aec, seed))
    result["raw_ratio_vs_connect_four"] = result["decisions_per_s"] / reference if reference else None
    heuristic, beside = _beside_reference(_heuristic_decisions(name, num_players, seed, **options), seconds, seed)
    result["heuristic_decisions_per_s"] = heuristic
    result["connect_four_aec_steps_per_s_beside_heuristic"] = beside.reference_rate if beside else None
    result.update(_ratio_or_none("heuristic_ratio_vs_connect_four", beside, seed))
    has_native = native_class(game_class(name, "python")) is not None
    if has_native:
        result.update(native_figures(name, num_players, seconds, seed, **options))
        result.update(batch_figures(name, num_players, seconds, seed, **options))
    if search and has_native:
        # the same first SEARCH_POSITIONS positions on both engines: the same matches, sampled alike
        native_states = sample_states(name, num_players, SEARCH_POSITIONS, seed, engine="native", **options)
        searched = paired_search(states[:SEARCH_POSITIONS], native_states, seed=seed)
        result["search_iteration_us"] = 1e6 / searched.reference_rate
        result["native_search_iteration_us"] = 1e6 / searched.subject_rate
        result.update(ratio_figures("native_search_ratio_vs_python", searched, seed))
    elif search:
        result["search_iteration_us"] = search_iteration_micros(name, states[:SEARCH_POSITIONS], seed=seed)
    return result


def native_figures(name: str, num_players: int, seconds: float, seed: int = 0, **options) -> dict:
    """The native engine beside the Python engine: random play through the Game API, and the same
    moves played inside the native engine (`playout`), each in alternating slices with the Python
    engine's Game-API loop (so the ratio shares the machine's drift); the chooser alone beside the same
    loop (the ceiling of any engine's Game-API ratio); heuristic self-play beside the Python engine's
    (the agents pick in C++ where the game's heuristic is there); the per-call costs on positions of native matches;
    the AEC loop beside connect_four_v3."""
    native = paired(
        _random_decisions(name, num_players, seed, "native", **options),
        _random_decisions(name, num_players, seed, "python", **options),
        seconds,
    )
    playout = paired(
        _native_playouts(name, num_players, seed, **options),
        _random_decisions(name, num_players, seed, "python", **options),
        seconds,
    )
    states = sample_states(name, num_players, 200, seed, engine="native", **options)
    chooser = paired(
        _choices([game.legal_actions() for game in states], seed),
        _random_decisions(name, num_players, seed, "python", **options),
        seconds,
    )
    figures: dict[str, Any] = {
        "chooser_decisions_per_s": chooser.subject_rate,
        "python_decisions_per_s_beside_chooser": chooser.reference_rate,
        **ratio_figures("game_api_ceiling_ratio_vs_python", chooser, seed),
        "native_decisions_per_s": native.subject_rate,
        "python_decisions_per_s_beside_native": native.reference_rate,
        **ratio_figures("native_raw_ratio_vs_python", native, seed),
        "native_playout_decisions_per_s": playout.subject_rate,
        "python_decisions_per_s_beside_playout": playout.reference_rate,
        **ratio_figures("native_playout_ratio_vs_python", playout, seed),
    }
    figures.update({f"native_{key}": value for key, value in per_call_micros(states, seed=seed).items()})
    heuristic = paired(
        _heuristic_decisions(name, num_players, seed, "native", **options),
        _heuristic_decisions(name, num_players, seed, "python", **options),
        seconds,
    )
    figures["native_heuristic_decisions_per_s"] = heuristic.subject_rate
    figures.update(ratio_figures("native_heuristic_ratio_vs_python", heuristic, seed))
    native_env = make_env(name, num_players, engine="native", **options)
    aec, beside = _beside_reference(_aec_steps(native_env, seed), seconds, seed)
    figures["native_aec_steps_per_s"] = aec
    figures.update(_ratio_or_none("native_aec_ratio_vs_connect_four", beside, seed))
    return figures


BATCH_ENVS = 64  # matches per vector env in the batch figures (the trainer's default n_envs)


def _vector_steps(env, seed: int) -> Iterator[int]:
    """Yields the slots stepped (env steps) per step of a vector env with `action_masks()`, each slot's
    learner playing a uniformly random legal action (one vectorised draw for all slots)."""
    rng = np.random.default_rng(seed)
    env.reset()
    while True:
        masks = env.action_masks()
        env.step((rng.random(masks.shape) * masks).argmax(axis=1))
        yield len(masks)


def batch_figures(name: str, num_players: int, seconds: float, seed: int = 0, **options) -> dict:
    """Training env steps/s against heuristic opponents: the native batch (`BatchVecEnv`, every opponent
    move in C++) beside `SelfPlayVecEnv` on the native engine (the trainer's env before it), both with
    BATCH_ENVS matches, in alternating slices. Empty without the training extra or the native batch."""
    from city_envs.core.vector import batch_available

    try:
        from city_envs.training.batch_env import BatchVecEnv
        from city_envs.training.pool import OpponentPool
        from city_envs.training.vec_env import SelfPlayVecEnv
    except ImportError:  # stable-baselines3 (the train extra) is not installed
        return {}
    if not batch_available(name):
        return {}
    envs = [
        kind(name, num_players, BATCH_ENVS, seed, OpponentPool(name, {"heuristic": 1.0}), options)
        for kind in (BatchVecEnv, SelfPlayVecEnv)
    ]
    measured = paired(_vector_steps(envs[0], seed), _vector_steps(envs[1], seed), seconds)
    return {
        "batch_env_steps_per_s": measured.subject_rate,
        "selfplay_env_steps_per_s_beside_batch": measured.reference_rate,
        **ratio_figures("batch_env_ratio_vs_selfplay", measured, seed),
    }


def run_all(seconds: float = 1.0, seed: int = 0, progress=None) -> dict:
    """`run` for every game at every player count it allows, with the search cost."""
    rows = []
    for name in GAMES:
        for num_players in game_class(name, "python").allowed_player_counts():
            rows.append(run(name, num_players, seconds, seed, search=True))
            if progress is not None:
                progress(rows[-1])
    return {"seconds": seconds, "seed": seed, "rows": rows}


# ----- the one table ---------------------------------------------------------------------------
# `batch_figures`: the training env (native batch, heuristic opponents) beside SelfPlayVecEnv
BATCH_COLUMNS = (
    ("batched env steps/s (heuristic opponents)", "batch_env_steps_per_s", "{:,.0f}"),
    ("SelfPlayVecEnv env steps/s beside it", "selfplay_env_steps_per_s_beside_batch", "{:,.0f}"),
    ("batched / SelfPlayVecEnv", "batch_env_ratio_vs_selfplay", "{:.1f}x"),
)
TABLE_COLUMNS = (
    # (heading, key, format)
    ("game", "game", "{}"),
    ("players", "num_players", "{}"),
    ("raw decisions/s", "decisions_per_s", "{:,.0f}"),
    ("AEC steps/s", "aec_steps_per_s", "{:,.0f}"),
    ("AEC vs connect_four_v3", "aec_ratio_vs_connect_four", "{:.2f}x"),
    ("observation µs", "observation_us", "{:.1f}"),
    ("legal_actions µs", "legal_actions_us", "{:.1f}"),
    ("clone µs", "clone_us", "{:.1f}"),
    ("determinize µs", "determinize_us", "{:.1f}"),
    ("heuristic decisions/s", "heuristic_decisions_per_s", "{:,.0f}"),
    ("heuristic vs connect_four_v3", "heuristic_ratio_vs_connect_four", "{:.2f}x"),
    ("ISMCTS iteration µs", "search_iteration_us", "{:,.0f}"),
    ("native raw decisions/s (in engine)", "native_playout_decisions_per_s", "{:,.0f}"),
    ("native / Python raw", "native_playout_ratio_vs_python", "{:.1f}x"),
    ("native Game-API decisions/s", "native_decisions_per_s", "{:,.0f}"),
    ("native / Python Game API", "native_raw_ratio_vs_python", "{:.1f}x"),
    ("Game-API ceiling / Python", "game_api_ceiling_ratio_vs_python", "{:.1f}x"),
    ("native heuristic decisions/s", "native_heuristic_decisions_per_s", "{:,.0f}"),
    ("native / Python heuristic", "native_heuristic_ratio_vs_python", "{:.1f}x"),
    ("native AEC vs connect_four_v3", "native_aec_ratio_vs_connect_four", "{:.2f}x"),
    ("native ISMCTS iteration µs", "native_search_iteration_us", "{:,.0f}"),
    ("Python / native ISMCTS iteration", "native_search_ratio_vs_python", "{:.1f}x"),
    ("native clone µs", "native_clone_us", "{:.2f}"),
    ("native determinize µs", "native_determinize_us", "{:.2f}"),
    ("native observation µs", "native_observation_us", "{:.2f}"),
    *BATCH_COLUMNS,
)


def cell(row: dict, key: str, fmt: str) -> str:
    """`row[key]` in `fmt`, "-" if not measured; a ratio with an interval as "x (lo-hi)"."""
    value = row.get(key)
    if value is None:
        return "-"
    interval = row.get(f"{key}_interval")
    if interval is None:
        return fmt.format(value)
    low, high = (fmt.format(bound).rstrip("x") for bound in interval)
    return f"{fmt.format(value)} ({low}-{high})"


def markdown_table(rows: list[dict]) -> str:
    """The figures as one Markdown table, a row per game and player count."""
    lines = ["| " + " | ".join(h for h, _, _ in TABLE_COLUMNS) + " |", "|" + "---|" * len(TABLE_COLUMNS)]
    lines += ["| " + " | ".join(cell(row, key, fmt) for _, key, fmt in TABLE_COLUMNS) + " |" for row in rows]
    return "\n".join(lines)


def text_table(rows: list[dict]) -> str:
    """The same table aligned for a terminal."""
    cells = [[h for h, _, _ in TABLE_COLUMNS]]
    cells += [[cell(row, key, fmt) for _, key, fmt in TABLE_COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(TABLE_COLUMNS))]
    return "\n".join(
        "  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True)))
        for line in cells
    )


SECTION = "speed"  # docs/speed.md's <!-- tables:speed --> section


def doc_section(result: dict) -> str:
    """The generated section of docs/speed.md, made from `run_all`'s JSON alone."""
    return (
        f"{markdown_table(result['rows'])}\n\n"
        f"Each measurement ran about {result['seconds']:g} s (seed {result['seed']}); the raw figures are in "
        f"[speed.json](speed.json)."
    )


def write_doc(path: str | Path, result: dict) -> None:
    """Fill the `speed` section of the Markdown file at `path` with `doc_section` (one ValueError if it has none)."""
    write_sections(path, {SECTION: doc_section(result)}, (SECTION,))


def write_json(path: str | Path, result: dict) -> None:
    Path(path).write_text(json.dumps(result, indent=1) + "\n")
