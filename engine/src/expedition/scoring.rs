//! Scoring: the Lost Coins of a completion, and the end of the game (Missions, Discovery
//! cards, kept Dice cards, the tie-break).

use super::{BOARD_SPACES, CardKind, DiscoveryRule, Expedition, PRINTED_COINS, Step};
use crate::core::{Metric, Outcome};
use serde::{Deserialize, Serialize};

/// One player's final score, term by term.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreBreakdown {
    /// Points from completions (and no-dice Dice-card bonuses) during play.
    pub completions: i32,
    /// Coins of the Missions fulfilled.
    pub missions: i32,
    /// One point per Dice card kept.
    pub dice_cards: i32,
    pub total: i32,
    /// The Missions fulfilled (card ids).
    pub missions_done: Vec<u8>,
    /// The tiles the player's Discovery cards stood for (card order; wild cards: the best).
    pub discovery_tiles: Vec<u8>,
}

/// What a player's Expedition cards hold for the end (see [`Expedition::breakdown`]).
#[derive(Default)]
struct Held {
    have: u64,
    /// (tiles, coins, card) of each Mission held.
    missions: Vec<(u64, i32, u8)>,
    wild: usize,
    dice_cards: i32,
    /// The tiles of named Discovery cards, in card order.
    named: Vec<u8>,
}

impl Expedition {
    /// Points for the tile just laid face down by `seat` (already in `done`): the coins now
    /// visible on the board (4 printed, one covered once the sixth space is filled, one per
    /// face-down Place, the new one and any beyond the sixth included), +1 per bonus this
    /// turn (die Coin, no-dice Dice card), +1 per favourite-tool token spent.
    pub(crate) fn completion_points(&self, seat: usize, favourite_spent: u8) -> i32 {
        let p = &self.players[seat];
        let content = &self.shared.content;
        let places = p.done.iter().filter(|&&t| content.is_place(t)).count();
        coins_showing(p.done.len(), places) + self.coin_bonus as i32 + favourite_spent as i32
    }

    /// Tiles discovered by `seat`, as a bit set.
    pub(crate) fn discovered(&self, seat: usize) -> u64 {
        self.players[seat].done.iter().fold(0u64, |m, &t| m | 1 << t)
    }

    /// What `seat`'s Expedition cards hold for the end: the tiles discovered (with named
    /// Discovery cards' tiles), the Missions, the wild Discovery cards and the Dice cards.
    fn held(&self, seat: usize) -> Held {
        let content = &self.shared.content;
        let p = &self.players[seat];
        let mut held = Held { have: self.discovered(seat), ..Held::default() };
        for k in 0..content.cards.len() {
            if p.cards >> k & 1 == 0 {
                continue;
            }
            match content.cards[k].kind {
                CardKind::Mission { tiles, coins } => {
                    let mask = tiles.iter().fold(0u64, |m, &t| m | 1 << t);
                    held.missions.push((mask, coins as i32, k as u8));
                }
                CardKind::Discovery { tile } => match self.shared.params.discovery_cards {
                    DiscoveryRule::Named => {
                        held.have |= 1 << tile;
                        held.named.push(tile);
                    }
                    DiscoveryRule::Wild => held.wild += 1,
                },
                CardKind::Dice => held.dice_cards += 1,
            }
        }
        held
    }

    /// The end-of-game score of `seat`, term by term.
    pub fn breakdown(&self, seat: usize) -> ScoreBreakdown {
        let Held { mut have, missions, wild, dice_cards, named: mut discovery_tiles } = self.held(seat);
        if wild > 0 {
            let extra = best_wild_tiles(have, &missions, wild);
            let mut e = extra;
            while e != 0 {
                let t = e.trailing_zeros() as u8;
                discovery_tiles.push(t);
                e &= e - 1;
            }
            have |= extra;
        }
        let mut mission_points = 0;
        let mut missions_done = Vec::new();
        for &(mask, coins, card) in &missions {
            if mask & have == mask {
                mission_points += coins;
                missions_done.push(card);
            }
        }
        let completions = self.players[seat].score;
        ScoreBreakdown {
            completions,
            missions: mission_points,
            dice_cards,
            total: completions + mission_points + dice_cards,
            missions_done,
            discovery_tiles,
        }
    }

