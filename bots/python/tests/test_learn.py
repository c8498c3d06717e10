"""An agent that learns, end to end: the policy's gradients against finite differences, a short
PPO run that beats the untrained policy on deals it never trained on, the command line's files,
and the trained policy entered in a tournament as a Play client."""

import json
import shlex
import subprocess

import numpy as np
import pytest

from tabletop_arena import learn

GAME = ("expedition", "no-dice", {"players": 2})


def test_the_gradients_are_those_of_the_loss():
    rng = np.random.default_rng(0)
    policy = learn.Policy(7, 5, (6, 4), seed=3)
    for name in policy.params:
        policy.params[name] = policy.params[name].astype(np.float64) + rng.normal(0, 0.3, policy.params[name].shape)
    n, clip, entropy, value = 9, 0.2, 0.01, 0.5
    obs = rng.normal(size=(n, 7))
    mask = rng.random((n, 5)) < 0.6
    mask[:, 0] = True
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    old_logp = np.log(rng.uniform(0.1, 0.9, n))
    advantages, returns = rng.normal(size=n), rng.normal(size=n)

    def loss():
        a = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        logits, values, _ = policy.forward(obs)
        logp = learn._log_softmax(np.where(mask, logits, -1e9))
        ratio = np.exp(logp[np.arange(n), actions] - old_logp)
        surrogate = -np.minimum(ratio * a, np.clip(ratio, 1 - clip, 1 + clip) * a).mean()
        p = np.where(mask, np.exp(logp), 0)
        h = -(p * np.where(mask, logp, 0)).sum(1).mean()
        return surrogate + value * 0.5 * ((values - returns) ** 2).mean() - entropy * h

    grads = learn._ppo_gradients(policy, obs, mask, actions, old_logp, advantages, returns, clip, entropy, value)
    # Some ratios are clipped and some not, so both branches are checked.
    ratio = np.exp(learn._log_softmax(np.where(mask, policy.forward(obs)[0], -1e9))[np.arange(n), actions] - old_logp)
    assert (np.abs(ratio - 1) > clip).any() and (np.abs(ratio - 1) < clip).any()
    worst = 0.0
    for name, p in policy.params.items():
        for i in np.ndindex(p.shape):
            kept = p[i]
            p[i] = kept + 1e-6
            up = loss()
            p[i] = kept - 1e-6
            down = loss()
            p[i] = kept
            worst = max(worst, abs((up - down) / 2e-6 - grads[name][i]))
    assert worst < 1e-6


def test_a_policy_plays_only_legal_actions_and_saves_and_loads(tmp_path):
    rng = np.random.default_rng(1)
    policy = learn.Policy(10, 8, (16,), seed=2, spec={"game": "expedition", "preset": "no-dice", "params": {"players": 2}})
    obs = rng.normal(size=(500, 10)).astype(np.float32)
    mask = rng.random((500, 8)) < 0.2
    mask[np.arange(500), rng.integers(0, 8, 500)] = True
    for greedy in (False, True):
        actions = policy.act(obs, mask, rng, greedy=greedy)
        assert mask[np.arange(500), actions].all()
    with pytest.raises(ValueError, match="no legal action"):
        policy.act(obs[:1], np.zeros((1, 8), bool))

    path = tmp_path / "policy.npz"
    policy.save(path)
    again = learn.Policy.load(path)
    assert again.spec == policy.spec and again.hidden == policy.hidden
    assert all(np.array_equal(again.params[k], v) for k, v in policy.params.items())
    assert np.array_equal(again.act(obs, mask, greedy=True), policy.act(obs, mask, greedy=True))

    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="broken.npz is not a saved policy"):
        learn.Policy.load(broken)


