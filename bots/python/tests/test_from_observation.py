"""`Game.from_observation`, the honest forward model: a state rebuilt from a seat's observation
shows that seat exactly its observation (and legal actions, and tensor), and differs from the
real state only in facts hidden from the seat, which it redraws."""

import random

import pytest

import tabletop_arena as ta

CONFIGS = [
    ("journey", "classic", {"travellers": 1}),
    ("journey", "martian", {"travellers": 3}),
    ("journey", "dunwich", {"travellers": 4, "companions": True}),
    ("expedition", "dice", {"players": 2}),
    ("expedition", "no-dice", {"players": 3}),
]


def visited(game, games, seed):
    """States met in random play of `games` games."""
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_game(seed * 1000 + g)
        while not state.is_over():
            yield state
            state.apply(rng.choice(state.legal_actions()))
        yield state


def same_for(state, other, seat):
    """What `seat` can tell of a state: its observation, tensor, turn and legal actions."""
    mine = state.to_move() == seat
    return (
        other.observation(seat) == state.observation(seat)
        and (other.observation_tensor(seat) == state.observation_tensor(seat)).all()
        and other.to_move() == state.to_move()
        and (not mine or other.legal_actions() == state.legal_actions())
    )


@pytest.mark.parametrize("name,preset,params", CONFIGS)
def test_a_rebuilt_state_never_changes_the_seats_own_observation(name, preset, params):
    game = ta.load(name, preset, **params)
    checked = 0
    games = 30 if name == "journey" else 6  # an expedition lasts ten times as many moves
    for i, state in enumerate(visited(game, games, 1)):
        for seat in range(game.seats):
            rebuilt = game.from_observation(state.observation(seat), seat, i)
            assert same_for(state, rebuilt, seat), f"{name}: seat {seat}'s own view changed"
            again = rebuilt.redraw_hidden(seat, i + 1)
            assert same_for(state, again, seat)
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("name,preset,params", CONFIGS)
def test_the_hidden_facts_are_redrawn(name, preset, params):
    """Rebuilt with other seeds, states differ in what the seat cannot see: another seat's
    view (hands) or what chance deals next (the same actions played on, the seat's view
    parts)."""
    game = ta.load(name, preset, **params)
    differs, states = 0, 0
    rng = random.Random(2)
    for i, state in enumerate(visited(game, 10, 2)):
        if state.is_over() or i % 3:
            continue
        seat = state.to_move()
        a, b = (game.from_observation(state.observation(seat), seat, s) for s in (10 * i, 10 * i + 1))
        others = [s for s in range(game.seats) if s != seat]
        if any(a.observation(s) != b.observation(s) for s in others):
            differs += 1
        else:
            for _ in range(40):
                if a.is_over() or b.is_over() or a.legal_actions() != b.legal_actions():
                    break
                act = rng.choice(a.legal_actions())
                a.apply(act)
                b.apply(act)
                if a.observation(seat) != b.observation(seat):
                    break
            differs += a.observation(seat) != b.observation(seat) or a.legal_actions() != b.legal_actions()
        states += 1
    assert states > 10
    assert differs >= states // 2, f"{name}: hidden facts redrawn in {differs} of {states} states"


def test_an_observation_of_another_game_is_refused():
    journey = ta.load("journey", preset="classic")
    expedition = ta.load("expedition", preset="dice", players=2)
    seen = expedition.new_game(1).observation(0)
    with pytest.raises(ValueError, match="journey"):
        journey.from_observation(seen, 0, 1)
    with pytest.raises(ValueError):
        expedition.from_observation({"nonsense": True}, 0, 1)


def test_an_observation_of_another_seat_is_refused():
    game = ta.load("expedition", preset="no-dice", players=3)
    state = game.new_game(5)
    seen = state.observation(0)
    with pytest.raises(ValueError, match="seat 1: this is seat 0's observation"):
        game.from_observation(seen, 1, 7)
    # The seat defaults to the observation's own.
    rebuilt = game.from_observation(seen, seed=7)
    assert rebuilt.observation(0) == seen


@pytest.mark.parametrize("name,preset,params", CONFIGS)
def test_a_watchers_view_holds_only_what_every_seat_sees(name, preset, params):
    """`State.public_observation()`, a spectator's view: marked a watcher's, and unchanged
    when any seat's hidden facts are redrawn (so it holds only what every seat sees)."""
    game = ta.load(name, preset, **params)
    checked = 0
    for i, state in enumerate(visited(game, 10 if name == "journey" else 3, 2)):
        public = state.public_observation()
        assert public["watcher"] is True
        assert "(you)" not in state.public_observation_text()
        for seat in range(game.seats):
            assert state.redraw_hidden(seat, i).public_observation() == public, f"{name}: seat {seat}'s redraw"
            checked += 1
        if name == "expedition" and not state.is_over():
            assert all(p["cards"] is None for p in public["seats"]), "a held card shown to a watcher"
    assert checked > 50
