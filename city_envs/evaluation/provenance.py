"""What a benchmark result records of what made it: the package versions, the engines' code, and the
files that decide how the candidate plays, each with its SHA-256 (paths relative to where the run
started, never a machine's absolute path)."""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from city_envs.agents.spec import AgentSpec
from city_envs.core.registry import game_class
from city_envs.evaluation.arena import portable_path
from city_envs.evaluation.suite import Task

PACKAGES = ("city-envs", "numpy", "torch", "stable-baselines3", "sb3-contrib", "pettingzoo", "gymnasium", "rliable")


def package_versions() -> dict[str, str]:
    """Python's version and each of `PACKAGES`' installed versions ("not installed" where it is not)."""
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree_digest(files: Sequence[Path], root: Path) -> str:
    """SHA-256 over files: one line per file, its path relative to `root` and its own SHA-256."""
    lines = [f"{path.relative_to(root).as_posix()} {_sha256(path)}\n" for path in sorted(files)]
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def engine_provenance(tasks: Sequence[Task]) -> dict:
    """Which engine plays each task (`native` or `python`: the game class's `engine`) and digests of
    the engines' code as installed: the native module's file (absent where it is not built) and the
    Python engine's sources (`city_envs/core` and each task's game package)."""
    import city_envs
    from city_envs.core import native

    package = Path(city_envs.__file__).resolve().parent
    games = sorted({task.game for task in tasks})
    sources = [p for folder in ("core", *games) for p in (package / folder).rglob("*.py")]
    built = getattr(native._native, "__file__", None)
    return {
        "version": metadata.version("city-envs"),
        "tasks": {task.name: getattr(game_class(task.game), "engine", "python") for task in tasks},
        "native": None if built is None else {"file": Path(built).name, "sha256": _sha256(Path(built))},
        "python": {"files": len(sources), "sha256": _tree_digest(sources, package)},
    }


def agent_files(spec: str, tasks: Sequence[Task], modules: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """The files that decide how `spec` plays, with their SHA-256 and their paths relative to where the
    run started: the policy file a ppo agent or a guided search names, else each task's committed
    baseline, or every module of a `module:Class` agent's own package that its process had loaded
    (`modules`, by name, from `benchmark.check_agent`). Other built-in bots have none: the package
    version says what they are."""
    agent = AgentSpec.parse(spec)
    if agent.kind == "user":
        package = agent.module.partition(".")[0]
        found = {
            module: Path(path)
            for module, path in sorted((modules or {}).items())
            if (module == package or module.startswith(package + ".")) and Path(path).is_file()
        }
        return {module: {"path": portable_path(path), "sha256": _sha256(path)} for module, path in found.items()}
    if not agent.plays_policy():
        return {}
    if agent.policy is not None:
        return {"policy": {"path": portable_path(Path(agent.policy)), "sha256": _sha256(Path(agent.policy))}}
    files = {}
    for task in tasks:
        path = agent.policy_path(task.game, task.players)
        if path is not None and path.is_file():
            files[task.name] = {"path": path.name, "sha256": _sha256(path)}
    return files
