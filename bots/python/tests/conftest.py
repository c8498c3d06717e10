"""What the tests share: the project's `arena` binary (ARENA, or target/debug/arena, or
target/release/arena, as bots/node's tests find it), a real `arena serve` on a free port, and a
match created once its Play client has connected."""

import contextlib
import os
import re
import subprocess
import sys
import threading
import time

import grpc
import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

# The configurations the bindings' and the environment's tests run on: every game, several
# seat counts.
CONFIGS = [
    ("journey", "classic", {"travellers": 1}),
    ("journey", "martian", {"travellers": 3}),
    ("journey", "dunwich", {"travellers": 4}),
    ("expedition", "dice", {"players": 2}),
    ("expedition", "no-dice", {"players": 4}),
]


def arena_binary():
    candidates = [os.environ.get("ARENA")] + [os.path.join(ROOT, "target", p, "arena") for p in ("debug", "release")]
    for path in candidates:
        if path and os.path.exists(path):
            return path
    pytest.fail(f"no arena binary: build it (cargo build -p arena) or set ARENA; tried {candidates}")


@pytest.fixture(scope="session")
def arena():
    return arena_binary()


@contextlib.contextmanager
def serving(arena):
    """A real `arena serve` on a free port while the block runs: its URL."""
    child = subprocess.Popen([arena, "serve", "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    try:
        for line in child.stdout:
            m = re.search(r"serving tabletop\.arena\.v1 on (\S+)", line)
            if m:
                # Whatever it prints later is read and dropped, so it never blocks on a full pipe.
                threading.Thread(target=child.stdout.read, daemon=True).start()
                yield f"http://{m.group(1)}"
                break
        else:
            pytest.fail("arena serve ended before serving")
    finally:
        child.terminate()
        child.wait(timeout=30)


def create_when_connected(client, name, seconds=10, **match):
    """CreateMatch, retried until the Play client `name` has said Hello (for `seconds` at
    most)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            return client.create_match(**match)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.FAILED_PRECONDITION or name not in e.details():
                raise
            time.sleep(0.05)
    pytest.fail(f"{name} never connected")


@pytest.fixture(scope="module")
def server(arena):
    """The URL of a real `arena serve`, stopped after the module's tests."""
    with serving(arena) as url:
        yield url


@pytest.fixture(scope="session")
def python():
    """The interpreter running the tests (the one with this package installed)."""
    return sys.executable
