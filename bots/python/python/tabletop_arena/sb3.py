"""The batched environments for Stable-Baselines3, and an agent trained with sb3-contrib's
`MaskablePPO` (PPO that samples only legal actions), end to end: trained, evaluated on deals it
never trained on, saved, and played as a Play client. It needs the `sb3` extra (torch,
stable-baselines3, sb3-contrib).

    from tabletop_arena import sb3
    model, curve = sb3.train("expedition", "no-dice", players=2, opponent="random",
                             steps=500_000, seed=1)
    model.save("maskable.zip")
    policy = sb3.MaskablePolicy.load("maskable.zip")
    learn.evaluate(policy, "greedy", games=400, seed=2)

`VecEnv(game, n, ...)` is a Stable-Baselines3 `VecEnv` over `tabletop_arena.vector`'s batch: n
games stepped in Rust per call, the others' seats played by a built-in agent, each game dealt
again as it ends (its last observation in `infos[i]["terminal_observation"]`), and the legal
actions through `action_masks()`, as sb3-contrib's maskable algorithms ask for them. Any SB3
algorithm for a discrete action space trains on it; only the maskable ones keep to legal
actions (an illegal action loses the game, as a tournament's referee rules).

`python -m tabletop_arena.sb3 --help` trains from the command line and writes the model
(`model.zip`), its learning curve (`curve.csv`, `curve.png`) into a directory.
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv as _VecEnv

from . import learn, load, vector


class VecEnv(_VecEnv):
    """`n` games of `game` (a `tabletop_arena.Game`) against `opponent`, as an SB3 `VecEnv`:
    see the module. The first `reset` deals from `seed` (or from the seed given to `seed()`;
    none: a fresh one)."""

    def __init__(self, game, n, *, opponent="random", seat=None, threads=0, seed=None):
        if opponent == "self":
            raise ValueError("opponent: an SB3 VecEnv gives one reward per game; for self-play use tabletop_arena.vector")
        self.game = game
        self.render_mode = None
        self._envs = vector.BatchEnv(game, n, opponent=opponent, seat=seat, threads=threads)
        self._first_seed = seed
        self._masks = None
        self._actions = None
        super().__init__(n, self._envs.single_observation_space, self._envs.single_action_space)

    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else self._first_seed
        self._first_seed = None
        obs, info = self._envs.reset(seed=seed)
        self._masks = info["action_mask"]
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, _, info = self._envs.step(self._actions)
        self._masks = info["action_mask"]
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(terminated):
            infos[i]["terminal_observation"] = info["final_obs"][i]
            infos[i]["illegal"] = bool(info["final_info"]["illegal"][i])
        return obs, rewards, terminated, infos

    def action_masks(self):
        """The legal actions of every game now (`n x actions`, bool)."""
        return self._masks

    def seed(self, seed=None):
        # The batch deals every game from one seed: game i's deals flow from it and from i.
        self._seeds = [seed] + [None] * (self.num_envs - 1)
        return [seed] * self.num_envs

    def close(self):
        self._envs.close()

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name != "action_masks":
            raise AttributeError(f"{method_name}: the games of a batch have only action_masks() to call")
        return list(self._masks[list(self._get_indices(indices))])

    def get_attr(self, attr_name, indices=None):
        count = len(list(self._get_indices(indices)))
        if attr_name == "render_mode":
            return [None] * count
        if attr_name == "action_masks":
            return [self.action_masks] * count
        raise AttributeError(f"{attr_name}: the games of a batch have no such attribute")

    def set_attr(self, attr_name, value, indices=None):
        raise AttributeError(f"{attr_name}: the games of a batch have no attribute to set")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(list(self._get_indices(indices)))


class MaskablePolicy:
    """A trained `MaskablePPO` with the interface of `learn.Policy` (`act`, `inputs`,
    `actions`, `spec`, `game()`), so that `learn.evaluate` and the Play agent
    (`python -m tabletop_arena.agents.policy --model model.zip`) take it as they take
    numpy's. `act` samples the masked policy with the caller's generator (the same draws for
    the same seed), or plays its most likely action with `greedy=True`."""

    def __init__(self, model, spec):
        self.model = model
        self.spec = dict(spec or {})
        self.inputs = int(np.prod(model.observation_space.shape))
        self.actions = int(model.action_space.n)

    @classmethod
    def load(cls, path):
        """A model saved by `train`'s caller or the command line; a file that is not one
        raises ValueError naming it."""
        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as e:  # noqa: BLE001 (SB3 raises what its zip and pickle readers raise)
            raise ValueError(f"{path} is not a saved MaskablePPO model: {e}") from None
        spec = getattr(model, "tabletop_spec", None)
        if not isinstance(spec, dict) or "game" not in spec:
            raise ValueError(f"{path} is a MaskablePPO model without the game it was trained on (tabletop_spec)")
        return cls(model, spec)

    def logits(self, obs, mask):
        """The masked logits (`n x actions`; illegal actions far below the rest)."""
        policy = self.model.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(np.asarray(obs, np.float32).reshape(len(obs), -1))
            dist = policy.get_distribution(tensor, action_masks=mask)
            return dist.distribution.logits.cpu().numpy()

    def act(self, obs, mask, rng=None, greedy=False):
        """One legal action id per row of `obs` (`n x tensor`) and `mask` (`n x actions` bool)."""
        mask = np.asarray(mask, np.bool_).reshape(len(obs), -1)
        if not mask.any(axis=1).all():
            raise ValueError("a row of the mask has no legal action")
        logits = self.logits(obs, mask)
        if greedy:
            return np.argmax(np.where(mask, logits, -np.inf), axis=1)
        rng = rng if rng is not None else np.random.default_rng()
        gumbel = -np.log(-np.log(rng.random(logits.shape, dtype=np.float32) + 1e-20) + 1e-20)
        return np.argmax(np.where(mask, logits + gumbel, -np.inf), axis=1)

    def game(self):
        """The game it was trained on (from `spec`)."""
        return load(self.spec["game"], self.spec.get("preset"), **self.spec.get("params", {}))


class Annealed:
    """A learning rate annealed linearly to 0 over training (SB3 calls it with the fraction
    of training left); a class, so that a saved model loads without this module's closures."""

    def __init__(self, lr):
        self.lr = lr

    def __call__(self, remaining):
        return self.lr * remaining


