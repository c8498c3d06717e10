//! Fighting. A ♠ is an Adversary. Each round every journeying traveller, front first, takes
//! one action: Strike (♦ double its value, ♣ its value), Regroup (a ♣ to the Discard, another
//! Discard card into the satchel), Flee (discard a card; the adversary goes back into the
//! Journey deck) or Hide. Damage exactly equal to the remaining health is a direct hit that
//! banks the adversary as Wreckage; more defeats it with nothing banked. If it survives the
//! round, its counter strikes every traveller, who covers it with card values, Wreckage or a
//! Q/K companion, or falls. Also here: dues (what a traveller must pay) and paying them.

use super::params::Aces;
use super::regroup::{can_regroup, regroup, takeable};
use super::{Action, Card, Due, DueKind, FightState, Journey, Phase, Status, Suit, Then, companions, hide};

const REVELATION: Card = Card::ACE_OF_DIAMONDS;
const RECKONING: Card = Card::ACE_OF_CLUBS;

pub(super) fn start(g: &mut Journey, adversary: Card) {
    let (health, attack) = g.adversary_stats(adversary);
    let mut f = FightState {
        adversary,
        health,
        attack,
        reduction: 0,
        spared: [false; 4],
        hide_bar: g.rank(adversary),
        hide_failed: false,
        nominate_open: true,
        order: [0; 4],
        order_len: 0,
        pos: 0,
    };
    set_order(g, &mut f);
    g.phase = Phase::Fight { actor: f.order[0] };
    g.fight = Some(f);
}

/// This round's actors: the journeying travellers from the front on.
fn set_order(g: &Journey, f: &mut FightState) {
    let n = g.travellers() as u8;
    f.order_len = 0;
    for k in 0..n {
        let s = (g.front + k) % n;
        if g.journeying(s) {
            f.order[f.order_len as usize] = s;
            f.order_len += 1;
        }
    }
    f.pos = 0;
}

fn fight(g: &Journey) -> &FightState {
    g.fight.as_ref().expect("in a fight")
}

/// Damage of a strike by `c` (a King rallying as `rank`, if given).
fn damage(g: &Journey, c: Card, rally: Option<u8>) -> i16 {
    if g.p.aces == Aces::Powers && c == REVELATION {
        return 20;
    }
    let v = rally.map_or_else(|| g.value(c), i16::from);
    if c.is(Suit::Diamonds) { 2 * v } else { v }
}

fn can_strike_with(g: &Journey, c: Card) -> bool {
    takeable(c) && !(g.p.aces == Aces::Powers && c == RECKONING)
}

pub(super) fn can_flee(g: &Journey, adversary: Card) -> bool {
    !companions::burden(g) && (g.p.nemesis_flee || !g.is_nemesis(adversary))
}

/// A traveller's action in a fight round: Strike, Regroup or Flee; Hide and being rid of
/// the Burden are options beside them, never forced: one who can do none of Strike, Regroup
/// or Flee may Pass.
pub(super) fn legal(g: &Journey, actor: u8, emit: &mut impl FnMut(Action)) {
    let f = fight(g);
    let satchel = &g.satchels[actor as usize];
    let mut any = false;
    let mut act = |a: Action| {
        any = true;
        emit(a)
    };
    for &c in satchel.iter() {
        if can_strike_with(g, c) {
            act(Action::Strike(c));
            // A King rallies as a lower rank; as 10 it is the King's own strike, and a rally
            // past the remaining health defeats it with nothing banked just as the King's own
            // strike does: neither is offered twice.
            if g.p.allies && c.rank() == 13 {
                for r in 2..=9 {
                    if damage(g, c, Some(r)) <= f.health {
                        act(Action::StrikeAs(c, r));
                    }
                }
            }
        }
    }
    for &c in satchel.iter() {
        if can_regroup(g, c) {
            act(Action::Regroup(c));
        }
    }
    if can_flee(g, f.adversary) {
        satchel.iter().for_each(|&c| act(Action::Flee(c)));
    }
    if !any {
        emit(Action::Pass);
    }
    hide::legal(g, actor, f, emit);
    if companions::can_rid(g, actor, f.adversary) {
        emit(Action::RidBurden);
    }
}

