"""The batched environment and the single-agent Gymnasium environment: their games are the
engine's games of the same seeds, move for move, whoever plays the other seats; an illegal
action loses (or, strictly, raises and plays nothing); every observation lies in the bounded
observation space; Gymnasium's own checker passes."""

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import tabletop_arena as ta  # noqa: E402
from tabletop_arena import _native, gym, vector  # noqa: E402

CASES = [
    ("expedition", "no-dice", {"players": 2}, "rules"),
    ("expedition", "dice", {"players": 3}, "random"),
    ("journey", "classic", {"travellers": 2}, "rules"),
    ("expedition", "no-dice", {"players": 2}, "self"),
]


def replay(game, spec, seed, index, episode, learner_actions):
    """Game `index`'s `episode`-th deal of a batch played again with `State`s and `Bot`s: the
    learner's observations (tensor, mask, seat) before each of its actions, and the outcome."""
    deal, seeds = _native.batch_seeds(seed, index, episode, game.seats)
    state = game.new_game(deal)
    learner = None if spec == "self" else (index + episode) % game.seats
    bots = {s: ta.Bot(spec, game, seeds[s]) for s in range(game.seats) if spec != "self" and s != learner}
    seen = []
    actions = iter(learner_actions)
    while not state.is_over():
        seat = state.to_move()
        if seat in bots:
            state.apply(bots[seat].act(state))
            continue
        seen.append((state.observation_tensor(seat), state.legal_mask().astype(bool), seat))
        action = next(actions, None)
        if action is None:
            break
        state.apply(action)
    return seen, state


@pytest.mark.parametrize("name, preset, params, opponent", CASES)
@pytest.mark.parametrize("threads", [1, 2])
def test_batched_games_are_the_engine_s_games_move_for_move(name, preset, params, opponent, threads):
    game = ta.load(name, preset, **params)
    n, seed = 5, 11
    envs = vector.make(name, n, preset, opponent=opponent, threads=threads, **params)
    obs, info = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    # Per game and deal: the learner's observations and actions, and how the deal ended.
    played = {(i, 0): ([], []) for i in range(n)}
    episode = [0] * n
    ended, achieved = [], {}
    for _ in range(400):
        deals = info["deal"].copy()
        assert all(info[f"_{key}"].all() for key in ("action_mask", "seat", "deal"))
        for i in range(n):
            played[(i, episode[i])][0].append((obs[i].copy(), info["action_mask"][i].copy(), int(info["seat"][i])))
        actions = [int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]]
        for i in range(n):
            played[(i, episode[i])][1].append(actions[i])
        obs, rewards, terminations, truncations, info = envs.step(actions)
        assert not truncations.any()
        if terminations.any():
            # Gymnasium's same-step autoreset: the last observations and infos of the games that
            # ended (None for the others), and their masks.
            assert (info["_final_obs"] == terminations).all() and (info["_final_info"] == terminations).all()
            assert all(o is None for o in info["final_obs"][~terminations])
            assert (info["rewards"][terminations] == info["final_info"]["final_rewards"][terminations]).all()
        else:
            assert "final_obs" not in info and "final_info" not in info
        # Every seat's reward at this step: nothing until a game ends.
        assert info["rewards"].shape == (n, game.seats) and info["_rewards"].all()
        assert (info["rewards"][~terminations] == 0).all()
        for i in np.flatnonzero(terminations):
            final = info["final_info"]
            assert final["seat"][i] == played[(i, episode[i])][0][-1][2]
            assert final["deal"][i] == deals[i] and not final["illegal"][i]
            ended.append((i, episode[i], info["final_obs"][i].copy(), float(rewards[i]), final["final_rewards"][i].copy()))
            achieved[(i, episode[i])] = final["achieved"][i]
            episode[i] += 1
            played[(i, episode[i])] = ([], [])
    assert len(ended) >= 3, "games ended and were dealt again"
    for (i, k), (seen, actions) in played.items():
        again, state = replay(game, opponent, seed, i, k, actions)
        assert len(again) >= len(seen)
        for (o, m, s), (o2, m2, s2) in zip(seen, again):
            assert s == s2 and (m == m2).all() and (o == o2).all(), f"game {i}, deal {k}"
    for i, k, final_obs, reward, final_rewards in ended:
        _, state = replay(game, opponent, seed, i, k, played[(i, k)][1])
        assert state.is_over()
        outcome = state.outcome()
        assert list(achieved[(i, k)]) == outcome["achieved"]
        mover = played[(i, k)][0][-1][2]
        assert (final_obs == state.observation_tensor(mover)).all()
        assert reward == pytest.approx(final_rewards[mover])
        if game.cooperative:
            assert list(final_rewards) == pytest.approx([float(x) for x in outcome["scores"]])
        else:
            ranks = outcome["ranks"]
            expected = [(sum(r > me for r in ranks) - sum(r < me for r in ranks)) / (len(ranks) - 1) for me in ranks]
            assert list(final_rewards) == pytest.approx(expected)


