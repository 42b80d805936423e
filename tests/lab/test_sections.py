"""Every generated section of the repository's pages is what `lab.sections` writes from its committed
JSON, and its command rewrites a page that is not current."""

from __future__ import annotations

import shutil

import pytest

from lab import sections


@pytest.mark.parametrize("page", sorted(sections.PAGES))
def test_every_generated_section_is_current(page):
    assert page in sections.pages_with_sections()
    now, written = sections.page_sections(page, verify=False)  # the replays are test_verify_committed's
    assert now == written, f"{page}: rerun `python -m lab.sections`"


def test_every_page_with_a_generated_section_has_its_writer():
    assert set(sections.pages_with_sections()) == set(sections.PAGES)


@pytest.fixture
def speed_only(tmp_path, monkeypatch):
    """A repository of docs/speed.md and its JSON alone."""
    (tmp_path / "docs").mkdir()
    for name in ("speed.md", "speed.json"):
        shutil.copyfile(sections.ROOT / "docs" / name, tmp_path / "docs" / name)
    monkeypatch.setattr(sections, "ROOT", tmp_path)
    monkeypatch.setattr(sections, "PAGES", {"docs/speed.md": (sections.speed,)})
    return tmp_path / "docs" / "speed.md"


def test_check_names_a_stale_page_and_the_command_rewrites_it(speed_only, capsys):
    current = speed_only.read_text()
    speed_only.write_text(current.replace("the raw figures are in", "the figures are in"))
    assert sections.main(["--check"]) == 1
    assert capsys.readouterr().out == "docs/speed.md: not current\n"
    assert sections.main([]) == 0 and speed_only.read_text() == current
    assert sections.main(["--check"]) == 0


@pytest.mark.parametrize(
    ("page", "text", "message"),
    [
        ("docs/speed.md", "<!-- tables:other -->\n<!-- /tables:other -->\n", "nothing writes the sections ['other']"),
        ("docs/new.md", "<!-- tables:speed -->\n<!-- /tables:speed -->\n", "nothing writes the generated sections"),
    ],
)
def test_a_section_nothing_writes_is_one_line(speed_only, capsys, page, text, message):
    path = speed_only.parent.parent / page
    path.write_text(path.read_text() + text if path.exists() else text)
    before = path.read_text()
    assert sections.main([]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and path.read_text() == before
