"""The project's docs and code stand alone: nothing sends a reader to design material outside the
repository (the rules references and the design notes it was built from are not shipped)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".md", ".py", ".ipynb", ".toml", ".txt", ".cfg", ".yml", ".yaml"}
# Built from pieces so that this file does not match itself.
OUTSIDE_POINTERS = re.compile("|".join([r"\bshared" + "/", r"\bspec" + r" sections?\b"]))


def repository_text_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        files = [ROOT / name for name in listed]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an unpacked sdist)
        files = [path for path in ROOT.rglob("*") if ".git" not in path.parts]
    return [path for path in files if path.suffix in TEXT_SUFFIXES and path.is_file()]


def test_the_scan_sees_the_docs_and_the_code():
    names = {path.relative_to(ROOT).as_posix() for path in repository_text_files()}
    assert {"README.md", "docs/architecture.md", "docs/games/citadels.md", "city_envs/core/game.py"} <= names


def test_no_pointer_outside_the_repository():
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in repository_text_files()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE_POINTERS.search(line)
    ]
    assert not hits, "docs must stand alone; these lines point outside the repository:\n" + "\n".join(hits)
