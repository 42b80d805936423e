"""The entity head: its layout matches the game, it scores every entity alike, files and trainers carry it."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from city_envs import make_game  # noqa: E402
from city_envs.agents.base import play_game  # noqa: E402
from city_envs.agents.entity_policy import EntityActorCriticPolicy, row_indices  # noqa: E402
from city_envs.agents.policy_agent import PolicyAgent, batch_logits  # noqa: E402
from city_envs.agents.policy_file import (  # noqa: E402
    PolicyFileError,
    build_policy,
    check_entity_head,
    load_policy_file,
    save_policy,
)
from city_envs.agents.random_agent import RandomAgent  # noqa: E402
from city_envs.blue_moon_city import components as cp  # noqa: E402
from city_envs.blue_moon_city import rules as r  # noqa: E402
from city_envs.core.registry import GAMES, game_class  # noqa: E402
from city_envs.training.config import TrainConfig  # noqa: E402
from city_envs.training.selfplay import train  # noqa: E402

ARCH = {"pi": [32], "vf": [32]}


def head(game: str = "blue_moon_city", hidden=(16,)) -> dict:
    return {**game_class(game).entity_layout.to_json(), "hidden": list(hidden)}


def entity_policy(seed: int = 0):
    cls = game_class("blue_moon_city")
    torch.manual_seed(seed)
    return build_policy(cls.observation_shape, cls.num_actions, ARCH, "tanh", head())


def test_the_blue_moon_city_layout_rows_and_action_groups_name_the_same_positions():
    """Row k of the city block is position k, and every action group's action k targets position k."""
    layout = game_class("blue_moon_city").entity_layout
    game = make_game("blue_moon_city", 3, seed=4)
    rows = game.observation(0)[row_indices(head())]
    assert layout.count == cp.NUM_POSITIONS and rows.shape == (21, 98)
    for k, tile in enumerate(game.state.tile_at):
        assert rows[k, tile] == 1.0 and rows[k, :21].sum() == 1.0
    moves = [(d, mode) for d in range(3) for mode in range(2)]
    assert layout.action_starts[0] == r.MOVE_FIGURE
    for start, (d, mode) in zip(layout.action_starts[1:], moves, strict=True):
        for k in range(layout.count):
            assert divmod(start + k - r.DRAGON_MOVE, 42) == (d, mode * cp.NUM_POSITIONS + k)
    assert all(
        game_class(g).entity_layout is None for g in GAMES if g not in ("blue_moon_city", "metropolys", "big_city")
    )


def test_the_metropolys_layout_joins_each_neighbourhoods_static_and_dynamic_rows():
    """Entity k is neighbourhood k: its district one-hot (static row) and whether a bid there is legal
    now (dynamic row) match the game, and the neighbourhood action k bids on it."""
    from city_envs.metropolys import components as mcp
    from city_envs.metropolys import rules as mr

    game = make_game("metropolys", 3, seed=2)
    for _ in range(7):  # into the game, past a few bids
        game.apply(int(np.flatnonzero(game.legal_actions())[0]))
    spec = head("metropolys")
    rows = game.observation(game.current_player())[row_indices(spec)]
    assert rows.shape == (mcp.NUM_NBHDS, 17 + 20) and spec["action_starts"] == [mr.NBHD_ACTION]
    legal = game.legal_actions()
    for k in range(mcp.NUM_NBHDS):
        assert rows[k, :5].argmax() == mcp.DISTRICT[k]
        assert rows[k, 17 + 18] == legal[mr.NBHD_ACTION + k]


