"""Python-driven random play and state clones through the bindings and through OpenSpiel's
pyspiel, both through one loop, in interleaved rounds (on the same interpreter).

    pip install ./bots/python -r bots/python/bench-requirements.txt
    python bots/python/bench.py --seconds 1 --rounds 9

Random play is one function, `random_play`, for every game of either engine: a loop asks a
state whether it is over and for its legal actions, picks one with `random.choice` and applies
it, to the end of the game, game after game. Nothing else is in the loop. This engine's states
have no chance nodes: chance is drawn inside `apply` from the state's own generator, and is in
its cost. pyspiel's games have chance nodes (hearts deals its cards one by one and draws the
pass direction, backgammon rolls its dice), whose `legal_actions()` are the outcomes: the loop
treats them like any node, one uniform `random.choice`, so that both engines pay the same
Python per node. In both games every chance node's outcomes are equally likely (backgammon
lists its 36 ordered rolls, 30 for the opening roll), which is checked before timing: the
uniform choice is then each game's own chance. (A game whose chance is not uniform would be
played with uniform chance: its label says so. Sampling by the odds, `random.choices` over
`chance_outcomes()`, would cost pyspiel's loop far more Python per chance node — hearts then
plays at about half the rate — and this engine none of it.) An action is one pass of the loop, one `apply`: a chance outcome
counts as one (in hearts nearly half of them are the deal).

A clone is `state.clone()` of a state some moves in, timed by one function for both.

The measures run in rounds: each round measures every game once, in order, and the next round
in the reverse order (A B … B A A B …), so that drift in the machine's speed meets every game
alike. Each figure is the median over the rounds of that round's rate; a ratio is the ratio of
two medians. "engine alone" is the same random play inside the engine (`random_playouts`), for
what driving it from Python costs.
"""

import argparse
import itertools
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import tabletop_arena as ta

OURS = [
    ("journey", "classic", {"travellers": 1}),
    ("journey", "classic", {"travellers": 4}),
    ("expedition", "dice", {"players": 2}),
    ("expedition", "no-dice", {"players": 4}),
]
THEIRS = ["hearts", "backgammon"]


@dataclass
class Subject:
    """One game of one engine, as the loop sees it: a new state, and the names of the state's
    methods for "is it over?" and "apply" (`legal_actions` is the same name in both)."""

    label: str
    new_state: Callable[[], object]
    over: str
    apply: str
    mid_game: Callable[[], object]
    engine_alone: Callable[[float], float] | None = None
    rates: list = field(default_factory=list)
    clones: list = field(default_factory=list)
    native: list = field(default_factory=list)


def random_play(subject, seconds, rng):
    """The one loop: random play of `subject` for about `seconds`; returns (actions/s, games/s)."""
    actions = games = 0
    choice = rng.choice
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        state = subject.new_state()
        over, apply, legal = getattr(state, subject.over), getattr(state, subject.apply), state.legal_actions
        while not over():
            apply(choice(legal()))
            actions += 1
        games += 1
    return actions / elapsed, games / elapsed


def clone_ns(state, n=200_000):
    """Nanoseconds per `state.clone()`."""
    clone = state.clone
    start = time.perf_counter()
    for _ in range(n):
        clone()
    return (time.perf_counter() - start) / n * 1e9


def ours(name, preset, params):
    game = ta.load(name, preset, **params)
    seeds = itertools.count()

    def mid_game():
        state = game.new_game(1)
        for _ in range(6):
            if state.is_over():
                break
            state.apply(state.legal_actions()[0])
        return state

    def engine_alone(seconds):
        """Random play inside the engine: actions per second."""
        games, actions, start = 0, 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            actions += game.random_playouts(games, 100)
            games += 100
        return actions / (time.perf_counter() - start)

    seats = f"{game.seats} seat" + ("s" if game.seats > 1 else "")
    return Subject(
        label=f"tabletop_arena {name} {preset} ({seats})",
        new_state=lambda: game.new_game(next(seeds)),
        over="is_over",
        apply="apply",
        mid_game=mid_game,
        engine_alone=engine_alone,
    )


