#!/usr/bin/env python3
"""A Tabletop Arena agent in Python, over the Play stream of the gRPC contract.

It says Hello with its name, then answers every DecisionRequest with one of the legal
actions. It sees exactly what the wire gives a seat: the observation (typed, and as text),
the legal actions with their labels, the time left. Two policies:

  random   uniform among the legal actions (seeded)
  eager    a few label rules: complete a tile, strike, forage, take a column... else random

Usage:
  python3 arena_bot.py --server http://127.0.0.1:50051 --name py-eager --policy eager
  (in a tournament: `command: "python3 bots/examples/python/arena_bot.py"`; the arena sets
  ARENA_SERVER and ARENA_NAME)

The Python stubs are generated from the contract at start (grpcio-tools), so the client
always speaks the contract of this checkout: `pip install -r requirements.txt` first.
"""

import argparse
import os
import queue
import random
import shutil
import sys
import tempfile
import threading

import grpc
from grpc_tools import protoc

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "proto", "proto"))
PROTO = "tabletop/arena/v1/arena.proto"


def load_stubs():
    """Generate the message and service modules from the contract into a temporary folder,
    removed once they are imported."""
    out = tempfile.mkdtemp(prefix="arena-stubs-")
    code = protoc.main(["protoc", f"-I{PROTO_ROOT}", f"--python_out={out}", f"--grpc_python_out={out}", PROTO])
    if code != 0:
        sys.exit(f"cannot compile {PROTO} from {PROTO_ROOT}")
    sys.path.insert(0, out)
    try:
        from tabletop.arena.v1 import arena_pb2, arena_pb2_grpc  # noqa: E402
    finally:
        sys.path.remove(out)
        shutil.rmtree(out, True)
    return arena_pb2, arena_pb2_grpc


EAGER = ["complete", "strike", "pay to bank", "forage", "take column", "keep the roll", "spend", "take face-up"]


def choose(policy, request, rng):
    legal = list(request.legal)
    if policy == "eager":
        for word in EAGER:
            matching = [a for a in legal if word in a.label]
            if matching:
                return rng.choice(matching).id
    return rng.choice(legal).id


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default=os.environ.get("ARENA_SERVER", "http://127.0.0.1:50051"))
    parser.add_argument("--name", default=os.environ.get("ARENA_NAME", "python"))
    parser.add_argument("--policy", choices=["random", "eager"], default="eager")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    pb, rpc = load_stubs()
    rng = random.Random(args.seed)
    target = args.server.removeprefix("http://")
    channel = grpc.insecure_channel(target)
    stub = rpc.PlayStub(channel)
    outbox = queue.Queue()
    # The name's key, if the server's operator reserved the name for this bot.
    outbox.put(pb.BotMessage(hello=pb.Hello(name=args.name, key=os.environ.get("ARENA_KEY", ""))))

    def messages():
        while True:
            m = outbox.get()
            if m is None:
                return
            yield m

    decisions = 0
    try:
        for message in stub.Play(messages()):
            kind = message.WhichOneof("message")
            if kind == "request":
                r = message.request
                outbox.put(pb.BotMessage(decision=pb.Decision(request_id=r.request_id, action=choose(args.policy, r, rng))))
                decisions += 1
            elif kind == "ended":
                pass
            elif kind == "error":
                # Something we sent was refused (a late decision, say); the stream goes on.
                print(f"server: {message.error.code}: {message.error.message}", file=sys.stderr)
    except grpc.RpcError as e:
        if e.code() not in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE):
            sys.exit(f"the Play stream failed: {e.code().name}: {e.details()}")
    finally:
        outbox.put(None)
    print(f"{decisions} decisions", file=sys.stderr)


if __name__ == "__main__":
    threading.current_thread().name = "arena-bot"
    main()
