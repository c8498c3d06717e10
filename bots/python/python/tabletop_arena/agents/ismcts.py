"""Single-observer information-set MCTS in Python, over the Play stream:
`python -m tabletop_arena.agents.ismcts --server URL --iterations 200`.

Every iteration plays out a state rebuilt from the agent's own observation with the hidden
facts redrawn (`Game.from_observation`, `State.redraw_hidden`): it never sees the real state.
"""

import math
import random
import sys
import time

from tabletop_arena import play
from tabletop_arena.agents import arguments, run


class Node:
    def __init__(self, mover):
        self.mover, self.visits, self.available, self.total, self.children = mover, 0, 0, 0.0, {}

    def ucb(self, c):
        return self.total / self.visits + c * math.sqrt(math.log(self.available) / self.visits)


def reward(game, outcome, seat):
    """In [0, 1]: a win's share (competitive); travellers arrived, then score (cooperative)."""
    if game.cooperative:
        score = max(outcome["scores"][seat], 0)
        return (outcome["achieved"].count("arrived") + score / (score + 40)) / (game.seats + 1)
    first = outcome["ranks"].count(0)
    return 1 / first if outcome["ranks"][seat] == 0 else 0.0


class Ismcts:
    def __init__(self, iterations=200, c=0.7, seed=1, ms=None):
        self.iterations, self.c, self.rng, self.ms = iterations, c, random.Random(seed), ms

    def act(self, request):
        if len(request.legal) == 1:
            return request.legal[0]
        game, seat, rng = request.game, request.seat, self.rng
        budget = [b / 1000 for b in (self.ms, request.time_left_ms / 3 or None) if b]
        deadline = time.monotonic() + min(budget) if budget else math.inf
        base = game.from_observation(request.observation, seat, rng.getrandbits(63))
        root = Node(seat)
        for _ in range(self.iterations):
            if time.monotonic() > deadline:
                break
            state, node, path = base.redraw_hidden(seat, rng.getrandbits(63)), root, []
            while not state.is_over():  # selection, then one expansion
                legal, mover = state.legal_actions(), state.to_move()
                for a in legal:
                    if a in node.children:
                        node.children[a].available += 1
                untried = [a for a in legal if a not in node.children]
                a = rng.choice(untried) if untried else max(legal, key=lambda a: node.children[a].ucb(self.c))
                if untried:
                    node.children[a] = Node(mover)
                    node.children[a].available = 1
                node = node.children[a]
                path.append(node)
                state.apply(a)
                if untried:
                    break
            while not state.is_over():  # a random rollout
                state.apply(rng.choice(state.legal_actions()))
            outcome = state.outcome()
            for n in path:
                n.visits += 1
                n.total += reward(game, outcome, n.mover)
        return max(request.legal, key=lambda a: root.children[a].visits if a in root.children else -1)


def main(argv=None):
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--c", type=float, default=0.7)
    parser.add_argument("--ms", type=float, default=None, help="a time limit per decision")
    args = parser.parse_args(argv)
    agent = Ismcts(args.iterations, args.c, args.seed, args.ms)
    stats = play(agent, server=args.server, name=args.name or "python-ismcts", games=args.games)
    print(f"{stats['decisions']} decisions, {stats['ended']} seats ended", file=sys.stderr)


if __name__ == "__main__":
    run(main)