def test_the_big_city_layout_rows_are_plots_and_plot_actions_name_them():
    """Entity k is plot k: its row says whether it is placed and whether the seat holds its card, and
    action k (a plot to build on, or its card to discard or set aside) names that plot."""
    from city_envs.big_city import components as bcp
    from city_envs.big_city import rules as br
    from city_envs.big_city import view as bv

    game = make_game("big_city", 2, seed=3)
    rng = np.random.default_rng(0)
    spec = head("big_city")
    seen = set()
    while not game.is_over():
        s, seat = game.state, game.current_player()
        rows = game.observation(seat)[row_indices(spec)]
        assert rows.shape == bv.PLOTS.shape
        for k in range(bcp.NUM_PLOTS):
            assert rows[k, 0] == (s.px[k] >= 0) and rows[k, bv.MINE] == (k in s.hands[seat])
        legal = np.flatnonzero(game.legal_actions())
        plots = legal[legal < bcp.NUM_PLOTS]
        if s.decision == br.Decision.BUILD_SELECT and len(plots):  # a board phase: the plots to build on are placed
            assert all(rows[k, 0] == 1.0 for k in plots)
            seen.add("board")
        in_hand_phase = s.decision in (br.Decision.DEAD_DISCARD, br.Decision.EXCHANGE_SELECT)
        if in_hand_phase and len(plots):  # cards in hand
            assert all(rows[k, bv.MINE] == 1.0 for k in plots)
            seen.add("hand")
        game.apply(int(rng.choice(legal)))
    assert seen == {"board", "hand"}


def test_entities_with_the_same_row_get_scores_that_differ_only_by_their_index():
    """One scorer serves every entity: for the same latent vector, swapping two rows swaps their actions'
    entity scores (once the index input and the flat logits are silenced)."""
    net = entity_policy().action_net
    with torch.no_grad():
        net.flat.weight.zero_()
        net.flat.bias.zero_()
        net.scorer[0].weight[:, 98 : 98 + 21].zero_()
    obs = torch.as_tensor(make_game("blue_moon_city", 2, seed=1).observation(0))
    swapped = obs.clone()
    cells = swapped[: 21 * 98].view(21, 98)
    cells[[3, 17]] = cells[[17, 3]]
    latent = torch.linspace(-1, 1, net.latent_dim)
    with torch.no_grad():
        logits = net(torch.stack([torch.cat([latent, obs]), torch.cat([latent, swapped])])).numpy()
    for start in head()["action_starts"]:
        assert logits[0, start + 3] == pytest.approx(logits[1, start + 17], abs=1e-6)
        assert logits[0, start + 17] == pytest.approx(logits[1, start + 3], abs=1e-6)
    assert logits[0, 128 + 3] != pytest.approx(logits[0, 128 + 17], abs=1e-6)  # and the rows do matter
    assert np.count_nonzero(logits[0]) == len(head()["action_starts"]) * 21  # only entity actions get a score


def test_the_head_scores_each_entity_from_its_row_index_context_and_latent_vector():
    """The head's logits are the flat logits plus, at action_starts[g] + k, output g of the scorer MLP
    applied to [entity k's row, one-hot k, context values, latent vector]: the definition, computed here
    entity by entity."""
    for game in ("blue_moon_city", "metropolys"):
        cls = game_class(game)
        torch.manual_seed(5)
        spec = head(game, hidden=(16, 8))
        net = build_policy(cls.observation_shape, cls.num_actions, ARCH, "tanh", spec).action_net
        with torch.no_grad():
            for layer in (net.flat, net.scorer[-1]):  # the default near-zero outputs would hide errors
                torch.nn.init.normal_(layer.weight)
                torch.nn.init.normal_(layer.bias)
        latent = torch.randn(3, net.latent_dim)
        features = torch.as_tensor(np.stack([make_game(game, 2, seed=s).observation(0) for s in range(3)]))
        with torch.no_grad():
            logits = net(torch.cat([latent, features], dim=1))
            expected = net.flat(latent)
            context = [i for begin, stop, step in spec["context"] for i in range(begin, stop, step)]
            for k, row in enumerate(row_indices(spec)):
                one_hot = torch.zeros(3, spec["count"])
                one_hot[:, k] = 1.0
                scores = net.scorer(torch.cat([features[:, row], one_hot, features[:, context], latent], dim=1))
                for g, start in enumerate(spec["action_starts"]):
                    expected[:, start + k] += scores[:, g]
        assert torch.allclose(logits, expected, atol=1e-5), (logits - expected).abs().max()