pub(super) fn apply(g: &mut Journey, actor: u8, a: Action) {
    let seat = actor as usize;
    match a {
        Action::Strike(c) | Action::StrikeAs(c, _) => {
            let rally = if let Action::StrikeAs(_, r) = a { Some(r) } else { None };
            g.satchels[seat].remove_item(c);
            g.discard.push(c);
            let dmg = damage(g, c, rally);
            let f = g.fight.as_mut().expect("in a fight");
            if g.p.aces == Aces::Powers && c == REVELATION {
                f.reduction += 10;
            }
            if g.p.allies && c.rank() == 12 {
                f.reduction += 5;
            }
            hit(g, dmg);
            let suit = c.suit().expect("a struck card has a suit");
            let retrieve =
                g.p.allies && c.rank() == 11 && g.discard.iter().any(|&d| d != c && d.is(suit) && takeable(d));
            g.phase = if retrieve {
                Phase::Take { seat: actor, suit: Some(suit), not: c, then: Then::AfterAction }
            } else {
                Phase::AfterAction { actor }
            };
        }
        Action::Regroup(club) => regroup(g, actor, club, Then::AfterAction),
        Action::Flee(c) => {
            g.satchels[seat].remove_item(c);
            g.discard.push(c);
            flee(g);
        }
        Action::Hide | Action::HideWith(_) => hide::apply(g, actor, a),
        Action::RidBurden => {
            companions::rid(g, actor);
            flee(g);
        }
        Action::Pass => g.phase = Phase::AfterAction { actor },
        _ => unreachable!("not a fight action: {a:?}"),
    }
    if let Some(f) = g.fight.as_mut() {
        f.nominate_open = false;
    }
}

/// The Reckoning, a free action once per game: halve the remaining health, rounding up.
pub(super) fn reckoning(g: &mut Journey, seat: u8) {
    g.satchels[seat as usize].remove_item(RECKONING);
    g.boxed.push(RECKONING);
    let f = g.fight.as_mut().expect("in a fight");
    f.health = (f.health + 1) / 2;
}

/// The adversary goes back into the Journey deck; the fight ends with no counter.
fn flee(g: &mut Journey) {
    let f = g.fight.take().expect("in a fight");
    g.shuffle_into_journey(f.adversary);
    g.phase = Phase::EndTurn;
}

/// Deal damage: exactly the remaining health is a direct hit (banked as Wreckage), more
/// defeats it with nothing banked.
fn hit(g: &mut Journey, dmg: i16) {
    let f = g.fight.as_mut().expect("in a fight");
    if dmg < f.health {
        f.health -= dmg;
        return;
    }
    let adversary = f.adversary;
    if dmg == f.health {
        g.wreckage.push(adversary);
    } else {
        g.discard.push(adversary);
    }
    g.fight = None;
}

/// After `actor`'s action: the next actor; when all have acted, the counter.
pub(super) fn after_action(g: &mut Journey, _actor: u8) {
    let Some(mut f) = g.fight else {
        g.phase = Phase::EndTurn;
        return;
    };
    loop {
        f.pos += 1;
        if f.pos >= f.order_len {
            break;
        }
        let next = f.order[f.pos as usize];
        if g.journeying(next) {
            g.fight = Some(f);
            g.phase = Phase::Fight { actor: next };
            return;
        }
    }
    // The adversary survived the round: its counter strikes every unspared traveller.
    let strike = (f.attack - f.reduction).max(0);
    for i in 0..f.order_len as usize {
        let s = f.order[i];
        if g.journeying(s) && !f.spared[s as usize] && strike > 0 {
            g.dues.push(Due::cover(s, strike));
        }
    }
    g.fight = Some(f);
    g.phase = Phase::RoundEnd;
}

pub(super) fn next_round(g: &mut Journey) {
    let mut f = g.fight.expect("in a fight");
    f.reduction = 0;
    f.spared = [false; 4];
    set_order(g, &mut f);
    g.fight = Some(f);
    g.phase = if f.order_len == 0 { Phase::Over } else { Phase::Fight { actor: f.order[0] } };
}

// ----- dues ---------------------------------------------------------------------------

/// What a due can still be paid with, in value (cards, for a Discard due).
fn means(g: &Journey, due: &Due) -> i16 {
    match due.kind {
        DueKind::Cover => {
            g.satchels[due.seat as usize].iter().map(|&c| g.value(c)).sum::<i16>()
                + g.wreckage.iter().map(|&c| g.worth(c)).sum::<i16>()
                + companion_worth(g)
        }
        DueKind::Toll | DueKind::Price => purse(g),
        DueKind::Discard => g.satchels[due.seat as usize].len() as i16,
        DueKind::DiscardAny => purse_cards(g).count() as i16,
    }
}

