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
- with `legal="ids"`, the legal actions are told as their ids instead of a mask:
  `info["legal_ids"]` (`n x width` int64, each row's ids in increasing order, then -1; `width` the most
  legal actions of any game at this step) and `info["legal_count"]`. Journey has 5,376 action
  ids and some 6 to 9 legal actions at a decision: its masks are most of what a step hands
  over. `action_masks()` gives the masks either way;
- rewards come at a game's end, as the PettingZoo environment gives them (competitive: the
  seats ranked below minus those above, over the seats less one; cooperative: the team's
  score), to the seat that moved; `info["rewards"]` (`n x seats`) is every seat's reward at
  this step (zeros but where a game ended), as PettingZoo's `rewards`: in self-play, add
  `info["rewards"][i, s]` to seat `s`'s last decision in game `i` to credit each seat, the
  ones that did not make the last move too;
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
- games are never truncated (both games end within their own round limits);
- `send(actions)` and `recv()` are `step` in two halves, as EnvPool has them: the games step
  on a thread of the batch's own between the two, while the caller does something else, such
  as choosing the actions of a second batch:

      a.send(policy(obs_a)); obs_b, *_ = b.recv(); b.send(policy(obs_b)); obs_a, *_ = a.recv()

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


def make(game, n, preset=None, *, opponent="random", seat=None, threads=0, strict=False, legal="mask", **params):
    """`n` games of `game` (parameters as `tabletop_arena.load`) against `opponent`."""
    game = load(game, preset, **params)
    return BatchEnv(game, n, opponent=opponent, seat=seat, threads=threads, strict=strict, legal=legal)


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

    def __init__(self, game, n, *, opponent="random", seat=None, threads=0, strict=False, legal="mask"):
        self.game = game
        self.num_envs = n
        self.strict = strict
        self.legal = legal
        self._batch = _native.Batch(game, n, opponent, seat, 0, threads, legal)
        actions = game.action_count
        self.single_observation_space = observation_space(game)
        self.single_action_space = spaces.Discrete(actions)
        self.observation_space = observation_space(game, n)
        self.action_space = spaces.MultiDiscrete(np.full(n, actions))

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
        return self._batch.reset(seeds, 0, mask)

    def step(self, actions):
        return self._batch.step(_actions(actions), self.strict)

    def send(self, actions):
        """The first half of `step`, as EnvPool's `send`: the games step on a thread of the
        batch's own while the caller goes on; `recv()` gives what `step` would have. The
        actions are checked here (`strict` refusals raise here). One step at a time: `step`,
        `reset` and a second `send` are refused until `recv`."""
        self._batch.send(_actions(actions), self.strict)

    def recv(self):
        """The second half of `step`: waits for the step `send` sent, and gives its
        `(observations, rewards, terminations, truncations, info)`."""
        return self._batch.recv()

    def action_masks(self):
        """The legal actions of every game now (`n x actions`, bool): what sb3-contrib's
        maskable algorithms ask for (with `legal="ids"` too)."""
        return self._batch.legal_masks()

    def state(self, i):
        """Game `i` as a `tabletop_arena.State` (a copy)."""
        return self._batch.state(i)

    def close_extras(self, **kwargs):
        self._batch = None


def _actions(actions):
    """A step's actions as the batch reads them (int64, one row)."""
    return np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)


__all__ = ["BatchEnv", "make", "make_vec", "observation_space"]
