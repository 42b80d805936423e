"""A published baseline that continued another policy keeps that policy, so its config reruns anywhere.

A run started with `init_from` (PPO continued from an earlier policy) depends on a file that lives
only on the machine it ran on, or that publishing would replace. `keep_parent` copies that policy into
the policy store (`training/baselines/policies/<sha256>.safetensors`) and its config and record, when
it has them, into `training/baselines/lineage/<task>_<first 12 hex of its sha256>.*`, and gives the
policy's path relative to the baselines folder, which is what the published config's `init_from` holds
(`load_config` reads a relative `init_from` from the config's folder). A parent that itself continued
another is kept the same way, so the whole chain ships in the wheel.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import tomli_w

from city_envs.agents.policy_agent import LINEAGE, STORE, stored_record
from city_envs.agents.policy_file import SUFFIX, check_tensor_index, read_metadata
from city_envs.core.settings import read_json, read_toml
from city_envs.training.evaluation import read_curve


def keep_parent(init: str | Path, baselines: str | Path, task: str, _chain: tuple[str, ...] = ()) -> str:
    """Copy the policy file `init` into `baselines`' policy store, and its config and record (a
    published policy's, found by its SHA-256, or a run folder's) into `baselines/lineage/` as
    `<task>_<first 12 hex of its sha256>.*`; the policy's path relative to `baselines`, as posix."""
    init, baselines = Path(init), Path(baselines)
    if not init.is_file():
        raise ValueError(f"init_from {init} is not a file: the policy the run continued must be kept with it")
    check_policy_file(init)  # only a policy file is ever copied into the baselines (which ship in the wheel)
    digest = hashlib.sha256(init.read_bytes()).hexdigest()
    stem = f"{task}_{digest[:12]}"
    if stem in _chain:
        raise ValueError(f"init_from {init}: its config's chain of init_from comes back to it")
    policy = baselines / STORE / f"{digest}{SUFFIX}"
    if not policy.is_file():
        policy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(init, policy)
    folder = baselines / LINEAGE
    folder.mkdir(parents=True, exist_ok=True)
    published = stored_record(init)
    config = _parent_config(init, published)
    if config is not None and not (folder / f"{stem}.toml").is_file():
        (folder / f"{stem}.toml").write_text(tomli_w.dumps(_relocated(config, folder, task, (*_chain, stem))))
    record = folder / f"{stem}.json"
    if not record.is_file():
        if published is not None and published.with_suffix(".json").is_file():  # a published policy's record
            shutil.copyfile(published.with_suffix(".json"), record)
        elif (init.parent / "evaluation.json").is_file():  # a run folder's model: how the run made it
            record.write_text(json.dumps({"policy": digest, **run_record(init.parent)}, indent=2) + "\n")
    return policy.relative_to(baselines).as_posix()


def check_policy_file(init: Path) -> None:
    """One ValueError unless `init` is a policy file: its header and tensor index check (`policy_file`)."""
    try:
        check_tensor_index(init, read_metadata(init))
    except ValueError as error:
        raise ValueError(f"init_from {init} is not a policy file: {error}") from None


def run_record(run: Path) -> dict:
    """What a finished run's folder tells of how its model was made: the training times, the curve point
    chosen and the curve (the part of a baseline's record that is not its evaluation)."""
    path = run / "evaluation.json"
    trained = read_json(path)
    if not isinstance(trained, dict):
        raise ValueError(f"{path} is not a run's evaluation: a {type(trained).__name__}, not an object")
    keys = ("timesteps", "ppo_timed_steps", "warm_start_seconds", "ppo_seconds", "ppo_steps_per_s", "seconds")
    for key in keys:
        value = trained.get(key)
        if value is not None and not (isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0):
            raise ValueError(f"{path}: {key} is {value!r}, not a count or time >= 0")
    if not isinstance(trained.get("selected"), (dict, type(None))):
        raise ValueError(f"{path}: selected is {trained['selected']!r}, not an object")
    return {
        "game": trained.get("game"),
        "players": trained.get("players"),
        "training": {k: trained[k] for k in keys if k in trained},
        "selected": trained.get("selected"),
        "curve": read_curve(run),
    }


def _parent_config(init: Path, published: Path | None) -> Path | None:
    """The config that made `init`: a published policy's `<name>.toml`, or a run folder's config.toml."""
    for candidate in (published and published.with_suffix(".toml"), init.parent / "config.toml"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def _relocated(config: Path, folder: Path, task: str, chain: tuple[str, ...]) -> dict:
    """`config`'s values with its own `init_from` kept too and written relative to `folder`."""
    values = read_toml(config)
    if values.get("init_from"):
        grandparent = config.parent / values["init_from"]  # relative: from the config's folder; absolute: as is
        kept = folder.parent / keep_parent(grandparent, folder.parent, task, chain)
        values["init_from"] = Path(os.path.relpath(kept, folder)).as_posix()
    return values


def lineage_chain(record: Path) -> list[Path]:
    """The records (paths without suffix) of the policies a baseline was made from, first to last: the
    policies its runs continued (each config's `init_from`, kept as `lineage/<task>_<sha256 prefix>`),
    then `record` itself (a baseline's, or a kept parent's)."""
    chain = [record]
    kept = record.parent.name == LINEAGE  # a kept parent's record: `<task>_<sha256 prefix>` in the lineage
    task = record.name.rsplit("_", 1)[0] if kept else record.name
    folder = record.parent if kept else record.parent / LINEAGE
    while init := read_toml(chain[0].with_suffix(".toml")).get("init_from"):
        digest = Path(init).stem
        parent = folder / f"{task}_{digest[:12]}"
        if parent in chain:
            raise ValueError(f"{chain[0]}: its chain of init_from comes back to {parent}")
        chain.insert(0, parent)
    return chain
