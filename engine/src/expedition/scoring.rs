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

impl Expedition {
    /// Points for the tile just laid face down by `seat` (already in `done`): the coins now
    /// visible on the board (4 printed, one covered once the sixth space is filled, one per
    /// face-down Place, the new one and any beyond the sixth included), +1 per bonus this
    /// turn (die Coin, no-dice Dice card), +1 per favourite-tool token spent.
    pub(crate) fn completion_points(&self, seat: usize, favourite_spent: u8) -> i32 {
        let p = &self.players[seat];
        let content = &self.shared.content;
        let laid = p.done.len();
        let places = p.done.iter().filter(|&&t| content.is_place(t)).count() as i32;
        let printed = PRINTED_COINS - (laid >= BOARD_SPACES) as i32;
        printed + places + self.coin_bonus as i32 + favourite_spent as i32
    }

    /// Tiles discovered by `seat`, as a bit set.
    pub(crate) fn discovered(&self, seat: usize) -> u64 {
        self.players[seat].done.iter().fold(0u64, |m, &t| m | 1 << t)
    }

    /// The end-of-game score of `seat`.
    pub fn breakdown(&self, seat: usize) -> ScoreBreakdown {
        let content = &self.shared.content;
        let p = &self.players[seat];
        let mut have = self.discovered(seat);
        let mut missions: Vec<(u64, i32, u8)> = Vec::new();
        let mut discovery_tiles = Vec::new();
        let mut wild = 0usize;
        let mut dice_cards = 0;
        for k in 0..content.cards.len() {
            if p.cards >> k & 1 == 0 {
                continue;
            }
            match content.cards[k].kind {
                CardKind::Mission { tiles, coins } => {
                    let mask = tiles.iter().fold(0u64, |m, &t| m | 1 << t);
                    missions.push((mask, coins as i32, k as u8));
                }
                CardKind::Discovery { tile } => match self.shared.params.discovery_cards {
                    DiscoveryRule::Named => {
                        have |= 1 << tile;
                        discovery_tiles.push(tile);
                    }
                    DiscoveryRule::Wild => wild += 1,
                },
                CardKind::Dice => dice_cards += 1,
            }
        }
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
        let total = p.score + mission_points + dice_cards;
        ScoreBreakdown {
            completions: p.score,
            missions: mission_points,
            dice_cards,
            total,
            missions_done,
            discovery_tiles,
        }
    }

    pub(crate) fn final_outcome(&self) -> Outcome {
        let scores = (0..self.n as usize).map(|s| self.breakdown(s).total).collect();
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

/// Wild Discovery cards: the set of at most `k` extra tiles that fulfils Missions worth the
/// most coins (ties: the first found, fewest tiles).
fn best_wild_tiles(have: u64, missions: &[(u64, i32, u8)], k: usize) -> u64 {
    // Only tiles missing from a Mission that k cards could complete matter.
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
    let value = |extra: u64| -> i32 {
        let h = have | extra;
        missions.iter().filter(|m| m.0 & h == m.0).map(|m| m.1).sum()
    };
    let mut best = (value(0), 0u64);
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
    go(&candidates, 0, k, 0, &value, &mut best);
    best.1
}