def test_a_policy_file_with_an_entity_head_loads_the_same_network_and_plays(tmp_path):
    policy = entity_policy(seed=2)
    path = save_policy(
        policy, tmp_path / "bmc.safetensors", game="blue_moon_city", players=2, net_arch=ARCH, activation="tanh"
    )
    loaded, meta = load_policy_file(path)
    assert isinstance(loaded, EntityActorCriticPolicy) and meta["entity_head"] == head()
    obs = np.random.default_rng(0).random((4, 2200), dtype=np.float32)
    mask = np.ones((4, 220), dtype=bool)
    assert np.array_equal(batch_logits(policy, obs, mask), batch_logits(loaded, obs, mask))
    game = make_game("blue_moon_city", 2, seed=3)
    play_game(game, [PolicyAgent(str(path)), RandomAgent(seed=1)])
    assert game.is_over() or game.is_truncated()


def test_a_broken_entity_head_in_a_file_is_refused(tmp_path):
    from safetensors import safe_open
    from safetensors.torch import load_file, save_file

    path = save_policy(
        entity_policy(), tmp_path / "ok.safetensors", game="blue_moon_city", players=2, net_arch=ARCH, activation="tanh"
    )
    with safe_open(str(path), framework="pt") as handle:
        metadata = handle.metadata()
    tensors = load_file(str(path))
    assert metadata["format_version"] == "2"
    bad_heads = {
        "past the 220 actions": {**head(), "action_starts": [215]},
        "rows must lie": {**head(), "rows": [[2190, 98]]},
        "\\[offset, width\\] blocks": {**head(), "rows": [[0]]},
        "keys": {"offset": 0},
        "must be integers": {**head(), "hidden": [1.5]},
        "context slices must lie": {**head(), "context": [[2190, 2210, 1]]},
        "context \\[start, stop, step\\] slices": {**head(), "context": [[0, 5]]},
    }
    for message, bad in bad_heads.items():
        save_file(tensors, str(tmp_path / "bad.safetensors"), metadata={**metadata, "entity_head": json.dumps(bad)})
        with pytest.raises(PolicyFileError, match=message):
            load_policy_file(tmp_path / "bad.safetensors")
    save_file(tensors, str(tmp_path / "plain.safetensors"), metadata={**metadata, "format_version": "1"})
    with pytest.raises(PolicyFileError, match="does not fit"):  # a version-1 file is a plain network
        load_policy_file(tmp_path / "plain.safetensors")
    with pytest.raises(ValueError, match="rows must lie in the observation"):
        check_entity_head({**head(), "count": 30}, 2200, 220)


def test_configs_ask_for_an_entity_head_only_where_the_game_declares_its_rows():
    assert TrainConfig("blue_moon_city", entity_head={"hidden": [64]}).entity_head_spec() == head(hidden=[64])
    assert TrainConfig("blue_moon_city").entity_head_spec() is None
    with pytest.raises(ValueError, match="declares no entity rows"):
        TrainConfig("citadels", entity_head={"hidden": [64]})
    assert TrainConfig("metropolys", entity_head={"hidden": [64]}).entity_head_spec() == head("metropolys", [64])
    for bad in ({"hidden": []}, {"hidden": [0]}, {"width": 3}, {"hidden": "64"}):
        with pytest.raises(ValueError, match="entity_head"):
            TrainConfig("blue_moon_city", entity_head=bad)


def test_a_run_with_an_entity_head_warm_starts_trains_ppo_and_refuses_a_mismatched_start(tmp_path):
    config = TrainConfig(
        "blue_moon_city",
        timesteps=64,
        n_envs=2,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        net_arch=[32],
        entity_head={"hidden": [16]},
        bc_matches=2,
        dagger_rounds=1,
        dagger_matches=1,
        pretrain_epochs=1,
        pretrain_batch_size=64,
        eval_games=0,
        final_eval_games=0,
        snapshot_every=64,
        checkpoint_every=64,
        eval_every=10**9,
    )
    summary = train(config, tmp_path / "run", log=lambda _: None)
    assert summary["timesteps"] == 64
    for name in ("warm_start/round_0.safetensors", "warm_start/round_1.safetensors", "model.safetensors"):
        assert load_policy_file(tmp_path / "run" / name)[1]["entity_head"] == head()
    flat = TrainConfig(
        **{
            **config.__dict__,
            "entity_head": {},
            "pretrain": False,
            "init_from": str(tmp_path / "run" / "model.safetensors"),
        }
    )
    with pytest.raises(ValueError, match="set net_arch, activation and entity_head to match it"):
        train(flat, tmp_path / "flat", log=lambda _: None)
