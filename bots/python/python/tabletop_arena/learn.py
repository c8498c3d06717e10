"""An agent that learns: a masked policy on the observation tensors, trained with PPO on the
batched environments (`tabletop_arena.vector`), evaluated on fixed deals, saved, and played as
a Play client (`python -m tabletop_arena.agents.policy`).

    from tabletop_arena import learn
    policy, curve = learn.train("expedition", "no-dice", players=2, opponent="random",
                                steps=300_000, seed=1)
    policy.save("ppo.npz")
    learn.evaluate(policy, opponent="greedy", games=400, seed=2)   # on other deals

The network and its gradients are numpy (a two-layer MLP with a policy head over every action
id and a value head; illegal actions are masked out of the softmax), so training needs nothing
beyond the package: PPO with clipped ratios, generalised advantage estimation and Adam, as in
Schulman et al. (2017) and the "37 implementation details" of Huang et al. (2022). With torch,
`tabletop_arena.sb3` trains sb3-contrib's `MaskablePPO` on the same environments, and its
models evaluate and play through the same functions (`docs/learning.md`).

`python -m tabletop_arena.learn --help` trains from the command line and writes the policy, its
learning curve (CSV, and a PNG with matplotlib: the `learn` extra) into a directory.
"""

import argparse
import csv
import json
import os
import sys
import time

import numpy as np

from . import load, vector

_NEG = np.float32(-1e9)


class Policy:
    """A policy and value over one game's observation tensor: `tensor -> relu(hidden) ->
    relu(hidden) -> (logits over every action id, value)`.

    `act(obs, mask)` takes a batch (`n x tensor`, `n x actions` bool) and returns an action id
    per row, always a legal one: sampled from the masked softmax, or its most likely action with
    `greedy=True`. `spec` names the game it was trained on (`{"game", "preset", "params"}`).
    """

    def __init__(self, inputs, actions, hidden=(128, 128), seed=0, spec=None):
        rng = np.random.default_rng(seed)
        self.inputs, self.actions, self.hidden = int(inputs), int(actions), tuple(int(h) for h in hidden)
        self.spec = dict(spec or {})
        sizes = (self.inputs, *self.hidden)
        self.params = {}
        for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
            self.params[f"w{k}"] = _init(rng, n_in, n_out, np.sqrt(2.0))
            self.params[f"b{k}"] = np.zeros(n_out, np.float32)
        self.params["w_pi"] = _init(rng, sizes[-1], self.actions, 0.01)
        self.params["b_pi"] = np.zeros(self.actions, np.float32)
        self.params["w_v"] = _init(rng, sizes[-1], 1, 1.0)
        self.params["b_v"] = np.zeros(1, np.float32)

    @classmethod
    def for_game(cls, game, hidden=(128, 128), seed=0, spec=None):
        """An untrained policy for `game` (a `tabletop_arena.Game`)."""
        return cls(int(np.prod(game.tensor_shape)), game.action_count, hidden, seed, spec)

    def forward(self, obs):
        """Logits (`n x actions`), values (`n`) and what `backward` needs."""
        x = np.asarray(obs, np.float32).reshape(len(obs), -1)
        layers = [x]
        for k in range(len(self.hidden)):
            x = np.maximum(x @ self.params[f"w{k}"] + self.params[f"b{k}"], 0.0)
            layers.append(x)
        logits = x @ self.params["w_pi"] + self.params["b_pi"]
        values = (x @ self.params["w_v"] + self.params["b_v"])[:, 0]
        return logits, values, layers

    def backward(self, layers, d_logits, d_values):
        """The gradients of every parameter, given those of the logits and values."""
        grads = {}
        top = layers[-1]
        grads["w_pi"] = top.T @ d_logits
        grads["b_pi"] = d_logits.sum(0)
        grads["w_v"] = top.T @ d_values[:, None]
        grads["b_v"] = np.array([d_values.sum()], np.float32)
        d = d_logits @ self.params["w_pi"].T + d_values[:, None] @ self.params["w_v"].T
        for k in reversed(range(len(self.hidden))):
            d = d * (layers[k + 1] > 0)
            grads[f"w{k}"] = layers[k].T @ d
            grads[f"b{k}"] = d.sum(0)
            if k:
                d = d @ self.params[f"w{k}"].T
        return grads

    def distribution(self, obs, mask):
        """Masked log-probabilities (`n x actions`; illegal actions at about -1e9) and values."""
        logits, values, layers = self.forward(obs)
        return _log_softmax(np.where(mask, logits, _NEG)), values, layers

    def act(self, obs, mask, rng=None, greedy=False):
        """One legal action id per row of `obs` (`n x tensor`) and `mask` (`n x actions` bool)."""
        mask = np.asarray(mask, np.bool_).reshape(len(obs), -1)
        if not mask.any(axis=1).all():
            raise ValueError("a row of the mask has no legal action")
        logp, _, _ = self.distribution(obs, mask)
        if greedy:
            return np.argmax(logp, axis=1)
        rng = rng if rng is not None else np.random.default_rng()
        # Gumbel-max: an exact sample of each row's masked softmax.
        gumbel = -np.log(-np.log(rng.random(logp.shape, dtype=np.float32) + 1e-20) + 1e-20)
        return np.argmax(np.where(mask, logp + gumbel, -np.inf), axis=1)

    def save(self, path):
        """Write the policy to `path` (numpy's `.npz`)."""
        meta = {"inputs": self.inputs, "actions": self.actions, "hidden": list(self.hidden), "spec": self.spec}
        with open(path, "wb") as f:
            np.savez(f, __meta__=np.frombuffer(json.dumps(meta).encode(), np.uint8), **self.params)

    @classmethod
    def load(cls, path):
        """A policy written by `save`; a file that is not one raises ValueError naming it."""
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(bytes(data["__meta__"]).decode())
                policy = cls(meta["inputs"], meta["actions"], meta["hidden"], spec=meta.get("spec"))
                for name, value in policy.params.items():
                    stored = data[name]
                    if stored.shape != value.shape:
                        raise ValueError(f"parameter {name} has shape {stored.shape}, not {value.shape}")
                    policy.params[name] = stored.astype(np.float32)
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"{path} is not a saved policy: {e}") from None
        return policy

    def game(self):
        """The game it was trained on (from `spec`)."""
        spec = self.spec
        return load(spec["game"], spec.get("preset"), **spec.get("params", {}))


