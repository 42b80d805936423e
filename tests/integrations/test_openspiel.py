"""OpenSpiel recipe: every game is a registered pyspiel game that passes OpenSpiel's own random-simulation
test, and matches between OpenSpiel's information-set MCTS and MCTS bots play to the end."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import city_envs  # noqa: E402
from city_envs.integrations import openspiel as city_openspiel  # noqa: E402

# Options that keep random and search play short (the safety valves of the longer games).
SHORT = {"citadels": {"max_rounds": 3}, "blue_moon_city": {"max_rounds": 3}, "urban_sprawl": {"max_turns": 12}}

# Big City with 5 seats has no safety valve to shorten it and takes ~20 s under OpenSpiel's checks.
EVERY_COUNT = [
    pytest.param(name, n, id=f"{name}-{n}p", marks=[pytest.mark.slow] if (name, n) == ("big_city", 5) else [])
    for name in city_envs.GAMES
    for n in range(city_envs.game_class(name).min_players, city_envs.game_class(name).max_players + 1)
]


def load(name: str, players: int, **params) -> pyspiel.Game:
    return pyspiel.load_game(city_openspiel.short_name(name), {"players": players, **SHORT.get(name, {}), **params})


def random_state(game: pyspiel.Game, rng: np.random.Generator, steps: int) -> pyspiel.State:
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize(("name", "n"), EVERY_COUNT)
def test_openspiel_random_sim_test(name, n):
    """OpenSpiel's C++ checks: legal actions, clones, observation tensors and strings, returns, along random play."""
    game = load(name, n, rng_seed=n)
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert game.num_players() == n
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_states_match_the_city_envs_game(name):
    """Observation tensors, legal actions, action strings and returns are the Game API's."""
    game = load(name, 3, rng_seed=0)
    rng = np.random.default_rng(0)
    state = random_state(game, rng, 25)
    match = state.match
    for player in range(3):
        assert np.array_equal(np.asarray(state.observation_tensor(player)), match.observation(player))
    assert state.legal_actions() == np.flatnonzero(match.legal_actions()).tolist()
    assert state.action_to_string(state.current_player(), state.legal_actions()[0]) == match.describe_action(
        state.legal_actions()[0]
    )
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.returns() == pytest.approx(match.returns()) and sum(state.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_same_rng_seed_same_matches(name):
    first, second = (load(name, 2, rng_seed=3) for _ in range(2))
    for _ in range(2):
        assert str(first.new_initial_state()) == str(second.new_initial_state())


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_clone_is_exact_and_independent(name):
    game = load(name, 3, rng_seed=1)
    rng = np.random.default_rng(1)
    state = random_state(game, rng, 20)
    before = (state.history(), state.match.to_dict())
    clone = state.clone()
    assert clone.history() == before[0] and clone.match.to_dict() == before[1]
    while not clone.is_terminal():
        clone.apply_action(int(rng.choice(clone.legal_actions())))
    assert (state.history(), state.match.to_dict()) == before


@pytest.mark.parametrize("name", city_envs.GAMES)
def test_resample_from_infostate_keeps_what_the_player_knows(name):
    """The resampled state looks the same to the player (observation string and tensor, legal actions when it
    is theirs to move) and really differs elsewhere now and then; the original is untouched."""
    game = load(name, 3, rng_seed=2)
    rng = np.random.default_rng(2)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    resampled = 0
    for steps in (5, 15, 30, 45):
        state = random_state(game, rng, steps)
        if state.is_terminal():
            continue
        before = state.match.to_dict()
        for player in range(3):
            twin = state.resample_from_infostate(player, sampler)
            assert twin.observation_string(player) == state.observation_string(player)
            assert twin.observation_tensor(player) == state.observation_tensor(player)
            assert twin.current_player() == state.current_player()
            if player == state.current_player():
                assert twin.legal_actions() == state.legal_actions()
            resampled += twin.match.to_dict()["state"] != before["state"]
        assert state.match.to_dict() == before
    assert resampled > 0


def bots(game: pyspiel.Game, kinds: list[str], seed: int) -> list[pyspiel.Bot]:
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    made = {
        # ISMCTS keys its nodes by the acting player's observation string and samples worlds with
        # resample_from_infostate, asserting that each sampled world gives the same key.
        "ismcts": lambda: ismcts.ISMCTSBot(
            game, evaluator, uct_c=2.0, max_simulations=4, random_state=rng, use_observation_string=True
        ),
        # MCTS searches clones of the true state: a perfect-information baseline that sees hidden cards.
        "mcts": lambda: mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=evaluator, random_state=rng),
    }
    return [made[kind]() for kind in kinds]


@pytest.mark.parametrize(
    ("name", "kinds"),
    [(name, ["ismcts", "mcts"]) for name in city_envs.GAMES] + [("citadels", ["mcts", "ismcts", "ismcts"])],
)
def test_openspiel_bots_play_a_match(name, kinds):
    game = load(name, len(kinds), rng_seed=4)
    state = game.new_initial_state()
    returns = pyspiel.evaluate_bots(state, bots(game, kinds, seed=4), 4)
    assert state.is_terminal() and returns == pytest.approx(state.match.returns())
    assert len(returns) == len(kinds) and sum(returns) == pytest.approx(0.0)


def test_bad_parameters_are_refused():
    """OpenSpiel refuses unknown parameters; the game's own checks refuse bad values, with their messages."""
    with pytest.raises(ValueError, match="supports 2, 3, 4 players"):
        pyspiel.load_game(city_openspiel.short_name("metropolys"), {"players": 7})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'max_rounds'"):
        pyspiel.load_game(city_openspiel.short_name("big_city"), {"players": 2, "max_rounds": 3})
    with pytest.raises(ValueError, match="max_rounds"):
        pyspiel.load_game(city_openspiel.short_name("citadels"), {"players": 2, "max_rounds": 0})
