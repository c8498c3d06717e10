"""Clients of the arena's server (`arena serve`): `play` serves an agent over the Play stream;
`Client` plays seats by token (Observe, Act, Watch) and creates matches.

An agent is a function (or an object with `act`) that takes a `Request` — one decision of one
seat: its observation, the legal actions, the time left — and returns one of the legal ids, or
gives the seat up by raising `Resign` (or returning a `Resign`).
"""

import json
import os
import queue
import sys
import threading

import grpc
import numpy as np

from . import _native
from ._stubs import stubs


class _ClientKey(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Sends the operator's client key (the `x-arena-key` metadata) with every call."""

    def __init__(self, key):
        self._key = key

    def _with_key(self, details):
        return _Details(details, list(details.metadata or []) + [("x-arena-key", self._key)])

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._with_key(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._with_key(details), request)

    def intercept_stream_unary(self, continuation, details, requests):
        return continuation(self._with_key(details), requests)

    def intercept_stream_stream(self, continuation, details, requests):
        return continuation(self._with_key(details), requests)


class _Details(grpc.ClientCallDetails):
    def __init__(self, details, metadata):
        self.method = details.method
        self.timeout = details.timeout
        self.metadata = metadata
        self.credentials = details.credentials
        self.wait_for_ready = getattr(details, "wait_for_ready", None)
        self.compression = getattr(details, "compression", None)


def _channel(server, client_key):
    """A channel to `server`; with `client_key` (default: `ARENA_CLIENT_KEY`), every call
    carries it, so that the server knows this client by its key rather than its address."""
    channel = grpc.insecure_channel(_target(server))
    client_key = client_key if client_key is not None else os.environ.get("ARENA_CLIENT_KEY", "")
    return grpc.intercept_channel(channel, _ClientKey(client_key)) if client_key else channel


def _target(server):
    """A gRPC target from a URL (`http://host:port`) or a bare `host:port`."""
    return server.removeprefix("http://")


class _Games:
    """Games built from the parameters the server sends, each built once."""

    def __init__(self):
        self._games = {}

    def get(self, name, params_yaml):
        key = (name, params_yaml)
        if key not in self._games:
            self._games[key] = _native.load(name, None, params_yaml, [])
        return self._games[key]


class Request:
    """One decision of one seat, as the server sent it.

    - `game`: the game with the match's parameters (a `tabletop_arena.Game`: a forward model);
    - `seat`, `match_id`, `version`, `time_left_ms` (the time this decision may take in all;
      0: no limit) and `bank_left_ms` (how much of it is the seat's overage bank: a reserve for
      the whole game, drawn on by the time past the per-move limit; 0: none);
    - `observation`: the seat's observation as a dict, the engine's own form of it, so that
      `game.from_observation(request.observation, request.seat, seed)` rebuilds a full state;
    - `text`: the observation as text; `legal`: the legal ids; `labels`: their labels;
    - `tensor` and `legal_mask` (numpy), when asked for with `tensors=True`, else None;
    - `message`: the message itself (a `DecisionRequest` or a `SeatState`).
    """

    def __init__(self, message, game):
        self.message = message
        self.game = game
        self.seat = message.seat
        self.match_id = message.match_id
        self.version = message.version
        self.time_left_ms = message.time_left_ms
        # (A SeatState, a token seat's, has no bank.)
        self.bank_left_ms = getattr(message, "bank_left_ms", 0)
        self.legal = [a.id for a in message.legal]
        self.labels = [a.label for a in message.legal]
        self.text = message.observation.text
        self._observation = None

    @property
    def observation(self):
        if self._observation is None:
            if not self.message.HasField("observation"):
                raise ValueError("this request carries no observation: play(..., observation=False) asked for none")
            _, text = _native.observation_from_wire(self.message.observation.SerializeToString())
            self._observation = json.loads(text)
        return self._observation

    @property
    def tensor(self):
        t = self.message.tensor
        return np.asarray(t, dtype=np.float32) if len(t) else None

    @property
    def legal_mask(self):
        m = self.message.legal_mask
        if not m:
            return None
        bits = np.unpackbits(np.frombuffer(m, dtype=np.uint8), bitorder="little")
        return bits[: self.game.action_count].astype(np.int8)


class Resign(Exception):
    """An agent raises this (or returns an instance of it) instead of choosing an action to
    give up the seat it was asked for: the seat loses and its match ends, with the verdict
    `resigned` and `forfeited_by` that seat, as the match's `MatchEnded` and record say.

    `play` sends it over the Play stream as a `Resign` of the request's match and seat (the
    server takes it only for a seat the stream plays); `Client.play_seat` calls `Resign` with
    the seat's token. The message, if any, stays in this process (nothing crosses the wire).

        def agent(request):
            if hopeless(request):
                raise ta.Resign("nothing left to play for")
            return request.legal[0]
    """


def _decide(agent, request):
    """The agent's action for `request`; a `Resign` raised or returned is raised."""
    act = getattr(agent, "act", agent)
    chosen = act(request)
    if isinstance(chosen, Resign):
        raise chosen
    return int(chosen)


def play(
    agent,
    server=None,
    name=None,
    games=(),
    key=None,
    tensors=False,
    client_key=None,
    version="",
    at_once=0,
    text=True,
    observation=True,
    max_games=None,
    stop=None,
    accept_challenges=False,
):
    """Serve `agent` over the Play stream of `server` under `name` until the server ends the
    stream. Once `max_games` of its games have ended, or `stop` (a `threading.Event`) is set, it
    leaves: it takes no new games, plays out those in play, and returns when the server ends
    the stream, its name then free (the contract's `Leave`).

    `games` lists the games it plays (empty: all). `server`, `name` and `key` (the name's key)
    default to `ARENA_SERVER`, `ARENA_NAME` and `ARENA_KEY` (what the arena sets for a
    tournament's `command:` participant); `client_key`, the key the operator gave this client,
    to `ARENA_CLIENT_KEY`. An agent with an `ended(message)` method is told of every
    `MatchEnded` (its `outcome` carries the verdicts and `forfeited_by`). An agent that raises
    (or returns) `Resign` gives up the request's seat. Returns `{"decisions": n, "resigned": r,
    "ended": m}`.

    On a ladder (`arena ladder`), saying Hello is joining: the agent is matched game after game
    until it returns. `version` plays it as `name@version`, rated apart from other versions;
    `at_once` is how many games it takes at once (`Hello.max_games`; 0: the ladder's default);
    `accept_challenges` lets others seat it in matches they create (else it plays the ladder's
    pairings alone).

    `text=False` leaves each request's observation text out (`request.text` is then empty):
    an agent that reads the typed observation or the tensor spares the server its writing.
    `observation=False` leaves the whole observation out (`request.observation` then raises):
    an agent that reads only `request.legal`, or the tensor, is served several times faster.
    """
    pb, rpc = stubs()
    server = server or os.environ.get("ARENA_SERVER", "http://127.0.0.1:50051")
    name = name or os.environ.get("ARENA_NAME", "python")
    key = key if key is not None else os.environ.get("ARENA_KEY", "")
    outbox = queue.Queue()
    hello = pb.Hello(
        name=name,
        games=list(games),
        key=key,
        tensors=tensors,
        version=version,
        max_games=at_once,
        omit_text=not text,
        omit_observation=not observation,
        accept_challenges=accept_challenges,
    )
    outbox.put(pb.BotMessage(hello=hello))
    known = _Games()
    counts = {"decisions": 0, "resigned": 0, "ended": 0}
    if max_games is not None and max_games < 1:
        raise ValueError(f"max_games: {max_games}: at least one game (None: no limit)")
    with _channel(server, client_key) as channel:
        stream = rpc.PlayStub(channel).Play(iter(outbox.get, None))
        done, leaving = threading.Event(), threading.Event()

        def leave():
            if not leaving.is_set():
                leaving.set()
                outbox.put(pb.BotMessage(leave=pb.Leave()))

        if stop is not None:
            # Told to stop while the stream waits: leave from here.
            threading.Thread(target=lambda: _first(stop, done) and stop.is_set() and leave(), daemon=True).start()
        try:
            for message in stream:
                kind = message.WhichOneof("message")
                if kind == "request":
                    r = message.request
                    try:
                        action = _decide(agent, Request(r, known.get(r.game, r.params_yaml)))
                    except Resign:
                        outbox.put(pb.BotMessage(resign=pb.Resign(match_id=r.match_id, seat=r.seat)))
                        counts["resigned"] += 1
                        continue
                    outbox.put(pb.BotMessage(decision=pb.Decision(request_id=r.request_id, action=action)))
                    counts["decisions"] += 1
                elif kind == "ended":
                    counts["ended"] += 1
                    if hasattr(agent, "ended"):
                        agent.ended(message.ended)
                    if max_games is not None and counts["ended"] >= max_games:
                        leave()
                elif kind == "error":
                    # Something sent was refused (a decision past its limit, say); the stream goes on.
                    print(f"server: {message.error.code}: {message.error.message}", file=sys.stderr)
        except grpc.RpcError as e:
            # The server going away (or `stop`) ends the session; anything else is an error.
            if e.code() not in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE):
                raise
        finally:
            done.set()
            stream.cancel()
            outbox.put(None)
    return counts