class _Curve(BaseCallback):
    """Evaluates the policy every `every` steps before the last (`total`): a point of the
    curve each."""

    def __init__(self, every, total, point):
        super().__init__()
        self.every, self.total, self.point, self.next = every, total, point, every

    def _on_step(self):
        if self.every and self.next <= self.num_timesteps < self.total:
            self.point(self.num_timesteps)
            while self.next <= self.num_timesteps:
                self.next += self.every
        return True


def train(
    game,
    preset=None,
    *,
    opponent="random",
    steps=200_000,
    envs=64,
    rollout=64,
    epochs=4,
    minibatches=4,
    lr=2.5e-4,
    gamma=0.99,
    lam=0.95,
    clip=0.2,
    entropy=0.01,
    hidden=(128, 128),
    seed=0,
    threads=0,
    torch_threads=1,
    evaluate_every=0,
    evaluate_games=200,
    evaluate_against=("random", "greedy"),
    evaluate_seed=None,
    evaluate_seats=None,
    progress=None,
    **params,
):
    """Train `MaskablePPO` for `steps` learner steps (whole rollouts: rounded down to a multiple
    of `envs * rollout`) in `envs` games of `game` (a name, with
    `preset` and keyword parameters as `tabletop_arena.load`) against `opponent` (a built-in
    agent spec), with the hyperparameters of `learn.train` (PPO's usual ones). Everything
    random flows from `seed`; torch computes on `torch_threads` threads (the batch's on
    `threads`).

    Every `evaluate_every` steps (and at the start and the end) the policy is evaluated against
    each of `evaluate_against` on `evaluate_games` deals of `evaluate_seed` (default:
    `seed + 1`, deals it never trains on), by `learn.evaluate`. Returns `(model, curve)`: the
    model carries the game it learned (`model.tabletop_spec`, kept by `save`), the
    curve is a list of `{"steps", "seconds", ...}` with `learn.curve_point`'s numbers (a
    cooperative game's at each of `evaluate_seats` seat counts; default: all).
    """
    spec = {"game": game, "preset": preset, "params": params}
    game = load(game, preset, **params)
    evaluate_seed = seed + 1 if evaluate_seed is None else evaluate_seed
    if torch_threads:
        torch.set_num_threads(torch_threads)
    env = VecEnv(game, envs, opponent=opponent, threads=threads, seed=seed)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=Annealed(lr),
        n_steps=rollout,
        batch_size=envs * rollout // minibatches,
        n_epochs=epochs,
        gamma=gamma,
        gae_lambda=lam,
        clip_range=clip,
        ent_coef=entropy,
        policy_kwargs={"net_arch": list(hidden)},
        seed=seed,
        device="cpu",
    )
    model.tabletop_spec = spec
    policy = MaskablePolicy(model, spec)
    curve = []
    started = time.perf_counter()

    def point(done_steps):
        p = {"steps": int(done_steps), "seconds": round(time.perf_counter() - started, 3)}
        p.update(learn.curve_point(policy, spec, evaluate_against, evaluate_games, evaluate_seed, threads, evaluate_seats))
        curve.append(p)
        if progress:
            progress(p)

    point(0)
    # Whole rollouts of every game, as `learn.train` counts them.
    steps = max(1, steps // (envs * rollout)) * envs * rollout
    model.learn(total_timesteps=steps, callback=_Curve(evaluate_every, steps, point))
    point(model.num_timesteps)
    env.close()
    return model, curve


def save(model, path):
    """Write the model to `path` (SB3's zip), with the game it learned."""
    model.save(path, include=["tabletop_spec"])


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tabletop_arena.sb3",
        description="Train sb3-contrib's MaskablePPO on the batched environments; write model.zip, curve.csv and curve.png.",
    )
    parser.add_argument("--game", default="expedition")
    parser.add_argument("--preset", default="no-dice")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a game parameter (JSON value)")
    parser.add_argument("--opponent", default="random", help="the built-in agent it trains against")
    parser.add_argument("--steps", type=int, default=500_000)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--rollout", type=int, default=64)
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 128])
    parser.add_argument("--lr", type=float, default=2.5e-4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--evaluate-every", type=int, default=50_000)
    parser.add_argument("--evaluate-games", type=int, default=200)
    parser.add_argument("--against", nargs="+", default=["random", "greedy"])
    parser.add_argument("--evaluate-seats", type=int, nargs="+", help="a cooperative game's seat counts to evaluate at (default: all)")
    parser.add_argument("--out", required=True, help="the directory it writes to")
    args = parser.parse_args(argv)
    params = learn.parse_params(parser, args.param)
    os.makedirs(args.out, exist_ok=True)

    def progress(p):
        print(learn.describe(p), file=sys.stderr, flush=True)

    model, curve = train(
        args.game,
        args.preset,
        opponent=args.opponent,
        steps=args.steps,
        envs=args.envs,
        rollout=args.rollout,
        hidden=tuple(args.hidden),
        lr=args.lr,
        seed=args.seed,
        torch_threads=args.torch_threads,
        evaluate_every=args.evaluate_every,
        evaluate_games=args.evaluate_games,
        evaluate_against=tuple(args.against),
        evaluate_seats=args.evaluate_seats,
        progress=progress,
        **params,
    )
    save(model, os.path.join(args.out, "model.zip"))
    learn.write_curve(curve, os.path.join(args.out, "curve.csv"))
    title = f"MaskablePPO on {args.game} {args.preset} against {args.opponent} (seed {args.seed}; evaluated on seed {args.seed + 1}'s deals)"
    png = learn.plot_curve(curve, os.path.join(args.out, "curve.png"), title)
    print(f"wrote {args.out}/model.zip, curve.csv" + (", curve.png" if png else " (no matplotlib: no curve.png)"), file=sys.stderr)
    print(json.dumps(curve[-1]), flush=True)


if __name__ == "__main__":
    main()
