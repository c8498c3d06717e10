"""A ladder with three built-in anchors and two Python agents over real sockets: both are
matched within seconds, play seat-swapped games, and appear in the standings with intervals;
a new version is rated apart; a finished game's record is theirs to fetch."""

import re
import subprocess
import threading
import time

import tabletop_arena as ta

LADDER = """name: python
games:
  - { game: expedition, preset: no-dice, params: { players: 2 } }
anchors:
  - { name: random, bot: random }
  - { name: rules, bot: rules }
  - { name: greedy, bot: greedy }
move_time_ms: 5000
refit_ms: 200
bootstrap: 100
max_games: 2
provisional_games: 2
"""


def first_legal(request):
    return request.legal[0]


def start_ladder(arena, tmp_path):
    (tmp_path / "ladder.yaml").write_text(LADDER)
    child = subprocess.Popen(
        [arena, "ladder", str(tmp_path / "ladder.yaml"), "--addr", "127.0.0.1:0", "--data", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = child.stdout.readline()
    m = re.search(r"serving on (\S+)", line)
    assert m, line
    threading.Thread(target=child.stdout.read, daemon=True).start()
    return child, f"http://{m.group(1)}"


def until(client, what, done, seconds=60):
    end = time.time() + seconds
    while True:
        s = client.standings()
        if done(s):
            return s
        assert time.time() < end, f"{what}: {s}"
        time.sleep(0.1)


def row(standings, agent):
    return next((r for r in standings.lists[0].rows if r.agent == agent), None)


def test_python_agents_join_a_ladder_and_are_rated(arena, tmp_path):
    child, url = start_ladder(arena, tmp_path)
    try:
        for name, version in (("py-first", ""), ("py-random", ""), ("py-first", "2")):
            threading.Thread(
                target=ta.play, args=(first_legal,), kwargs=dict(server=url, name=name, version=version), daemon=True
            ).start()
        with ta.Client(url) as client:
            s = until(client, "all three rated", lambda s: all(
                row(s, a) is not None and row(s, a).results >= 4 and row(s, a).upper > row(s, a).lower
                for a in ("py-first", "py-random", "py-first@2")
            ))
            assert all(row(s, a).anchor for a in ("random", "rules", "greedy") if row(s, a))
            games = client.agent_games("py-first", limit=50).games
            seats = {list(g.players).index("py-first") for g in games}
            assert seats == {0, 1}, games
            record = client.ladder_record(games[-1].game_id)
            assert "py-first" in record.players and len(record.actions) > 0
            # The README's replay: the record's game, parameters and seed, then its actions.
            state = ta.load(record.game, yaml=record.params_yaml).new_game(record.seed)
            for action in record.actions:
                state.apply(action)
            if not record.outcome.verdicts:  # played out (not ended by a verdict)
                assert state.is_over()
                assert list(state.outcome()["ranks"]) == list(record.outcome.ranks)
            # A version apart is its own agent, with its own games.
            assert all("py-first@2" in g.players for g in client.agent_games("py-first@2").games)
            # A page of the standings: the second rank alone, the total told.
            page = client.standings(offset=1, limit=1).lists[0]
            assert len(page.rows) == 1 and page.rows[0].rank == 2 and page.offset == 1 and page.total >= 4, page
    finally:
        child.kill()
        child.wait(timeout=30)
