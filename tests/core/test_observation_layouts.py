"""Observation layouts: the declaration matches what every game encodes, and the encoding did not move.

`DIGESTS` were taken from the observations of the code before the layouts were declared (issue 29):
every seat's observation after every step of three random matches per game, player count and option
case. Writing through the layouts' named offsets must give those very vectors.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from city_envs.cli import main
from city_envs.core.layout import Field, ObservationLayout, table, vector
from city_envs.core.registry import game_class, make_env

ROOT = Path(__file__).resolve().parents[2]
# the games whose view.py declares its observation as a layout
LAID_OUT = ("citadels", "metropolys", "blue_moon_city", "big_city", "urban_sprawl")
DIGESTS = {
    ("citadels", 2, ()): "cc06d82baad87ccdd5a24fd7daeba905",
    ("citadels", 3, ()): "d1d34f9cd1b173c97af6ed505b60cad8",
    ("citadels", 4, ()): "a09956619ac3161355e05da464ad7541",
    ("citadels", 5, ()): "fb4cecd8839c4c19bac087510ccbe7f3",
    ("citadels", 6, ()): "f12288e120eb555a74c0ab32088e2ee0",
    ("citadels", 7, ()): "b8e4e90dd24ad37b6530187892cdd622",
    ("metropolys", 2, ()): "8ed7e1d4913d38f9723f49fcad1567a8",
    ("metropolys", 3, ()): "ee5a00ca5ffa0b6d80f8795323b767f2",
    ("metropolys", 4, ()): "99adc2a2ffda56e541b5bca8ab936c8e",
    ("metropolys", 2, (("version", "expert"),)): "368ca5ce78204d1669fa4d7b7bc3b522",
    ("metropolys", 3, (("version", "expert"),)): "446c6916436097901373bc472062e9dd",
    ("metropolys", 4, (("version", "expert"),)): "64bc2f58940779aace18871015452902",
    ("blue_moon_city", 2, ()): "a3d3d69d71a4f3289b7d0a35253f1ce7",
    ("blue_moon_city", 3, ()): "09dbaf02b07bf250f21ed5530f32ca14",
    ("blue_moon_city", 4, ()): "c9111a5e4c40469ae8f5d95d94572f10",
    ("big_city", 2, ()): "68e87344682eb57b76acc5e2eda6e4e3",
    ("big_city", 3, ()): "a22fbf1a5c48ae4538d77d052abd97ed",
    ("big_city", 4, ()): "e3fa46047e8a8a89079af602904d60bb",
    ("big_city", 5, ()): "8d901a579e8dbe88cb86280a153af979",
    ("urban_sprawl", 2, ()): "eaee60d453d328da3c3673fa9a0c35eb",
    ("urban_sprawl", 3, ()): "a5c5b0189c06014f57c1bb98fff1e7df",
    ("urban_sprawl", 4, ()): "816ee27eaf33d31233238982c8dcdf49",
}
# the entity layouts as they were written by hand before they were derived (trained entity heads read these)
ENTITY_LAYOUTS = {
    "metropolys": {
        "count": 55,
        "rows": [[0, 17], [935, 20]],
        "action_starts": [0],
        "context": [[2035, 2060, 1], [2135, 2164, 1]],
    },
    "blue_moon_city": {
        "count": 21,
        "rows": [[0, 98]],
        "action_starts": [128, 0, 21, 42, 63, 84, 105],
        "context": [[2093, 2115, 1], [2061, 2069, 1], [2145, 2156, 1], [25, 2058, 98]],
    },
    "big_city": {"count": 68, "rows": [[0, 53]], "action_starts": [0], "context": [[3604, 3634, 1], [3690, 3787, 1]]},
}


def observation_digest(game: str, players: int, options: dict, seed: int = 7, matches: int = 3) -> str:
    """Every seat's observation after every step of `matches` random matches, hashed."""
    cls = game_class(game)
    rng = np.random.default_rng(seed)
    digest = hashlib.blake2b(digest_size=16)
    for match in range(matches):
        state = cls(players, seed=seed * 100 + match, **options)
        while True:
            for seat in range(players):
                digest.update(state.observation(seat).tobytes())
            if state.is_over():
                break
            legal = np.flatnonzero(state.legal_actions())
            state.apply(int(legal[rng.integers(len(legal))]))
    return digest.hexdigest()


