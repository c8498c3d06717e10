"""The rules through the bindings agree with the Rust engine: games played by the project's
`arena` binary (`arena play --records`), replayed through the bindings from the same seed with
the same actions, every action legal when it is played, end at the same outcome with the same
figures. Thousands of games over both games and several configurations."""

import json
import subprocess

import pytest

import tabletop_arena as ta

RUNS = [
    ("journey", ["--preset", "classic"], 3000),
    ("journey", ["--preset", "martian", "--players", "3"], 1000),
    ("journey", ["--preset", "dunwich", "--players", "4"], 1000),
    ("expedition", ["--preset", "dice", "--players", "2"], 1000),
    ("expedition", ["--preset", "no-dice", "--players", "4"], 500),
]


def records(arena, tmp_path, game, options, games, seed):
    path = tmp_path / "games.jsonl"
    command = [arena, "play", game, *options, "--games", str(games), "--seed", str(seed), "--bots", "random", "--records", str(path)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.mark.parametrize("game,options,games", RUNS)
def test_the_bindings_replay_the_engines_games(arena, tmp_path, game, options, games):
    played = records(arena, tmp_path, game, options, games, seed=15)
    assert len(played) == games
    loaded = {}
    for r in played:
        params = json.dumps(r["params"])
        if params not in loaded:
            loaded[params] = ta.load(r["game"], yaml=params)
        g = loaded[params]
        assert g.rules_version == r["rules_version"]
        state = g.new_game(r["seed"])
        for a in r["actions"]:
            assert a in state.legal_actions()
            state.apply(a)
        assert state.is_over()
        o = state.outcome()
        assert o["scores"] == r["outcome"]["scores"]
        assert o["ranks"] == r["outcome"]["ranks"]
        assert o["achieved"] == r["outcome"].get("achieved", [])
        assert dict(state.metrics()) == pytest.approx(r.get("metrics", {}))


def test_agreement_covers_thousands_of_games():
    assert sum(n for *_, n in RUNS) >= 3000