def _match_id(match):
    """A match's id, from a `Match` or the id itself."""
    return match.match_id if isinstance(match, Match) else match


def _first(*events):
    """Wait until any of `events` is set (True)."""
    while not any(e.wait(0.05) for e in events):
        pass
    return True


class Match:
    """A match `Client.create_match` made: `match_id`; `tokens`, one entry per seat (the
    seat's token, a string, for a token seat; None for the others); `creator_token` (it
    cancels the match); `response`, the `CreateMatchResponse` itself."""

    def __init__(self, response):
        self.response = response
        self.match_id = response.match_id
        self.seats = response.seats
        self.tokens = [None] * response.seats
        for t in response.tokens:
            self.tokens[t.seat] = t.token
        self.creator_token = response.creator_token

    def __repr__(self):
        return f"<Match {self.match_id}: {self.seats} seats, token seats {[i for i, t in enumerate(self.tokens) if t]}>"


def _key(key):
    return key if key is not None else os.environ.get("ARENA_KEY", "")


def _pack(folder):
    """An agent's folder as the gzipped tar a ladder takes: its files and folders under their
    relative paths, links followed to what they name; its manifest checked to be there."""
    import io
    import tarfile

    if not os.path.isfile(os.path.join(folder, "agent.yaml")):
        raise ValueError(f"{folder}: no agent.yaml (its manifest: `command: python3 agent.py`)")
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", dereference=True) as tar:
        for entry in sorted(os.listdir(folder)):
            tar.add(os.path.join(folder, entry), arcname=entry)
    return out.getvalue()


