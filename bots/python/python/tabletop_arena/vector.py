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
  observation alone), within `observation_space`'s bounds: each number's range as the game
  declares it (`Game.tensor_bounds`);
- info, as Gymnasium's vector environments give it (each key with its mask `_key`, here all
  true): `info["action_mask"]`: `n x actions` bool; `info["seat"]`; `info["deal"]` (the seed
  of the deal in play: `game.new_game(deal)` deals it again);
- rewards come at a game's end, as the PettingZoo environment gives them (competitive: the
  seats ranked below minus those above, over the seats less one; cooperative: the team's
  score), to the seat that moved; every seat's reward is in `final_info` (below): in
  self-play, each seat's reward for its own moves;
- a game that ends is dealt again in the same step (`metadata["autoreset_mode"]` is
  `AutoresetMode.SAME_STEP`), as Gymnasium's same-step mode has it: the observations and the
  top-level info are the new deal's; `info["final_obs"]` (an object array: game `i`'s last
  observation where it ended, else None) and `info["final_info"]` (the ended games' last
  info: `seat` that moved, `deal`, `illegal`, `final_rewards` every seat's reward,
  `achieved` what each seat achieved as the outcome says, e.g. `arrived`, each key with its
  mask) are present when a game ended, with `info["_final_obs"]` and
  `info["_final_info"]`, the games that ended;
- an action that is not legal loses that game for the learner (as a tournament's referee
  rules: reward -1, or 0 in a cooperative game; `info["final_info"]["illegal"][i]`); with
  `strict=True` it raises `ValueError` naming the game and the action, and nothing is played;
- games are never truncated (both games end within their own round limits).

`reset(seed=s)` deals game `i`'s `k`-th deal from `_native.batch_seeds(s, i, k, seats)`;
`reset(seed=[s_0, ..., s_n-1])` game `i`'s from `batch_seeds(s_i, i, k, seats)` (a list of one
seed repeated is that seed). So any game can be played again move for move with `State`s and
`tabletop_arena.Bot`s.
"""

import numbers

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from . import _native, load
from . import gym as _gym  # noqa: F401 (registers the ids with Gymnasium)


def make(game, n, preset=None, *, opponent="random", seat=None, threads=0, strict=False, **params):
    """`n` games of `game` (parameters as `tabletop_arena.load`) against `opponent`."""
    return BatchEnv(load(game, preset, **params), n, opponent=opponent, seat=seat, threads=threads, strict=strict)


def make_vec(num_envs, game, preset=None, **kwargs):
    """`make` as Gymnasium's `make_vec` calls it for the registered ids (see
    `tabletop_arena.gym.register`)."""
    return make(game, num_envs, preset, **kwargs)


def observation_space(game, *shape):
    """The `Box` of `game`'s observation tensors (float32), bounded by the range of each of
    their numbers (`game.tensor_bounds`, from the game's layout), repeated over the leading
    `shape` (a batch's games)."""
    low, high = game.tensor_bounds
    full = (*shape, *game.tensor_shape)
    return spaces.Box(np.broadcast_to(low, full), np.broadcast_to(high, full), dtype=np.float32)


class BatchEnv(VectorEnv):
    """Gymnasium's `VectorEnv` over a `tabletop_arena._native.Batch`: see the module."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game, n, *, opponent="random", seat=None, threads=0, strict=False):
        self.game = game
        self.num_envs = n
        self.strict = strict
        self._batch = _native.Batch(game, n, opponent, seat, 0, threads)
        actions = game.action_count
        self.single_observation_space = observation_space(game)
        self.single_action_space = spaces.Discrete(actions)
        self.observation_space = observation_space(game, n)
        self.action_space = spaces.MultiDiscrete(np.full(n, actions))
        self._all = np.ones(n, np.bool_)
        self._playing = None
        self._info(self._batch.current()[1])

    def reset(self, *, seed=None, options=None):
        """Deal every game again: from one seed (an int: game `i`'s deals from it and `i`), or
        a seed per game (a list of `n`); none, a fresh one. `options={"reset_mask": mask}` (a
        bool per game, as Gymnasium's vector environments take it) deals again only the games
        it marks; the others go on where they are."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        if isinstance(seed, numbers.Integral):
            seeds = int(seed)
        else:
            seeds = [int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed: {len(seeds)} seeds for {self.num_envs} games")
        mask = None
        if options and options.get("reset_mask") is not None:
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise ValueError(
                    f"reset_mask: a bool array of shape ({self.num_envs},), got {mask.dtype} of shape {mask.shape}"
                )
            mask = mask.tolist()
        obs, native = self._batch.reset(seeds, 0, mask)
        return obs, self._info(native)

    def step(self, actions):
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)
        seats, deals = self._playing
        obs, rewards, terminations, native = self._batch.step(actions, self.strict)
        info = self._info(native)
        if terminations.any():
            ended = terminations
            final_obs = np.full(self.num_envs, None, dtype=object)
            rows = native["final_obs"]
            for i in np.flatnonzero(ended):
                final_obs[i] = rows[i]
            achieved = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                achieved[i] = native["final_achieved"][i]
            final = {
                "seat": seats,
                "deal": deals,
                "illegal": native["illegal"],
                "final_rewards": native["final_rewards"],
                "achieved": achieved,
            }
            for key in list(final):
                final[f"_{key}"] = ended
            info.update(final_obs=final_obs, _final_obs=ended, final_info=final, _final_info=ended)
        return obs, rewards, terminations, np.zeros(self.num_envs, np.bool_), info

    def _info(self, native):
        """The info of the deals in play (each key with its mask, all true), remembered for the
        step that ends them."""
        info = {}
        for key in ("action_mask", "seat", "deal"):
            info[key] = native[key]
            info[f"_{key}"] = self._all
        self._playing = (native["seat"], native["deal"])
        return info

    def action_masks(self):
        """The legal actions of every game now (`n x actions`, bool): what sb3-contrib's
        maskable algorithms ask for."""
        return self._batch.current()[1]["action_mask"]

    def state(self, i):
        """Game `i` as a `tabletop_arena.State` (a copy)."""
        return self._batch.state(i)

    def close_extras(self, **kwargs):
        self._batch = None


__all__ = ["BatchEnv", "make", "make_vec", "observation_space"]
