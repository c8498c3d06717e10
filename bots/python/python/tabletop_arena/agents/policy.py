"""A trained policy over the Play stream:
`python -m tabletop_arena.agents.policy --model policy.npz --server URL`: numpy's PPO
(`tabletop_arena.learn`, a `.npz`) or sb3-contrib's MaskablePPO (`tabletop_arena.sb3`, a
`.zip`; the `sb3` extra).

It asks the server for each request's tensor and legal mask and samples the policy's legal
actions, as it played when it learned (seeded by `--seed`; `--greedy` plays the most likely).
It plays only the game it was trained on: a request of another shape is resigned, saying why.
"""

import sys

import numpy as np

from tabletop_arena import Resign, play
from tabletop_arena.agents import arguments, run
from tabletop_arena.learn import Policy


class PolicyAgent:
    """A `Policy` as a Play agent: `agent(request) -> action id`."""

    def __init__(self, policy, greedy=False, seed=0):
        self.policy = policy
        self.greedy = greedy
        self.rng = np.random.default_rng(seed)

    def __call__(self, request):
        tensor, mask = request.tensor, request.legal_mask
        if tensor is None or mask is None:
            raise ValueError("the policy needs the request's tensor and mask (play(..., tensors=True))")
        if tensor.size != self.policy.inputs or mask.size != self.policy.actions:
            print(
                f"match {request.match_id}: a tensor of {tensor.size} and {mask.size} actions is not the game "
                f"the policy was trained on ({self.policy.inputs}, {self.policy.actions}): resigning",
                file=sys.stderr,
            )
            raise Resign()
        return int(self.policy.act(tensor[None, :], mask[None, :], self.rng, greedy=self.greedy)[0])


def load_policy(path):
    """A policy saved by `tabletop_arena.learn` (`.npz`) or by `tabletop_arena.sb3` (`.zip`)."""
    if str(path).endswith(".zip"):
        from tabletop_arena.sb3 import MaskablePolicy

        return MaskablePolicy.load(path)
    return Policy.load(path)


def main(argv=None):
    parser = arguments(__doc__)
    parser.add_argument("--model", required=True, help="a policy saved by tabletop_arena.learn (.npz) or tabletop_arena.sb3 (.zip)")
    parser.add_argument("--greedy", action="store_true", help="play the policy's most likely action instead of sampling")
    args = parser.parse_args(argv)
    policy = load_policy(args.model)
    games = args.games or ([policy.spec["game"]] if policy.spec.get("game") else [])
    agent = PolicyAgent(policy, greedy=args.greedy, seed=args.seed)
    stats = play(agent, server=args.server, name=args.name or "python-policy", games=games, tensors=True)
    print(f"{stats['decisions']} decisions, {stats['ended']} seats ended", file=sys.stderr)


if __name__ == "__main__":
    run(main)
