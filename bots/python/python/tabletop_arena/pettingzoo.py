"""A PettingZoo AEC environment of either game, in process (the engine through the bindings).

    from tabletop_arena.pettingzoo import env
    e = env("journey", preset="classic", travellers=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, info = e.last()
        mask = obs["action_mask"]
        e.step(None if termination or truncation else int(mask.nonzero()[0][0]))

Agents are named after the game's seats (`traveller_0`, ... in journey; `player_0`, ... in
expedition). An observation is `{"observation": the seat's tensor (float32, Game.tensor_shape,
each number within its range: Game.tensor_bounds), "action_mask": int8 over the action-id
range}` (the mask is zero unless the agent is to move). Rewards come at the end: in a
competitive game, the seats ranked below minus the seats ranked above, over the seats less one
(1 for a lone winner of two, -1 for its loser, 0 for a tie); in a cooperative game every seat
gets the team's score. `infos[agent]["outcome"]` holds the game's outcome (scores, ranks, what
each seat achieved) at the end.
"""

import random

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import load
from .vector import observation_space

def env(game, preset=None, render_mode=None, **params):
    """The AEC environment of `game` with its parameters (as `tabletop_arena.load`), wrapped
    so that calls out of order are errors."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, preset, render_mode, **params))


class raw_env(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "tabletop_arena_v0", "is_parallelizable": False}

    def __init__(self, game, preset=None, render_mode=None, **params):
        super().__init__()
        self.game = load(game, preset, **params)
        self.render_mode = render_mode
        word = self.game.seat_word
        self.possible_agents = [f"{word}_{i}" for i in range(self.game.seats)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        n = self.game.action_count
        observation = observation_space(self.game)
        mask = spaces.Box(0, 1, shape=(n,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": observation, "action_mask": mask}) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self._deals = random.Random()
        self.state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._deals = random.Random(seed)
        self.state = self.game.new_game(self._deals.getrandbits(63))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.to_move()]

    def observe(self, agent):
        seat = self._seat[agent]
        if self.state.to_move() == seat:
            mask = self.state.legal_mask()
        else:
            mask = np.zeros(self.game.action_count, dtype=np.int8)
        return {"observation": self.state.observation_tensor(seat), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(int(action))
        if self.state.is_over():
            outcome = self.state.outcome()
            for a in self.agents:
                self.rewards[a] = self._reward(outcome, self._seat[a])
                self.terminations[a] = True
                self.infos[a] = {"outcome": outcome}
        else:
            self.agent_selection = self.possible_agents[self.state.to_move()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _reward(self, outcome, seat):
        if self.game.cooperative:
            return float(outcome["scores"][seat])
        ranks = outcome["ranks"]
        below = sum(r > ranks[seat] for r in ranks)
        above = sum(r < ranks[seat] for r in ranks)
        return (below - above) / (len(ranks) - 1)

    def render(self):
        """The observation of the agent selected, as text (`ansi`), or printed (`human`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: set render_mode='ansi' or 'human'")
            return None
        text = self.state.observation_text(self._seat[self.agent_selection])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
