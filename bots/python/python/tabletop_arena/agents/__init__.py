"""Example agents, each runnable as a Play client: `python -m tabletop_arena.agents.random`
(uniform over the legal actions) and `python -m tabletop_arena.agents.ismcts` (information-set
MCTS over states rebuilt from its own observation)."""

import argparse
import os
import sys
import traceback


def arguments(description):
    """The options every example agent takes (the arena sets ARENA_SERVER and ARENA_NAME for
    a tournament's `command:` participant)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--server", default=os.environ.get("ARENA_SERVER", "http://127.0.0.1:50051"))
    parser.add_argument("--name", default=os.environ.get("ARENA_NAME"))
    parser.add_argument("--games", nargs="*", default=[], help="the games it plays (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    return parser


def run(main):
    """Run a Play client's `main` as a program, then end the process at once (its output
    flushed): once the server has ended the stream (a tournament's end) nothing is left to do,
    and an interpreter's teardown can take longer than the arena waits for a launched
    participant to exit (torch's, loaded with a MaskablePPO model: a second on a busy machine),
    or never end (a thread a library left running). The exit status is `main`'s: 0, argparse's
    2, or 1 with the traceback of what it raised."""
    try:
        main()
        code = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 (reported, and the status says it)
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
