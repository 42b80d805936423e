"""Secret seeds for a benchmark run: a salt the maintainer keeps until the run is over, and the line-up
seeds derived from it (`SALTED_SEEDS`), which nobody can know before the salt is revealed."""

from __future__ import annotations

import hashlib
from pathlib import Path

from city_envs.evaluation.results import BenchmarkError
from city_envs.evaluation.suite import Suite

SALTED_SEEDS = "SHA-256(salt + ':' + the suite's line-up seed in decimal), first 8 bytes big-endian, >> 1"
SALT_LENGTH = (32, 4096)  # characters of a salt: enough to be unguessable, short enough to read


def read_salt(path: str | Path) -> bytes:
    """The secret salt in the file `path`: its text without surrounding whitespace, 32 to 4,096
    printable ASCII characters (such as `python -c "import secrets; print(secrets.token_hex(32))"`).
    Anything else is a `BenchmarkError` in one line."""
    path = Path(path)
    try:
        if not path.is_file():
            raise BenchmarkError(f"salt file {path}: not a regular file")
        if path.stat().st_size > 2 * SALT_LENGTH[1]:
            raise BenchmarkError(f"salt file {path}: {path.stat().st_size} bytes, more than a salt takes")
        salt = path.read_bytes().strip()
    except OSError as error:
        raise BenchmarkError(f"salt file {path}: unreadable ({error.strerror})") from None
    if not all(32 < byte < 127 for byte in salt):
        raise BenchmarkError(f"salt file {path}: the salt must be printable ASCII without spaces (such as hex digits)")
    if not SALT_LENGTH[0] <= len(salt) <= SALT_LENGTH[1]:
        raise BenchmarkError(
            f"salt file {path}: a salt of {len(salt)} characters; it takes {SALT_LENGTH[0]} to {SALT_LENGTH[1]}"
        )
    return salt


def salt_digest(salt: bytes) -> str:
    """The SHA-256 (hex) of a salt, which a salted result records before its first match."""
    return hashlib.sha256(salt).hexdigest()


def salted_seed(seed: int, salt: bytes) -> int:
    """A line-up's secret seed: the first 8 bytes of SHA-256(salt + b":" + the suite's seed in decimal),
    as a big-endian integer, shifted right by one bit (below 2**63, as the suite's seeds are)."""
    digest = hashlib.sha256(salt + b":" + str(seed).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def lineup_seed(suite: Suite, lineup: str, salt: bytes | None = None) -> int:
    """The seed `lineup`'s matches are played on: the suite's, or its salted secret seed."""
    return suite.seed(lineup) if salt is None else salted_seed(suite.seed(lineup), salt)
