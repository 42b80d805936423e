"""Settings in TOML: `KEY=VALUE` typed on the command line (`--option` of every command, `--set` of
`train`) and the files that hold them (training configs).

Both doors read a value the same way, so what works in one works in the other and in a config file.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib


def parse_value(text: str) -> Any:
    """`text` as a TOML value, as the config files write it (`true`, `1e-4`, `1_200_000`, `{pi = [64]}`);
    else as a Python literal (`True`, `None`); else the text itself (a path, `south,west`, an agent
    spec such as `ismcts:iters=50`). Text that holds more than one TOML line stays text."""
    try:
        parsed = tomllib.loads(f"value = {text}")
        return parsed["value"] if list(parsed) == ["value"] else text
    except ValueError:  # not TOML (TOMLDecodeError), or a number too long to convert
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # not a literal, or {[]: 1}
        return text


def parse_assignments(pairs: list[str] | None, flag: str) -> dict[str, Any]:
    """`KEY=VALUE` strings given with `flag` to a dict of parsed values; a later key wins."""
    values: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, text = pair.partition("=")
        name = key.strip()
        if not sep or not name:
            raise ValueError(f"{flag} {pair!r} is not of the form KEY=VALUE")
        values[name] = parse_value(text)
    return values


def read_measurement(path: str | Path, measurement: str, name: str, check: Callable[[dict], object]) -> dict:
    """A JSON file a measurement wrote (its `"measurement"` is `measurement`), checked by `check` (which
    reads every figure a table needs): anything else is one ValueError naming the file and what it
    should be (`name`, with its article: "a privileged_ab summary.json")."""
    try:
        data = json.loads(read_document(path))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON ({error})") from None
    if not isinstance(data, dict) or data.get("measurement") != measurement:
        raise ValueError(f'{path} is not {name} (no "measurement": "{measurement}")')
    try:
        check(data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        noun = name.split(" ", 1)[1]
        raise ValueError(f"{path}: a malformed {noun} ({type(error).__name__}: {error})") from None
    return data


def read_document(path: str | Path) -> str:
    """The text of a page a command rewrites in place (`--docs`): a regular file, or one ValueError
    naming it. A FIFO or a device would block the command; a folder or a missing file would end it in
    a traceback."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file" + ("" if path.exists() else " (it does not exist)"))
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} cannot be read: {error}") from None


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file's table; a file that is not TOML is a ValueError naming it."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path} is not valid TOML: {error}") from None