@pytest.mark.parametrize("case", sorted(DIGESTS, key=repr), ids=lambda case: f"{case[0]}-{case[1]}p{len(case[2])}")
def test_random_states_encode_as_before_the_layouts(case):
    game, players, options = case
    assert observation_digest(game, players, dict(options)) == DIGESTS[case]


@pytest.mark.parametrize("game", LAID_OUT)
def test_the_layout_covers_the_observation_at_every_player_count(game):
    cls = game_class(game)
    layout = cls.observation_layout()
    assert [block.start for block in layout] == [0] + [block.stop for block in layout.blocks[:-1]]
    for players in cls.allowed_player_counts():
        env = make_env(game, players)
        env.reset(seed=players)
        seen = env.observe(env.agent_selection)["observation"]
        assert seen.shape == (layout.size,) == cls.observation_shape
        names = env.feature_names()
        assert len(names) == len(set(names)) == layout.size
        assert env.observation_layout() is layout


@pytest.mark.parametrize("game", sorted(ENTITY_LAYOUTS))
def test_the_entity_layout_is_the_one_written_by_hand_before(game):
    assert game_class(game).entity_layout.to_json() == ENTITY_LAYOUTS[game]


@pytest.mark.parametrize("game", LAID_OUT)
def test_the_docs_heading_gives_the_layout_s_size(game):
    """The page's table is the layout's (`tests/lab/test_sections.py`); its heading gives the size."""
    page = ROOT / "docs" / "games" / f"{game}.md"
    heading = re.search(r"^## (?:[\d.]+ )?Observation \(([\d,]+) float32\)$", page.read_text(), re.M)
    size = int(heading.group(1).replace(",", ""))
    assert size == game_class(game).observation_layout().size


def test_the_command_line_prints_every_index_with_its_name(capsys):
    assert main(["layout", "metropolys", "--names"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "0 static[0].district.centre"
    assert lines[-1] == f"{len(lines) - 1} global.calls" and len(lines) == game_class("metropolys").observation_shape[0]


def test_a_layout_places_its_blocks_and_names_every_value():
    layout = ObservationLayout(
        vector("turn", "", Field("round"), Field("decision", 3, labels=("a", "b", "c"))),
        table("seats", 2, "per seat", Field("gold"), Field("hand", 2)),
    )
    turn, seats = layout.blocks
    assert (turn.slice, seats.slice, seats.shape, layout.size) == (slice(0, 4), slice(4, 10), (2, 3), 10)
    assert (turn.index("decision"), turn.span("round", "decision"), seats.columns("hand")) == (
        1,
        slice(0, 4),
        slice(1, 3),
    )
    assert layout.feature_names() == (
        "turn.round",
        "turn.decision.a",
        "turn.decision.b",
        "turn.decision.c",
        "seats[0].gold",
        "seats[0].hand.0",
        "seats[0].hand.1",
        "seats[1].gold",
        "seats[1].hand.0",
        "seats[1].hand.1",
    )
    obs = np.zeros(layout.size, dtype=np.float32)
    seats.view(obs)[1, seats.column("hand") + 1] = 5.0
    assert obs[layout.feature_names().index("seats[1].hand.1")] == 5.0
    assert (seats.entity_rows(), seats.row_range(1), seats.column_range("hand")) == ((4, 3), (7, 10, 1), (5, 10, 3))
    assert layout.markdown_table().splitlines()[2:] == [
        "| 0 | turn (4) | round; decision (3) |",
        "| 4 | seats (2 x 3) | per seat: +0 gold; +1 hand (2) |",
    ]


@pytest.mark.parametrize(
    "blocks",
    [
        (vector("a", "", Field("x")), vector("a", "", Field("y"))),
        (vector("a", "", Field("x"), Field("x")),),
        (vector("a", "", Field("x", 2, labels=("same", "same"))),),
    ],
    ids=["blocks", "fields", "labels"],
)
def test_a_layout_refuses_names_that_repeat(blocks):
    with pytest.raises(ValueError, match="unique"):
        ObservationLayout(*blocks)
