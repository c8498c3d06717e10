//! journey: the strong agent's rollout policy, tuned by `Tune` on random deals.
use engine::core::{ActionId, Game, SmallRng};
use engine::journey::{Action as J, Card, DueKind, Journey, Phase, Suit};
use rand::RngExt;

fn damage(g: &Journey, c: Card) -> i32 {
    if g.is_power_ace(c) && c.is(Suit::Diamonds) {
        return 20;
    }
    let v = i32::from(g.value(c));
    if c.is(Suit::Diamonds) { 2 * v } else { v }
}

/// How much a card is worth keeping (strike use first).
fn keep(g: &Journey, c: Card) -> i32 {
    if c.is_joker() {
        return 0;
    }
    if g.is_power_ace(c) {
        return 40;
    }
    if c.is(Suit::Diamonds) || c.is(Suit::Clubs) { damage(g, c) } else { i32::from(g.value(c)) }
}

/// The policy's few numbers.
pub struct Tune {
    /// What a point of Wreckage costs to spend, beside a card's keep value (×100).
    pub wreck_cost: i32,
    /// Hide with a card when at least this share of the Supply would slip under it.
    pub hide_p: f64,
    /// Set up a direct hit only when the counter-attack is covered with this to spare.
    pub flee_margin: i32,
}

pub const TUNE: Tune = Tune { wreck_cost: 20, hide_p: 0.6, flee_margin: 5 };

/// The first item to pay of the cheapest way to pay `owed`: any set of `cards` (value,
/// cost), then Wreckage (`wreck`: worth, cost) taken greedily for what is left. Ties: the
/// least overpaid, then the set of the lowest mask (cards in the order given).
///
/// The sets are visited in Gray-code order, each one card away from the last (its sums kept
/// rather than added up again), and a set of cards already dearer than the best plan is not
/// topped up from the Wreckage (that only adds cost).
fn pay_plan(cards: &[(i32, i32, ActionId)], wreck: &[(i32, i32, ActionId)], owed: i32) -> Option<ActionId> {
    let n = cards.len().min(10);
    let free_wreckage = wreck.iter().any(|w| w.1 < 0);
    let mut best: Option<(i32, i32, u32, Option<usize>)> = None;
    let (mut v, mut cards_cost) = (0, 0);
    for k in 0u32..(1 << n) {
        let m = k ^ (k >> 1);
        if k > 0 {
            let i = k.trailing_zeros() as usize;
            let sign = if m >> i & 1 == 1 { 1 } else { -1 };
            v += sign * cards[i].0;
            cards_cost += sign * cards[i].1;
        }
        if !free_wreckage && best.is_some_and(|b| cards_cost > b.0) {
            continue;
        }
        let Some((wreck_cost, overpaid, first_wreck)) = top_up(wreck, owed - v) else { continue };
        let key = (cards_cost + wreck_cost, overpaid, m, first_wreck);
        if best.is_none_or(|b| (key.0, key.1, key.2) < (b.0, b.1, b.2)) {
            best = Some(key);
        }
    }
    first_to_pay(cards, wreck, n, best?)
}

/// What is left to pay (`left`), from the Wreckage: the smallest piece that covers it, else
/// the biggest, until paid. `None` if all of it falls short; else the pieces' cost, what
/// they overpay, and the first piece taken.
fn top_up(wreck: &[(i32, i32, ActionId)], mut left: i32) -> Option<(i32, i32, Option<usize>)> {
    let (mut cost, mut first, mut used) = (0, None, 0u32);
    while left > 0 {
        let pick = wreck
            .iter()
            .enumerate()
            .filter(|(i, w)| used >> i & 1 == 0 && w.0 >= left)
            .min_by_key(|(_, w)| w.0)
            .or_else(|| wreck.iter().enumerate().filter(|(i, _)| used >> i & 1 == 0).max_by_key(|(_, w)| w.0));
        let (i, w) = pick?;
        used |= 1 << i;
        first.get_or_insert(i);
        left -= w.0;
        cost += w.1;
    }
    Some((cost, -left, first))
}

/// The first item to pay of a plan (its cost, what it overpays, the mask of the first `n`
/// cards it spends, the first piece of Wreckage): the biggest card first, the Wreckage after.
fn first_to_pay(
    cards: &[(i32, i32, ActionId)],
    wreck: &[(i32, i32, ActionId)],
    n: usize,
    (_, _, m, w): (i32, i32, u32, Option<usize>),
) -> Option<ActionId> {
    (0..n)
        .filter(|&i| m >> i & 1 == 1)
        .max_by_key(|&i| cards[i].0)
        .map(|i| cards[i].2)
        .or_else(|| w.map(|i| wreck[i].2))
}

