//! expedition's rollout rules (`rollout=rules`, and the `rules` agent).

use crate::policy::{Policy, best_by, pick};
use engine::core::{ActionId, SmallRng};
use engine::expedition::{Action as X, Expedition, Step, Tool};
use rand::RngExt;

/// Can `seat` pay for `tile` now (the Torch standing in for one token)?
fn payable(g: &Expedition, seat: usize, tile: u8) -> bool {
    let p = g.player(seat);
    let need = g.content().tiles[tile as usize].need;
    let short: u8 = Tool::ALL.iter().map(|t| need[t.index()].saturating_sub(p.tools[t.index()])).sum();
    short == 0 || (short == 1 && p.torch_lit)
}

/// The share of `tile`'s tools in `tools`, in percent.
fn readiness(g: &Expedition, tile: u8, tools: [u8; 4]) -> i32 {
    let need = g.content().tiles[tile as usize].need;
    let total: u8 = need.iter().sum();
    let have: u8 = Tool::ALL.iter().map(|t| need[t.index()].min(tools[t.index()])).sum();
    i32::from(have) * 100 / i32::from(total.max(1))
}

impl Policy for Expedition {
    /// `expedition`: roll and keep; put back the least ready tile or a tool no held tile needs;
    /// with a tile payable, go on an Expedition (a face-up Mission sharing tiles with the
    /// player's, else the top card) and complete what can be paid, tokens before the Torch;
    /// otherwise take the column whose tile the backpack and the column's tools make the most
    /// ready.
    fn policy(&self, legal: &[ActionId], rng: &mut SmallRng) -> ActionId {
        let seat = self.current();
        let tiles = self.content().tiles.len();
        let decoded = |a: ActionId| X::from_id(a, tiles);
        let p = self.player(seat);
        let wanted = |t: Tool| p.tiles.iter().any(|&tile| self.content().tiles[tile as usize].need[t.index()] > 0);
        if let Some(a) = best_by(legal, |a| match decoded(a) {
            Some(X::ReturnTile(t)) => Some(-readiness(self, t, p.tools)),
            Some(X::ReturnTool(t)) => Some(i32::from(p.tools[t.index()]) - 10 * i32::from(wanted(t))),
            _ => None,
        }) {
            return a;
        }
        let choice = match self.step() {
            Step::Roll => legal.contains(&X::Roll.id()).then_some(X::Roll.id()),
            Step::Rolled => Some(X::KeepRoll.id()),
            Step::Action => {
                if p.tiles.iter().any(|&t| payable(self, seat, t)) {
                    let mine = p.tiles.iter().chain(p.done.iter()).fold(0u64, |m, &t| m | 1 << t);
                    best_by(legal, |a| match decoded(a) {
                        Some(X::TakeFaceUp(i)) => {
                            self.face_up()[i as usize].map(|k| match self.content().cards[k as usize].kind {
                                engine::expedition::CardKind::Mission { tiles, .. } => {
                                    tiles.iter().filter(|&&t| mine >> t & 1 == 1).count() as i32 * 2
                                }
                                _ => 1,
                            })
                        }
                        Some(X::TakeTop) => Some(1),
                        Some(X::GoWithoutCard) => Some(0),
                        _ => None,
                    })
                } else {
                    let hq = self.hq();
                    best_by(legal, |a| match decoded(a) {
                        Some(X::TakeColumn(c)) => {
                            let (tile, tools) = hq[c as usize];
                            let mut after = p.tools;
                            tools.iter().flatten().for_each(|t| after[t.index()] += 1);
                            Some(tile.map_or(0, |t| readiness(self, t, after)) + rng.random_range(0..10))
                        }
                        _ => None,
                    })
                }
            }
            Step::Complete => best_by(legal, |a| match decoded(a) {
                Some(X::Complete { torch, .. }) => Some(if torch.is_none() { 2 } else { 1 }),
                Some(X::EndTurn) => Some(0),
                _ => None,
            }),
            Step::Finish => legal.contains(&X::EndTurn.id()).then_some(X::EndTurn.id()),
            Step::Over => None,
        };
        choice.unwrap_or_else(|| pick(legal, rng))
    }
}
