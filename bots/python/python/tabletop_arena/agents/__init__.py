"""Example agents, each runnable as a Play client: `python -m tabletop_arena.agents.random`
(uniform over the legal actions) and `python -m tabletop_arena.agents.ismcts` (information-set
MCTS over states rebuilt from its own observation)."""

import argparse
import os


def arguments(description):
    """The options every example agent takes (the arena sets ARENA_SERVER and ARENA_NAME for
    a tournament's `command:` participant)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--server", default=os.environ.get("ARENA_SERVER", "http://127.0.0.1:50051"))
    parser.add_argument("--name", default=os.environ.get("ARENA_NAME"))
    parser.add_argument("--games", nargs="*", default=[], help="the games it plays (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    return parser