def theirs(pyspiel, name):
    game = pyspiel.load_game(name)
    rng = random.Random(2)

    def mid_game():
        state = game.new_initial_state()
        while state.is_chance_node() or state.move_number() < 6:
            if state.is_chance_node():
                outcomes, _ = zip(*state.chance_outcomes())
                state.apply_action(rng.choice(outcomes))
            else:
                state.apply_action(state.legal_actions()[0])
        return state

    uniform = uniform_chance(game, rng)
    odds = "" if uniform else ", chance drawn uniformly"
    return Subject(
        label=f"pyspiel {name} ({game.num_players()} players{odds})",
        new_state=lambda: game.new_initial_state(),
        over="is_terminal",
        apply="apply_action",
        mid_game=mid_game,
    )


def uniform_chance(game, rng, games=5):
    """Whether every chance node of a few random games has equally likely outcomes, listed as
    its legal actions (so that a uniform `random.choice` of them is the game's own chance)."""
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                if list(outcomes) != state.legal_actions() or max(probs) - min(probs) > 1e-12:
                    return False
            state.apply_action(rng.choice(state.legal_actions()))
    return True


def pyspiel_module():
    try:
        import pyspiel
    except ImportError:
        print("installing open_spiel for the comparison (bench-requirements.txt)", file=sys.stderr)
        requirements = Path(__file__).with_name("bench-requirements.txt")
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-r", str(requirements)], check=True)
        import pyspiel
    return pyspiel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="each game's random play, per round")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    pyspiel = pyspiel_module()
    subjects = [ours(*o) for o in OURS] + [theirs(pyspiel, name) for name in THEIRS]
    for r in range(args.rounds):
        order = subjects if r % 2 == 0 else subjects[::-1]
        for s in order:
            s.rates.append(random_play(s, args.seconds, random.Random(r)))
            s.clones.append(clone_ns(s.mid_game()))
            if s.engine_alone:
                s.native.append(s.engine_alone(args.seconds / 4))
        print(f"round {r + 1} of {args.rounds}", file=sys.stderr)

    med = statistics.median
    print(
        f"Python {sys.version.split()[0]}, open_spiel {getattr(pyspiel, '__version__', '?')}; "
        f"medians of {args.rounds} interleaved rounds of {args.seconds} s per game\n"
    )
    print("| game | actions/s from Python | games/s | state clone | engine alone (actions/s) |")
    print("|---|---|---|---|---|")
    for s in subjects:
        aps, gps = med(r[0] for r in s.rates), med(r[1] for r in s.rates)
        engine = f"{med(s.native) / 1e6:.1f} M" if s.native else "—"
        print(f"| {s.label} | {aps / 1e3:,.0f} k | {gps:,.0f} | {med(s.clones):,.0f} ns | {engine} |")
    baselines = subjects[len(OURS) :]
    print("\nRatios of medians (actions/s from Python; clone time, theirs ÷ ours):")
    for s in subjects[: len(OURS)]:
        parts = []
        for b in baselines:
            ratio = med(r[0] for r in s.rates) / med(r[0] for r in b.rates)
            clone = med(b.clones) / med(s.clones)
            parts.append(f"{ratio:.2f}× {b.label.split(' (')[0]} (clone {clone:.1f}×)")
        print(f"- {s.label}: " + ", ".join(parts))
    # The spread of the per-round ratio, for what one round alone would say.
    print("\nPer-round ratio, lowest–highest (the same round's rates):")
    for s in subjects[: len(OURS)]:
        parts = []
        for b in baselines:
            per = [a[0] / c[0] for a, c in zip(s.rates, b.rates)]
            parts.append(f"{min(per):.2f}–{max(per):.2f}× {b.label.split(' (')[0]}")
        print(f"- {s.label}: " + ", ".join(parts))


if __name__ == "__main__":
    main()