    /// The end-of-game score of `seat`: the total of [`Self::breakdown`], without naming the
    /// tiles the wild Discovery cards stand for (searches score every game they play out).
    pub(crate) fn final_score(&self, seat: usize) -> i32 {
        let held = self.held(seat);
        // With no wild card (k = 0) this is the Missions' worth as held.
        self.players[seat].score + best_wild_value(held.have, &held.missions, held.wild) + held.dice_cards
    }

    pub(crate) fn final_outcome(&self) -> Outcome {
        let scores = (0..self.n as usize).map(|s| self.final_score(s)).collect();
        // Among tied scores the player who played last in turn order wins.
        Outcome::ranked(scores, |s| self.turn_position(s) as i32)
    }

    pub(crate) fn final_metrics(&self) -> Vec<Metric> {
        let n = self.n as usize;
        let discoveries: usize = (0..n).map(|s| self.players[s].done.len()).sum();
        let (mut missions, mut dice) = (0, 0);
        for s in 0..n {
            let b = self.breakdown(s);
            missions += b.missions;
            dice += b.dice_cards;
        }
        vec![
            Metric::count("rounds", self.round),
            Metric::count("discoveries", discoveries as f64),
            Metric::count("mission_points", missions),
            Metric::count("dice_cards_kept", dice),
            // Over without a last round: stopped at the end of round `max_rounds`.
            Metric::rate("cut_at_max_rounds", self.step == Step::Over && !self.last_round),
        ]
    }
}

/// The Lost Coins showing on a board with `laid` tiles completed, `places` of them Places: the
/// printed ones (one is covered once the sixth space is filled) and one per face-down Place.
pub(crate) fn coins_showing(laid: usize, places: usize) -> i32 {
    PRINTED_COINS - (laid >= BOARD_SPACES) as i32 + places as i32
}

/// The tiles worth trying as wild Discovery cards' picks: those missing from a Mission that
/// `k` cards could complete, in the Missions' order.
fn wild_candidates(have: u64, missions: &[(u64, i32, u8)], k: usize) -> Vec<u8> {
    let mut candidates = Vec::new();
    let mut seen = 0u64;
    for &(mask, _, _) in missions {
        let missing = mask & !have;
        if missing != 0 && (missing.count_ones() as usize) <= k {
            let mut m = missing & !seen;
            seen |= missing;
            while m != 0 {
                candidates.push(m.trailing_zeros() as u8);
                m &= m - 1;
            }
        }
    }
    candidates
}

/// The coins of the Missions that the tiles `have` fulfil.
fn missions_value(have: u64, missions: &[(u64, i32, u8)]) -> i32 {
    missions.iter().filter(|m| m.0 & have == m.0).map(|m| m.1).sum()
}

/// The most the Missions can be worth with at most `k` extra tiles: the best union of the
/// tiles missing from some of them (the others it happens to fulfil counted too).
fn best_wild_value(have: u64, missions: &[(u64, i32, u8)], k: usize) -> i32 {
    let missing: Vec<u64> =
        missions.iter().map(|m| m.0 & !have).filter(|&x| x != 0 && x.count_ones() as usize <= k).collect();
    fn go(missing: &[u64], from: usize, union: u64, k: usize, best: &mut i32, value: &dyn Fn(u64) -> i32) {
        *best = (*best).max(value(union));
        for j in from..missing.len() {
            let u = union | missing[j];
            if u != union && u.count_ones() as usize <= k {
                go(missing, j + 1, u, k, best, value);
            }
        }
    }
    let value = |extra: u64| missions_value(have | extra, missions);
    let mut best_value = value(0);
    go(&missing, 0, 0, k, &mut best_value, &value);
    best_value
}