def test_an_illegal_action_loses_the_game_and_strict_raises_playing_nothing():
    envs = vector.make("expedition", 3, "no-dice", opponent="random", players=2)
    obs, info = envs.reset(seed=5)
    legal = [int(np.flatnonzero(m)[0]) for m in info["action_mask"]]
    illegal = int(np.flatnonzero(~info["action_mask"][1])[0])
    deals = info["deal"].copy()
    obs, rewards, terminations, _, info = envs.step([legal[0], illegal, legal[2]])
    assert list(info["_final_info"]) == [False, True, False] and info["final_info"]["illegal"][1]
    assert terminations[1] and rewards[1] == -1.0 and info["deal"][1] != deals[1]
    assert list(info["final_info"]["final_rewards"][1]) == [-1.0 if s == info["final_info"]["seat"][1] else 0.0 for s in range(2)]
    # Strict: nothing is played in any game.
    strict = vector.make("expedition", 3, "no-dice", opponent="random", strict=True, players=2)
    obs, info = strict.reset(seed=5)
    before = [strict.state(i).observation_tensor(int(info["seat"][i])) for i in range(3)]
    legal = [int(np.flatnonzero(m)[0]) for m in info["action_mask"]]
    bad = int(np.flatnonzero(~info["action_mask"][2])[0])
    with pytest.raises(ValueError, match=rf"game 2: action {bad} is not legal now .*nothing was played"):
        strict.step([legal[0], legal[1], bad])
    after = [strict.state(i).observation_tensor(int(info["seat"][i])) for i in range(3)]
    assert all((a == b).all() for a, b in zip(before, after))
    with pytest.raises(ValueError, match="2 actions for 3 games"):
        strict.step([0, 0])


def test_bad_settings_name_what_is_wrong():
    with pytest.raises(ValueError, match="others: `gredy`"):
        vector.make("expedition", 2, "no-dice", opponent="gredy")
    with pytest.raises(ValueError, match="seat 4: this game has seats 0 to 1"):
        vector.make("expedition", 2, "no-dice", seat=4, players=2)
    with pytest.raises(ValueError, match="at least one game"):
        vector.make("expedition", 0, "no-dice")
    with pytest.raises(ValueError, match="self-play"):
        gym.make("expedition", "no-dice", opponent="self")


@pytest.mark.parametrize("name, preset, params", [("expedition", "no-dice", {"players": 2}), ("journey", "classic", {"travellers": 2})])
def test_the_gym_environment_passes_gymnasium_s_checker(name, preset, params):
    from gymnasium.utils.env_checker import check_env

    env = gym.make(name, preset, opponent="random", **params)
    # Its spec makes it again, with the same arguments (the checker remakes it so).
    assert env.spec.id == f"tabletop_arena/{name}-{preset}-v0" and env.spec.kwargs["opponent"] == "random"
    again = gymnasium.make(env.spec)
    assert again.unwrapped.game.seats == env.game.seats and again.unwrapped.game.params_yaml == env.game.params_yaml
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=False)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    total, steps = 0.0, 0
    while True:
        action = env.action_space.sample(info["action_mask"].astype(np.int8))
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        steps += 1
        if terminated:
            break
    assert steps > 5 and not info["illegal"]
    # The same seed, the same game.
    again, info2 = env.reset(seed=3)
    assert (env.reset(seed=3)[0] == again).all()


