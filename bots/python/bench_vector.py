"""Learner steps per second: the batched environment (`tabletop_arena.vector`, n games stepped
in Rust per call) against a Python loop over n single environments (`tabletop_arena.gym`),
both driven by one policy, in interleaved rounds on the same interpreter.

    pip install "./bots/python[pettingzoo]"
    python bots/python/bench_vector.py --games 256 1024 --seconds 2 --rounds 5

A step is one learner decision (the opponents' moves between two of them are inside it). The
policy is the same for both: a uniformly random legal action, drawn for every game at once
with numpy (argmax of noise over the mask, in buffers kept from step to step). Only the time inside the environments' `step`
(and a single environment's `reset` after its game ends) is counted: the policy's cost, the
same for both, is left out. Rounds alternate the order (A B, B A, ...); each figure is the
median over the rounds, and the ratio is the ratio of the medians. Each batch size (`--games`)
is a row: a batch's fixed costs per call (Python's, and waking the other cores) weigh less as
it grows, while a loop over more single environments meets more cache misses.
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


def batched(game, preset, params, n, opponent, seconds, rng, threads=0):
    envs = vector.make(game, n, preset, opponent=opponent, threads=threads, **params)
    _, info = envs.reset(seed=int(rng.integers(2**62)))
    pick = Pick(rng, n, envs.game.action_count)
    steps, inside, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = pick(info["action_mask"])
        t = time.perf_counter()
        _, _, _, _, info = envs.step(actions)
        inside += time.perf_counter() - t
        steps += n
    return steps / inside


def singles(game, preset, params, n, opponent, seconds, rng):
    envs = [gym.make(game, preset, opponent=opponent, **params) for _ in range(n)]
    infos = [env.reset(seed=int(rng.integers(2**62)))[1] for env in envs]
    pick = Pick(rng, n, envs[0].game.action_count)
    masks = np.empty((n, envs[0].game.action_count), np.bool_)
    steps, inside, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k, info in enumerate(infos):
            masks[k] = info["action_mask"]
        actions = pick(masks)
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
    cases = [("expedition", "no-dice", {"players": 2}), ("journey", "classic", {"travellers": 2})]
    rng = np.random.default_rng(1)
    print(
        f"opponent {args.opponent}, batch threads {args.threads or os.cpu_count()}, "
        f"{args.rounds} rounds of {args.seconds} s"
    )
    print(f"{'game':<24}{'games':>7}{'batched steps/s':>18}{'single envs steps/s':>22}{'ratio':>8}")
    for game, preset, params in cases:
        for n in args.games:
            a, b = [], []
            for r in range(args.rounds):
                order = [(a, lambda *xs: batched(*xs, threads=args.threads)), (b, singles)]
                for rates, run in order if r % 2 == 0 else reversed(order):
                    rates.append(run(game, preset, params, n, args.opponent, args.seconds, rng))
            ma, mb = statistics.median(a), statistics.median(b)
            print(f"{game + ' ' + preset:<24}{n:>7}{ma:>18,.0f}{mb:>22,.0f}{ma / mb:>7.1f}x")


if __name__ == "__main__":
    main()
