"""A random agent over the Play stream: `python -m tabletop_arena.agents.random --server URL`."""

import random
import sys

from tabletop_arena import play
from tabletop_arena.agents import arguments, run


def main(argv=None):
    args = arguments(__doc__).parse_args(argv)
    rng = random.Random(args.seed)
    stats = play(lambda request: rng.choice(request.legal), server=args.server, name=args.name or "python-random", games=args.games)
    print(f"{stats['decisions']} decisions, {stats['ended']} seats ended", file=sys.stderr)


if __name__ == "__main__":
    run(main)