@pytest.mark.parametrize(
    "name, preset, params, opponent",
    [
        ("expedition", "no-dice", {"players": 2}, "self"),
        ("expedition", "dice", {"players": 4}, "random"),
        ("journey", "classic", {"travellers": 3}, "random"),
        ("journey", "martian", {"travellers": 2, "return_journey": "ruins", "companions": True}, "self"),
        ("journey", "dunwich", {"travellers": 4, "allies": True}, "rules"),
    ],
)
def test_every_observation_lies_in_the_bounded_observation_space(name, preset, params, opponent):
    n = 8
    envs = vector.make(name, n, preset, opponent=opponent, **params)
    low, high = envs.game.tensor_bounds
    single, batch = envs.single_observation_space, envs.observation_space
    assert (single.low == low).all() and (single.high == high).all() and single.is_bounded()
    assert batch.shape == (n, *envs.game.tensor_shape) and batch.dtype == np.float32
    assert (batch.low == low).all() and (batch.high == high).all() and batch.is_bounded()
    obs, info = envs.reset(seed=2)
    assert batch.contains(obs)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(300):
        masks = info["action_mask"]
        actions = [rng.choice(np.flatnonzero(m)) for m in masks]
        obs, _, terminations, _, info = envs.step(actions)
        assert batch.contains(obs), obs[(obs < low) | (obs > high)]
        for i in np.flatnonzero(terminations):
            assert single.contains(info["final_obs"][i])
            ended += 1
    assert ended >= n


def test_built_in_agents_play_a_state_s_seat():
    game = ta.load("expedition", "no-dice", players=2)
    state = game.new_game(4)
    bots = [ta.Bot("greedy", game, 1), ta.Bot("rules", game, 2)]
    while not state.is_over():
        state.apply(bots[state.to_move()].act(state))
    assert bots[0].name == "greedy"
    with pytest.raises(ValueError, match="the game is over"):
        bots[0].act(state)
    with pytest.raises(ValueError, match="gredy"):
        ta.Bot("gredy", game)


def test_a_seed_per_game_deals_each_game_from_its_own():
    n = 4
    envs = vector.make("expedition", n, "no-dice", opponent="random", players=2)
    seeds = [7, 3, 3, 1000]
    obs, info = envs.reset(seed=seeds)
    for i, s in enumerate(seeds):
        assert info["deal"][i] == _native.batch_seeds(s, i, 0, 2)[0]
    # The same seed for every game is that seed.
    same, info2 = envs.reset(seed=[5] * n)
    again, info3 = envs.reset(seed=5)
    assert (same == again).all() and (info2["deal"] == info3["deal"]).all()
    # A game that ends is dealt again from its own seed.
    obs, info = envs.reset(seed=seeds)
    rng = np.random.default_rng(1)
    episode = [0] * n
    for _ in range(300):
        obs, _, terminations, _, info = envs.step([int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]])
        for i in np.flatnonzero(terminations):
            episode[i] += 1
            assert info["deal"][i] == _native.batch_seeds(seeds[i], i, episode[i], 2)[0]
    assert sum(episode) >= 2
    with pytest.raises(ValueError, match="seed: 3 seeds for 4 games"):
        envs.reset(seed=[1, 2, 3])


