"""The project's docs and code stand alone: nothing sends a reader to design material outside the
repository (the rules references and the design notes it was built from are not shipped)."""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

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


# ----- rule citations in the code resolve to a numbered heading of the game's docs page -----------------
GAME_NAMES = ("citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl")
# "### 2.5 Tokens" or "### 5.1-5.8 Characters" (a range stands for each section in it)
HEADING = re.compile(r"^#{2,4} (\d+(?:\.\d+)*)(?:-(\d+(?:\.\d+)*))? ", re.MULTILINE)
# "(2.5)", "5.5-5.8", "3.1 step 4" cite a subsection; "§6" a whole section. A number below 1 such as
# 0.5 is a quantity, never a section.
CITATION = re.compile(r"§(\d+(?:\.\d+)*)|(?<![\w.])([1-9]\d?\.\d{1,2}(?:\.\d+)?)(?![\w.])")
# How citations were written before they had to resolve: this pattern would not see them.
UNCHECKED_FORM = re.compile(r"\((?:[Ss]ection|rule) \d|\b[Ss]ections? \d+\.\d|\brules? (?:of thumb )?\d")


def numbered_headings(page: str) -> set[str]:
    numbers = set()
    for first, last in HEADING.findall(page):
        numbers.add(first)
        if last:
            head, low = first.rsplit(".", 1)
            high = last.rsplit(".", 1)[1]
            numbers.update(f"{head}.{minor}" for minor in range(int(low), int(high) + 1))
    return numbers


def citations(source: str) -> list[tuple[int, str]]:
    """(line, section) of each citation in the comments and strings of Python `source`."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for match in CITATION.finditer(token.string):
                line = token.start[0] + token.string[: match.start()].count("\n")
                found.append((line, match.group(1) or match.group(2)))
    return found


def code_files(game: str) -> list[Path]:
    return sorted((ROOT / "city_envs" / game).glob("*.py")) + [ROOT / "agents" / f"{game}_heuristic.py"]


def dangling(game: str, sources: dict[str, str]) -> list[str]:
    headings = numbered_headings((ROOT / "docs" / "games" / f"{game}.md").read_text(encoding="utf-8"))
    return [
        f"{name}:{line}: ({section})"
        for name, source in sources.items()
        for line, section in citations(source)
        if section not in headings
    ]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_rule_citation_in_the_code_is_a_heading_of_the_games_page(game):
    sources = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in code_files(game)}
    assert sum(len(citations(source)) for source in sources.values()) >= 10
    missing = dangling(game, sources)
    assert not missing, f"docs/games/{game}.md has no numbered heading for:\n" + "\n".join(missing)
    old_forms = [
        f"{name}:{number}: {line.strip()}"
        for name, source in sources.items()
        for number, line in enumerate(source.splitlines(), 1)
        if UNCHECKED_FORM.search(line)
    ]
    assert not old_forms, "cite as (2.5) or §6, which the check above reads:\n" + "\n".join(old_forms)


def test_the_citation_check_catches_a_dangling_reference():
    planted = '"""Scores (6.4); the rest (7.9)."""\n# rows (§12), as drawn 0.5 wide\n'
    assert citations(planted) == [(1, "6.4"), (1, "7.9"), (2, "12")]
    assert dangling("metropolys", {"planted.py": planted}) == ["planted.py:1: (7.9)", "planted.py:2: (12)"]
    assert UNCHECKED_FORM.search("# ===== setup (section 3) =====") and UNCHECKED_FORM.search("(rule 6.3)")


def test_a_heading_range_stands_for_each_section_in_it():
    assert numbered_headings("## 5 Abilities\n### 5.1-5.3 Characters\n### 5.9 Unique\n") == {
        "5",
        "5.1",
        "5.2",
        "5.3",
        "5.9",
    }
