"""Tabletop Arena for Python: the engine in process, a PettingZoo environment, and clients of
the arena's server.

    >>> import tabletop_arena as ta
    >>> game = ta.load("expedition", preset="no-dice", players=2)
    >>> state = game.new_game(seed=1)
    >>> state.apply(state.legal_actions()[0])

Every rule is the Rust engine's (`tabletop_arena._native`); nothing here copies one.
"""

import json

from ._native import Bot, Game, State, observation_from_wire
from ._native import games as _games
from ._native import load as _load
from .client import Client, Match, Request, Resign, play

__all__ = ["Bot", "Client", "Game", "Match", "Request", "Resign", "State", "games", "load", "observation_from_wire", "play"]


def load(game, preset=None, *, yaml=None, **params):
    """The game named `game` (`"journey"`, `"expedition"`) with its parameters: a preset, then
    a YAML mapping (`yaml`, text), then keyword parameters (`travellers=2`, `dice=False`).

    A bad name, preset, parameter or value raises ValueError naming it.
    """
    pairs = [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in params.items()]
    return _load(game, preset, yaml, pairs)


def games():
    """Every game: a list of dicts with `name`, `summary`, `presets`, `default_preset`,
    `cooperative`."""
    keys = ("name", "summary", "presets", "default_preset", "cooperative")
    return [dict(zip(keys, g)) for g in _games()]