/// Every journeying traveller's cards: the shared purse on the way home.
pub(super) fn purse_cards(g: &Journey) -> impl Iterator<Item = Card> + '_ {
    (0..g.travellers() as u8).filter(|&s| g.journeying(s)).flat_map(|s| g.satchels[s as usize].iter().copied())
}

/// A Q/K companion's worth when spent.
fn companion_worth(g: &Journey) -> i16 {
    if companions::spendable(g) { 10 } else { 0 }
}

/// What the shared purse can pay: its cards' values and a Q/K companion.
pub(super) fn purse(g: &Journey) -> i16 {
    purse_cards(g).map(|c| g.value(c)).sum::<i16>() + companion_worth(g)
}

/// Can `seat` play the Reckoning (a free action in any fight)?
pub(super) fn can_reckon(g: &Journey, seat: u8) -> bool {
    g.fight.is_some() && g.is_power_ace(RECKONING) && g.satchels[seat as usize].contains(RECKONING)
}

/// Settle the first due if it needs no decision: paid off, or it cannot be paid (the
/// traveller falls, or their journey ends). Returns whether it was settled.
pub(super) fn settle_due(g: &mut Journey) -> bool {
    let due = *g.dues.first().expect("a due");
    let settled = if !g.journeying(due.seat) {
        // A fallen or stopped traveller owes nothing more.
        if due.kind == DueKind::Price {
            g.boxed.push(due.owed_card());
        }
        true
    } else if due.owed <= 0 {
        complete(g, due);
        true
    } else if matches!(due.kind, DueKind::Discard | DueKind::DiscardAny) {
        // Nothing left to discard: the rest is forgiven.
        means(g, &due) == 0
    } else if means(g, &due) < due.owed {
        match due.kind {
            DueKind::Cover => fall(g, due.seat),
            DueKind::Toll => g.status[due.seat as usize] = Status::Stopped,
            // A price is offered only when the purse can pay it; never reached.
            _ => g.boxed.push(due.owed_card()),
        }
        true
    } else {
        false
    };
    if settled {
        g.dues.remove(0);
    }
    settled
}

/// A due paid in full.
fn complete(g: &mut Journey, due: Due) {
    match due.kind {
        DueKind::Toll => g.points += g.rank(due.owed_card()) as i32,
        DueKind::Price => g.wreckage.push(due.owed_card()),
        DueKind::Cover | DueKind::Discard | DueKind::DiscardAny => {}
    }
}

/// A traveller who cannot cover falls: out of the game, satchel to the Discard.
fn fall(g: &mut Journey, seat: u8) {
    g.status[seat as usize] = Status::Fallen;
    while let Some(c) = g.satchels[seat as usize].pop() {
        g.discard.push(c);
    }
}

pub(super) fn legal_payments(g: &Journey, due: &Due, emit: &mut impl FnMut(Action)) {
    match due.kind {
        DueKind::Cover => {
            for &c in g.satchels[due.seat as usize].iter() {
                if g.value(c) > 0 {
                    emit(Action::Spend(c));
                }
            }
            g.wreckage.iter().for_each(|&c| emit(Action::SpendWreckage(c)));
        }
        DueKind::Toll | DueKind::Price => {
            purse_cards(g).filter(|&c| g.value(c) > 0).for_each(|c| emit(Action::Spend(c)));
        }
        DueKind::Discard => g.satchels[due.seat as usize].iter().for_each(|&c| emit(Action::Spend(c))),
        DueKind::DiscardAny => purse_cards(g).for_each(|c| emit(Action::Spend(c))),
    }
    if !matches!(due.kind, DueKind::Discard | DueKind::DiscardAny) && companions::spendable(g) {
        emit(Action::SpendCompanion);
    }
}

/// Pay toward the first due; overpayment is lost.
pub(super) fn pay(g: &mut Journey, a: Action) {
    let paid = match a {
        Action::Spend(c) => {
            let holder = g.find_in_satchels(c).expect("a listed card is in a satchel");
            g.satchels[holder as usize].remove_item(c);
            g.discard.push(c);
            match g.dues.first().expect("a due").kind {
                DueKind::Discard | DueKind::DiscardAny => 1,
                _ => g.value(c),
            }
        }
        Action::SpendWreckage(c) => {
            g.wreckage.remove_item(c);
            g.discard.push(c);
            g.worth(c)
        }
        Action::SpendCompanion => {
            companions::leave(g);
            10
        }
        _ => unreachable!("not a payment: {a:?}"),
    };
    let due = &mut g.dues.as_mut_slice()[0];
    due.owed -= paid;
}
