//! Hide, in its two forms.
//!
//! - `nominate` (classic): once, as the front's first decision against a rank 2–10 adversary,
//!   nominate a satchel card of rank 2–10 and reveal the top Supply card; lower succeeds (a tie
//!   fails) and grants one bonus Forage or Regroup with no counter; failure is an Ambush on the
//!   hider. The revealed card goes under the Supply either way, and the fight proceeds.
//! - `reveal_chain` (martian, dunwich): a traveller's action for the round, only below the
//!   satchel limit: reveal the top Supply card; lower than the adversary (then than the
//!   previous reveal) succeeds: keep the card, and the counter spares you this round. A failure
//!   is an Ambush on the front, the card goes to the Discard, and no one hides again in this
//!   encounter. With `ace_rank: low` an Ace always reveals lower.

use super::params::{AceRank, HideForm};
use super::{Action, Card, FightState, Journey, Phase, Then, companions, fight};

pub(super) fn legal(g: &Journey, actor: u8, f: &FightState, emit: &mut impl FnMut(Action)) {
    if g.supply.is_empty() || (companions::burden(g) && g.p.burden_blocks_hide) {
        return;
    }
    match g.p.hide {
        HideForm::None => {}
        HideForm::Nominate => {
            let small = |c: Card| (2..=10).contains(&c.rank());
            if f.nominate_open && actor == g.front && small(f.adversary) && !g.is_nemesis(f.adversary) {
                for &c in g.satchels[actor as usize].iter() {
                    if small(c) {
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

/// Does `revealed` slip under `bar`?
fn lower(g: &Journey, revealed: Card, bar: u8) -> bool {
    (g.p.ace_rank == AceRank::Low && revealed.is_ace()) || g.rank(revealed) < bar
}

pub(super) fn apply(g: &mut Journey, actor: u8, a: Action) {
    let revealed = g.draw_supply().expect("hide is listed only with a Supply");
    let mut f = g.fight.expect("in a fight");
    match a {
        Action::HideWith(nominee) => {
            let success = g.rank(revealed) < g.rank(nominee);
            g.slide_under_supply(revealed);
            f.nominate_open = false;
            g.fight = Some(f);
            if success {
                g.phase = Phase::HideBonus { seat: actor };
            } else {
                fight::ambush(g, actor);
                g.phase = Phase::Fight { actor };
            }
        }
        Action::Hide => {
            if lower(g, revealed, f.hide_bar) {
                g.satchels[actor as usize].push(revealed);
                f.spared[actor as usize] = true;
                f.hide_bar = g.rank(revealed);
                g.fight = Some(f);
            } else {
                g.discard.push(revealed);
                f.hide_failed = true;
                g.fight = Some(f);
                let front = g.journeying_from(g.front).unwrap_or(actor);
                fight::ambush(g, front);
            }
            g.phase = Phase::AfterAction { actor };
        }
        _ => unreachable!("not a hide: {a:?}"),
    }
}

/// The classic bonus: Forage, Regroup, or let it go.
pub(super) fn legal_bonus(g: &Journey, seat: u8, emit: &mut impl FnMut(Action)) {
    if g.has_room(seat) && !g.supply.is_empty() {
        emit(Action::Forage);
    }
    for &c in g.satchels[seat as usize].iter() {
        if fight::can_regroup(g, c) {
            emit(Action::Regroup(c));
        }
    }
    emit(Action::Pass);
}

pub(super) fn apply_bonus(g: &mut Journey, seat: u8, a: Action) {
    match a {
        Action::Forage => {
            let c = g.draw_supply().expect("listed only with a Supply");
            g.satchels[seat as usize].push(c);
            g.phase = Phase::Fight { actor: seat };
        }
        Action::Regroup(club) => fight::regroup(g, seat, club, Then::Decide),
        Action::Pass => g.phase = Phase::Fight { actor: seat },
        _ => unreachable!("not a bonus: {a:?}"),
    }
}
