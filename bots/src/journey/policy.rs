//! journey's rollout rules (`rollout=rules`, and the `rules` agent).

use crate::policy::{Policy, best_by, pick};
use engine::core::{ActionId, Game, SmallRng};
use engine::journey::{Action as J, Card, DueKind, Journey, Phase, Suit};
use rand::RngExt;

/// The damage of a strike with `c` (a King rallying as `rally`).
fn strike_damage(g: &Journey, c: Card, rally: Option<u8>) -> i32 {
    if g.is_power_ace(c) && c.is(Suit::Diamonds) {
        return 20;
    }
    let v = rally.map_or_else(|| i32::from(g.value(c)), i32::from);
    if c.is(Suit::Diamonds) { 2 * v } else { v }
}

/// How much a card is worth keeping: its strike damage.
fn keep_value(g: &Journey, c: Card) -> i32 {
    if c.is_joker() { 0 } else { strike_damage(g, c, None) }
}

impl Policy for Journey {
    /// `journey`: pay a due with the smallest card that covers it (else the largest, ♣ before
    /// ♦, Wreckage last); in a refuge forage, else recover the best ♦/♣, else pass it on or
    /// end it; in a fight take a direct hit, else a classic Hide with a nominee of rank 8 or
    /// more, else the smallest strike that defeats, else (if the counter can be covered) a
    /// strike that leaves what another card in hand finishes exactly, or the hardest strike,
    /// else flee; while the Nemesis is ahead, keep the Reckoning and one 20-damage card for
    /// it; take back the best card; shed a face card to the Joker; strip a Ruin or dispel a
    /// Shadow half the time.
    fn policy(&self, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        let Some(seat) = self.to_move() else { return legal[0] };
        let decoded = |a: ActionId| J::from_id(a);
        if let Some(due) = self.dues().first() {
            let owed = i32::from(due.owed);
            let choice = match due.kind {
                DueKind::Discard | DueKind::DiscardAny => best_by(legal, |a| match decoded(a) {
                    Some(J::Spend(c)) => Some(-keep_value(self, c)),
                    _ => None,
                }),
                _ => best_by(legal, |a| match decoded(a) {
                    // The smallest card that covers; failing that, the largest, ♣ first.
                    Some(J::Spend(c)) => {
                        let v = i32::from(self.value(c));
                        let club = i32::from(c.is(Suit::Clubs));
                        Some(if v >= owed { 1000 - v } else { v * 2 + club })
                    }
                    Some(J::SpendCompanion) => Some(if owed >= 10 { 500 } else { 0 }),
                    Some(J::SpendWreckage(c)) => {
                        let w = i32::from(self.worth(c));
                        Some(if w >= owed { 400 - w } else { w - 100 })
                    }
                    _ => None,
                }),
            };
            return choice.unwrap_or_else(|| pick(legal, rng));
        }
        let me = seat.index();
        let choice = match self.phase() {
            Phase::Refuge { .. } => {
                if legal.contains(&J::Forage.id()) {
                    Some(J::Forage.id())
                } else {
                    best_by(legal, |a| match decoded(a) {
                        Some(J::Recover(c)) => Some(keep_value(self, c)),
                        _ => None,
                    })
                    .filter(|_| rng.random_range(0..4) > 0)
                    .or_else(|| legal.contains(&J::Pass.id()).then_some(J::Pass.id()))
                    .or_else(|| legal.contains(&J::EndRefuge.id()).then_some(J::EndRefuge.id()))
                }
            }
            Phase::Fight { .. } => {
                let f = self.fight().expect("in a fight");
                let health = i32::from(f.health);
                let attack = i32::from(f.attack);
                // The Nemesis still ahead: keep the Reckoning and one 20-damage card for it.
                let nemesis_ahead = self.journey_deck().iter().any(|&c| self.is_nemesis(c));
                let fighting_nemesis = self.is_nemesis(f.adversary);
                if legal.contains(&J::Reckoning.id()) && (fighting_nemesis || (!nemesis_ahead && health >= 20)) {
                    return J::Reckoning.id();
                }
                let satchel = self.satchel(me);
                let big = satchel.iter().filter(|&&c| strike_damage(self, c, None) >= 20).count();
                let spare =
                    |c: Card| fighting_nemesis || !nemesis_ahead || big > 1 || strike_damage(self, c, None) < 20;
                let damage = |a: ActionId| match decoded(a) {
                    Some(J::Strike(c)) => Some((c, strike_damage(self, c, None))),
                    Some(J::StrikeAs(c, r)) => Some((c, strike_damage(self, c, Some(r)))),
                    _ => None,
                };
                let hits: Vec<i32> = satchel.iter().map(|&c| strike_damage(self, c, None)).collect();
                let exact = best_by(legal, |a| damage(a).filter(|&(_, d)| d == health).map(|(_, d)| -d));
                let kill = best_by(legal, |a| damage(a).filter(|&(c, d)| d > health && spare(c)).map(|(_, d)| -d));
                // A strike that leaves exactly what another card in hand can finish.
                let set_up = best_by(legal, |a| {
                    damage(a)
                        .filter(|&(c, d)| d < health && spare(c))
                        .filter(|&(_, d)| hits.contains(&(health - d)))
                        .map(|(_, d)| d)
                });
                let hide = best_by(legal, |a| match decoded(a) {
                    Some(J::HideWith(c)) if self.rank(c) >= 8 => Some(i32::from(self.rank(c))),
                    _ => None,
                });
                let value: i32 = satchel.iter().map(|&c| i32::from(self.value(c))).sum();
                let wreck: i32 = self.wreckage().iter().map(|&c| i32::from(self.worth(c))).sum();
                let hardest = best_by(legal, |a| damage(a).filter(|&(c, _)| spare(c)).map(|(_, d)| d))
                    .or_else(|| best_by(legal, |a| damage(a).map(|(_, d)| d)));
                let can_cover = value + wreck - 10 >= attack;
                let flee = best_by(legal, |a| match decoded(a) {
                    Some(J::Flee(c)) => Some(-keep_value(self, c)),
                    _ => None,
                });
                let reveal = (legal.contains(&J::Hide.id()) && f.hide_bar >= 9 && rng.random_range(0..2) == 0)
                    .then_some(J::Hide.id());
                exact.or(hide).or(kill).or(reveal).or(if can_cover { set_up.or(hardest) } else { flee.or(hardest) })
            }
            Phase::Take { .. } => best_by(legal, |a| match decoded(a) {
                Some(J::Take(c)) => Some(keep_value(self, c)),
                _ => None,
            }),
            Phase::HideBonus { .. } => legal.contains(&J::Forage.id()).then_some(J::Forage.id()),
            Phase::Stop { .. } => best_by(legal, |a| match decoded(a) {
                Some(J::ShedForJoker(c)) => Some(-keep_value(self, c)),
                _ => None,
            }),
            Phase::Offer { .. } => {
                (legal.contains(&J::Strip.id()) && rng.random_range(0..2) == 0).then_some(J::Strip.id())
            }
            _ => None,
        };
        choice.unwrap_or_else(|| pick(legal, rng))
    }
}
