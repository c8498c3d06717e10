"""The clients against a real `arena serve`: the Play client plays complete games of both games
(also with tensors), the token client plays a seat woken by Watch, and the example agents run
as commands."""

import subprocess
import sys
import threading
import time

import grpc
import pytest

import tabletop_arena as ta
from conftest import create_when_connected


def wait_for_record(client, match_id, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            return client.record(match_id)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise
            time.sleep(0.05)
    pytest.fail(f"match {match_id} did not end")


class Checking:
    """A random agent that checks what every request gives it."""

    def __init__(self, text=True, observation=True):
        self.requests, self.endings, self.text, self.observation = 0, [], text, observation

    def act(self, request):
        self.requests += 1
        assert bool(request.text) == (self.text and self.observation), "the observation's text unless left out"
        assert request.legal and len(request.labels) == len(request.legal)
        assert request.game.name in ("journey", "expedition")
        if not self.observation:
            # Left out: the legal actions, and the tensor asked for, alone.
            with pytest.raises(ValueError, match="no observation"):
                request.observation
            if request.tensor is not None:
                assert request.tensor.shape == request.game.tensor_shape
                assert sorted(request.legal_mask.nonzero()[0]) == sorted(request.legal)
            return request.legal[self.requests % len(request.legal)]
        rebuilt = request.game.from_observation(request.observation, request.seat, self.requests)
        assert sorted(rebuilt.legal_actions()) == sorted(request.legal)
        if request.tensor is not None:
            assert request.tensor.shape == request.game.tensor_shape
            assert sorted(request.legal_mask.nonzero()[0]) == sorted(request.legal)
            assert (rebuilt.observation_tensor(request.seat) == request.tensor).all()
        return request.legal[self.requests % len(request.legal)]

    def ended(self, message):
        self.endings.append(message)


@pytest.mark.parametrize(
    "tensors, text, observation", [(False, True, True), (True, True, True), (False, False, True), (True, True, False)]
)
def test_the_play_client_plays_complete_games(server, tensors, text, observation):
    name = f"py-{int(tensors)}{int(text)}{int(observation)}"
    agent = Checking(text, observation)
    # The stream lasts until the server stops (at the module's end).
    kwargs = {"server": server, "name": name, "tensors": tensors, "text": text, "observation": observation}
    threading.Thread(target=ta.play, args=(agent,), kwargs=kwargs, daemon=True).start()
    with ta.Client(server) as client:
        ids = [
            create_when_connected(client, name, game="expedition", preset="no-dice", seats=[{"play": name}] * 2, seed=3).match_id,
            create_when_connected(client, name, game="journey", preset="classic", params={"travellers": 2}, seats=[{"play": name}, {"bot": "random"}], seed=4).match_id,
        ]
        for match_id in ids:
            record = wait_for_record(client, match_id)
            assert len(record.actions) > 0 and not record.outcome.verdicts
        assert agent.requests > 10
        # Ended messages arrive after the record is kept; give them a moment.
        deadline = time.monotonic() + 30
        while len(agent.endings) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(agent.endings) == 3, "a MatchEnded for each of its three seats"


def test_a_token_seat_plays_woken_by_watch(server):
    with ta.Client(server) as client:
        match = client.create_match(game="expedition", preset="dice", seats=["token", {"bot": "random"}], seed=9)
        token = match.tokens[0]
        assert isinstance(token, str) and match.tokens[1] is None
        seen = []

        def agent(request):
            seen.append(request.seat)
            rebuilt = request.game.from_observation(request.observation, request.seat, len(seen))
            assert sorted(rebuilt.legal_actions()) == sorted(request.legal)
            return request.legal[0]

        outcome = client.play_seat(agent, match.match_id, token)
        assert outcome is not None and len(outcome.scores) == 2 and not outcome.verdicts
        assert len(seen) > 10 and set(seen) == {0}
        assert len(client.record(match.match_id).actions) > len(seen)


class Resigning:
    """Plays its first `moves` decisions, then gives the seat up (raising `Resign`, or
    returning one)."""

    def __init__(self, moves, returns=False):
        self.moves, self.returns, self.asked, self.endings = moves, returns, 0, []

    def act(self, request):
        self.asked += 1
        if self.asked > self.moves:
            if self.returns:
                return ta.Resign()
            raise ta.Resign("nothing left to play for")
        return request.legal[0]

    def ended(self, message):
        self.endings.append(message)


@pytest.mark.parametrize("returns", [False, True])
def test_an_agent_resigns_its_seat_over_the_play_stream(server, returns):
    name = f"py-resigns-{int(returns)}"
    agent = Resigning(moves=2, returns=returns)
    threading.Thread(target=ta.play, args=(agent,), kwargs={"server": server, "name": name}, daemon=True).start()
    with ta.Client(server) as client:
        match = create_when_connected(client, name, game="expedition", preset="no-dice", seats=[{"play": name}, {"bot": "random"}], seed=5)
        record = wait_for_record(client, match.match_id)
        verdicts = [(v.seat, v.kind, v.policy) for v in record.outcome.verdicts]
        assert verdicts == [(0, "resigned", "forfeit")], record.outcome
        assert record.outcome.HasField("forfeited_by") and record.outcome.forfeited_by == 0
        assert list(record.outcome.ranks) == [1, 0]
        # The MatchEnded the agent hears says the same.
        deadline = time.monotonic() + 30
        while not agent.endings and time.monotonic() < deadline:
            time.sleep(0.05)
        (ended,) = agent.endings
        assert ended.match_id == match.match_id and ended.outcome.forfeited_by == 0
        assert [v.kind for v in ended.outcome.verdicts] == ["resigned"]


def test_a_token_seat_resigns(server):
    with ta.Client(server) as client:
        match = client.create_match(game="expedition", preset="no-dice", seats=["token", {"bot": "random"}], seed=9)
        token = match.tokens[0]
        outcome = client.play_seat(Resigning(moves=1), match.match_id, token)
        assert [(v.seat, v.kind) for v in outcome.verdicts] == [(0, "resigned")]
        assert outcome.forfeited_by == 0


@pytest.mark.parametrize("module", ["random", "ismcts"])
def test_the_example_agents_play_as_commands(server, python, module):
    name = f"example-{module}"
    args = [python, "-m", f"tabletop_arena.agents.{module}", "--server", server, "--name", name]
    if module == "ismcts":
        args += ["--iterations", "20"]
    child = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    try:
        with ta.Client(server) as client:
            match = create_when_connected(client, name, game="expedition", preset="no-dice", seats=[{"play": name}, {"bot": "random"}], seed=5)
            record = wait_for_record(client, match.match_id)
            assert not record.outcome.verdicts
            match = client.create_match(game="journey", preset="classic", params={"travellers": 2}, seats=[{"play": name}] * 2, seed=6)
            record = wait_for_record(client, match.match_id)
            assert not record.outcome.verdicts and record.players == [name, name]
    finally:
        child.terminate()
        child.wait(timeout=30)


def test_a_client_key_travels_with_every_call(arena, tmp_path):
    """With `--require-key always`, only a client that sends its key is served: the key given
    to `Client` and `play` (or `ARENA_CLIENT_KEY`) goes with every call and the Play stream."""
    key = "lab-key-0123456789"
    keys = tmp_path / "clients"
    keys.write_text(f"lab={key}\n")
    command = [arena, "serve", "--addr", "127.0.0.1:0", "--client-keys", str(keys), "--require-key", "always"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        url = "http://" + child.stdout.readline().split()[-1]
        first = lambda request: request.legal[0]  # noqa: E731
        for wrong in (None, "not-the-key-000000"):
            with ta.Client(url, client_key=wrong) as stranger:
                with pytest.raises(grpc.RpcError) as refused:
                    stranger.create_match("journey")
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.RpcError) as refused:
                ta.play(first, server=url, name="stranger", client_key=wrong)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        kwargs = {"server": url, "name": "keyed-py", "client_key": key}
        threading.Thread(target=ta.play, args=(first,), kwargs=kwargs, daemon=True).start()
        with ta.Client(url, client_key=key) as lab:
            match = create_when_connected(lab, "keyed-py", game="journey", seats=[{"play": "keyed-py"}], seed=3)
            assert wait_for_record(lab, match.match_id).outcome.ranks
    finally:
        child.terminate()
        child.wait(timeout=30)


def test_wait_returns_a_match_s_outcome_or_times_out(server):
    with ta.Client(server) as client:
        bots = client.create_match(game="expedition", preset="no-dice", seats=[{"bot": "random"}] * 2, seed=2)
        outcome = client.wait(bots)
        assert len(outcome.scores) == 2 and list(outcome.scores) == list(client.record(bots.match_id).outcome.scores)
        # Once over, the same outcome at once.
        assert client.wait(bots.match_id) == outcome
        waiting = client.create_match(game="expedition", preset="no-dice", seats=["token", {"bot": "random"}], seed=2)
        with pytest.raises(TimeoutError, match=f"match {waiting.match_id} did not end within 0.5 s"):
            client.wait(waiting, timeout=0.5)
        client.resign(waiting, waiting.tokens[0])
        assert client.wait(waiting).forfeited_by == 0


def test_play_leaves_after_max_games_or_when_stopped_and_frees_its_name(server):
    name = "py-returns"
    with ta.Client(server) as client:
        results = {}
        thread = threading.Thread(
            target=lambda: results.update(ta.play(lambda r: r.legal[0], server=server, name=name, max_games=2)), daemon=True
        )
        thread.start()
        # A game that cannot end before the test plays its other seat (a token seat)...
        held = create_when_connected(client, name, game="expedition", preset="no-dice", seats=[{"play": name}, "token"], seed=1)
        # ... and two that end by themselves: the second end makes the client leave.
        for seed in (2, 3):
            match = client.create_match(game="expedition", preset="no-dice", seats=[{"bot": "random"}, {"play": name}], seed=seed)
            assert not client.wait(match, timeout=60).verdicts
        # Leaving: no new game seats it, the game in play goes on to its end.
        deadline = time.monotonic() + 30
        while True:
            try:
                client.create_match(game="journey", preset="classic", seats=[{"play": name}], seed=4)
            except grpc.RpcError as e:
                assert e.code() == grpc.StatusCode.FAILED_PRECONDITION and "is leaving" in e.details(), e.details()
                break
            assert time.monotonic() < deadline, "the client never left"
            time.sleep(0.05)
        assert thread.is_alive()
        outcome = client.play_seat(lambda r: r.legal[0], held, held.tokens[1])
        assert not outcome.verdicts
        thread.join(timeout=60)
        assert not thread.is_alive() and results["ended"] >= 3
        # The name is free: another client takes it, plays, and leaves when told.
        stop = threading.Event()
        thread = threading.Thread(
            target=lambda: results.update(ta.play(lambda r: r.legal[0], server=server, name=name, stop=stop)), daemon=True
        )
        thread.start()
        match = create_when_connected(client, name, game="journey", preset="classic", seats=[{"play": name}], seed=3)
        client.wait(match)
        stop.set()
        thread.join(timeout=30)
        assert not thread.is_alive() and results["ended"] == 1
    with pytest.raises(ValueError, match="max_games: 0"):
        ta.play(lambda r: r.legal[0], server=server, name=name, max_games=0)
