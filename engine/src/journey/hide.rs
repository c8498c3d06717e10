//! Hide, in its two forms.
//!
//! - `nominate` (classic): once, as the front's first decision against a rank 2–10 adversary,
//!   nominate a satchel card of rank 2–10 and reveal the top Supply card; lower succeeds (a tie
//!   fails) and grants one bonus Forage or Regroup, and that round's counter spares the hider;
//!   failure is an Ambush on the hider. The revealed card goes under the Supply either way, and
//!   the round proceeds: the hider still takes their action. The nominee is not spent, so
//!   nominees that no card of the Supply tells apart are offered once.
//! - `reveal_chain` (martian, dunwich): a traveller's action for the round, only below the
//!   satchel limit: reveal the top Supply card; lower than the adversary (then than the
//!   previous reveal) succeeds: keep the card, and the counter spares you this round. A failure
//!   is an Ambush on the front, the card goes to the Discard, no one hides again in this
//!   encounter, and the hider still takes their action for the round ("then you fight or
//!   flee"). With `ace_rank: low` an Ace always reveals lower.

use super::params::{AceRank, HideForm};
use super::{Action, Card, Due, FightState, Journey, Phase, Then, companions, regroup};

pub(super) fn legal(g: &Journey, actor: u8, f: &FightState, emit: &mut impl FnMut(Action)) {
    if g.supply.is_empty() || (companions::burden(g) && g.p.burden_blocks_hide) {
        return;
    }
    match g.p.hide {
        HideForm::None => {}
        HideForm::Nominate => {
            let small = |c: Card| (2..=10).contains(&c.rank());
            if f.nominate_open && actor == g.front && nominate_allowed_against(g, f.adversary) {
                // The nominee is not spent: what it decides is which of the cards that may be
                // on top of the Supply (known by counting) would slip under it. Nominees that
                // none of them tells apart (two 8s; or 8 and 9 with no 8 that may come up)
                // are one choice.
                let supply_ranks = rank_mask(g, g.could_be_on_supply_top());
                let mut offered = 0u64;
                for &c in g.satchels[actor as usize].iter() {
                    let slips_under = supply_ranks & ((1u32 << g.rank(c)) - 1);
                    if small(c) && offered & 1 << slips_under.count_ones() == 0 {
                        offered |= 1 << slips_under.count_ones();
                        emit(Action::HideWith(c));
                    }
                }
            }
        }
        HideForm::RevealChain => {
            let nemesis_ok = g.p.nemesis_hide || !g.is_nemesis(f.adversary);
            if nemesis_ok && !f.hide_failed && g.has_room(actor) {
                emit(Action::Hide);
            }
        }
    }
}

/// Classic Hide is only against an adversary of rank 2–10 (never the Nemesis).
pub(super) fn nominate_allowed_against(g: &Journey, adversary: Card) -> bool {
    (2..=10).contains(&adversary.rank()) && !g.is_nemesis(adversary)
}

/// The ranks among `cards`, as a bit set (bit r for rank r; a low Ace is rank 1).
fn rank_mask(g: &Journey, cards: &[Card]) -> u32 {
    let printed = cards.iter().fold(0u32, |m, c| m | 1 << c.rank());
    if g.p.ace_rank == AceRank::Low && printed & 1 << 14 != 0 { (printed & !(1 << 14)) | 1 << 1 } else { printed }
}

/// Does `revealed` slip under `bar`?
fn lower(g: &Journey, revealed: Card, bar: u8) -> bool {
    (g.p.ace_rank == AceRank::Low && revealed.is_ace()) || g.rank(revealed) < bar
}

pub(super) fn apply(g: &mut Journey, actor: u8, a: Action) {
    let revealed = g.supply.draw(&mut g.rng).expect("hide is listed only with a Supply");
    let mut f = g.fight.expect("in a fight");
    match a {
        Action::HideWith(nominee) => {
            let success = g.rank(revealed) < g.rank(nominee);
            g.supply.put_under(revealed);
            f.nominate_open = false;
            if success {
                // "no counter that time": this round's counter spares the hider.
                f.spared[actor as usize] = true;
            }
            g.fight = Some(f);
            if success {
                g.phase = Phase::HideBonus { seat: actor };
            } else {
                ambush(g, actor);
                g.phase = Phase::Fight { actor };
            }
        }
        Action::Hide => {
            if lower(g, revealed, f.hide_bar) {
                // The hide was the round's action; the counter spares the hider.
                g.satchels[actor as usize].push(revealed);
                f.spared[actor as usize] = true;
                f.hide_bar = g.rank(revealed);
                g.fight = Some(f);
                g.phase = Phase::AfterAction { actor };
            } else {
                // An Ambush on the front; the attempt ends, then the hider fights or flees.
                g.discard.push(revealed);
                f.hide_failed = true;
                g.fight = Some(f);
                let front = g.journeying_from(g.front).unwrap_or(actor);
                ambush(g, front);
                g.phase = Phase::Fight { actor };
            }
        }
        _ => unreachable!("not a hide: {a:?}"),
    }
}

/// A failed Hide is an Ambush: the adversary strikes `seat` at once, for its full attack.
fn ambush(g: &mut Journey, seat: u8) {
    let attack = g.fight.as_ref().expect("in a fight").attack;
    g.dues.push(Due::cover(seat, attack));
}

/// The classic bonus: Forage, Regroup, or let it go.
pub(super) fn legal_bonus(g: &Journey, seat: u8, emit: &mut impl FnMut(Action)) {
    if g.has_room(seat) && !g.supply.is_empty() {
        emit(Action::Forage);
    }
    for &c in g.satchels[seat as usize].iter() {
        if regroup::can_regroup(g, c) {
            emit(Action::Regroup(c));
        }
    }
    emit(Action::Pass);
}

pub(super) fn apply_bonus(g: &mut Journey, seat: u8, a: Action) {
    match a {
        Action::Forage => {
            let c = g.supply.draw(&mut g.rng).expect("listed only with a Supply");
            g.satchels[seat as usize].push(c);
            g.phase = Phase::Fight { actor: seat };
        }
        Action::Regroup(club) => regroup::regroup(g, seat, club, Then::Decide),
        Action::Pass => g.phase = Phase::Fight { actor: seat },
        _ => unreachable!("not a bonus: {a:?}"),
    }
}
