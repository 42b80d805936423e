"""Files written whole or not at all (city_envs/core/files.py)."""

from __future__ import annotations

import pytest

from city_envs.core.files import write_text_whole, written_whole


def test_a_file_written_whole_replaces_the_old_one_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old")
    write_text_whole(path, "new")
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_write_that_fails_midway_leaves_the_previous_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old")
    with pytest.raises(RuntimeError, match="killed"), written_whole(path) as temporary:
        temporary.write_text("half of the ne")
        raise RuntimeError("killed mid-write")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_a_first_write_that_fails_leaves_no_file(tmp_path):
    path = tmp_path / "policy.safetensors"
    with pytest.raises(KeyboardInterrupt), written_whole(path) as temporary:
        temporary.write_bytes(b"\0" * 10)
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
