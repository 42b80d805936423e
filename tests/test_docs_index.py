"""The front door: the README leads to docs/index.md, which lists every docs page and every module of
the package with what it does (a game's modules once, as `city_envs/<game>/...`)."""

from __future__ import annotations

import re
from pathlib import Path

from city_envs.core.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
INDEX = ROOT / "docs" / "index.md"


def generic(path: str) -> str:
    """`path` with its game's name as `<game>`, as the index lists a game's modules."""
    for game in GAMES:
        path = re.sub(rf"(?<=/){game}(?=/|_v0\.py|_heuristic\.py)", "<game>", path)
    return path


def package_modules() -> set[str]:
    modules = set()
    for folder in ("city_envs", "agents", "training"):
        for path in (ROOT / folder).rglob("*.py"):
            name = path.relative_to(ROOT).as_posix()
            if path.name != "__init__.py" or name == "city_envs/__init__.py" or "/<game>/" in generic(name):
                modules.add(generic(name))
    return modules


def test_the_index_lists_every_module_with_what_it_does():
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.*) \|$", INDEX.read_text(), re.MULTILINE))
    missing = sorted(package_modules() - set(rows))
    assert not missing, f"docs/index.md lacks {missing}"
    assert not sorted(set(rows) - package_modules()), "docs/index.md lists modules that are gone"
    assert all(len(text.split()) >= 3 for text in rows.values())


def test_the_index_links_every_page_and_the_readme_links_the_index():
    text = INDEX.read_text()
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"index.md"}
    assert not sorted(page for page in pages if f"]({page})" not in text)
    assert "](docs/index.md)" in (ROOT / "README.md").read_text()
    assert len((ROOT / "README.md").read_text().splitlines()) <= 120
