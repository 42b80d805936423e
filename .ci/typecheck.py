#!/usr/bin/env python3
"""The type checker in CI: mypy over the whole `city_envs` package, as it installs.

    python .ci/typecheck.py            # check; exit 1 on any error

The repository keeps `city_envs.agents` and `city_envs.training` in the top-level folders agents/ and
training/ (the wheel.packages mapping in pyproject.toml). mypy cannot follow an editable install's import
hook, nor that mapping, so this script first lays a shadow package, .mypy_shadow/city_envs/:
one symlink per entry of city_envs/, plus agents -> agents/ and training -> training/. pyproject.toml
points mypy there (`mypy_path`), so mypy reads the package exactly as Python imports it, whatever the
install mode. The reported paths are mapped back to the repository's own (agents/..., city_envs/...).

Every file of the package must type-check without an error: there is no baseline of tolerated ones.
"""

from __future__ import annotations

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
# folders that install as city_envs.<name> from elsewhere in the repository: pyproject.toml's wheel.packages
PACKAGES = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["scikit-build"]["wheel"]["packages"]
MAPPED = {name.removeprefix("city_envs/"): folder for name, folder in PACKAGES.items() if name != "city_envs"}
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


def main() -> int:
    errors, _ = run_mypy()
    if errors:
        print(f"typecheck: {len(errors)} errors:")
        for path, line, message in errors:
            print(f"{path}:{line}: error: {message}")
        return 1
    print("typecheck: ok (no errors)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
