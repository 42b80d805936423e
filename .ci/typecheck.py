#!/usr/bin/env python3
"""The type checker in CI: mypy over the whole `city_envs` package, as it installs.

    python .ci/typecheck.py            # check; exit 1 on an error in a clean area or a new error elsewhere
    python .ci/typecheck.py --update   # rewrite the baseline from what mypy reports now

The repository keeps `city_envs.agents` and `city_envs.training` in the top-level folders agents/ and
training/ (a package-dir mapping in pyproject.toml). mypy cannot follow setuptools' editable import
hook, nor a package-dir mapping, so this script first lays a shadow package, .mypy_shadow/city_envs/:
one symlink per entry of city_envs/, plus agents -> agents/ and training -> training/. pyproject.toml
points mypy there (`mypy_path`), so mypy reads the package exactly as Python imports it, whatever the
install mode. The reported paths are mapped back to the repository's own (agents/..., city_envs/...).

Areas listed in CLEAN must report no error at all. Everywhere else an error must be one that the
baseline (.ci/typecheck-baseline.txt: file, message and code, without line numbers so that edits do
not churn it; one line per occurrence) already holds; anything more is printed and fails the run.
Entries that mypy no longer reports are listed so the baseline can be shrunk with --update.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
SHADOW = ROOT / ".mypy_shadow"
BASELINE = ROOT / ".ci" / "typecheck-baseline.txt"
# folders that install as city_envs.<name> from elsewhere in the repository: pyproject.toml's package-dir
PACKAGE_DIR = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
MAPPED = {name.removeprefix("city_envs."): folder for name, folder in PACKAGE_DIR.items()}
# areas that must stay free of errors: a folder (ending in /) or a file, as the repository names them.
# All of the package but training/baseline_tables.py and training/throughput.py, which the baseline
# still governs; training/ is therefore listed file by file.
CLEAN = (
    "city_envs/",
    "agents/",
    "training/__init__.py",
    "training/algorithms.py",
    "training/arena.py",
    "training/checkpoint.py",
    "training/config.py",
    "training/evaluation.py",
    "training/expert.py",
    "training/exploit.py",
    "training/ladder.py",
    "training/pool.py",
    "training/pretrain.py",
    "training/privileged_ab.py",
    "training/selfplay.py",
    "training/split_env.py",
    "training/vec_env.py",
)

ERROR = re.compile(r"^(?P<path>[^:\n]+\.pyi?):(?P<line>\d+)(?::\d+)?: error: (?P<message>.*)$")


def build_shadow() -> None:
    """.mypy_shadow/city_envs/ laid anew, so files added since the last run are seen."""
    package = SHADOW / "city_envs"
    if SHADOW.exists():
        shutil.rmtree(SHADOW)
    package.mkdir(parents=True)
    for entry in sorted((ROOT / "city_envs").iterdir()):
        if entry.name != "__pycache__" and entry.name not in MAPPED:
            (package / entry.name).symlink_to(os.path.relpath(entry, package))
    for name, folder in MAPPED.items():
        (package / name).symlink_to(os.path.relpath(ROOT / folder, package))


def repository_path(reported: str) -> str:
    """A path as mypy reports it (through the shadow) as the repository names it."""
    path = Path(reported)
    if not path.is_absolute():
        path = ROOT / path
    try:
        parts = path.relative_to(SHADOW / "city_envs").parts
    except ValueError:  # not through the shadow: a file of the repository, or one outside it
        resolved = path.resolve()
        return resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else resolved.as_posix()
    if parts and parts[0] in MAPPED:
        return Path(MAPPED[parts[0]], *parts[1:]).as_posix()
    return Path("city_envs", *parts).as_posix()


def run_mypy() -> tuple[list[tuple[str, int, str]], str]:
    """(path, line, message) of every error mypy reports, and its whole output."""
    build_shadow()
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty", "--show-error-codes", "--no-color-output"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    output = done.stdout + done.stderr
    errors = []
    for line in output.splitlines():
        match = ERROR.match(line)
        if match:
            errors.append((repository_path(match["path"]), int(match["line"]), match["message"].strip()))
    if done.returncode not in (0, 1) or (done.returncode == 1 and not errors):
        sys.exit(f"typecheck: mypy failed to run (exit {done.returncode}):\n{output}")
    return errors, output


def in_clean_area(path: str) -> bool:
    return any(path.startswith(area) if area.endswith("/") else path == area for area in CLEAN)


def key(path: str, message: str) -> str:
    return f"{path}: {message}"


def main() -> int:
    errors, _ = run_mypy()
    found = collections.Counter(key(path, message) for path, _, message in errors if not in_clean_area(path))
    if "--update" in sys.argv[1:]:
        header = "# mypy errors known outside the clean areas (.ci/typecheck.py); one line per occurrence\n"
        BASELINE.write_text(header + "".join(f"{entry}\n" for entry in sorted(found.elements())))
        print(f"typecheck: baseline rewritten with {sum(found.values())} errors")
    lines = BASELINE.read_text().splitlines() if BASELINE.exists() else []
    known = collections.Counter(line for line in lines if line and not line.startswith("#"))
    clean_errors = [(path, line, message) for path, line, message in errors if in_clean_area(path)]
    new_keys = found - known
    new_errors = []
    for path, line, message in errors:  # the new occurrences with their lines, in mypy's order
        if new_keys[key(path, message)] > 0 and not in_clean_area(path):
            new_keys[key(path, message)] -= 1
            new_errors.append((path, line, message))
    gone = known - found
    if gone:
        print(f"typecheck: {sum(gone.values())} baseline errors are gone (python .ci/typecheck.py --update):")
        for entry in sorted(gone.elements()):
            print(f"  {entry}")
    if clean_errors:
        print(f"typecheck: {len(clean_errors)} errors where none are allowed (CLEAN in .ci/typecheck.py):")
        for path, line, message in clean_errors:
            print(f"{path}:{line}: error: {message}")
    if new_errors:
        print(f"typecheck: {len(new_errors)} new errors, not in {BASELINE.relative_to(ROOT)}:")
        for path, line, message in new_errors:
            print(f"{path}:{line}: error: {message}")
    if clean_errors or new_errors:
        return 1
    print(f"typecheck: ok ({len(errors)} errors, all known ones outside the clean areas)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