pub fn policy(g: &Journey, legal: &[ActionId], rng: &mut SmallRng, t: &Tune) -> ActionId {
    let Some(seat) = g.to_move() else { return legal[0] };
    let me = seat.index();
    let dec = |a: ActionId| J::from_id(a);
    if let Some(due) = g.dues().first() {
        let owed = i32::from(due.owed);
        match due.kind {
            DueKind::Discard | DueKind::DiscardAny => {
                return *legal
                    .iter()
                    .min_by_key(|&&a| match dec(a) {
                        Some(J::Spend(c)) => keep(g, c),
                        _ => 1000,
                    })
                    .expect("a legal action");
            }
            _ => {
                let (mut cards, mut wreck) = ([(0, 0, 0); 12], [(0, 0, 0); 16]);
                let (mut nc, mut nw) = (0, 0);
                for &a in legal {
                    match dec(a) {
                        Some(J::Spend(c)) if nc < cards.len() => {
                            cards[nc] = (i32::from(g.value(c)), keep(g, c) * 100, a);
                            nc += 1;
                        }
                        Some(J::SpendCompanion) if nc < cards.len() => {
                            cards[nc] = (10, 1500, a);
                            nc += 1;
                        }
                        Some(J::SpendWreckage(c)) if nw < wreck.len() => {
                            wreck[nw] = (i32::from(g.worth(c)), i32::from(g.worth(c)) * t.wreck_cost, a);
                            nw += 1;
                        }
                        _ => {}
                    }
                }
                return pay_plan(&cards[..nc], &wreck[..nw], owed).unwrap_or(legal[0]);
            }
        }
    }
    match g.phase() {
        Phase::Refuge { .. } => {
            if legal.contains(&J::Forage.id()) {
                return J::Forage.id();
            }
            let best = legal
                .iter()
                .filter_map(|&a| match dec(a) {
                    Some(J::Recover(c)) => Some((keep(g, c), a)),
                    _ => None,
                })
                .max();
            if let Some((k, a)) = best
                && k >= 8
            {
                return a;
            }
            if legal.contains(&J::Pass.id()) {
                return J::Pass.id();
            }
            J::EndRefuge.id()
        }
        Phase::Fight { .. } => fight(g, me, legal, rng, t),
        Phase::Take { .. } => *legal
            .iter()
            .max_by_key(|&&a| match dec(a) {
                Some(J::Take(c)) => keep(g, c),
                _ => -1,
            })
            .expect("a legal action"),
        Phase::HideBonus { .. } => {
            if legal.contains(&J::Forage.id()) {
                J::Forage.id()
            } else {
                legal[legal.len() - 1]
            }
        }
        _ => crate::policy::Policy::policy(g, legal, rng),
    }
}

/// Cards a satchel holds at most (its pile's capacity): the most strikes a fight lists, one
/// per card.
const SATCHEL: usize = 40;