def _init(rng, n_in, n_out, gain):
    # Scaled Gaussian (He-style) weights: `gain / sqrt(fan_in)`.
    return (rng.standard_normal((n_in, n_out)) * (gain / np.sqrt(n_in))).astype(np.float32)


def _log_softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


class Adam:
    """Adam (Kingma and Ba, 2015) over a dict of arrays, with the gradients' global norm clipped."""

    def __init__(self, params, lr=3e-4, betas=(0.9, 0.999), eps=1e-5, max_norm=0.5):
        self.lr, self.betas, self.eps, self.max_norm = lr, betas, eps, max_norm
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params, grads, lr=None):
        lr = self.lr if lr is None else lr
        norm = np.sqrt(sum(float((g * g).sum()) for g in grads.values()))
        scale = min(1.0, self.max_norm / (norm + 1e-6)) if self.max_norm else 1.0
        self.t += 1
        b1, b2 = self.betas
        step = lr * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        for k, g in grads.items():
            g = g * scale
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            params[k] -= (step * self.m[k] / (np.sqrt(self.v[k]) + self.eps)).astype(np.float32)


# The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054
# Student's t quantiles of a two-sided 95% interval for 1 to 5 degrees of freedom (past them,
# the Cornish-Fisher expansion below is within 0.002).
_T95 = (12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836)


