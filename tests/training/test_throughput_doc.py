"""The throughput benchmark's table in docs/training.md is made from its JSON, and its command line's
doors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from city_envs.training import throughput  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ROWS = [
    {
        "game": "metropolys",
        "players": 4,
        "steps": 8192,
        "reference_steps_per_s": 120,
        "default_steps_per_s": 600,
        "ratio": 5.0,
        "workers": {"2": 900},
        "workers_speedup": {"2": 1.5},
    },
    {
        "game": "big_city",
        "players": 4,
        "steps": 8192,
        "reference_steps_per_s": 1234,
        "default_steps_per_s": 2000,
        "ratio": 1.62,
        "workers": {"2": 2500},
        "workers_speedup": {"2": 1.25},
    },
]


def test_the_4_player_table_in_the_docs_is_its_json():
    source = ROOT / "docs" / "throughput_4p.json"
    page = (ROOT / "docs" / "training.md").read_text()
    assert throughput.DOC_BEGIN in page and throughput.DOC_END in page
    if not source.is_file():
        pytest.skip("docs/throughput_4p.json is not measured yet (see docs/training.md, Throughput)")
    section = throughput.doc_section(json.loads(source.read_text()), "docs/throughput_4p.json")
    assert section in page, "rerun: python -m city_envs.training.throughput --from-json ... --doc docs/training.md"


def test_the_table_has_each_worker_count_beside_one_process():
    assert throughput.table(ROWS).splitlines() == [
        "| game (4 players, 8,192 steps each) | reference env steps/s | default (1 worker) env steps/s | ratio "
        "| 2 workers env steps/s | 2 workers / 1 worker |",
        "|---|---|---|---|---|---|",
        "| metropolys | 120 | 600 | 5.0x | 900 | 1.5x |",
        "| big_city | 1,234 | 2,000 | 1.62x | 2,500 | 1.25x |",
    ]


def test_from_json_rewrites_only_the_generated_section(tmp_path):
    rows = tmp_path / "t.json"
    rows.write_text(json.dumps(ROWS))
    page = tmp_path / "page.md"
    page.write_text(f"intro\n{throughput.DOC_BEGIN}\nold\n{throughput.DOC_END}\noutro\n")
    assert throughput.main(["--from-json", str(rows), "--doc", str(page)]) == 0
    text = page.read_text()
    assert text.startswith("intro\n") and text.endswith("\noutro\n") and "old" not in text
    assert throughput.doc_section(ROWS, str(rows)) in text and "[t.json](t.json)" in text
    page.write_text("no markers\n")
    with pytest.raises(SystemExit):
        throughput.main(["--from-json", str(rows), "--doc", str(page)])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "1,x"], "comma-separated worker counts"),
        (["--workers", "0,2"], "worker counts are 1 to 64"),
        (["--games", "metropolys", "--players", "9"], "--players 9: metropolys"),
        (["--doc", "x.md"], "--doc needs --out"),
        (["--from-json", "x.json"], "--from-json only writes a --doc"),
        (
            ["--out", "x.json", "--doc", "no/such/page.md"],
            "--doc no/such/page.md: no/such/page.md is not a regular file (it does not exist)",
        ),
        (["--out", "x.json", "--doc", str(ROOT / "README.md")], "README.md has no generated section"),
    ],
)
def test_wrong_arguments_are_one_clear_error(argv, message, capsys):
    with pytest.raises(SystemExit):
        throughput.main(argv)
    assert message in capsys.readouterr().err
