"""Generated sections of Markdown pages: a command writes its figures between two markers from the JSON it
measured, so no figure there is typed by hand, and a test compares the page with what the command writes.

One marker style: named sections `<!-- tables:NAME -->` ... `<!-- /tables:NAME -->` (`fill`,
`write_sections`), several per page. A command writes only the sections it is given and leaves every
other section of the page as it is, so that several commands can share a page; `lab/sections.py` writes
(or checks) every one of the repository's pages from its committed JSON.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from city_envs.core.settings import read_document

NO_RESULTS = "*No results yet.*"  # the body of a section whose command has no results to show yet
MARKER = re.compile(r"(<!-- tables:(?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /tables:(?P=name) -->)", re.S)


_PLAIN = re.compile(r"[A-Za-z0-9 _:.=/,+~@()-]*")  # what agent specs, task and line-up names are made of


def cell(text: object) -> str:
    """`text` from a file as a Markdown table cell that shows it and nothing more: text of the usual
    characters as it is, anything else with every other character an HTML entity (a newline, `|`,
    `<script>`, a backtick or a marker comment can neither break the table nor the page)."""
    text = str(text)
    if _PLAIN.fullmatch(text) and "__" not in text:
        return text
    return "".join(ch if ch.isascii() and (ch.isalnum() or ch == " ") else f"&#{ord(ch)};" for ch in text)


def code_cell(text: object) -> str:
    """`text` from a file as code in a Markdown table cell (an agent spec): in backticks when it is made of
    the usual characters, else escaped by `cell` inside `<code>` (backticks would show the entities)."""
    text = str(text)
    return f"`{text}`" if _PLAIN.fullmatch(text) else f"<code>{cell(text)}</code>"


def fill(text: str, tables: dict[str, str]) -> str:
    """`text` with each marked section named in `tables` replaced by its table; the others stay as they are."""

    def replace(match: re.Match) -> str:
        body = tables.get(match["name"])
        return match.group(0) if body is None else f"{match.group(1)}{body}\n{match.group(4)}"

    return MARKER.sub(replace, text)


def section_names(text: str) -> list[str]:
    return [match["name"] for match in MARKER.finditer(text)]


def write_sections(path: str | Path, tables: dict[str, str], required: tuple[str, ...] = ()) -> list[str]:
    """Fill the sections of the page at `path` that `tables` names, leaving its other sections as they are
    (one ValueError if it has none, or lacks one of `required`); the names of the sections filled."""
    path = Path(path)
    text = read_document(path)
    names = section_names(text)
    missing = [name for name in required if name not in names]
    if missing:
        raise ValueError(f"{path} has no {' or '.join(f'<!-- tables:{name} -->' for name in missing)} section to fill")
    if not names:
        raise ValueError(f"{path} has no <!-- tables:NAME --> sections to fill")
    path.write_text(fill(text, tables))
    return [name for name in names if name in tables]


def link_from(page: str | Path, target: str | Path) -> str:
    """A Markdown link to `target` as `page` reaches it (relative to the page's folder), named by its file."""
    relative = os.path.relpath(os.path.abspath(target), os.path.dirname(os.path.abspath(page)))
    return f"[{Path(target).name}]({Path(relative).as_posix()})"
