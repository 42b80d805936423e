"""The public single-agent Gymnasium env: seat, opponents, masks, repeatable resets, checkers, copies."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import city_envs
from city_envs import IllegalActionError, SingleAgentEnv
from city_envs.agents import make_opponents

GAMES = pytest.mark.parametrize("name", city_envs.GAMES)
# observations are unbounded float32 boxes, as in the PettingZoo envs; the checkers only advise against that
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*Box observation space m:UserWarning", "ignore:.*Not able to test alternative render modes:UserWarning"
)


def play(env: SingleAgentEnv, seed: int, policy_seed: int = 0) -> list:
    """One episode with random masked actions: what the learner saw and got, step by step."""
    rng = np.random.default_rng(policy_seed)
    observation, info = env.reset(seed=seed)
    trace = [(observation.tobytes(), info["seat"])]
    done = False
    while not done:
        assert np.array_equal(info["action_mask"], env.action_masks()) and env.action_masks().any()
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        observation, reward, terminated, truncated, info = env.step(action)
        trace.append((observation.tobytes(), reward))
        done = terminated or truncated
    assert not env.action_masks().any() and not info["action_mask"].any()
    return trace


@GAMES
def test_gymnasium_check_env_passes(name):
    check_env(SingleAgentEnv(name, 2, illegal_action="lose"), skip_render_check=False)


@GAMES
def test_stable_baselines3_check_env_passes(name):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(SingleAgentEnv(name, 3, illegal_action="lose"), warn=True)


@GAMES
def test_same_seed_same_episode_against_seeded_opponents(name):
    env = SingleAgentEnv(name, 3, opponents=make_opponents(["heuristic", "random"], name, seed=4))
    first = play(env, seed=123)
    assert play(env, seed=999) != first
    assert play(env, seed=123) == first  # the same deal, seat and opponents' play, after other episodes
    other_env = SingleAgentEnv(name, 3, opponents=make_opponents(["heuristic", "random"], name, seed=8))
    assert play(other_env, seed=123) == first  # the opponents' own seeds do not matter after reset(seed)


def test_the_seat_is_drawn_from_the_reset_seed_or_fixed():
    env = SingleAgentEnv("metropolys", 4)
    seats = [env.reset(seed=seed)[1]["seat"] for seed in range(40)]
    assert set(seats) == {0, 1, 2, 3}
    assert seats == [env.reset(seed=seed)[1]["seat"] for seed in range(40)]
    fixed = SingleAgentEnv("metropolys", 4, seat=2)
    assert {fixed.reset(seed=seed)[1]["seat"] for seed in range(10)} == {2}


def test_opponents_play_the_other_seats_in_order():
    class Recorder:
        def __init__(self) -> None:
            self.seats: set[int] = set()
            self.rng = np.random.default_rng(0)

        def act(self, info_set) -> int:
            self.seats.add(info_set.player)
            legal = info_set.legal_action_ids()
            return legal[int(self.rng.integers(len(legal)))]

    recorders = [Recorder(), Recorder()]
    env = SingleAgentEnv("citadels", 3, opponents=recorders, seat=1)
    play(env, seed=5)
    assert [r.seats for r in recorders] == [{0}, {2}]


def test_rewards_are_the_learners_returns():
    env = SingleAgentEnv("big_city", 2, seat=0)
    finals = []
    for seed in range(4):
        trace = play(env, seed)
        assert all(reward == 0.0 for _, reward in trace[1:-1])
        assert trace[-1][1] == env.game.returns()[0]
        finals.append(trace[-1][1])
    assert set(finals) == {-1.0, 1.0}
    scored = SingleAgentEnv("big_city", 2, seat=0, reward="score")
    trace = play(scored, seed=1)
    assert sum(reward for _, reward in trace[1:]) == pytest.approx(scored.game.scores()[0] + scored.game.returns()[0])


def test_illegal_action_raises_or_loses():
    env = SingleAgentEnv("urban_sprawl", 2)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.game.to_dict()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    assert env.game.to_dict() == before
    losing = SingleAgentEnv("urban_sprawl", 2, illegal_action="lose")
    losing.reset(seed=0)
    _, reward, terminated, truncated, info = losing.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
    with pytest.raises(RuntimeError, match="reset"):
        losing.step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "chess"}, "unknown game"),
        ({"num_players": 9}, "supports"),
        ({"opponents": []}, "0 opponents for the 1 other seats"),
        ({"opponents": [object()]}, "no act"),
        ({"opponents": ["heuristic"]}, r"a name, not an agent: .*make_opponents\(\['heuristic'\], 'citadels'\)"),
        ({"seat": 2}, "invalid seat 2"),
        ({"illegal_action": "ignore"}, "raise, lose"),
        ({"reward": "points"}, "win, score"),
        ({"render_mode": "window"}, "human, ansi, rgb_array"),
        ({"no_such_option": 1}, "unknown option"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    arguments = {"game": "citadels", "num_players": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        SingleAgentEnv(**arguments)


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_copies_after_reset_and_mid_game_play_on_alike(copier):
    env = SingleAgentEnv("blue_moon_city", 2, opponents=make_opponents(["heuristic"], "blue_moon_city"))
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(2):
        twin = copier(env)
        for _ in range(5):
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            ours, theirs = env.step(action), twin.step(action)
            assert np.array_equal(ours[0], theirs[0]) and ours[1:4] == theirs[1:4]
        assert twin.game.to_dict() == env.game.to_dict()


def test_render_modes(capsys):
    image_env = SingleAgentEnv("citadels", 2, render_mode="rgb_array")
    image_env.reset(seed=0)
    assert image_env.render().dtype == np.uint8
    text_env = SingleAgentEnv("citadels", 2, render_mode="ansi")
    text_env.reset(seed=0)
    assert text_env.render() == text_env.game.render_text()
    human = SingleAgentEnv("citadels", 2, render_mode="human")
    human.reset(seed=0)
    capsys.readouterr()
    assert human.render() is None and capsys.readouterr().out == human.game.render_text() + "\n"


def test_it_is_a_gymnasium_env_with_a_flat_observation():
    env = SingleAgentEnv("metropolys", 2)
    observation, _ = env.reset(seed=0)
    assert isinstance(env, gym.Env) and env.observation_space.contains(observation)
    assert env.action_space.n == env.game.num_actions