def wilson(successes, n, z=Z95):
    """Wilson's score interval of a rate of `successes` in `n` (95% by default): `(low, high)`."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (float(max(0.0, centre - half)), float(min(1.0, centre + half)))


def t_quantile(df):
    """Student's t quantile of a two-sided 95% interval with `df` degrees of freedom (exact to
    5 degrees, then the Cornish-Fisher expansion of Abramowitz and Stegun 26.7.5)."""
    if df < 1:
        raise ValueError("t_quantile: at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def mean_interval(values):
    """The mean of `values` and its 95% interval by Student's t: `(mean, low, high)` (one value:
    the interval is the value)."""
    x = np.asarray(values, np.float64)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, mean, mean
    half = t_quantile(len(x) - 1) * float(x.std(ddof=1)) / np.sqrt(len(x))
    return mean, mean - half, mean + half


def evaluate(policy, opponent="random", games=200, seed=0, greedy=False, threads=0, game=None):
    """The policy's results against `opponent` on `games` deals (one game per deal, the
    learner's seat going round the seats), the same deals for the same `seed`, whatever the
    policy. The policy samples its actions (seeded by `seed`), as it plays when it learns;
    `greedy=True` plays each row's most likely action instead, which can lock a policy into a
    loop of moves that a sample would leave.

    A competitive game: `{"games", "wins", "draws", "losses", "win_rate", "mean_reward"}` (a
    win: the learner's reward above 0, so for two players it ranked first).

    A cooperative game (journey: the learner one traveller, `opponent` the others), where a
    team's score above 0 is no win: `{"games", "seats", "arrivals", "arrival_rate",
    "arrival_low", "arrival_high", "mean_score", "score_low", "score_high", "mean_reward"}`: the
    games in which a traveller arrived (the engine's `arrived`) with Wilson's 95% interval, and
    the team's mean score with Student's t 95% interval."""
    game = game if game is not None else policy.game()
    envs = vector.BatchEnv(game, games, opponent=opponent, threads=threads)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = np.zeros(games, np.float32)
    arrived = np.zeros(games, np.bool_)
    done = np.zeros(games, np.bool_)
    while not done.all():
        actions = policy.act(obs, info["action_mask"], rng, greedy=greedy)
        obs, r, terminated, _, info = envs.step(actions)
        first = terminated & ~done
        rewards[first] = r[first]
        for i in np.flatnonzero(first):
            arrived[i] = "arrived" in info["final_info"]["achieved"][i]
        done |= terminated
    envs.close()
    if game.cooperative:
        scores = rewards.astype(np.float64)
        arrivals = int(arrived.sum())
        low, high = wilson(arrivals, games)
        mean, score_low, score_high = mean_interval(scores)
        return {
            "games": games,
            "seats": game.seats,
            "arrivals": arrivals,
            "arrival_rate": arrivals / games,
            "arrival_low": low,
            "arrival_high": high,
            "mean_score": mean,
            "score_low": score_low,
            "score_high": score_high,
            "mean_reward": float(rewards.mean()),
        }
    wins, losses = int((rewards > 0).sum()), int((rewards < 0).sum())
    return {
        "games": games,
        "wins": wins,
        "draws": games - wins - losses,
        "losses": losses,
        "win_rate": wins / games,
        "mean_reward": float(rewards.mean()),
    }


def seat_counts(spec):
    """The seat counts a cooperative game's policy is evaluated at: every count the game allows
    whose tensor and actions are those of the game it learned (all of journey's travellers).
    A competitive game: none (it is evaluated as it learned)."""
    game = load(spec["game"], spec.get("preset"), **spec.get("params", {}))
    if not game.cooperative:
        return []
    counts = []
    for k in range(1, 9):
        try:
            other = load(spec["game"], spec.get("preset"), **{**spec.get("params", {}), game.seat_word + "s": k})
        except ValueError:
            continue
        if other.tensor_shape == game.tensor_shape and other.action_count == game.action_count:
            counts.append(k)
    return counts


def curve_point(policy, spec, against, games, seed, threads=0, seats=None):
    """A learning curve's numbers for `policy` (which learned `spec`) against each of
    `against` on `games` deals of `seed`: a competitive game's win rate (key `<against>`); a
    cooperative game's, at each of `seats` (default: `seat_counts(spec)`), its arrival rate and
    mean team score with their 95% intervals (keys `<against>/<seats>/arrival`, `..._low`,
    `..._high`, `<against>/<seats>/score`, `..._low`, `..._high`)."""
    params = spec.get("params", {})
    game = load(spec["game"], spec.get("preset"), **params)
    point = {}
    if not game.cooperative:
        for opponent in against:
            point[opponent] = evaluate(policy, opponent, games, seed, threads=threads, game=game)["win_rate"]
        return point
    for k in seat_counts(spec) if seats is None else seats:
        at = load(spec["game"], spec.get("preset"), **{**params, game.seat_word + "s": k})
        for opponent in against:
            r = evaluate(policy, opponent, games, seed, threads=threads, game=at)
            key = f"{opponent}/{k}"
            point[f"{key}/arrival"], point[f"{key}/arrival_low"], point[f"{key}/arrival_high"] = (
                r["arrival_rate"],
                r["arrival_low"],
                r["arrival_high"],
            )
            point[f"{key}/score"], point[f"{key}/score_low"], point[f"{key}/score_high"] = (
                r["mean_score"],
                r["score_low"],
                r["score_high"],
            )
    return point


def describe(point):
    """A curve point in a line, for progress."""
    series = [k[: -len("/arrival")] for k in point if k.endswith("/arrival")]
    if series:
        parts = ", ".join(f"{s}: arrived {point[s + '/arrival']:.3f}, score {point[s + '/score']:.2f}" for s in series)
        return f"{point['steps']:>9} steps  {point['seconds']:>7.1f} s  {parts}"
    rates = ", ".join(f"{k} {v:.3f}" for k, v in point.items() if k not in ("steps", "seconds"))
    return f"{point['steps']:>9} steps  {point['seconds']:>7.1f} s  win rate: {rates}"


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
    value=0.5,
    hidden=(128, 128),
    seed=0,
    threads=0,
    evaluate_every=0,
    evaluate_games=200,
    evaluate_against=("random", "greedy"),
    evaluate_seed=None,
    evaluate_seats=None,
    progress=None,
    **params,
):
    """Train a `Policy` with PPO for `steps` learner steps in `envs` games of `game` (a name,
    with `preset` and keyword parameters as `tabletop_arena.load`) against `opponent` (a
    built-in agent spec). Everything random flows from `seed`.

    Every `evaluate_every` steps (and at the start and the end; 0: only there) the policy is
    evaluated against each of `evaluate_against` on `evaluate_games` deals of
    `evaluate_seed` (default: `seed + 1`, deals it never trains on); `progress(point)` is called
    with each point of the curve. Returns `(policy, curve)`, the curve a list of
    `{"steps", "seconds", ...}` with `curve_point`'s numbers: a competitive game's win rate
    against each opponent; a cooperative game's arrival rate and mean team score with their
    95% intervals, at each of `evaluate_seats` seat counts (default: all of them).
    """
    if opponent == "self":
        raise ValueError("train plays against a fixed opponent: self-play needs each seat's rewards apart (not here)")
    spec = {"game": game, "preset": preset, "params": params}
    game = load(game, preset, **params)
    evaluate_seed = seed + 1 if evaluate_seed is None else evaluate_seed
    policy = Policy.for_game(game, hidden, seed, spec)
    optimiser = Adam(policy.params, lr)
    rng = np.random.default_rng(seed)
    env = vector.BatchEnv(game, envs, opponent=opponent, threads=threads)
    obs, info = env.reset(seed=seed)
    mask = info["action_mask"]

    curve = []
    started = time.perf_counter()

    def point(done_steps):
        p = {"steps": done_steps, "seconds": round(time.perf_counter() - started, 3)}
        p.update(curve_point(policy, spec, evaluate_against, evaluate_games, evaluate_seed, threads, evaluate_seats))
        curve.append(p)
        if progress:
            progress(p)

    point(0)
    batch = envs * rollout
    updates = max(1, steps // batch)
    next_evaluation = evaluate_every
    for update in range(updates):
        buf_obs = np.empty((rollout, envs, policy.inputs), np.float32)
        buf_mask = np.empty((rollout, envs, policy.actions), np.bool_)
        buf_act = np.empty((rollout, envs), np.int64)
        buf_logp = np.empty((rollout, envs), np.float32)
        buf_val = np.empty((rollout, envs), np.float32)
        buf_rew = np.empty((rollout, envs), np.float32)
        buf_done = np.empty((rollout, envs), np.bool_)
        for t in range(rollout):
            logp, values, _ = policy.distribution(obs, mask)
            gumbel = -np.log(-np.log(rng.random(logp.shape, dtype=np.float32) + 1e-20) + 1e-20)
            actions = np.argmax(np.where(mask, logp + gumbel, -np.inf), axis=1)
            buf_obs[t], buf_mask[t], buf_act[t] = obs, mask, actions
            buf_logp[t] = logp[np.arange(envs), actions]
            buf_val[t] = values
            obs, rewards, terminated, _, info = env.step(actions)
            mask = info["action_mask"]
            buf_rew[t], buf_done[t] = rewards, terminated
        _, last_values, _ = policy.forward(obs)
        advantages = np.zeros((rollout, envs), np.float32)
        running = np.zeros(envs, np.float32)
        for t in reversed(range(rollout)):
            next_values = last_values if t == rollout - 1 else buf_val[t + 1]
            live = 1.0 - buf_done[t]
            delta = buf_rew[t] + gamma * next_values * live - buf_val[t]
            running = delta + gamma * lam * live * running
            advantages[t] = running
        returns = advantages + buf_val

        flat = lambda a: a.reshape(batch, *a.shape[2:])  # noqa: E731
        b_obs, b_mask, b_act = flat(buf_obs), flat(buf_mask), flat(buf_act)
        b_logp, b_adv, b_ret = flat(buf_logp), flat(advantages), flat(returns)
        lr_now = lr * (1.0 - update / updates)
        size = batch // minibatches
        for _ in range(epochs):
            order = rng.permutation(batch)
            for start in range(0, batch, size):
                idx = order[start : start + size]
                grads = _ppo_gradients(policy, b_obs[idx], b_mask[idx], b_act[idx], b_logp[idx], b_adv[idx], b_ret[idx], clip, entropy, value)
                optimiser.step(policy.params, grads, lr_now)
        done_steps = (update + 1) * batch
        if evaluate_every and done_steps >= next_evaluation and update + 1 < updates:
            point(done_steps)
            next_evaluation += evaluate_every
    env.close()
    point(updates * batch)
    return policy, curve


def _ppo_gradients(policy, obs, mask, actions, old_logp, advantages, returns, clip, entropy, value):
    """The gradients of PPO's loss (clipped surrogate, value error, entropy bonus) on a
    minibatch, by hand."""
    n = len(obs)
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    logits, values, layers = policy.forward(obs)
    logp = _log_softmax(np.where(mask, logits, _NEG))
    p = np.where(mask, np.exp(logp), 0.0).astype(np.float32)
    rows = np.arange(n)
    ratio = np.exp(logp[rows, actions] - old_logp)
    # d(-min(r A, clip(r) A))/d logp[a]: -r A where the unclipped term is the smaller, else 0.
    unclipped = ratio * advantages <= np.clip(ratio, 1 - clip, 1 + clip) * advantages
    d_logp_a = np.where(unclipped, -ratio * advantages, 0.0).astype(np.float32) / n
    d_logits = -p * d_logp_a[:, None]
    d_logits[rows, actions] += d_logp_a
    # Entropy bonus: loss -c H, dH/dz_j = -p_j (log p_j + H) over the legal actions.
    safe_logp = np.where(mask, logp, 0.0)
    h = -(p * safe_logp).sum(axis=1)
    d_logits += (entropy / n) * p * (safe_logp + h[:, None])
    d_values = (value * (values - returns) / n).astype(np.float32)
    return policy.backward(layers, d_logits.astype(np.float32), d_values)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m tabletop_arena.learn",
        description="Train a policy with PPO on the batched environments; write policy.npz, curve.csv and curve.png.",
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
    parser.add_argument("--evaluate-every", type=int, default=50_000)
    parser.add_argument("--evaluate-games", type=int, default=200)
    parser.add_argument("--against", nargs="+", default=["random", "greedy"])
    parser.add_argument("--evaluate-seats", type=int, nargs="+", help="a cooperative game's seat counts to evaluate at (default: all)")
    parser.add_argument("--out", required=True, help="the directory it writes to")
    args = parser.parse_args(argv)
    params = parse_params(parser, args.param)
    os.makedirs(args.out, exist_ok=True)

    def progress(p):
        print(describe(p), file=sys.stderr, flush=True)

    policy, curve = train(
        args.game,
        args.preset,
        opponent=args.opponent,
        steps=args.steps,
        envs=args.envs,
        rollout=args.rollout,
        hidden=tuple(args.hidden),
        lr=args.lr,
        seed=args.seed,
        evaluate_every=args.evaluate_every,
        evaluate_games=args.evaluate_games,
        evaluate_against=tuple(args.against),
        evaluate_seats=args.evaluate_seats,
        progress=progress,
        **params,
    )
    policy.save(os.path.join(args.out, "policy.npz"))
    write_curve(curve, os.path.join(args.out, "curve.csv"))
    title = f"PPO on {args.game} {args.preset} against {args.opponent} (seed {args.seed}; evaluated on seed {args.seed + 1}'s deals)"
    png = plot_curve(curve, os.path.join(args.out, "curve.png"), title)
    print(f"wrote {args.out}/policy.npz, curve.csv" + (", curve.png" if png else " (no matplotlib: no curve.png)"), file=sys.stderr)


def parse_params(parser, items):
    """Game parameters from `--param KEY=VALUE` items (a JSON value, else the text)."""
    params = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep:
            parser.error(f"--param {item!r} is not KEY=VALUE")
        try:
            params[key] = json.loads(raw)
        except json.JSONDecodeError:
            params[key] = raw
    return params


def write_curve(curve, path):
    """The curve as CSV: `steps,seconds,<opponent>,...`."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(curve[0]))
        writer.writeheader()
        writer.writerows(curve)


def plot_curve(curve, path, title):
    """The curve as a PNG, with matplotlib if it is installed; returns whether it wrote one. A
    competitive game's: the win rate against each opponent over training steps. A cooperative
    game's: its arrival rate and its mean team score, each with its 95% interval (shaded),
    against each opponent at each seat count."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    steps = [p["steps"] for p in curve]
    series = [k[: -len("/arrival")] for k in curve[0] if k.endswith("/arrival")]
    if series:
        fig, (rate, score) = plt.subplots(1, 2, figsize=(11, 4))
        for s in series:
            against, seats = s.split("/")
            label = f"{seats} with {against}"
            for ax, key in ((rate, "arrival"), (score, "score")):
                (line,) = ax.plot(steps, [p[f"{s}/{key}"] for p in curve], marker="o", label=label)
                low, high = [p[f"{s}/{key}_low"] for p in curve], [p[f"{s}/{key}_high"] for p in curve]
                ax.fill_between(steps, low, high, color=line.get_color(), alpha=0.15)
        rate.set_ylabel("arrival rate (95% Wilson interval)")
        rate.set_ylim(0, 1)
        score.set_ylabel("mean team score (95% t interval)")
        for ax in (rate, score):
            ax.set_xlabel("training steps (learner decisions)")
            ax.grid(alpha=0.3)
        rate.legend(title="seats", fontsize=8)
    else:
        fig, ax = plt.subplots(figsize=(7, 4))
        for key in curve[0]:
            if key not in ("steps", "seconds"):
                ax.plot(steps, [p[key] for p in curve], marker="o", label=f"against {key}")
        ax.set_xlabel("training steps (learner decisions)")
        ax.set_ylabel("win rate")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


if __name__ == "__main__":
    main()