class Client:
    """The server's unary and streaming calls, for seats played by token and for creating
    matches. Messages are the contract's (`Client.pb` is its module of messages). Every call
    that takes a match id also takes the `Match` `create_match` returned."""

    def __init__(self, server="http://127.0.0.1:50051", client_key=None):
        self.pb, rpc = stubs()
        self._channel = _channel(server, client_key)
        self.matches = rpc.MatchesStub(self._channel)
        self.catalogue = rpc.CatalogueStub(self._channel)
        self.ladder = rpc.LadderStub(self._channel)
        self._games = _Games()

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def create_match(self, game, preset="", params=None, seats=(), seed=None, **fields):
        """`CreateMatch`. `seats`: one entry per seat, `"token"`, `{"bot": "mcts"}` or
        `{"play": "name"}` (empty: every seat by token); `params` values as on the command
        line. Returns a `Match`: its `match_id` and `tokens[seat]` (strings) are what the
        next calls take."""
        specs = [self.pb.SeatSpec(token=True) if s == "token" else self.pb.SeatSpec(**s) for s in seats]
        params = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (params or {}).items()}
        request = self.pb.CreateMatchRequest(game=game, preset=preset, params=params, seats=specs, seed=seed, **fields)
        return Match(self.matches.CreateMatch(request))

    def wait(self, match, timeout=None):
        """Wait for the match (a `Match` or its id) to end; returns its `MatchOutcome`. Raises
        `TimeoutError` past `timeout` seconds (None: no limit)."""
        match_id = _match_id(match)
        events = self.matches.Spectate(self.pb.SpectateRequest(match_id=match_id), timeout=timeout)
        try:
            for event in events:
                if event.HasField("ended"):
                    return event.ended.outcome
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise TimeoutError(f"match {match_id} did not end within {timeout} s") from None
            raise
        finally:
            events.cancel()
        # The stream ended without an end: the match ended before it was spectated.
        return self.record(match_id).outcome

    def standings(self, offset=0, limit=0):
        """A ladder's `Standings`: `lists[0]` overall, then one per game entry; each row an
        agent's `rating` with its 95% interval (`lower`, `upper`), `results` and `score`; each
        list's `unrated`, the agents playing that have no rating there yet, with the reason, and
        its `provisional` agents (rated, not ranked yet). A page of each list: from rank
        `offset` (0: the first), at most `limit` rows (0: 50; at most 500); `total` ranked in all."""
        return self.ladder.Standings(self.pb.StandingsRequest(offset=offset, limit=limit))

    def agent_games(self, agent, limit=20):
        """A ladder's `AgentGames`: the agent's recent games (newest first), head-to-head and
        rating over time."""
        return self.ladder.AgentGames(self.pb.AgentGamesRequest(agent=agent, limit=limit))

    def ladder_record(self, game_id):
        """The record of a ladder's finished game (it replays: `arena replay`)."""
        return self.ladder.GetLadderRecord(self.pb.LadderRecordRequest(game_id=game_id))

    def submit(self, name, version, folder, key=None):
        """Upload an agent to a ladder that takes submissions (`Submit`): `folder` holds its
        files and its manifest, `agent.yaml` (`command: python3 agent.py`), packed here as a
        gzipped tar (links followed). `key` is the name's (default: `ARENA_KEY`). Returns the
        `Submission` once its validation game is over: `state` `active` (it is rated as
        `name@version` from now on) or `refused`, with its `verdict` and `stderr`."""
        archive = _pack(folder)
        req = self.pb.SubmitRequest(name=name, version=version, key=_key(key), archive=archive)
        return self.ladder.Submit(req)

    def submissions(self, name, key=None):
        """A name's submitted versions (`ListSubmissions`): each one's state, verdict and the
        games whose stderr is kept (`logged_games`)."""
        return self.ladder.ListSubmissions(self.pb.SubmissionsRequest(name=name, key=_key(key))).submissions

    def retire(self, name, version, key=None):
        """Retire a version (`RetireSubmission`): it takes no new game; its results stay."""
        return self.ladder.RetireSubmission(self.pb.SubmissionRequest(name=name, version=version, key=_key(key)))

    def submission_log(self, name, version, game_id=0, key=None):
        """The end of a version's stderr in one of its games (0: its validation game), bytes."""
        req = self.pb.SubmissionLogRequest(name=name, version=version, key=_key(key), game_id=game_id)
        return self.ladder.SubmissionLog(req).stderr

    def observe(self, match_id, token, tensors=False):
        match_id = _match_id(match_id)
        return self.matches.Observe(self.pb.ObserveRequest(match_id=match_id, token=token, tensors=tensors))

    def watch(self, match_id, token, tensors=False):
        """The seat's state now and at every change, to the end (`Watch`)."""
        match_id = _match_id(match_id)
        return self.matches.Watch(self.pb.ObserveRequest(match_id=match_id, token=token, tensors=tensors))

    def act(self, match_id, token, action, version=None):
        """Play `action` for the seat; returns its new `SeatState`."""
        match_id = _match_id(match_id)
        request = self.pb.ActRequest(match_id=match_id, token=token, action=action, version=version)
        return self.matches.Act(request).state

    def resign(self, match_id, token):
        """Give up the seat (`Resign`): it loses and the match ends. Returns its `SeatState`."""
        match_id = _match_id(match_id)
        return self.matches.Resign(self.pb.ResignRequest(match_id=match_id, token=token))

    def record(self, match_id):
        match_id = _match_id(match_id)
        return self.matches.GetRecord(self.pb.GetRecordRequest(match_id=match_id))

    def game_of(self, match_id):
        """The match's game with its parameters (from the first public event, `Started`)."""
        match_id = _match_id(match_id)
        events = self.matches.Spectate(self.pb.SpectateRequest(match_id=match_id))
        try:
            started = next(iter(events)).started
        finally:
            events.cancel()
        return self._games.get(started.game, started.params_yaml)

    def play_seat(self, agent, match_id, token, tensors=False):
        """Play one token seat with `agent` to the end of the match, woken by `Watch` (no
        polling); returns the `MatchOutcome`. An agent that raises (or returns) `Resign`
        resigns the seat."""
        match_id = _match_id(match_id)
        game = self.game_of(match_id)
        for state in self.watch(match_id, token, tensors):
            if state.HasField("to_move") and state.to_move == state.seat and state.legal:
                try:
                    action = _decide(agent, Request(state, game))
                except Resign:
                    return self.resign(match_id, token).outcome
                self.act(match_id, token, action, state.version)
            if state.HasField("outcome"):
                return state.outcome
        return None
