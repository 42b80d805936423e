"""The policy file door: every wrong header or tensor is a `PolicyFileError` naming the file and the
field, checked before the network is allocated; nothing else escapes, whatever the file holds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("safetensors")

import torch  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

from city_envs import make_game  # noqa: E402
from city_envs.agents.policy_file import (  # noqa: E402
    PolicyFileError,
    build_policy,
    expected_shapes,
    load_policy_file,
    read_metadata,
    save_policy,
)


@pytest.fixture(scope="module")
def good_file(tmp_path_factory) -> Path:
    probe = make_game("citadels", 2, seed=0)
    torch.manual_seed(1)
    policy = build_policy(probe.observation_shape, probe.num_actions, [16])
    path = tmp_path_factory.mktemp("policy") / "good.safetensors"
    return save_policy(policy, path, game="citadels", players=2, net_arch=[16], activation="tanh")


def header(path: Path) -> dict[str, str]:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as handle:
        return dict(handle.metadata())


def rewrite(good: Path, out: Path, metadata: dict | None = None, tensors: dict | None = None) -> Path:
    """`good` with its metadata fields and tensors changed (None values drop a field)."""
    meta = {k: v for k, v in (header(good) | (metadata or {})).items() if v is not None}
    data = load_file(str(good)) | (tensors or {})
    save_file({k: v for k, v in data.items() if v is not None}, str(out), metadata=meta)
    return out


@pytest.mark.parametrize(
    ("metadata", "field"),
    [
        ({"game": "chess"}, "'game'"),
        ({"game": None}, "'game'"),
        ({"players": "-2"}, "'players'"),
        ({"players": "9"}, "'players'"),
        ({"players": "two"}, "'players'"),
        ({"players": "²"}, "'players'"),
        ({"num_actions": "1000000000"}, "num_actions"),
        ({"num_actions": "1e9"}, "'num_actions'"),
        ({"num_actions": "0"}, "'num_actions'"),
        ({"observation_shape": "[621, -1]"}, "'observation_shape'"),
        ({"observation_shape": "[]"}, "'observation_shape'"),
        ({"observation_shape": "[true]"}, "'observation_shape'"),
        ({"observation_shape": "not json"}, "'observation_shape'"),
        ({"observation_shape": "[" * 5000 + "]" * 5000}, "'observation_shape'"),
        ({"net_arch": '{"pi": [60000, 60000], "vf": [60000, 60000]}'}, "tensor"),
        ({"net_arch": '{"pi": [0], "vf": [16]}'}, "'net_arch'"),
        ({"net_arch": '{"pi": ["16"], "vf": [16]}'}, "'net_arch'"),
        ({"net_arch": None}, "'net_arch'"),
        ({"activation": "gelu"}, "'activation'"),
        ({"info": "{broken"}, "'info'"),
        ({"format_version": "2"}, "'entity_head'"),
        ({"format_version": "2", "entity_head": '{"count": 1}'}, "'entity_head'"),
    ],
)
def test_a_wrong_header_field_is_named(good_file, tmp_path, metadata, field):
    path = rewrite(good_file, tmp_path / "bad.safetensors", metadata)
    with pytest.raises(PolicyFileError, match=field) as refused:
        load_policy_file(path)
    assert str(path) in str(refused.value)


def test_a_lying_header_is_refused_before_anything_is_allocated(good_file, tmp_path, monkeypatch):
    """`net_arch [60000, 60000]` once asked for 14 GB: the tensors' shapes are compared with the header
    first, so the network is never built."""
    import city_envs.agents.policy_file as policy_file

    monkeypatch.setattr(policy_file, "build_policy", lambda *args, **kwargs: pytest.fail("network allocated"))
    for metadata in (
        {"net_arch": '{"pi": [60000, 60000], "vf": [60000, 60000]}'},
        {"num_actions": "2000000000"},
        {"observation_shape": "[100000, 100000]"},
    ):
        with pytest.raises(PolicyFileError, match="tensor|'num_actions'"):
            load_policy_file(rewrite(good_file, tmp_path / "lying.safetensors", metadata))


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("action_net.bias", torch.full((376,), float("nan")), "NaN or infinite"),
        ("value_net.weight", torch.full((1, 16), float("inf")), "NaN or infinite"),
        ("action_net.bias", torch.zeros(376, dtype=torch.int32), "holds I32"),
        ("action_net.bias", torch.zeros(376, dtype=torch.bool), "holds BOOL"),
        ("action_net.bias", torch.zeros(375), "has shape \\[375\\]"),
        ("action_net.bias", None, "missing \\['action_net.bias'\\]"),
        ("surprise", torch.zeros(3), "unexpected \\['surprise'\\]"),
    ],
)
def test_wrong_tensors_are_refused(good_file, tmp_path, name, value, message):
    path = rewrite(good_file, tmp_path / "bad.safetensors", tensors={name: value})
    with pytest.raises(PolicyFileError, match=message) as refused:
        load_policy_file(path)
    assert str(path) in str(refused.value)


def test_another_game_or_player_count_than_asked_is_refused(good_file):
    load_policy_file(good_file, game="citadels", players=2)
    with pytest.raises(PolicyFileError, match="field 'game' is 'citadels', but it is asked to play metropolys"):
        load_policy_file(good_file, game="metropolys")
    with pytest.raises(PolicyFileError, match="field 'players' is 2, but it is asked to play a 4-player match"):
        load_policy_file(good_file, players=4)


def test_the_expected_shapes_are_those_of_every_committed_baseline():
    """The shapes worked out from a header alone match the networks the trainer saved (flat and entity heads)."""
    from city_envs.agents.policy_agent import BASELINES_DIR, STORE

    files = sorted((BASELINES_DIR / STORE).glob("*.safetensors"))
    assert any(read_metadata(f)["entity_head"] for f in files) and any(
        not read_metadata(f)["entity_head"] for f in files
    )
    for path in files:
        found = {name: tuple(t.shape) for name, t in load_file(str(path)).items()}
        assert found == expected_shapes(read_metadata(path)), path.name


FIELDS = (
    "format",
    "format_version",
    "game",
    "players",
    "observation_shape",
    "num_actions",
    "net_arch",
    "activation",
    "info",
    "entity_head",
    "critic_input",
)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    changes=st.dictionaries(
        st.sampled_from(FIELDS), st.none() | st.text(max_size=30) | JSONISH.map(json.dumps), min_size=1, max_size=4
    ),
    dtype=st.sampled_from([torch.float32, torch.float16, torch.float64, torch.int64, torch.uint8]),
    scale=st.sampled_from([1.0, math.nan, math.inf, 1e30]),
)
def test_any_header_and_weights_load_or_are_refused_cleanly(good_file, tmp_path, changes, dtype, scale):
    """Random headers and weights: the file loads and plays finite logits, or is refused with a
    PolicyFileError; no other exception, and never a network the tensors do not fill."""
    bias = (torch.ones(376) * scale).to(dtype) if dtype.is_floating_point else torch.ones(376, dtype=dtype)
    path = rewrite(good_file, tmp_path / "random.safetensors", changes, {"action_net.bias": bias})
    try:
        policy, meta = load_policy_file(path)
    except PolicyFileError as error:
        assert str(path) in str(error)
        return
    observation = torch.zeros((1, *meta["observation_shape"]))
    with torch.no_grad():
        logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(observation)))
    assert np.isfinite(logits.numpy()).all()