def test_a_reset_mask_deals_again_only_the_games_it_marks():
    n = 4
    envs = vector.make("expedition", n, "no-dice", opponent="random", players=2)
    fresh, fresh_info = envs.reset(seed=9)
    fresh = fresh.copy()
    rng = np.random.default_rng(2)
    for _ in range(5):
        obs, _, _, _, info = envs.step([int(rng.choice(np.flatnonzero(m))) for m in info_mask(envs)])
    before = obs.copy()
    states = [envs.state(i).observation_tensor(info["seat"][i]) for i in range(n)]
    mask = np.array([True, False, True, False])
    obs, info = envs.reset(seed=9, options={"reset_mask": mask})
    for i in range(n):
        if mask[i]:
            # Dealt again: as the first reset dealt it.
            assert (obs[i] == fresh[i]).all() and info["deal"][i] == fresh_info["deal"][i]
        else:
            # Left where it was: the same position, the same observation.
            assert (obs[i] == before[i]).all()
            assert (envs.state(i).observation_tensor(info["seat"][i]) == states[i]).all()
    with pytest.raises(ValueError, match=r"reset_mask: a bool array of shape \(4,\)"):
        envs.reset(seed=9, options={"reset_mask": np.array([1, 0, 1, 0])})
    with pytest.raises(ValueError, match=r"reset_mask: a bool array of shape \(4,\)"):
        envs.reset(seed=9, options={"reset_mask": np.array([True, False])})


def info_mask(envs):
    return envs.action_masks()


def test_gymnasium_s_wrappers_read_the_info_game_by_game():
    from gymnasium.wrappers.vector import DictInfoToList

    n = 3
    envs = DictInfoToList(vector.make("expedition", n, "no-dice", opponent="random", players=2))
    obs, infos = envs.reset(seed=2)
    assert [set(i) for i in infos] == [{"action_mask", "seat", "deal"}] * n
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(300):
        actions = [int(rng.choice(np.flatnonzero(i["action_mask"]))) for i in infos]
        seats = [int(i["seat"]) for i in infos]
        obs, rewards, terminations, _, infos = envs.step(actions)
        for i in range(n):
            if terminations[i]:
                ended += 1
                final = infos[i]["final_info"]
                assert set(final) == {"seat", "deal", "illegal", "final_rewards", "achieved"}
                assert isinstance(final["achieved"], list)  # (expedition's outcome names none)
                assert final["seat"] == seats[i] and rewards[i] == final["final_rewards"][seats[i]]
                assert infos[i]["final_obs"].shape == obs[i].shape
            else:
                assert "final_info" not in infos[i] and "final_obs" not in infos[i]
    assert ended >= 2


def test_the_ids_are_registered_with_gymnasium():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("tabletop_arena/expedition-no-dice-v0", opponent="random", players=2, render_mode="ansi")
    assert env.spec.id == "tabletop_arena/expedition-no-dice-v0" and env.spec.kwargs["opponent"] == "random"
    assert env.unwrapped.game.seats == 2
    check_env(env.unwrapped)
    obs, info = env.reset(seed=1)
    assert "You are seat 1." in env.render()  # seed 1: seat 1
    env = gymnasium.make("tabletop_arena/journey-classic-v0", opponent="rules", travellers=3, seat=2)
    assert env.reset(seed=4)[1]["seat"] == 2
    envs = gymnasium.make_vec("tabletop_arena/expedition-dice-v0", num_envs=5, opponent="random", players=3)
    assert isinstance(envs, vector.BatchEnv) and envs.num_envs == 5 and envs.game.seats == 3
    assert envs.spec.id == "tabletop_arena/expedition-dice-v0"
    obs, info = envs.reset(seed=[1, 2, 3, 4, 5])
    assert obs.shape == (5, *envs.game.tensor_shape)
    # Gymnasium's own vectorisation of the single environment works too.
    sync = gymnasium.make_vec("tabletop_arena/expedition-no-dice-v0", num_envs=2, vectorization_mode="sync", opponent="random", players=2)
    obs, info = sync.reset(seed=3)
    # (its games seeded 3 and 4: the learner at seats 1 and 0)
    assert obs.shape[0] == 2 and list(info["seat"]) == [1, 0]
    ids = [i for i in gymnasium.registry if i.startswith("tabletop_arena/")]
    expected = {f"tabletop_arena/{g['name']}-{p}-v0" for g in ta.games() for p in g["presets"]}
    assert set(ids) == expected


