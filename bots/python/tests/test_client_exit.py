"""A launched Play client (a trained policy's, as a tournament launches it) exits when the
server ends its stream, however long its interpreter's teardown would take: here, forever (a
thread that never ends, as a library may leave one)."""

import json
import subprocess

import pytest

import tabletop_arena as ta
from tabletop_arena import learn

from conftest import create_when_connected, serving

# The client run as `python -m tabletop_arena.agents.<agent>`, after starting a thread that never
# ends: an interpreter exiting the usual way waits for it.
LINGERING = """
import runpy, sys, threading
threading.Thread(target=threading.Event().wait, name="lingering").start()
sys.argv = [sys.argv[0]] + {argv}
runpy.run_module("tabletop_arena.agents.{agent}", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("agent", ["policy", "random"])
def test_a_launched_client_exits_when_the_server_ends_its_stream(arena, python, tmp_path, agent):
    name = f"exits-{agent}"
    argv = ["--name", name]
    if agent == "policy":
        spec = {"game": "expedition", "preset": "no-dice", "params": {"players": 2}}
        learn.Policy.for_game(ta.load("expedition", "no-dice", players=2), seed=2, spec=spec).save(tmp_path / "p.npz")
        argv += ["--model", str(tmp_path / "p.npz")]
    with serving(arena) as url:
        code = LINGERING.format(argv=json.dumps(argv + ["--server", url]), agent=agent)
        client = subprocess.Popen([python, "-c", code], stderr=subprocess.PIPE, text=True)
        try:
            with ta.Client(url) as c:
                seats = [{"play": name}, {"bot": "random"}]
                match = create_when_connected(c, name, seconds=120, game="expedition", preset="no-dice", params={"players": 2}, seats=seats, seed=3)
                outcome = c.wait(match, timeout=300)
                assert not outcome.verdicts, "it played a whole game"
        except BaseException:
            client.kill()
            raise
    # The server has stopped: the stream is over, and so is the client.
    try:
        _, err = client.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        client.kill()
        client.communicate()
        pytest.fail("the client did not exit when the server ended its stream")
    assert client.returncode == 0, err
    assert "decisions" in err and "seats ended" in err, err