/// Wild Discovery cards: the set of at most `k` extra tiles that fulfils Missions worth the
/// most coins (ties: the first found, fewest tiles).
fn best_wild_tiles(have: u64, missions: &[(u64, i32, u8)], k: usize) -> u64 {
    let candidates = wild_candidates(have, missions, k);
    let mut best = (missions_value(have, missions), 0u64);
    // Sets of candidates are tried in order and only a better one is kept. Knowing the most
    // they can be worth (found fast over the Missions rather than the tiles), the search stops
    // at the first set worth it, and skips a branch whose best case could not do better (the
    // Missions fulfilled already, and those whose missing tiles all remain to be picked and
    // are few enough): what it finds is what trying every set finds, sooner.
    let most = best_wild_value(have, missions, k);
    // `rest[i]`: candidates i and after.
    let mut rest = vec![0u64; candidates.len() + 1];
    for i in (0..candidates.len()).rev() {
        rest[i] = rest[i + 1] | 1 << candidates[i];
    }
    struct Search<'a> {
        have: u64,
        missions: &'a [(u64, i32, u8)],
        cands: &'a [u8],
        rest: &'a [u64],
        most: i32,
    }
    impl Search<'_> {
        /// The most the Missions could be worth with `chosen` picked and at most `left` more
        /// from `pool`.
        fn at_most(&self, chosen: u64, pool: u64, left: usize) -> i32 {
            let h = self.have | chosen;
            let reachable = |m: &&(u64, i32, u8)| {
                let missing = m.0 & !h;
                missing == 0 || (missing & !pool == 0 && missing.count_ones() as usize <= left)
            };
            self.missions.iter().filter(reachable).map(|m| m.1).sum()
        }
    }
    fn go(s: &Search, from: usize, left: usize, chosen: u64, best: &mut (i32, u64)) {
        for i in from..s.cands.len() {
            if best.0 >= s.most || s.at_most(chosen, s.rest[i], left) <= best.0 {
                return;
            }
            let c = chosen | 1 << s.cands[i];
            let v = missions_value(s.have | c, s.missions);
            if v > best.0 {
                *best = (v, c);
            }
            if left > 1 {
                go(s, i + 1, left - 1, c, best);
            }
        }
    }
    go(&Search { have, missions, cands: &candidates, rest: &rest, most }, 0, k, 0, &mut best);
    best.1
}

#[cfg(test)]
mod tests {
    use super::{best_wild_tiles, best_wild_value, missions_value, wild_candidates};
    use proptest::prelude::*;

    /// Every set of at most `k` candidates in the same order, keeping only a better one: the
    /// choice the pruned search must make.
    fn every_set(have: u64, missions: &[(u64, i32, u8)], k: usize) -> u64 {
        fn go(cands: &[u8], from: usize, left: usize, chosen: u64, value: &dyn Fn(u64) -> i32, best: &mut (i32, u64)) {
            for i in from..cands.len() {
                let c = chosen | 1 << cands[i];
                let v = value(c);
                if v > best.0 {
                    *best = (v, c);
                }
                if left > 1 {
                    go(cands, i + 1, left - 1, c, value, best);
                }
            }
        }
        let value = |extra: u64| missions_value(have | extra, missions);
        let mut best = (value(0), 0u64);
        go(&wild_candidates(have, missions, k), 0, k, 0, &value, &mut best);
        best.1
    }

    proptest! {
        #[test]
        fn the_pruned_search_chooses_what_trying_every_set_chooses(
            have in 0u64..(1 << 12),
            missions in prop::collection::vec((prop::sample::subsequence((0u8..14).collect::<Vec<_>>(), 3), 2i32..7), 0..12),
            k in 1usize..6,
        ) {
            let missions: Vec<(u64, i32, u8)> =
                missions.iter().map(|(t, c)| (t.iter().fold(0u64, |m, &x| m | 1 << x), *c, 0)).collect();
            let tiles = every_set(have, &missions, k);
            prop_assert_eq!(best_wild_tiles(have, &missions, k), tiles);
            prop_assert_eq!(best_wild_value(have, &missions, k), missions_value(have | tiles, &missions));
        }
    }
}
