"""Every native engine's committed tables header, native/<game>/components.hpp, is what its generator
native/<game>/generate.py writes from the Python engine's tables today; each generator has one interface
(`HEADER`, `render()`, a command line without arguments)."""

from __future__ import annotations

import importlib.util
import runpy
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES = sorted(header.parent.name for header in ROOT.glob("native/*/components.hpp"))


def generator(game: str) -> ModuleType:
    """native/<game>/generate.py, loaded as a module (not run)."""
    script = ROOT / "native" / game / "generate.py"
    assert script.is_file(), f"native/{game}/components.hpp has no generator beside it"
    spec = importlib.util.spec_from_file_location(f"native_{game}_generate", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", GAMES)
def test_the_committed_header_is_a_fresh_generation(game: str) -> None:
    module = generator(game)
    assert module.HEADER == ROOT / "native" / game / "components.hpp"
    command = f"python native/{game}/generate.py"
    assert module.HEADER.read_text() == module.render(), f"{module.HEADER} is stale: run `{command}`"


@pytest.mark.parametrize("game", GAMES)
def test_a_generator_refuses_arguments(game: str, monkeypatch, capsys, tmp_path) -> None:
    """The header has one place: an output path on the command line is refused (exit 2), nothing written."""
    script = ROOT / "native" / game / "generate.py"
    before = (ROOT / "native" / game / "components.hpp").stat().st_mtime_ns
    monkeypatch.setattr(sys, "argv", [str(script), str(tmp_path / "components.hpp")])
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(script), run_name="__main__")
    assert stop.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
    assert (ROOT / "native" / game / "components.hpp").stat().st_mtime_ns == before
