"""Urban Sprawl through PettingZoo, beyond what every game does alike (tests/test_every_game.py)."""

from __future__ import annotations

import numpy as np

from city_envs import urban_sprawl_v0


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
