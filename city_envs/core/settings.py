"""Settings in TOML: `KEY=VALUE` typed on the command line (`--option` of every command, `--set` of
`train`) and the files that hold them (training configs).

Both doors read a value the same way, so what works in one works in the other and in a config file.
"""

from __future__ import annotations

import ast
import json
import math
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
    except (ValueError, RecursionError):  # not TOML (TOMLDecodeError), a number too long to convert, too deep
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


MAX_JSON_BYTES = 256 * 2**20  # a results file of the largest suite is a few MB
MAX_JSON_INT = 2**64  # seeds, counts and steps are far below it; float() of a 400-digit integer overflows


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:20]} is not finite")
    return value


def _bounded_int(text: str) -> int:
    if len(text) > 24 or abs(int(text)) >= MAX_JSON_INT:
        raise ValueError(f"the integer {text[:20]}... is out of range (|n| < 2**64)")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a result can hold")


def loads_json(text: str, source: str) -> Any:
    """`text` parsed as JSON a file from outside holds: finite numbers, integers below 2**64, nesting
    Python can read; anything else is one ValueError naming `source`."""
    try:
        return json.loads(text, parse_float=_finite, parse_int=_bounded_int, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"{source} is not JSON a result can hold: it nests too deeply") from None
    except ValueError as error:  # JSONDecodeError is one
        raise ValueError(f"{source} is not JSON a result can hold ({error})") from None


def read_json(path: str | Path) -> Any:
    """A JSON file read from outside (a result, a record): a regular file of at most `MAX_JSON_BYTES`,
    parsed by `loads_json`; anything else is one ValueError naming it."""
    path = Path(path)
    if path.is_file() and path.stat().st_size > MAX_JSON_BYTES:
        raise ValueError(f"{path} is larger than {MAX_JSON_BYTES // 2**20} MB: not a result this reads")
    return loads_json(read_document(path), str(path))


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
    """A TOML file's table; a file that is not a regular file of TOML (a FIFO, nesting too deep for
    the parser) is a ValueError naming it."""
    try:
        return tomllib.loads(read_document(path))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path} is not valid TOML: {error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not valid TOML: its tables or arrays nest too deeply") from None
