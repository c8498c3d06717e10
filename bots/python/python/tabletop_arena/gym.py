"""One game against a fixed opponent, as a Gymnasium environment: how most reinforcement
learning libraries train.

    from tabletop_arena import gym
    env = gym.make("expedition", preset="no-dice", opponent="greedy")
    obs, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(info["action_mask"].astype("int8"))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break

The learner plays one seat: `seat=k` always seat `k`; `seat="rotate"` (the default) a seat in
turn from deal to deal: the `k`-th deal after `reset(seed=s)` (that reset's own deal is the
0th) puts it at seat `(s + k) % seats`, and before any seeded reset at seat `k % seats`, so a
seed deals the same game at the same seat whatever came before, and a loop of
`reset(seed=i)` goes round the seats too (`info["seat"]` says which). The other seats are
played inside Rust by the built-in agent `opponent`. The observation is the seat's
tensor (float32), in a `Box` bounded by each number's range (`Game.tensor_bounds`); the legal
actions are `info["action_mask"]` (bool) and `env.action_masks()` (what sb3-contrib's
`MaskablePPO` asks for), or with `legal="ids"` `info["legal_ids"]` (the legal ids themselves:
journey has 5,376 ids and a few legal at a time). The reward comes at the end (competitive: 1 for a
lone winner of two, -1 for its loser, 0 for a tie; cooperative: the team's score). An action
that is not legal loses the game for the learner (reward -1, or 0 in a cooperative game;
`info["illegal"]`), as a tournament's referee rules it; with `strict=True` it raises
`ValueError` naming it, and nothing is played.
"""

import dataclasses

import gymnasium
import numpy as np
from gymnasium import spaces

from . import _native, load


def register():
    """Register every game's presets with Gymnasium (done when this module is imported):
    `gymnasium.make("tabletop_arena/<game>-<preset>-v0", opponent=..., **params)` makes this
    environment, `gymnasium.make_vec(id, num_envs=n, ...)` `tabletop_arena.vector`'s batch of
    `n` games (its keyword arguments as `vector.make`'s), each with its `spec`."""
    from gymnasium.envs.registration import register as add
    from gymnasium.envs.registration import registry

    for name, _, presets, _, _ in _native.games():
        for preset in presets:
            env_id = f"tabletop_arena/{name}-{preset}-v0"
            if env_id not in registry:
                add(
                    id=env_id,
                    entry_point="tabletop_arena.gym:make",
                    vector_entry_point="tabletop_arena.vector:make_vec",
                    kwargs={"game": name, "preset": preset},
                )


def make(game, preset=None, *, opponent="greedy", seat="rotate", strict=False, legal="mask", render_mode=None, **params):
    """`game` (parameters as `tabletop_arena.load`) against `opponent`."""
    loaded = load(game, preset, **params)
    env = ArenaEnv(loaded, opponent=opponent, seat=seat, strict=strict, legal=legal, render_mode=render_mode)
    # Its registered id's spec, with the arguments it was made with: `gymnasium.make(env.spec)`
    # makes it again (as Gymnasium's checker does, for the other render modes).
    if preset is None:
        preset = next(g[3] for g in _native.games() if g[0] == game)
    registered = gymnasium.envs.registration.registry.get(f"tabletop_arena/{game}-{preset}-v0")
    if registered is not None:
        made = dict(opponent=opponent, seat=seat, strict=strict, legal=legal, **params)
        env.spec = dataclasses.replace(registered, kwargs={**registered.kwargs, **made})
    return env


class ArenaEnv(gymnasium.Env):
    """A Gymnasium `Env` over a one-game `tabletop_arena._native.Batch`: see the module."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, game, *, opponent="greedy", seat="rotate", strict=False, legal="mask", render_mode=None):
        if opponent == "self":
            raise ValueError("opponent: a single-agent environment plays against an agent; for self-play use tabletop_arena.vector")
        if seat is None or (isinstance(seat, str) and seat == "rotate"):
            fixed = None
        elif isinstance(seat, (int, np.integer)) and not isinstance(seat, bool):
            fixed = int(seat)
        else:
            raise ValueError(f'seat: {seat!r}: a seat number or "rotate"')
        self.game = game
        self.seat = "rotate" if fixed is None else fixed
        self.strict = strict
        self.render_mode = render_mode
        self.legal = legal
        self._batch = _native.Batch(game, 1, opponent, fixed, 0, 1, legal)
        # The deal to come, counted from the last seeded reset (from its seed on: see the module).
        self._deal = 0
        from .vector import observation_space  # (vector imports this module first)

        self.observation_space = observation_space(game)
        self.action_space = spaces.Discrete(game.action_count)
        self._info = None
        self._over = False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._deal = int(seed) % self.game.seats
        # The deal flows from Gymnasium's generator (seeded by `seed`, or by the last seed given);
        # game 0's `k`-th deal of a batch is at seat `k % seats` unless the seat is fixed.
        self._over = False
        obs, self._info = self._batch.reset_one(int(self.np_random.integers(0, 2**63)), self._deal)
        self._deal = (self._deal + 1) % self.game.seats
        return obs, self._info

    def step(self, action):
        obs, reward, terminated, self._info = self._batch.step_one(int(action), self.strict)
        self._over = terminated
        # At the end, the game over is what the learner sees (its seat, its deal); the next
        # deal waits for `reset`.
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, False, self._info

    def action_masks(self):
        """The legal actions now (bool), for maskable algorithms (with `legal="ids"` too)."""
        if self.legal == "ids":
            mask = np.zeros(self.game.action_count, dtype=np.bool_)
            mask[self._info["legal_ids"]] = True
            return mask
        return self._info["action_mask"]

    def render(self):
        """The learner's observation as text (`ansi`), or printed (`human`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: set render_mode='ansi' or 'human'")
            return None
        # After the last step, the game as it ended (the batch has dealt the next).
        state = self._batch.ended() if self._over else self._batch.state(0)
        text = state.observation_text(int(self._info["seat"]))
        if self.render_mode == "human":
            print(text)
            return None
        return text


register()
