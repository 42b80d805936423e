"""The training config door: every key typed and ranged, checked at load (and `--set`) with one line
naming the key, the value and what is allowed; nothing wrong loads, whatever the file holds."""

from __future__ import annotations

import math
import tempfile
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from city_envs.core.settings import parse_assignments
from city_envs.training.config import TrainConfig, config_to_toml, load_config

pytest.importorskip("pydantic")

# the wrong configs the issue found loading (36 of 58), and their kin: each must be refused
WRONG = [
    ("seed", "abc"),
    ("seed", -1),
    ("seed", 1.5),
    ("seed", True),
    ("seed", 2**64),
    ("n_envs", "2"),
    ("n_envs", 1.5),
    ("n_envs", 0),
    ("n_envs", -4),
    ("n_envs", 10**9),
    ("learning_rate", "fast"),
    ("learning_rate", math.nan),
    ("learning_rate", math.inf),
    ("learning_rate", 0),
    ("learning_rate", -1e-4),
    ("learning_rate", 5.0),
    ("gamma", 5),
    ("gamma", -1),
    ("gamma", math.nan),
    ("gae_lambda", 1.5),
    ("clip_range", -1),
    ("clip_range", 0),
    ("pool_self", math.nan),
    ("pool_heuristic", math.inf),
    ("pool_random", -0.5),
    ("score_scale", math.nan),
    ("eval_jobs", -3),
    ("eval_jobs", 0),
    ("eval_games", -1),
    ("final_eval_games", "200"),
    ("timesteps", -10),
    ("teacher", "genius"),
    ("teacher", "ismcts:iters=lots"),
    ("teacher", 3),
    ("reward", "points"),
    ("reward", 1),
    ("activation", "gelu"),
    ("pretrain", "false"),
    ("pretrain", 1),
    ("select_best", "yes"),
    ("players", 9),
    ("players", "2"),
    ("options", []),
    ("options", {"max_rounds": -1}),
    ("net_arch", [64, -1]),
    ("net_arch", "64"),
    ("net_arch", [10**7]),
    ("net_arch", {"pi": [True]}),
    ("entity_head", {"hidden": [0]}),
    ("entity_head", []),
    ("dagger_label_share", 0),
    ("dagger_label_share", 2),
    ("batch_size", 0),
    ("n_steps", 0.5),
    ("max_samples", "many"),
    ("average_last", 1),
    ("torch_threads", 0),
    ("init_from", 7),
    ("dagger_rounds", -1),
    ("vf_coef", math.inf),
]


@pytest.mark.parametrize(("key", "value"), WRONG, ids=[f"{k}={v!r}" for k, v in WRONG])
def test_a_wrong_value_is_refused_in_one_line_naming_key_and_value(key, value):
    overrides = {key: value} | ({"select_best": False} if key == "average_last" else {})
    with pytest.raises(ValueError) as refused:
        load_config("citadels", **overrides)
    message = str(refused.value)
    assert "\n" not in message and key in message, message


@pytest.mark.parametrize(
    ("assignment", "expected"),
    [
        ("gamma=5", "gamma = 5: input should be less than or equal to 1"),
        ("n_envs=1.5", "n_envs = 1.5: input should be a valid integer"),
        ("learning_rate=nan", "learning_rate = nan: input should be a finite number"),
        ("seed=abc", "seed = 'abc': input should be a valid integer"),
        ("eval_jobs=-3", "eval_jobs = -3: input should be greater than or equal to 1"),
    ],
)
def test_set_goes_through_the_same_check(assignment, expected):
    with pytest.raises(ValueError, match=expected.replace("(", "\\(")):
        load_config("citadels", **parse_assignments([assignment], "--set"))


def test_the_command_line_refuses_a_wrong_set_in_one_line(capsys, tmp_path):
    pytest.importorskip("torch")
    from city_envs.cli import main

    assert main(["train", "citadels", "--out", str(tmp_path / "run"), "--set", "clip_range=-1"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "clip_range = -1: input should be greater than 0" in error
    assert not (tmp_path / "run").exists()


def test_assigning_a_wrong_value_later_is_refused_too():
    config = load_config("citadels")
    with pytest.raises(ValueError, match="gamma"):
        config.gamma = 7


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(),
    st.text(max_size=12),
    st.lists(st.integers(-5, 300) | st.floats(), max_size=4),
    st.dictionaries(
        st.sampled_from(["pi", "vf", "hidden", "x"]), st.lists(st.integers(-5, 300), max_size=3), max_size=3
    ),
)
KEYS = [f.name for f in fields(TrainConfig) if f.name not in ("game", "teacher")]  # a teacher spec may name code


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.dictionaries(st.sampled_from(KEYS), VALUES, min_size=1, max_size=3))
@example(changes={"init_from": "0"})  # a relative path, once read back from the written file's folder
def test_any_values_load_as_their_types_or_are_refused_in_one_line(changes):
    """Whatever a file or `--set` holds: a ValueError of one line naming a key, or a config whose every
    key has its type (no string, NaN or bool where a number belongs) and which writes and reads back."""
    try:
        config = load_config("citadels", **{k: v for k, v in changes.items() if v is not None})
    except ValueError as error:
        message = str(error)
        assert "\n" not in message
        return
    for item in fields(TrainConfig):
        value = getattr(config, item.name)
        if item.type in ("Count", "Positive") or item.name in ("seed", "players", "n_envs", "eval_jobs"):
            assert type(value) is int and value >= 0, (item.name, value)
        if item.type in ("Rate", "Share", "Weight"):
            assert type(value) is float and math.isfinite(value) and value >= 0, (item.name, value)
    with tempfile.TemporaryDirectory() as folder:
        written = Path(folder) / "config.toml"
        written.write_text(config_to_toml(config))
        assert load_config("citadels", written) == config
