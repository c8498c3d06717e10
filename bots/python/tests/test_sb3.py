"""An agent trained with a well-known library, end to end: sb3-contrib's MaskablePPO on the
batched environments (as an SB3 `VecEnv`), a short run that beats the untrained model on deals
it never trained on, its model and curve written by the command line, and the model entered in
a tournament as a Play client.

They need the `sb3` extra (torch, stable-baselines3, sb3-contrib). Without it they are skipped,
unless TABLETOP_ARENA_SB3=required (CI sets it): then they fail."""

import json
import os
import shlex
import subprocess

import numpy as np
import pytest

if os.environ.get("TABLETOP_ARENA_SB3") == "required":
    import sb3_contrib  # noqa: F401
else:
    pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402

import tabletop_arena as ta  # noqa: E402
from tabletop_arena import gym, learn, sb3, vector  # noqa: E402

GAME = ("expedition", "no-dice", {"players": 2})


def test_the_vec_env_is_the_batch_s_games_with_their_masks():
    game = ta.load("expedition", "no-dice", players=2)
    env = sb3.VecEnv(game, 6, opponent="rules", seed=4)
    batch = vector.make("expedition", 6, "no-dice", opponent="rules", players=2)
    obs = env.reset()
    obs2, info = batch.reset(seed=4)
    assert is_masking_supported(env)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(300):
        masks = get_action_masks(env)
        assert (obs == obs2).all() and (masks == info["action_mask"]).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(actions)
        obs2, rewards2, terminated, _, info = batch.step(actions)
        assert (rewards == rewards2).all() and (dones == terminated).all()
        for i in np.flatnonzero(dones):
            assert (infos[i]["terminal_observation"] == info["final_obs"][i]).all() and not infos[i]["illegal"]
            ended += 1
        assert all(not infos[i] for i in np.flatnonzero(~dones))
    assert ended >= 3
    # The seed given to `seed()` deals the next reset.
    env.seed(4)
    assert (env.reset() == batch.reset(seed=4)[0]).all()
    with pytest.raises(AttributeError, match="render: the games of a batch have only action_masks"):
        env.env_method("render")
    with pytest.raises(ValueError, match="self-play"):
        sb3.VecEnv(game, 2, opponent="self")


def test_stable_baselines3_s_checker_passes_on_the_single_environment():
    from stable_baselines3.common.env_checker import check_env

    check_env(gym.make("expedition", "no-dice", opponent="random", players=2))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A short MaskablePPO run against `random` (seed 1's deals), written by the command line."""
    out = tmp_path_factory.mktemp("maskable")
    game, preset, params = GAME
    argv = ["--game", game, "--preset", preset, "--steps", "40960", "--evaluate-every", "20480"]
    argv += ["--evaluate-games", "100", "--seed", "1", "--out", str(out)]
    argv += [f"--param={k}={json.dumps(v)}" for k, v in params.items()]
    sb3.main(argv)
    return out


def test_a_short_training_beats_the_untrained_model_on_deals_it_never_saw(trained):
    policy = sb3.MaskablePolicy.load(trained / "model.zip")
    assert policy.spec == {"game": "expedition", "preset": "no-dice", "params": {"players": 2}}
    game = policy.game()
    # The same network, untrained: built as `train` builds it, with its seed.
    env = sb3.VecEnv(game, 2, seed=1)
    untrained = sb3.MaskablePolicy(MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [128, 128]}, seed=1, device="cpu"), policy.spec)
    # Trained on seed 1's deals, judged on seed 7's: the same 300 deals and the same random
    # opponents for both.
    after = learn.evaluate(policy, "random", games=300, seed=7)
    before = learn.evaluate(untrained, "random", games=300, seed=7)
    assert after["wins"] > before["wins"] + 30, (before, after)
    assert after == learn.evaluate(policy, "random", games=300, seed=7), "the same seed, the same games"


def test_the_command_line_writes_the_model_and_its_curve(trained):
    with open(trained / "curve.csv", encoding="utf-8") as f:
        header, *rows = [line.strip().split(",") for line in f]
    assert header == ["steps", "seconds", "random", "greedy"]
    assert [int(r[0]) for r in rows] == [0, 20480, 40960]
    assert all(0.0 <= float(x) <= 1.0 for r in rows for x in r[2:])
    png = (trained / "curve.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_a_file_that_is_not_a_model_is_refused_by_name(tmp_path):
    bad = tmp_path / "model.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=f"{bad} is not a saved MaskablePPO model"):
        sb3.MaskablePolicy.load(bad)


def test_the_trained_model_plays_a_tournament_as_a_play_client(arena, python, trained, tmp_path):
    command = shlex.join([python, "-m", "tabletop_arena.agents.policy", "--model", str(trained / "model.zip")])
    config = tmp_path / "tournament.yaml"
    config.write_text(
        f"""name: maskable
seed: 5
games_per_pairing: 4
move_time_ms: 20000
bootstrap: 50
participants:
  - {{ name: maskable, command: {json.dumps(command)} }}
  - {{ name: random, bot: random }}
games:
  - {{ game: expedition, preset: no-dice, params: {{ players: 2 }} }}
""",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    subprocess.run([arena, "tournament", str(config), "--out", str(out), "--quiet"], check=True, timeout=600)
    with open(out / "games.jsonl", encoding="utf-8") as f:
        games = [json.loads(line) for line in f]
    assert len(games) == 8 and all("maskable" in g["players"] for g in games)
    assert all(not g.get("verdicts") for g in games), "every answer legal and in time"
    subprocess.run([arena, "replay", str(out / "games.jsonl")], check=True, capture_output=True, timeout=60)
