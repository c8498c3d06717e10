"""The PettingZoo AEC environment passes PettingZoo's own API test on both games, journey with
several travellers included, and plays whole games with the action mask, every observation
within the bounded observation space."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from tabletop_arena.pettingzoo import env
from conftest import CONFIGS  # every game, several seat counts


# Observations are dicts with the action mask, as in PettingZoo's own classic games, which
# api_test notes in these two warnings for them as well.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("game,preset,params", CONFIGS)
def test_api_test_passes(game, preset, params):
    api_test(env(game, preset, **params), num_cycles=300)


def test_the_same_seed_deals_the_same_games():
    seed_test(lambda: env("expedition", "dice", players=2), num_cycles=100)
    seed_test(lambda: env("journey", "classic", travellers=2), num_cycles=100)


@pytest.mark.parametrize("game,preset,params", CONFIGS)
def test_games_end_with_rewards_from_the_outcome(game, preset, params):
    e = env(game, preset, **params)
    rng = np.random.default_rng(0)
    for seed in range(3):
        e.reset(seed=seed)
        assert e.agent_selection in e.agents
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, termination, truncation, info = e.last()
            totals[agent] += reward
            if termination or truncation:
                e.step(None)
                continue
            assert e.observation_space(agent).contains(obs)
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        outcome = info["outcome"]
        if game == "journey":
            assert set(totals.values()) == {float(outcome["scores"][0])}
        else:
            assert sum(totals.values()) == pytest.approx(0.0)


def test_agents_are_named_by_what_the_rules_call_a_seat():
    # The word is the game's seat parameter in the singular, asked of the game.
    assert env("journey", "classic", travellers=2).possible_agents == ["traveller_0", "traveller_1"]
    assert env("expedition", "dice", players=3).possible_agents == ["player_0", "player_1", "player_2"]


@pytest.mark.parametrize("game,preset,params", CONFIGS)
def test_the_observation_space_is_bounded_by_the_game_s_ranges(game, preset, params):
    e = env(game, preset, **params)
    low, high = e.unwrapped.game.tensor_bounds
    for agent in e.possible_agents:
        box = e.observation_space(agent)["observation"]
        assert box.dtype == np.float32 and box.shape == e.unwrapped.game.tensor_shape
        assert (box.low == low).all() and (box.high == high).all() and box.is_bounded()
