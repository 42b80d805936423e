"""Files written whole or not at all: a kill mid-write leaves the previous file, never half of a new one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def written_whole(path: Path) -> Iterator[Path]:
    """A temporary path beside `path` for the block to write; when the block ends it replaces `path` in one
    rename. If the block raises, the temporary file is removed and `path` is left as it was."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        yield temporary
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)


def write_text_whole(path: Path, text: str) -> None:
    """`path.write_text(text)`, written whole or not at all."""
    with written_whole(path) as temporary:
        temporary.write_text(text)
