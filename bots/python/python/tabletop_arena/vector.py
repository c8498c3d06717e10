"""Many games stepped at once, in Rust, for learners: Gymnasium's vector API.

    import numpy as np
    from tabletop_arena import vector
    envs = vector.make("expedition", 256, preset="no-dice", opponent="greedy")
    obs, info = envs.reset(seed=1)
    for _ in range(1000):
        masks = info["action_mask"]                      # n x actions, bool
        actions = [np.flatnonzero(m)[0] for m in masks]  # any legal action per game
        obs, rewards, terminations, truncations, info = envs.step(actions)

Each of the `n` games has one learner seat; the other seats are played inside Rust by a
built-in agent (`opponent`: `random`, `rules`, `greedy`, `mcts:iterations=200`, ...) or, with
`opponent="self"`, by the learner too (self-play: each step is for the seat to move, named by
`info["seat"]`). The learner's seat changes from deal to deal (game `i`'s `k`-th deal at seat
`(i + k) % seats`) unless `seat` fixes it.

- observations: `n x tensor` float32 (the seat's `observation_tensor`, built from its
  observation alone); `info["action_mask"]`: `n x actions` bool; `info["seat"]`, `info["deal"]`
  (the seed of the deal in play: `game.new_game(deal)` deals it again);
- rewards come at a game's end, as the PettingZoo environment gives them (competitive: the
  seats ranked below minus those above, over the seats less one; cooperative: the team's
  score), to the seat that moved;
- a game that ends is dealt again in the same step (`metadata["autoreset_mode"]` is
  `SAME_STEP`): its last observation is `info["final_obs"][i]` and every seat's reward
  `info["final_rewards"][i]` (both present when a game ended; `final_obs` is read-only, its
  rows of the games that go on zeros);
- an action that is not legal loses that game for the learner (as a tournament's referee
  rules: reward -1, or 0 in a cooperative game; `info["illegal"][i]`); with `strict=True`
  it raises `ValueError` naming the game and the action, and nothing is played;
- games are never truncated (both games end within their own round limits).

Game `i`'s `k`-th deal is played from seeds that flow from `reset(seed=)`, so any game can be
played again move for move with `State`s and `tabletop_arena.Bot`s.
"""

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from . import _native, load


def make(game, n, preset=None, *, opponent="random", seat=None, threads=0, strict=False, **params):
    """`n` games of `game` (parameters as `tabletop_arena.load`) against `opponent`."""
    return BatchEnv(load(game, preset, **params), n, opponent=opponent, seat=seat, threads=threads, strict=strict)


class BatchEnv(VectorEnv):
    """Gymnasium's `VectorEnv` over a `tabletop_arena._native.Batch`: see the module."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game, n, *, opponent="random", seat=None, threads=0, strict=False):
        self.game = game
        self.num_envs = n
        self.strict = strict
        self._batch = _native.Batch(game, n, opponent, seat, 0, threads)
        actions = game.action_count
        self.single_observation_space = spaces.Box(-np.inf, np.inf, shape=game.tensor_shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(actions)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(n, *game.tensor_shape), dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(n, actions))

    def reset(self, *, seed=None, options=None):
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        return self._batch.reset(int(seed))

    def step(self, actions):
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)
        obs, rewards, terminations, info = self._batch.step(actions, self.strict)
        info["_final_obs"] = terminations
        return obs, rewards, terminations, np.zeros(self.num_envs, np.bool_), info

    def action_masks(self):
        """The legal actions of every game now (`n x actions`, bool): what sb3-contrib's
        maskable algorithms ask for."""
        return self._batch.current()[1]["action_mask"]

    def state(self, i):
        """Game `i` as a `tabletop_arena.State` (a copy)."""
        return self._batch.state(i)

    def close_extras(self, **kwargs):
        self._batch = None


__all__ = ["BatchEnv", "make"]