def random_actions(rng, info):
    """A random legal action per game, from masks or from legal ids."""
    if "legal_ids" in info:
        return [int(ids[rng.integers(k)]) for ids, k in zip(info["legal_ids"], info["legal_count"])]
    return [int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]]


@pytest.mark.parametrize("threads", [1, 2])
def test_send_and_recv_are_step_in_two_halves(threads):
    n, seed = 6, 21
    stepped = vector.make("expedition", n, "no-dice", opponent="random", threads=threads, players=2)
    sent = vector.make("expedition", n, "no-dice", opponent="random", threads=threads, players=2)
    obs_a, info_a = stepped.reset(seed=seed)
    obs_b, info_b = sent.reset(seed=seed)
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(150):
        actions = random_actions(rng, info_a)
        a = stepped.step(actions)
        sent.send(actions)
        b = sent.recv()
        for x, y in zip(a[:4], b[:4]):
            assert (x == y).all()
        (obs_a, *_, info_a), (obs_b, *_, info_b) = a, b
        assert set(info_a) == set(info_b)
        assert (info_a["action_mask"] == info_b["action_mask"]).all() and (info_a["deal"] == info_b["deal"]).all()
        if "final_obs" in info_a:
            ended += 1
            for i in np.flatnonzero(a[2]):
                assert (info_a["final_obs"][i] == info_b["final_obs"][i]).all()
    assert ended >= 3
    # One step at a time, and nothing received that was not sent.
    with pytest.raises(RuntimeError, match="recv: no step was sent"):
        sent.recv()
    sent.send(random_actions(rng, info_b))
    for call in (lambda: sent.send([0] * n), lambda: sent.step([0] * n), lambda: sent.reset(seed=1)):
        with pytest.raises(RuntimeError, match="a step was sent and not received"):
            call()
    sent.recv()
    # A strict batch refuses an illegal action at send, playing nothing.
    strict = vector.make("expedition", 2, "no-dice", opponent="random", strict=True, players=2)
    obs, info = strict.reset(seed=3)
    bad = int(np.flatnonzero(~info["action_mask"][1])[0])
    with pytest.raises(ValueError, match=rf"game 1: action {bad} is not legal now"):
        strict.send([int(np.flatnonzero(info["action_mask"][0])[0]), bad])
    with pytest.raises(RuntimeError, match="no step was sent"):
        strict.recv()


def test_two_batches_take_turns_while_the_other_steps():
    """EnvPool's way: while one batch steps on its own thread, the policy chooses for the other."""
    a = vector.make("journey", 4, "classic", opponent="random", travellers=2)
    b = vector.make("journey", 4, "classic", opponent="random", travellers=2)
    rng = np.random.default_rng(5)
    _, info_a = a.reset(seed=1)
    _, info_b = b.reset(seed=2)
    a.send(random_actions(rng, info_a))
    steps = 0
    for _ in range(100):
        b.send(random_actions(rng, info_b))
        *_, info_a = a.recv()
        a.send(random_actions(rng, info_a))
        *_, info_b = b.recv()
        steps += 2
    a.recv()
    assert steps == 200 and info_b["action_mask"].any(axis=1).all()


