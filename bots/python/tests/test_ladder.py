"""A ladder with three built-in anchors and two Python agents over real sockets: both are
matched within seconds, play seat-swapped games, and appear in the standings with intervals;
a new version is rated apart; a finished game's record is theirs to fetch."""

import json
import re
import subprocess
import threading
import time

import grpc
import pytest
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


SUBMISSIONS = """name: submissions
games:
  - { game: expedition, preset: no-dice, params: { players: 2 } }
anchors:
  - { name: random, bot: random }
move_time_ms: 5000
refit_ms: 200
bootstrap: 50
provisional_games: 0
keys: keys.txt
submissions: { limits: none, connect_timeout_ms: 10000 }
"""


def test_an_author_submits_lists_reads_logs_and_retires_from_python(arena, tmp_path):
    (tmp_path / "ladder.yaml").write_text(SUBMISSIONS)
    (tmp_path / "keys.txt").write_text("author=author-key-0123456789\n")
    child = subprocess.Popen(
        [arena, "ladder", str(tmp_path / "ladder.yaml"), "--addr", "127.0.0.1:0", "--data", str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        m = re.search(r"serving on (\S+)", child.stdout.readline())
        assert m
        threading.Thread(target=child.stdout.read, daemon=True).start()
        client = ta.Client(f"http://{m.group(1)}")
        # An agent: the arena's random bot (the arena's binary is in every sandbox, as its relay),
        # launched by the ladder in its sandbox for each game.
        folder = tmp_path / "agent"
        folder.mkdir()
        command = "echo hello from the sandbox >&2; exec /run/bin/arena bot random --server $ARENA_SERVER --name $ARENA_NAME"
        (folder / "agent.yaml").write_text(f"command: {json.dumps(command)}\n")
        s = client.submit("author", "1", str(folder), key="author-key-0123456789")
        assert (s.state, s.verdict) == ("active", ""), s
        assert b"hello from the sandbox" in s.stderr
        assert b"hello from the sandbox" in client.submission_log("author", "1", key="author-key-0123456789")
        until(client, "rated", lambda st: row(st, "author@1") is not None and row(st, "author@1").results >= 2)
        listed = client.submissions("author", key="author-key-0123456789")
        assert [(v.version, v.state) for v in listed] == [("1", "active")]
        # A broken one is refused with its verdict; the wrong key is refused by name.
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / "agent.yaml").write_text("command: 'echo no such agent >&2; exit 1'\n")
        s = client.submit("author", "2", str(broken), key="author-key-0123456789")
        assert s.state == "refused" and "ended before it said Hello" in s.verdict and "no such agent" in s.verdict, s
        with pytest.raises(grpc.RpcError) as e:
            client.submit("author", "3", str(folder), key="wrong")
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(ValueError):
            client.submit("author", "4", str(tmp_path), key="author-key-0123456789")
        assert client.retire("author", "1", key="author-key-0123456789").state == "retired"
    finally:
        child.kill()
        child.wait()
