"""Learner steps per second: the batched environment (`tabletop_arena.vector`, n games stepped
in Rust per call) against a Python loop over n single environments (`tabletop_arena.gym`),
both driven by one policy, in interleaved rounds on the same interpreter.

    pip install "./bots/python[pettingzoo]"
    python bots/python/bench_vector.py --games 256 1024 --seconds 2 --rounds 5

A step is one learner decision (the opponents' moves between two of them are inside it). The
policy is the same for both: a uniformly random legal action, drawn for every game at once
with numpy (argmax of noise over the mask, in buffers kept from step to step; or, where the
legal actions are told as ids, `legal="ids"` on both sides, a random index below each game's
count). Only the time inside the environments' `step` (and a single environment's `reset`
after its game ends) is counted: the policy's cost, the same for both, is left out. Rounds
alternate the order (A B, B A, ...); each figure is the median over the rounds with the
rounds' range, and the ratio is the ratio of the medians, with the range of the rounds' own
ratios. Each batch size (`--games`) is a row: a batch's fixed costs per call (Python's, and
waking the other cores) weigh less as it grows, while a loop over more single environments
meets more cache misses.
"""

import argparse
import os
import statistics
import time

# numpy's BLAS threads spin for a while after each call, taking the cores the batch's threads
# step the games on: one is enough for the policy's few array operations.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from tabletop_arena import gym, vector  # noqa: E402


class PickId:
    """A uniformly random legal action per game from its legal ids (`legal="ids"`): row `k`'s
    `ids[k][:counts[k]]`."""

    def __init__(self, rng, n):
        self.rng = rng
        self.u = np.empty(n)
        self.rows = np.arange(n)

    def __call__(self, ids, counts):
        self.rng.random(out=self.u)
        return ids[self.rows, (self.u * counts).astype(np.int64)]


class Pick:
    """A uniformly random legal action per row of `n x actions` masks, drawn into buffers kept
    from call to call: fresh arrays of that size each call cost page faults, and then cache
    misses in whatever runs next, the environments included."""

    def __init__(self, rng, n, actions):
        self.rng = rng
        self.noise = np.empty((n, actions))
        self.illegal = np.empty((n, actions), np.bool_)

    def __call__(self, masks):
        self.rng.random(out=self.noise)
        np.logical_not(masks, out=self.illegal)
        np.copyto(self.noise, -1.0, where=self.illegal)
        return self.noise.argmax(axis=1)


def batched(game, preset, params, legal, n, opponent, seconds, rng, threads=0):
    envs = vector.make(game, n, preset, opponent=opponent, threads=threads, legal=legal, **params)
    _, info = envs.reset(seed=int(rng.integers(2**62)))
    if legal == "ids":
        pick_id = PickId(rng, n)
        choose = lambda info: pick_id(info["legal_ids"], info["legal_count"])  # noqa: E731
    else:
        pick = Pick(rng, n, envs.game.action_count)
        choose = lambda info: pick(info["action_mask"])  # noqa: E731
    steps, inside, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = choose(info)
        t = time.perf_counter()
        _, _, _, _, info = envs.step(actions)
        inside += time.perf_counter() - t
        steps += n
    return steps / inside


def singles(game, preset, params, legal, n, opponent, seconds, rng):
    envs = [gym.make(game, preset, opponent=opponent, legal=legal, **params) for _ in range(n)]
    infos = [env.reset(seed=int(rng.integers(2**62)))[1] for env in envs]
    if legal == "ids":
        pick_id = PickId(rng, n)
        counts = np.empty(n, np.int64)

        def choose(infos):
            width = max(len(info["legal_ids"]) for info in infos)
            ids = np.full((n, width), -1, np.int64)
            for k, info in enumerate(infos):
                counts[k] = len(info["legal_ids"])
                ids[k, : counts[k]] = info["legal_ids"]
            return pick_id(ids, counts)

    else:
        pick = Pick(rng, n, envs[0].game.action_count)
        masks = np.empty((n, envs[0].game.action_count), np.bool_)

        def choose(infos):
            for k, info in enumerate(infos):
                masks[k] = info["action_mask"]
            return pick(masks)

    steps, inside, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = choose(infos)
        t = time.perf_counter()
        for k, env in enumerate(envs):
            _, _, terminated, _, info = env.step(actions[k])
            infos[k] = env.reset()[1] if terminated else info
        inside += time.perf_counter() - t
        steps += n
    return steps / inside


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[256, 1024], help="batch sizes, a row each")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--threads", type=int, default=0, help="the batch's threads (0: one per core)")
    args = parser.parse_args()
    cases = [
        ("expedition", "no-dice", {"players": 2}, "mask"),
        ("journey", "classic", {"travellers": 2}, "mask"),
        ("journey", "classic", {"travellers": 2}, "ids"),
    ]
    rng = np.random.default_rng(1)
    print(
        f"opponent {args.opponent}, batch threads {args.threads or os.cpu_count()}, "
        f"{args.rounds} rounds of {args.seconds} s"
    )
    print(f"{'game':<20}{'legal':>6}{'games':>7}{'batched k steps/s':>24}{'single envs k steps/s':>24}{'ratio':>16}")
    for game, preset, params, legal in cases:
        for n in args.games:
            a, b = [], []
            for r in range(args.rounds):
                order = [(a, lambda *xs: batched(*xs, threads=args.threads)), (b, singles)]
                for rates, run in order if r % 2 == 0 else reversed(order):
                    rates.append(run(game, preset, params, legal, n, args.opponent, args.seconds, rng))
            ma, mb = statistics.median(a), statistics.median(b)
            ratios = [x / y for x, y in zip(a, b)]
            print(
                f"{game + ' ' + preset:<20}{legal:>6}{n:>7}{spread(a):>24}{spread(b):>24}"
                f"{f'{ma / mb:.1f}x ({min(ratios):.1f}-{max(ratios):.1f})':>16}"
            )


def spread(rates):
    """A median in thousands, with the rounds' range."""
    return f"{statistics.median(rates) / 1e3:,.0f} ({min(rates) / 1e3:,.0f}-{max(rates) / 1e3:,.0f})"


if __name__ == "__main__":
    main()
