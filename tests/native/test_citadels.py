"""Citadels' native engine beyond the shared parity test: its options, and its JSON door."""

from __future__ import annotations

import json

import pytest

from city_envs.core.native import native_class, rng_words
from city_envs.core.registry import game_class
from tests.native.parity import diagonal, play_pair

pytestmark = pytest.mark.skipif(
    native_class(game_class("citadels", "python")) is None, reason="the native Citadels engine is not built"
)


@pytest.mark.parametrize(
    ("num_players", "options"),
    diagonal(
        [{"classic_variant": True}, {"max_rounds": 2}, {"classic_variant": True, "max_rounds": 4}],
        [2, 4, 5, 7],
        ["classic", "two-rounds", "classic-four-rounds"],
    ),
)
def test_options_play_the_same_match(num_players, options):
    for seed in range(2):
        lineup = ["heuristic" if seat % 2 else "random" for seat in range(num_players)]
        outcome = play_pair("citadels", num_players, seed, lineup, **options)
        assert outcome.difference is None, f"seed {seed}: {outcome.difference}"


def test_a_truncated_match_is_truncated_alike():
    outcome = play_pair("citadels", 3, 0, ["random"] * 3, max_rounds=1)
    assert outcome.difference is None
    native = game_class("citadels", "native")(3, seed=0, max_rounds=1)
    while not native.is_over():
        native.apply(int(native.legal_actions().nonzero()[0][0]))
    assert native.is_truncated() and native.current_player() == -1


def test_the_door_refuses_unknown_missing_and_repeated_keys():
    native = game_class("citadels", "native")
    data = game_class("citadels", "python")(4, seed=0).to_dict()
    options, words, text = json.dumps(data["options"]), rng_words(data["rng"]), json.dumps(data["state"])
    assert json.loads(native.native_type.from_json(4, options, text, words, []).state_json()) == data["state"]
    broken = [
        json.dumps({**data["state"], "extra": 1}),
        json.dumps({key: value for key, value in data["state"].items() if key != "events"}),
        text[:-1] + ', "gold": [2, 2, 2, 2]}',
    ]
    for state in broken:
        with pytest.raises(ValueError):
            native.native_type.from_json(4, options, state, words, [])
