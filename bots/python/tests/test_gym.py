"""The single-agent Gymnasium environment's seat: in turn from deal to deal by default, fixed
with `seat=k`, in every configuration; its observation space: bounded by the game's ranges,
and every observation within it."""

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from tabletop_arena import gym  # noqa: E402

SEATED = [
    ("expedition", "no-dice", {"players": 2}),
    ("expedition", "dice", {"players": 4}),
    ("journey", "classic", {"travellers": 3}),
]


def seated(env, info, obs):
    """The learner's seat, checked against the game itself: it is to move, and the observation
    is that seat's tensor."""
    seat = info["seat"]
    state = env.unwrapped._batch.state(0)
    assert state.to_move() == seat
    assert (state.observation_tensor(seat) == obs).all()
    return seat


@pytest.mark.parametrize("name, preset, params", SEATED)
def test_the_learner_s_seat_goes_round_from_deal_to_deal(name, preset, params):
    env = gym.make(name, preset, opponent="random", **params)
    seats = env.unwrapped.game.seats
    # Never seeded: deal k at seat k % seats.
    observed = [seated(env, *reversed(env.reset())) for _ in range(2 * seats + 1)]
    assert observed == [k % seats for k in range(2 * seats + 1)]
    # From a seed s on, deal k at seat (s + k) % seats, whatever came before; played to the end
    # or cut short alike.
    rng = np.random.default_rng(0)
    for s in (0, 5, 6):
        obs, info = env.reset(seed=s)
        observed = [seated(env, info, obs)]
        for k in range(1, 3 * seats):
            for _ in range(k % 3 * 20):
                obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
                if terminated:
                    break
            obs, info = env.reset()
            observed.append(seated(env, info, obs))
        assert observed == [(s + k) % seats for k in range(3 * seats)]
    # A loop of seeded resets goes round the seats too, and a seed deals the same game again.
    assert [env.reset(seed=i)[1]["seat"] for i in range(2 * seats)] == [i % seats for i in range(2 * seats)]
    first, info = env.reset(seed=3)
    env.reset()
    again, info2 = env.reset(seed=3)
    assert (first == again).all() and info["deal"] == info2["deal"]


@pytest.mark.parametrize("name, preset, params", SEATED)
def test_a_fixed_seat_is_kept_deal_after_deal(name, preset, params):
    seats = gym.make(name, preset, **params).unwrapped.game.seats
    for seat in range(seats):
        env = gym.make(name, preset, opponent="random", seat=seat, **params)
        observed = [seated(env, *reversed(env.reset(seed=s if s % 2 else None))) for s in range(2 * seats + 1)]
        assert observed == [seat] * (2 * seats + 1)


def test_a_bad_seat_is_named():
    with pytest.raises(ValueError, match='seat: \'first\': a seat number or "rotate"'):
        gym.make("expedition", "no-dice", seat="first", players=2)
    with pytest.raises(ValueError, match="seat 2: this game has seats 0 to 1"):
        gym.make("expedition", "no-dice", seat=2, players=2)


# Both games, each journey edition among them (a martian way home, dunwich's own).
BOUNDED = SEATED + [
    ("journey", "martian", {"travellers": 2, "return_journey": "ruins", "companions": True}),
    ("journey", "dunwich", {"travellers": 4, "allies": True}),
]


@pytest.mark.parametrize("name, preset, params", BOUNDED)
def test_every_observation_lies_in_the_bounded_observation_space(name, preset, params):
    env = gym.make(name, preset, opponent="random", **params)
    space = env.observation_space
    low, high = env.unwrapped.game.tensor_bounds
    assert space.dtype == np.float32 and space.shape == env.unwrapped.game.tensor_shape
    assert (space.low == low).all() and (space.high == high).all() and space.is_bounded()
    rng = np.random.default_rng(1)
    steps = 0
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        assert space.contains(obs)
        terminated = False
        while not terminated:
            obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            assert space.contains(obs), f"seed {seed}: {obs[(obs < low) | (obs > high)]} out of bounds"
            steps += 1
    assert steps > 50


def box_warnings(env):
    """What Gymnasium's checker warns of `env`'s observation `Box` (its bounds)."""
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    return [str(w.message) for w in caught if "Box" in str(w.message)]


@pytest.mark.parametrize("name, preset, params", BOUNDED)
def test_gymnasium_s_checker_has_nothing_to_say_of_the_bounds(name, preset, params):
    from gymnasium import spaces

    env = gym.make(name, preset, opponent="random", **params)
    assert box_warnings(env) == []
    # The same environment unbounded, as it was: the checker warns of both infinities.
    env.observation_space = spaces.Box(-np.inf, np.inf, shape=env.observation_space.shape, dtype=np.float32)
    said = box_warnings(env)
    assert len(said) == 2 and all("infinity" in m for m in said), said
