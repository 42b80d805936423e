"""Urban Sprawl through PettingZoo: the official api_test and seed_test, spaces, rewards."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

from city_envs import urban_sprawl_v0

from ..aec_helpers import run_episode

# PettingZoo's api_test warns that Dict observation spaces are unusual; they are the contract.
pytestmark = pytest.mark.filterwarnings("ignore:Observation space for each agent:UserWarning",
                                        "ignore:Observation is not a NumPy array:UserWarning")

CONFIGS = [(n, variant) for n in (2, 3, 4) for variant in ("standard", "long", "short")]


@pytest.mark.parametrize(("n", "variant"), CONFIGS)
@pytest.mark.parametrize("entry", [urban_sprawl_v0.env, urban_sprawl_v0.raw_env], ids=["env", "raw_env"])
def test_api_test(entry, n, variant):
    api_test(entry(num_players=n, variant=variant), num_cycles=1000)


@pytest.mark.parametrize(("n", "variant"), CONFIGS)
def test_seed_test(n, variant):
    seed_test(lambda: urban_sprawl_v0.env(num_players=n, variant=variant), num_cycles=300)


def test_defaults_and_spaces():
    env = urban_sprawl_v0.env()
    assert env.unwrapped.num_players == 4 and env.unwrapped.game_cls.name == "urban_sprawl"
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["observation"].shape == (5219,) and observation["action_mask"].shape == (219,)
    assert env.action_space("player_0") == spaces.Discrete(219)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rewards(n):
    """Win rewards are the zero-sum returns; score rewards add up to prestige plus the return."""
    rng = np.random.default_rng(n)
    env = urban_sprawl_v0.env(num_players=n, max_turns=40)
    totals = run_episode(env, rng, seed=n)
    game = env.unwrapped.game
    assert [totals[a] for a in env.possible_agents] == pytest.approx(game.returns())
    env = urban_sprawl_v0.env(num_players=n, max_turns=40, reward="score")
    totals = run_episode(env, rng, seed=n + 1)
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(game.scores()[seat] + game.returns()[seat])


def test_other_seats_decide_in_the_aec_loop_and_hand_back():
    """Vocation payouts, tributes, ties, disasters, auctions go to their owner's agent, then back."""
    env = urban_sprawl_v0.env(num_players=4)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    game = env.unwrapped.game
    handed, returned = set(), 0
    away = False
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert seat == game.current_player() and observation["action_mask"].any()
        if game.state.decision not in (0, 1, 17, 18) and seat != game.state.active:
            handed.add(game.decision_name())
            away = True
        elif away and seat == game.state.active:
            returned += 1
            away = False
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert {"VOC_PAYOUT", "AUCTION"} <= handed and returned >= 10