def test_evaluation_is_on_the_same_deals_whatever_the_policy():
    game, preset, params = GAME
    a = learn.Policy.for_game(learn.load(game, preset, **params), seed=5, spec={"game": game, "preset": preset, "params": params})
    first = learn.evaluate(a, "random", games=40, seed=9)
    assert first == learn.evaluate(a, "random", games=40, seed=9)
    assert first["games"] == 40 == first["wins"] + first["draws"] + first["losses"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A short PPO run against `random` (seed 1's deals), written by the command line."""
    out = tmp_path_factory.mktemp("ppo")
    game, preset, params = GAME
    argv = ["--game", game, "--preset", preset, "--steps", "40960", "--evaluate-every", "20480"]
    argv += ["--evaluate-games", "100", "--seed", "1", "--out", str(out)]
    argv += [f"--param={k}={json.dumps(v)}" for k, v in params.items()]
    learn.main(argv)
    return out


def test_a_short_training_beats_the_untrained_policy_on_deals_it_never_saw(trained):
    policy = learn.Policy.load(trained / "policy.npz")
    untrained = learn.Policy.for_game(policy.game(), policy.hidden, seed=1, spec=policy.spec)
    # Trained on seed 1's deals, judged on seed 7's: the same 300 deals and the same random
    # opponents for both.
    after = learn.evaluate(policy, "random", games=300, seed=7)
    before = learn.evaluate(untrained, "random", games=300, seed=7)
    assert after["wins"] > before["wins"] + 30, (before, after)


def test_the_command_line_writes_the_policy_and_its_curve(trained):
    with open(trained / "curve.csv", encoding="utf-8") as f:
        header, *rows = [line.strip().split(",") for line in f]
    assert header == ["steps", "seconds", "random", "greedy"]
    assert [int(r[0]) for r in rows] == [0, 20480, 40960]
    assert all(0.0 <= float(x) <= 1.0 for r in rows for x in r[2:])
    png = (trained / "curve.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000


def test_the_trained_policy_plays_a_tournament_as_a_play_client(arena, python, trained, tmp_path):
    command = shlex.join([python, "-m", "tabletop_arena.agents.policy", "--model", str(trained / "policy.npz")])
    config = tmp_path / "tournament.yaml"
    config.write_text(
        f"""name: ppo
seed: 5
games_per_pairing: 4
move_time_ms: 20000
bootstrap: 50
participants:
  - {{ name: ppo, command: {json.dumps(command)} }}
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
    assert len(games) == 8 and all("ppo" in g["players"] for g in games)
    assert all(not g.get("verdicts") for g in games), "every answer legal and in time"
    # Every game replays from its record and ends as recorded.
    subprocess.run([arena, "replay", str(out / "games.jsonl")], check=True, capture_output=True, timeout=60)


def test_a_policy_of_another_game_resigns_rather_than_guess(server):
    from tabletop_arena import Client
    from tabletop_arena.agents.policy import PolicyAgent

    policy = learn.Policy(3, 4, (4,), spec={"game": "expedition"})
    client = Client(server)
    match = client.create_match("expedition", preset="no-dice", seats=["token", {"bot": "random"}], params={"players": 2}, seed=3)
    outcome = client.play_seat(PolicyAgent(policy), match, match.tokens[0], tensors=True)
    assert outcome.forfeited_by == 0


def test_the_intervals_are_wilson_s_and_student_s():
    # Wilson's interval of 39 in 100: centre (0.39 + z²/200) / (1 + z²/100) = 0.39407, half
    # z √(0.39 · 0.61 / 100 + z² / 40000) / (1 + z²/100) = 0.09390.
    low, high = learn.wilson(39, 100)
    assert low == pytest.approx(0.30017, abs=1e-4) and high == pytest.approx(0.48797, abs=1e-4)
    assert learn.wilson(0, 20)[0] == 0.0 and learn.wilson(20, 20)[1] == 1.0
    # Student's t quantiles (0.975): tables' values.
    for df, t in [(1, 12.706), (4, 2.776), (6, 2.447), (10, 2.228), (30, 2.042), (120, 1.980)]:
        assert learn.t_quantile(df) == pytest.approx(t, abs=2e-3)
    mean, low, high = learn.mean_interval([1.0, 2.0, 3.0, 4.0])
    # s = 1.291, t(3) = 3.182: 2.5 ± 2.054.
    assert mean == 2.5 and low == pytest.approx(0.4457, abs=1e-3) and high == pytest.approx(4.5543, abs=1e-3)


def test_a_cooperative_game_is_judged_by_arrivals_and_team_score(tmp_path):
    spec = {"game": "journey", "preset": "classic", "params": {"travellers": 2}}
    policy = learn.Policy.for_game(learn.load("journey", "classic", travellers=2), seed=1, spec=spec)
    r = learn.evaluate(policy, "rules", games=60, seed=3)
    assert "win_rate" not in r and r["games"] == 60 and r["seats"] == 2
    assert r["arrival_low"] <= r["arrival_rate"] <= r["arrival_high"] and r["arrival_rate"] == r["arrivals"] / 60
    assert r["score_low"] <= r["mean_score"] <= r["score_high"] and r["mean_score"] == pytest.approx(r["mean_reward"])
    assert (r["arrival_low"], r["arrival_high"]) == learn.wilson(r["arrivals"], 60)
    # The arrivals are the games in which a traveller arrived, as their outcomes say (the
    # outcomes' `achieved` are the engine's own: test_vector replays them move for move): the
    # same deals played again with the same policy's actions.
    envs = learn.vector.BatchEnv(policy.game(), 60, opponent="rules")
    obs, info = envs.reset(seed=3)
    rng = np.random.default_rng(3)
    outcomes = {}
    while len(outcomes) < 60:
        obs, _, terminated, _, info = envs.step(policy.act(obs, info["action_mask"], rng))
        for i in np.flatnonzero(terminated):
            outcomes.setdefault(i, info["final_info"]["achieved"][i])
    assert all(len(a) == 2 and set(a) <= {"journeying", "fallen", "stopped", "arrived"} for a in outcomes.values())
    assert r["arrivals"] == sum("arrived" in a for a in outcomes.values())
    # Journey's layout is the same for every traveller count: the curve has each.
    assert learn.seat_counts(spec) == [1, 2, 3, 4]
    argv = ["--game", "journey", "--preset", "classic", "--param", "travellers=2", "--steps", "64", "--envs", "8"]
    argv += ["--rollout", "8", "--evaluate-games", "30", "--against", "rules", "--evaluate-seats", "1", "3", "--out", str(tmp_path)]
    learn.main(argv)
    with open(tmp_path / "curve.csv", encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    assert header == ["steps", "seconds"] + [f"rules/{k}/{m}" for k in (1, 3) for m in ("arrival", "arrival_low", "arrival_high", "score", "score_low", "score_high")]
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
