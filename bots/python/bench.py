"""Python-driven random play and state clones through the bindings, beside OpenSpiel's pyspiel
in the same run (and on the same interpreter).

    pip install ./bots/python -r bots/python/bench-requirements.txt
    python bots/python/bench.py --seconds 1 --runs 3

Random play: a Python loop asks a state for its legal actions, picks one with `random.choice`
and applies it, to the end of the game, game after game (pyspiel's chance nodes are sampled
from their outcomes in the same loop, and count as actions). A clone: `state.clone()` of a
state some moves in. Each figure is the median of `--runs` runs. "engine" is the same random
play inside the engine, for what driving it from Python costs.
"""

import argparse
import random
import statistics
import subprocess
import sys
import time

import tabletop_arena as ta

OURS = [
    ("journey", "classic", {"travellers": 1}),
    ("journey", "classic", {"travellers": 4}),
    ("expedition", "dice", {"players": 2}),
    ("expedition", "no-dice", {"players": 4}),
]
THEIRS = ["hearts", "backgammon"]


def timed(seconds, step):
    """Run `step` (which returns how many actions and games it did) for about `seconds`;
    returns (actions/s, games/s)."""
    actions = games = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        a, g = step()
        actions, games = actions + a, games + g
    return actions / elapsed, games / elapsed


def clone_ns(state, n=200_000):
    clone = state.clone
    start = time.perf_counter()
    for _ in range(n):
        clone()
    return (time.perf_counter() - start) / n * 1e9


def ours(game, seconds, rng):
    seeds = iter(range(10**9))

    def one_game():
        state, n = game.new_game(next(seeds)), 0
        legal, apply, choice = state.legal_actions, state.apply, rng.choice
        while not state.is_over():
            apply(choice(legal()))
            n += 1
        return n, 1

    return timed(seconds, one_game)


def mid_game_ours(game):
    state = game.new_game(1)
    for a in (0, 0, 0, 0, 0, 0):
        if state.is_over():
            break
        state.apply(state.legal_actions()[a])
    return state


def theirs(game, seconds, rng):
    def one_game():
        state, n = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            n += 1
        return n, 1

    return timed(seconds, one_game)


def mid_game_theirs(game, rng):
    state = game.new_initial_state()
    while state.is_chance_node() or state.move_number() < 6:
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(state.legal_actions()[0])
    return state


def median_of(runs, measure):
    results = [measure() for _ in range(runs)]
    return tuple(statistics.median(r[i] for r in results) for i in range(len(results[0])))


def engine_rate(game, seconds):
    """Random play inside the engine: actions per second."""
    games, actions, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions += game.random_playouts(games, 100)
        games += 100
    return actions / (time.perf_counter() - start)


def pyspiel_module():
    try:
        import pyspiel
    except ImportError:
        print("installing open_spiel for the comparison (bench-requirements.txt)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "open_spiel"], check=True)
        import pyspiel
    return pyspiel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    pyspiel = pyspiel_module()
    rng = random.Random(1)
    rows = []
    for name, preset, params in OURS:
        game = ta.load(name, preset, **params)
        aps, gps = median_of(args.runs, lambda: ours(game, args.seconds, rng))
        (ns,) = median_of(args.runs, lambda: (clone_ns(mid_game_ours(game)),))
        (native,) = median_of(args.runs, lambda: (engine_rate(game, args.seconds),))
        seats = f"{game.seats} seat" + ("s" if game.seats > 1 else "")
        rows.append((f"tabletop_arena {name} {preset} ({seats})", aps, gps, ns, native))
    for name in THEIRS:
        game = pyspiel.load_game(name)
        aps, gps = median_of(args.runs, lambda: theirs(game, args.seconds, rng))
        (ns,) = median_of(args.runs, lambda: (clone_ns(mid_game_theirs(game, rng)),))
        rows.append((f"pyspiel {name} ({game.num_players()} players)", aps, gps, ns, None))
    print(f"Python {sys.version.split()[0]}, open_spiel {getattr(pyspiel, '__version__', '?')}; medians of {args.runs} runs of {args.seconds} s\n")
    print("| game | actions/s from Python | games/s | state clone | engine alone (actions/s) |")
    print("|---|---|---|---|---|")
    for label, aps, gps, ns, native in rows:
        engine = f"{native / 1e6:.1f} M" if native else "—"
        print(f"| {label} | {aps / 1e3:,.0f} k | {gps:,.0f} | {ns:,.0f} ns | {engine} |")
    hearts = next(r for r in rows if "hearts" in r[0])
    print("\nAgainst pyspiel hearts (actions/s, clone time):")
    for label, aps, _, ns, _ in rows[: len(OURS)]:
        print(f"- {label}: {aps / hearts[1]:.2f}x the actions/s, clone {hearts[3] / ns:.1f}x faster")


if __name__ == "__main__":
    main()