fn fight(g: &Journey, me: usize, legal: &[ActionId], rng: &mut SmallRng, t: &Tune) -> ActionId {
    let f = g.fight().expect("in a fight");
    let health = i32::from(f.health);
    let attack = i32::from((f.attack - f.reduction).max(0));
    let nemesis_ahead = g.journey_deck().iter().any(|&c| g.is_nemesis(c));
    let fighting_nemesis = g.is_nemesis(f.adversary);
    if legal.contains(&J::Reckoning.id()) && (fighting_nemesis || (!nemesis_ahead && health > 20)) {
        return J::Reckoning.id();
    }
    let satchel = g.satchel(me);
    let big = satchel.iter().filter(|&&c| damage(g, c) >= 20).count();
    let reserve = |c: Card| !fighting_nemesis && nemesis_ahead && big <= 1 && damage(g, c) >= 20;
    // The strikes with their damage, in the order listed (no allocation: one per card).
    let mut strikes = [(0, Card::default(), 0); SATCHEL];
    let mut ns = 0;
    for &a in legal {
        if let Some(J::Strike(c)) = J::from_id(a)
            && ns < SATCHEL
        {
            strikes[ns] = (a, c, damage(g, c));
            ns += 1;
        }
    }
    let strikes = &strikes[..ns];
    // A direct hit, with the card least worth keeping.
    if let Some(&(a, _, _)) = strikes.iter().filter(|s| s.2 == health && !reserve(s.1)).min_by_key(|s| keep(g, s.1)) {
        return a;
    }
    // Classic Hide, when the reveal is likely to slip under.
    let supply = g.supply();
    let hide = legal
        .iter()
        .filter_map(|&a| match J::from_id(a) {
            Some(J::HideWith(c)) => {
                let under = supply.iter().filter(|&&s| s.is_ace() || g.rank(s) < g.rank(c)).count();
                Some((under as f64 / supply.len().max(1) as f64, a))
            }
            _ => None,
        })
        .max_by(|x, y| x.0.total_cmp(&y.0));
    if let Some((p, a)) = hide
        && p >= t.hide_p
    {
        return a;
    }
    // The cheapest strike that defeats it.
    if let Some(&(a, _, _)) =
        strikes.iter().filter(|s| s.2 > health && !reserve(s.1)).min_by_key(|s| (s.2, keep(g, s.1)))
    {
        return a;
    }
    // It survives this round: the counter must be covered.
    let cover: i32 = satchel.iter().map(|&c| i32::from(g.value(c))).sum::<i32>()
        + g.wreckage().iter().map(|&c| i32::from(g.worth(c))).sum::<i32>();
    let hits = |x: i32| satchel.iter().any(|&c| damage(g, c) == x);
    let set_up = strikes
        .iter()
        .filter(|s| s.2 < health && !reserve(s.1) && hits(health - s.2))
        .filter(|s| cover - i32::from(g.value(s.1)) - (health - s.2) / 2 >= attack + t.flee_margin)
        .max_by_key(|s| s.2);
    if let Some(&(a, _, _)) = set_up {
        return a;
    }
    let flee = legal
        .iter()
        .filter_map(|&a| match J::from_id(a) {
            Some(J::Flee(c)) => Some((keep(g, c), a)),
            _ => None,
        })
        .min();
    if let Some((_, a)) = flee {
        return a;
    }
    if legal.contains(&J::Hide.id()) && f.hide_bar >= 9 && rng.random_range(0..2) == 0 {
        return J::Hide.id();
    }
    if let Some(&(a, _, _)) = strikes.iter().filter(|s| !reserve(s.1)).max_by_key(|s| s.2) {
        return a;
    }
    if let Some(&(a, _, _)) = strikes.iter().max_by_key(|s| s.2) {
        return a;
    }
    crate::policy::Policy::policy(g, legal, rng)
}
#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// The plan as first written: every set of cards summed afresh, in mask order, each
    /// topped up from the Wreckage.
    fn pay_plan_by_every_set(
        cards: &[(i32, i32, ActionId)],
        wreck: &[(i32, i32, ActionId)],
        owed: i32,
    ) -> Option<ActionId> {
        let n = cards.len().min(10);
        let mut best: Option<(i32, i32, u32, Option<usize>)> = None;
        for m in 0u32..(1 << n) {
            let (mut v, mut c) = (0, 0);
            for (i, it) in cards.iter().enumerate().take(n) {
                if m >> i & 1 == 1 {
                    v += it.0;
                    c += it.1;
                }
            }
            let Some((wreck_cost, overpaid, first_wreck)) = top_up(wreck, owed - v) else { continue };
            let key = (c + wreck_cost, overpaid, m, first_wreck);
            if best.is_none_or(|b| (key.0, key.1) < (b.0, b.1)) {
                best = Some(key);
            }
        }
        first_to_pay(cards, wreck, n, best?)
    }

    /// The Gray-code walk with its pruning finds the plan every set finds, ties included.
    #[test]
    fn the_pay_plan_is_the_cheapest_over_every_set() {
        let mut rng = SmallRng::seed_from_u64(3);
        for case in 0..3000 {
            let item = |rng: &mut SmallRng, id: ActionId| (rng.random_range(0..12), 100 * rng.random_range(0..8), id);
            let cards: Vec<_> = (0..rng.random_range(0..11)).map(|i| item(&mut rng, i)).collect();
            let wreck: Vec<_> = (0..rng.random_range(0..5)).map(|i| item(&mut rng, 100 + i)).collect();
            let owed = rng.random_range(0..40);
            assert_eq!(
                pay_plan(&cards, &wreck, owed),
                pay_plan_by_every_set(&cards, &wreck, owed),
                "case {case}: {cards:?} {wreck:?} owing {owed}"
            );
        }
    }
}
