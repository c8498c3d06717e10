//! Property tests of `expedition` over many seeded random games, both variants, 2-4 players.

use engine::conformance::{Depth, Extra, check_game};
use engine::core::{ActionId, AnyGame, Dyn, Game, Seat, SmallRng, Spec};
use engine::expedition::{
    Action, ColumnSpec, DiscoveryRule, Expedition, ExpeditionParams, PlayerSpec, Scenario, Step, Tool,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;

fn configs() -> Vec<ExpeditionParams> {
    let mut v = Vec::new();
    for dice in [true, false] {
        for players in 2..=4 {
            let base = if dice { ExpeditionParams::dice_game() } else { ExpeditionParams::no_dice() };
            v.push(base.with_players(players));
        }
    }
    v
}

/// Vary the optional rules with the seed.
fn vary(params: &ExpeditionParams, seed: u64) -> ExpeditionParams {
    let mut p = params.clone();
    p.forgotten_roll = p.dice && seed % 2 == 1;
    if seed.is_multiple_of(3) {
        p.discovery_cards = DiscoveryRule::Named;
    }
    p
}

fn legal(g: &Expedition) -> Vec<ActionId> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

/// Every token, tile and card is in exactly one place.
fn check_conservation(g: &Expedition) {
    let c = g.content();
    let n = g.seats();
    let (boxed_tiles, boxed_cards, boxed_tools) = g.out_of_play();
    // 36 tokens, 9 of each kind.
    let mut tools = [0u32; 4];
    for k in 0..4 {
        tools[k] += g.bag()[k] as u32 + boxed_tools[k] as u32;
        for s in 0..n {
            tools[k] += g.player(s).tools[k] as u32;
        }
    }
    for (_, col) in g.hq() {
        for t in col.into_iter().flatten() {
            tools[t.index()] += 1;
        }
    }
    assert_eq!(tools, [9; 4], "tokens lost or doubled");
    // Every tile once.
    let mut tiles = vec![0u32; c.tiles.len()];
    for &t in g.pile() {
        tiles[t as usize] += 1;
    }
    for (t, _) in g.hq() {
        if let Some(t) = t {
            tiles[t as usize] += 1;
        }
    }
    for s in 0..n {
        for &t in g.player(s).tiles.iter().chain(g.player(s).done.iter()) {
            tiles[t as usize] += 1;
        }
    }
    for t in 0..c.tiles.len() {
        tiles[t] += (boxed_tiles >> t & 1) as u32;
    }
    assert!(tiles.iter().all(|&k| k == 1), "tiles lost or doubled: {tiles:?}");
    // Every card once.
    let mut cards = vec![0u32; c.cards.len()];
    for &k in g.deck() {
        cards[k as usize] += 1;
    }
    for k in g.face_up().into_iter().flatten() {
        cards[k as usize] += 1;
    }
    for k in 0..c.cards.len() {
        for s in 0..n {
            cards[k] += (g.player(s).cards >> k & 1) as u32;
        }
        cards[k] += (boxed_cards >> k & 1) as u32;
    }
    assert!(cards.iter().all(|&k| k == 1), "cards lost or doubled: {cards:?}");
    // The limits hold whenever no return is pending.
    for s in 0..n {
        let p = g.player(s);
        assert!(p.done.len() <= 8);
        if s != g.current() || g.is_terminal() {
            assert!(p.tiles.len() <= 3 && p.tool_count() <= 6, "seat {s} over the limits between turns");
        }
    }
}

/// The game's own invariants at every state, beside the conformance suite's: every token,
/// tile and card in one place, and Dice-card actions only for a holder.
struct Invariants;

impl Extra for Invariants {
    fn state(&mut self, g: &dyn AnyGame) -> Result<(), String> {
        let g = &g.as_any().downcast_ref::<Dyn<Expedition>>().ok_or("not an expedition")?.0;
        check_conservation(g);
        for a in legal(g) {
            if is_dice_card_action(g, a) && !holds_dice_card(g, g.current()) {
                return Err(format!("`{}` offered without a Dice card", g.action_label(a)));
            }
        }
        Ok(())
    }
}

/// Play one random game through the conformance suite (every seat's views checked every
/// `views_every` states; 0: at the start only) with the invariants above; then check the end.
fn play_checked(params: &ExpeditionParams, seed: u64, views_every: usize) -> (Expedition, Vec<ActionId>) {
    let spec = Spec::<Expedition>::new(params.clone());
    let depth = Depth { views_every: if views_every == 0 { usize::MAX } else { views_every }, ..Depth::default() };
    let actions = check_game(&spec, seed, None, depth, &mut Invariants).unwrap_or_else(|e| panic!("{e}"));
    let mut g = Expedition::new(params, seed);
    for &a in &actions {
        g.apply(a).expect("the suite's actions replay");
    }
    // The end: scores, ranks, a winner.
    let o = g.outcome().expect("a finished game has an outcome");
    assert_eq!(o.scores.len(), g.seats());
    let mut ranks = o.ranks.clone();
    ranks.sort();
    assert_eq!(ranks, (0..g.seats() as u8).collect::<Vec<_>>(), "the tie-break always separates the players");
    // The outcome's scores are the breakdowns' totals (the outcome skips naming wild tiles).
    for s in 0..g.seats() {
        assert_eq!(o.scores[s], g.breakdown(s).total, "seat {s}'s score in game {seed}");
    }
    let cut = g.metrics().iter().any(|m| m.name == "cut_at_max_rounds" && m.value == 1.0);
    assert_eq!(
        cut,
        !(0..g.seats()).any(|s| g.player(s).done.len() >= 6),
        "the game ends after a sixth discovery, or else at the round limit"
    );
    assert!(g.round() <= g.params().max_rounds());
    (g, actions)
}

#[test]
fn random_games_keep_every_invariant() {
    for params in configs() {
        for seed in 0..30 {
            let p = vary(&params, seed);
            play_checked(&p, seed, 9);
        }
    }
}

#[test]
fn another_seed_deals_another_game() {
    // That a seed replays to the same game is the conformance suite's (every game above).
    for params in configs() {
        for seed in 1000..1060 {
            let p = vary(&params, seed);
            assert_ne!(Expedition::new(&p, seed + 1000), Expedition::new(&p, seed));
        }
    }
}

#[test]
fn a_determinized_state_plays_on_to_a_legal_end() {
    let mut rng = SmallRng::seed_from_u64(77);
    let mut redrawn = 0;
    for params in configs() {
        for seed in 200..215 {
            let mut g = Expedition::new(&params, seed);
            let mut buf = Vec::new();
            // Walk a random distance into the game.
            let steps = rng.random_range(0..120);
            for _ in 0..steps {
                buf.clear();
                g.legal_actions(&mut buf);
                if buf.is_empty() {
                    break;
                }
                g.apply(buf[rng.random_range(0..buf.len())]).unwrap();
            }
            let seat = Seat(rng.random_range(0..g.seats() as u8));
            let mut d = g.determinize(seat, &mut rng);
            redrawn += usize::from(d.deck() != g.deck() || d.pile() != g.pile());
            let mut n = 0;
            while !d.is_terminal() {
                check_conservation(&d);
                buf.clear();
                d.legal_actions(&mut buf);
                d.apply(buf[rng.random_range(0..buf.len())]).unwrap();
                n += 1;
                assert!(n < 5000);
            }
            assert!(d.outcome().is_some());
        }
    }
    assert!(redrawn > 0, "a determinisation never redrew the deck or the pile");
}

#[test]
fn hands_are_private_until_the_end() {
    for params in configs() {
        let (g, _) = play_checked(&params, 300, 0);
        for s in 0..g.seats() {
            let o = g.observation(Seat(s as u8));
            assert!(o.seats.iter().all(|v| v.cards.is_some()), "everyone reveals at the end");
        }
        let mut g = Expedition::new(&params, 301);
        let mut rng = SmallRng::seed_from_u64(301);
        let mut buf = Vec::new();
        for _ in 0..40 {
            buf.clear();
            g.legal_actions(&mut buf);
            if buf.is_empty() {
                break;
            }
            g.apply(buf[rng.random_range(0..buf.len())]).unwrap();
            if g.step() == Step::Over {
                break;
            }
            for s in 0..g.seats() {
                let o = g.observation(Seat(s as u8));
                for v in &o.seats {
                    assert_eq!(v.cards.is_some(), v.seat as usize == s);
                    assert_eq!(v.cards_held as u32, g.player(v.seat as usize).cards.count_ones());
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/expedition_props.proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    /// Any sequence of ids, legal or not, never panics, and a refused id changes nothing.
    #[test]
    fn arbitrary_ids_never_panic(seed in any::<u64>(), dice in any::<bool>(), players in 2usize..=4,
                                 ids in proptest::collection::vec(0u32..800, 0..400)) {
        let base = if dice { ExpeditionParams::dice_game() } else { ExpeditionParams::no_dice() };
        let mut g = Expedition::new(&base.with_players(players), seed);
        let mut buf = Vec::new();
        for id in ids {
            // Ids from 400 pick a legal action (so games move on); below, any id at all.
            buf.clear();
            g.legal_actions(&mut buf);
            let id = if id >= 400 && !buf.is_empty() { buf[(id as usize - 400) % buf.len()] } else { id };
            let before = g.clone();
            match g.apply(id) {
                Ok(()) => check_conservation(&g),
                Err(_) => prop_assert_eq!(&g, &before),
            }
            let _ = g.observation_text(Seat(0));
        }
    }
}

// ---- a held Dice card does not show in the flow of play -------------------------------------------

fn is_dice_card_action(g: &Expedition, id: ActionId) -> bool {
    matches!(
        Action::from_id(id, g.content().tiles.len()),
        Some(Action::SetFace(_) | Action::DiceDraw | Action::DiceRelight | Action::DiceCoin)
    )
}

fn holds_dice_card(g: &Expedition, seat: usize) -> bool {
    g.player(seat).cards & g.content().dice_cards != 0
}

fn tool_map(counts: [u8; 4]) -> BTreeMap<Tool, u8> {
    Tool::ALL.into_iter().filter(|t| counts[t.index()] > 0).map(|t| (t, counts[t.index()])).collect()
}

/// The position `g` as a scenario, but with the hands `hands` and the deck `deck` (bottom
/// first); every card named nowhere is out of play. Nothing of the table's memory is kept
/// (no card is seen taken, no tile seen put under the pile): the same for every pair built.
fn as_scenario(g: &Expedition, hands: &[u64], deck: &[u8]) -> Scenario {
    let c = g.content();
    let tile = |t: u8| c.tiles[t as usize].name.clone();
    let card = |k: u8| c.cards[k as usize].name.clone();
    let cards = |m: u64| (0..64u8).filter(|&k| m >> k & 1 == 1).map(card).collect::<Vec<_>>();
    let o = g.observation(Seat(g.current() as u8));
    Scenario {
        first_player: Some(g.first_player() as u8),
        to_move: Some(g.current() as u8),
        step: Some(g.step()),
        die: g.die(),
        coin_bonus: Some(o.coin_bonus),
        completed_this_turn: o.completed_this_turn,
        round: Some(g.round()),
        last_round: Some(g.is_last_round()),
        players: Some(
            (0..g.seats())
                .map(|s| {
                    let p = g.player(s);
                    PlayerSpec {
                        character: Some(c.characters[p.character as usize].name.clone()),
                        torch: Some(p.torch_lit),
                        tools: tool_map(p.tools),
                        tiles: p.tiles.iter().map(|&t| tile(t)).collect(),
                        discoveries: p.done.iter().map(|&t| tile(t)).collect(),
                        cards: cards(hands[s]),
                        score: p.score,
                    }
                })
                .collect(),
        ),
        hq: Some(
            g.hq()
                .into_iter()
                .map(|(t, tools)| ColumnSpec { tile: t.map(tile), tools: tools.into_iter().flatten().collect() })
                .collect(),
        ),
        pile: Some(g.pile().iter().rev().map(|&t| tile(t)).collect()),
        bag: Some(tool_map(g.bag())),
        face_up: Some(g.face_up().into_iter().map(|k| k.map(card)).collect()),
        deck: Some(deck.iter().rev().map(|&k| card(k)).collect()),
    }
}

/// Two positions that seat `a` cannot tell apart, B (the player to move) holding a Dice card
/// drawn face down in the first and a non-Dice card in the second. B's other cards are kept
/// but for Dice cards (which go out of play); the card B does not hold in a position is out of
/// play there, so nothing later revealed differs but for the swap. `None` if the deck has no
/// non-Dice card to use, or the position cannot be written as a scenario (a return pending).
fn hidden_dice_card_pair(g: &Expedition, pick: &mut SmallRng) -> Option<[Expedition; 2]> {
    let b = g.current();
    let p = g.player(b);
    if p.tiles.len() > 3 || p.tool_count() > 6 {
        return None;
    }
    let dice = g.content().dice_cards;
    let in_others = (0..g.seats()).filter(|&s| s != b).fold(0u64, |m, s| m | g.player(s).cards);
    let face_up = g.face_up().into_iter().flatten().fold(0u64, |m, k| m | 1 << k);
    let free_dice: Vec<u8> = (0..64u8).filter(|&k| dice >> k & 1 == 1 && (in_others | face_up) >> k & 1 == 0).collect();
    let others: Vec<u8> = g.deck().iter().copied().filter(|&k| dice >> k & 1 == 0).collect();
    if free_dice.is_empty() || others.is_empty() {
        return None;
    }
    let d = free_dice[pick.random_range(0..free_dice.len())];
    let x = others[pick.random_range(0..others.len())];
    let deck: Vec<u8> = g.deck().iter().copied().filter(|&k| k != d && k != x).collect();
    let base = p.cards & !dice & !(1 << x);
    let seed = pick.random();
    let pair = [d, x].map(|held| {
        let mut hands: Vec<u64> = (0..g.seats()).map(|s| g.player(s).cards).collect();
        hands[b] = base | 1 << held;
        Expedition::from_scenario(g.params(), seed, as_scenario(g, &hands, &deck))
            .expect("a scenario of a real position")
    });
    Some(pair)
}

/// Drive both positions through the rest of B's turn with the same actions (none of them a
/// Dice-card action); seat `a` must see the same thing at every step.
fn same_flow_for(pair: &mut [Expedition; 2], a: Seat, pick: &mut SmallRng) {
    let b = pair[0].to_move();
    assert!(holds_dice_card(&pair[0], pair[0].current()) && !holds_dice_card(&pair[1], pair[1].current()));
    for step in 0.. {
        assert_eq!(pair[0].to_move(), pair[1].to_move(), "step {step}: another player to move");
        if pair[0].is_terminal() {
            break; // the end reveals every hand
        }
        assert_eq!(pair[0].observation(a), pair[1].observation(a), "step {step}: {a} sees a difference");
        if pair[0].to_move() != b {
            break;
        }
        let [with, without] = [0, 1].map(|i| {
            let l = legal(&pair[i]);
            if !holds_dice_card(&pair[i], pair[i].current()) {
                assert!(!l.iter().any(|&id| is_dice_card_action(&pair[i], id)), "Dice-card actions without one");
            }
            l.into_iter().filter(|&id| !is_dice_card_action(&pair[i], id)).collect::<Vec<_>>()
        });
        // (B may take a Dice card during the turn: then both hold one.)
        assert_eq!(with, without, "step {step}: the decisions differ but for the Dice card");
        let id = without[pick.random_range(0..without.len())];
        for g in pair.iter_mut() {
            g.apply(id).expect("a common legal action");
        }
        assert!(step < 40);
    }
}

#[test]
fn a_hidden_dice_card_does_not_show_in_the_flow_of_play() {
    let mut pick = SmallRng::seed_from_u64(606);
    let mut checked = 0;
    for params in configs() {
        for seed in 0..60 {
            let mut g = Expedition::new(&params, 5000 + seed);
            let mut buf = Vec::new();
            while !g.is_terminal() {
                if pick.random_range(0..4) == 0
                    && let Some(mut pair) = hidden_dice_card_pair(&g, &mut pick)
                {
                    let b = g.current();
                    let a = (b + pick.random_range(1..g.seats())) % g.seats();
                    same_flow_for(&mut pair, Seat(a as u8), &mut pick);
                    checked += 1;
                }
                buf.clear();
                g.legal_actions(&mut buf);
                g.apply(buf[pick.random_range(0..buf.len())]).unwrap();
            }
        }
    }
    assert!(checked > 10_000, "only {checked} positions checked");
}

#[test]
fn determinized_states_offer_dice_card_actions_only_to_a_holder() {
    let mut rng = SmallRng::seed_from_u64(607);
    let (mut checked, mut rolled) = (0, 0);
    for params in configs() {
        for seed in 0..40 {
            let mut g = Expedition::new(&params, 7000 + seed);
            let mut buf = Vec::new();
            while !g.is_terminal() {
                // Every state where a Dice card could be used, and some others.
                if g.step() == Step::Rolled || !holds_dice_card(&g, g.current()) || rng.random_range(0..4) == 0 {
                    for s in 0..g.seats() {
                        let d = g.determinize(Seat(s as u8), &mut rng);
                        let mover = d.current();
                        if !holds_dice_card(&d, mover) {
                            let l = legal(&d);
                            assert!(
                                !l.iter().any(|&id| is_dice_card_action(&d, id)),
                                "seat {mover} holds no Dice card but may use one: {:?}",
                                l.iter().map(|&id| d.action_label(id)).collect::<Vec<_>>()
                            );
                            checked += 1;
                            rolled += (d.step() == Step::Rolled) as u32;
                        }
                    }
                }
                buf.clear();
                g.legal_actions(&mut buf);
                g.apply(buf[rng.random_range(0..buf.len())]).unwrap();
            }
        }
    }
    assert!(checked > 10_000 && rolled > 100, "{checked} states checked, {rolled} after a roll");
}
