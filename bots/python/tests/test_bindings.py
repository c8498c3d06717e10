"""The bindings' surface: loading, states, illegal actions, clones, tensors, the action space."""

import copy
import random

import numpy as np
import pytest

import tabletop_arena as ta
from conftest import CONFIGS  # every game, several seat counts


def test_the_games_are_listed():
    names = [g["name"] for g in ta.games()]
    assert names == ["journey", "expedition"]
    assert next(g for g in ta.games() if g["name"] == "journey")["cooperative"]


def test_bad_names_and_values_are_value_errors_that_name_them():
    with pytest.raises(ValueError, match="chess"):
        ta.load("chess")
    with pytest.raises(ValueError, match="nonsense"):
        ta.load("journey", preset="nonsense")
    with pytest.raises(ValueError, match="travellers"):
        ta.load("journey", travellers=9)
    with pytest.raises(ValueError, match="colour"):
        ta.load("expedition", colour="red")


def test_parameters_from_keywords_and_yaml():
    g = ta.load("expedition", preset="no-dice", players=3)
    assert (g.name, g.seats, g.cooperative) == ("expedition", 3, False)
    assert "dice: false" in g.params_yaml
    again = ta.load("expedition", yaml=g.params_yaml)
    assert again.params_yaml == g.params_yaml
    assert ta.load("journey", preset="classic", travellers=2, companions=True).seats == 2


@pytest.mark.parametrize("name,preset,params", CONFIGS)
def test_a_game_plays_to_its_end_through_the_bindings(name, preset, params):
    game = ta.load(name, preset, **params)
    rng = random.Random(3)
    for seed in range(5):
        state = game.new_game(seed)
        while not state.is_over():
            seat = state.to_move()
            legal = state.legal_actions()
            assert legal and all(0 <= a < game.action_count for a in legal)
            assert all(game.action_name(a) for a in legal)
            mask = state.legal_mask()
            assert mask.dtype == np.int8 and mask.shape == (game.action_count,)
            assert sorted(np.flatnonzero(mask)) == sorted(legal)
            t = state.observation_tensor(seat)
            assert t.dtype == np.float32 and t.shape == game.tensor_shape
            assert isinstance(state.observation(seat), dict)
            state.apply(rng.choice(legal))
        assert state.to_move() is None and state.legal_actions() == []
        o = state.outcome()
        assert len(o["scores"]) == len(o["ranks"]) == game.seats
        assert sum(f[1] for f in game.tensor_fields) == game.tensor_shape[0]


@pytest.mark.parametrize("name, preset, params", CONFIGS)
def test_tensor_bounds_give_each_number_its_field_s_range(name, preset, params):
    game = ta.load(name, preset, **params)
    low, high = game.tensor_bounds
    assert low.dtype == high.dtype == np.float32 and low.shape == high.shape == game.tensor_shape
    assert np.isfinite(low).all() and np.isfinite(high).all() and (low < high).all()
    # One range per field, over its numbers.
    at = 0
    for field, size, _ in game.tensor_fields:
        assert len(set(low[at : at + size])) <= 1 and len(set(high[at : at + size])) <= 1, field
        at += size
    # Marks are 0 or 1; a count's range reaches past 1 where its scale does not hold it
    # (journey's Nemesis health, say).
    assert low.min() == 0.0 and high.min() > 0.0


def test_an_illegal_action_raises_and_changes_nothing():
    game = ta.load("expedition", preset="dice", players=2)
    state = game.new_game(7)
    before = (state.legal_actions(), state.observation(0), state.observation(1), state.to_move())
    illegal = next(a for a in range(game.action_count) if a not in before[0])
    for bad in (illegal, game.action_count + 5, -1, 2**40):
        with pytest.raises(ValueError):
            state.apply(bad)
        assert (state.legal_actions(), state.observation(0), state.observation(1), state.to_move()) == before
    assert game.action_name(game.action_count) is None and game.action_name(-3) is None
    with pytest.raises(ValueError, match="seat"):
        state.observation(2)


def test_a_finished_game_refuses_every_action():
    game = ta.load("journey", preset="classic")
    state = game.new_game(1)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="over"):
        state.apply(0)


def test_clones_are_independent_and_replay_the_same_game():
    game = ta.load("expedition", preset="dice", players=3)
    state = game.new_game(11)
    for a in (state.legal_actions()[0],) * 1:
        state.apply(a)
    twins = [state.clone(), copy.copy(state), copy.deepcopy(state)]
    rng = random.Random(5)
    actions = []
    while not state.is_over():
        a = rng.choice(state.legal_actions())
        actions.append(a)
        state.apply(a)
    for twin in twins:
        assert not twin.is_over()
        for a in actions:
            twin.apply(a)
        assert twin.outcome() == state.outcome()


def test_every_action_id_in_range_is_named_or_not_an_action():
    game = ta.load("journey", preset="dunwich", travellers=2)
    named = [a for a in range(game.action_count) if game.action_name(a) is not None]
    assert len(named) > 100
    state = game.new_game(2)
    for a in state.legal_actions():
        assert state.action_label(a)
    # An id the game does not have is an error, not a label.
    unnamed = next(a for a in range(game.action_count) if game.action_name(a) is None)
    for bad in (unnamed, game.action_count, 10**6, -1):
        with pytest.raises(ValueError, match=f"action id {bad} names no action of journey"):
            state.action_label(bad)
