"""The Python ISMCTS agent plays a small tournament: `arena tournament` launches it as a
`command:` participant (with ARENA_SERVER and ARENA_NAME set), every game is recorded, and no
answer of it is illegal or late."""

import json
import shlex
import subprocess


def test_the_ismcts_agent_plays_a_tournament(arena, python, tmp_path):
    command = shlex.join([python, "-m", "tabletop_arena.agents.ismcts", "--iterations", "100"])
    config = tmp_path / "tournament.yaml"
    config.write_text(
        f"""name: python-ismcts
seed: 3
games_per_pairing: 2
move_time_ms: 20000
bootstrap: 50
participants:
  - {{ name: ismcts, command: {json.dumps(command)} }}
  - {{ name: random, bot: random }}
games:
  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}
  - {{ game: journey, preset: classic }}
""",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    subprocess.run([arena, "tournament", str(config), "--out", str(out), "--quiet"], check=True, timeout=600)
    with open(out / "games.jsonl", encoding="utf-8") as f:
        games = [json.loads(line) for line in f]
    # expedition: 2 deals x 2 seat orders; journey: 2 deals x 2 participants.
    assert len(games) == 4 + 4
    assert all(not g.get("verdicts") for g in games), "every answer legal and in time"
    assert sum("ismcts" in g["players"] for g in games) == 6