@pytest.mark.parametrize("name, preset, params", [("journey", "classic", {"travellers": 3}), ("expedition", "dice", {"players": 4})])
def test_legal_ids_are_the_mask_s_ids(name, preset, params):
    n, seed = 5, 8
    masks = vector.make(name, n, preset, opponent="rules", **params)
    ids = vector.make(name, n, preset, opponent="rules", legal="ids", **params)
    _, info_m = masks.reset(seed=seed)
    obs, info_i = ids.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(200):
        assert "action_mask" not in info_i and info_i["_legal_ids"].all() and info_i["_legal_count"].all()
        width = info_i["legal_ids"].shape[1]
        assert width == info_i["legal_count"].max()
        for i in range(n):
            k = info_i["legal_count"][i]
            assert list(info_i["legal_ids"][i][:k]) == list(np.flatnonzero(info_m["action_mask"][i]))
            assert (info_i["legal_ids"][i][k:] == -1).all()
        assert (ids.action_masks() == info_m["action_mask"]).all()
        actions = random_actions(rng, info_i)
        _, r_m, t_m, _, info_m = masks.step(actions)
        obs, r_i, t_i, _, info_i = ids.step(actions)
        assert (r_m == r_i).all() and (t_m == t_i).all()
    # One game's environment tells its legal ids too, and plays a whole game with them.
    env = gym.make(name, preset, opponent="random", legal="ids", **params)
    obs, info = env.reset(seed=2)
    while True:
        assert (np.flatnonzero(env.action_masks()) == info["legal_ids"]).all()
        obs, reward, terminated, _, info = env.step(int(rng.choice(info["legal_ids"])))
        if terminated:
            break
    assert len(info["legal_ids"]) == 0 and not info["illegal"]
    with pytest.raises(ValueError, match='legal: `list`: "mask" or "ids"'):
        vector.make(name, 2, preset, legal="list", **params)


def test_in_self_play_every_seat_is_told_its_reward():
    n = 4
    envs = vector.make("expedition", n, "no-dice", opponent="self", players=2)
    obs, info = envs.reset(seed=6)
    rng = np.random.default_rng(6)
    # Each seat's reward summed over its game: what the outcome gave each seat.
    totals = np.zeros((n, 2))
    finished = []
    for _ in range(2000):
        obs, rewards, terminations, _, info = envs.step(random_actions(rng, info))
        totals += info["rewards"]
        for i in np.flatnonzero(terminations):
            final = info["final_info"]
            mover = final["seat"][i]
            # The step's reward is the mover's; the other seat's is in info["rewards"] too.
            assert rewards[i] == info["rewards"][i, mover]
            finished.append((totals[i].copy(), final["final_rewards"][i].copy()))
            totals[i] = 0
        if len(finished) >= 6:
            break
    assert len(finished) >= 6
    for total, final in finished:
        assert list(total) == pytest.approx(list(final))
    # A game with a winner: both seats told, the one that did not move last too.
    assert any(sorted(total) == [-1.0, 1.0] for total, _ in finished)


def test_rendering_the_last_step_shows_the_game_as_it_ended():
    env = gym.make("expedition", "no-dice", opponent="random", render_mode="ansi", players=2)
    obs, info = env.reset(seed=3)
    assert "The game is over" not in env.render()
    rng = np.random.default_rng(3)
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert "The game is over" in env.render()
    env.reset(seed=4)
    assert "The game is over" not in env.render()


@pytest.mark.parametrize("name, preset, params", [("expedition", "no-dice", {"players": 2}), ("journey", "classic", {"travellers": 2})])
def test_a_batch_steps_the_same_on_any_number_of_threads(name, preset, params):
    """The crew hands each game to one thread per step: 1, 2 or 3 threads, the same steps."""
    n = 67  # not a multiple of the games a thread takes at a time
    runs = []
    for threads in (1, 2, 3):
        envs = vector.make(name, n, preset, opponent="random", threads=threads, **params)
        obs, info = envs.reset(seed=12)
        rng = np.random.default_rng(12)
        seen = [obs.copy()]
        for _ in range(60):
            obs, rewards, terminations, _, info = envs.step(random_actions(rng, info))
            seen += [obs.copy(), rewards.copy(), terminations.copy(), info["deal"].copy(), info["rewards"].copy()]
        runs.append(seen)
    for other in runs[1:]:
        assert all((a == b).all() for a, b in zip(runs[0], other))
