"""`KEY=VALUE` settings from the command line: one reading for `--option` and `--set`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from city_envs.core.settings import parse_assignments, parse_value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True),
        ("False", False),
        ("None", None),
        ("7", 7),
        ("1_200_000", 1_200_000),
        ("1e-4", 1e-4),
        ("'expert'", "expert"),
        ("expert", "expert"),
        ("south,west", "south,west"),
        ("[1, 2]", [1, 2]),
        ("{pi = [64], vf = [32]}", {"pi": [64], "vf": [32]}),
        ("{'pi': [64]}", {"pi": [64]}),
        ("ismcts:iters=50", "ismcts:iters=50"),
        ("runs/a b/model.safetensors", "runs/a b/model.safetensors"),
        ("1\nother = 2", "1\nother = 2"),
        ("", ""),
        ("{[]: 1}", "{[]: 1}"),
        ("9" * 5000, "9" * 5000),
        ("[" * 10_000 + "]" * 10_000, "[" * 10_000 + "]" * 10_000),  # tomllib recursed past Python's limit
        ("{a = " * 3_000 + "1" + "}" * 3_000, "{a = " * 3_000 + "1" + "}" * 3_000),
    ],
)
def test_a_value_is_toml_then_a_python_literal_then_text(text, value):
    assert parse_value(text) == value


@given(st.one_of(st.booleans(), st.integers(-(10**9), 10**9), st.lists(st.integers(0, 99), max_size=4)))
def test_what_a_config_file_writes_reads_back(value):
    text = str(value).lower() if isinstance(value, bool) else str(value)
    assert parse_value(text) == value


@given(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
        st.text(alphabet="{}[]()=:,'\" 01ab.-", max_size=30),
    )
)
def test_any_text_gives_a_value_and_never_an_error(text):
    parse_value(text)


def test_assignments_name_their_flag_when_one_is_malformed():
    assert parse_assignments(["a=1", " b =x", "a=2"], "--option") == {"a": 2, "b": "x"}
    assert parse_assignments(None, "--option") == {}
    for bad in ("a", "=1"):
        with pytest.raises(ValueError, match=f"--option '{bad}' is not of the form KEY=VALUE"):
            parse_assignments([bad], "--option")
