//! Who plays whom next: a pure function of who is free, their ratings and how long each has
//! waited, so that every game teaches the standings the most.
//!
//! - The agent picked first is the one whose rating is least known: the widest interval (an
//!   agent with no rating yet: infinitely wide), plus what it has waited (each second waited
//!   counts as [`ELO_PER_SECOND_WAITED`] Elo of width), so nobody free is starved.
//! - Its game entry is the one it has played least, among those with enough free opponents.
//! - Its opponents are the free agents nearest its rating (an agent that has not met it yet
//!   is preferred by [`NEW_OPPONENT_ELO`]); a little noise keeps it from meeting the same
//!   neighbour every time.
//! - A pairing of anchors alone is made only while the focus's interval is wider than the
//!   anchors' target: the built-in agents settle the scale, then wait for visitors.
//! - Two agents of one owner (one client) never meet, and a pairing holds at most one
//!   provisional agent: a new agent is measured against established ones alone, so nobody can
//!   rate their own names up by playing them against each other.

use rand::RngExt;
use rand::rngs::SmallRng;

/// Each second an agent has waited counts as this many Elo of interval width.
pub const ELO_PER_SECOND_WAITED: f64 = 20.0;
/// An opponent not met yet counts this much nearer.
pub const NEW_OPPONENT_ELO: f64 = 50.0;
/// The noise added to rating distances, uniform in `[0, this)` Elo.
pub const NOISE_ELO: f64 = 40.0;

/// An agent that could play now.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub agent: usize,
    /// Pairings it may still start (its limit less those in flight).
    pub free: u32,
    pub anchor: bool,
    /// Its overall rating, and the width of its interval (`f64::INFINITY` when unrated).
    pub rating: f64,
    pub width: f64,
    /// Seconds since it last started a pairing (or joined).
    pub waited: f64,
    /// The game entries it plays (by index into the entries).
    pub plays: Vec<bool>,
    /// Who it belongs to (its client, by a number); none for an anchor.
    pub owner: Option<u32>,
    /// Ranked already (anchors are); a provisional agent meets established ones alone.
    pub established: bool,
}

/// A game entry as matchmaking sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EntryShape {
    pub seats: usize,
    pub cooperative: bool,
}

impl EntryShape {
    /// Agents a pairing of it needs: one per seat, or two plays of one cooperative deal.
    pub fn agents(self) -> usize {
        if self.cooperative { 2 } else { self.seats }
    }
}

/// What has been played so far, as matchmaking needs it.
pub trait History {
    /// Pairings of `agent` in `entry`.
    fn pairings(&self, agent: usize, entry: usize) -> u64;
    /// Have `a` and `b` met?
    fn met(&self, a: usize, b: usize) -> bool;
}

/// The next pairing: its game entry, and its agents (the focus first).
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    pub entry: usize,
    pub agents: Vec<usize>,
}

/// The next pairing among `candidates`, if any can be made; the caller takes a free place
/// from each agent picked and asks again.
pub fn pick(
    candidates: &[Candidate],
    entries: &[EntryShape],
    history: &dyn History,
    anchor_target: f64,
    rng: &mut SmallRng,
) -> Option<Pick> {
    let free: Vec<&Candidate> = candidates.iter().filter(|c| c.free > 0).collect();
    let urgency = |c: &Candidate| c.width + ELO_PER_SECOND_WAITED * c.waited;
    let mut order: Vec<&Candidate> = free.clone();
    order.sort_by(|a, b| urgency(b).total_cmp(&urgency(a)).then(a.agent.cmp(&b.agent)));
    for focus in order {
        // Its entries, least played first, each with the opponents it could have.
        let mut its: Vec<usize> = (0..entries.len()).filter(|&e| focus.plays.get(e) == Some(&true)).collect();
        its.sort_by_key(|&e| (history.pairings(focus.agent, e), e));
        for e in its {
            let shape = entries[e];
            let mut others: Vec<(f64, &Candidate)> = free
                .iter()
                .filter(|c| c.agent != focus.agent && c.plays.get(e) == Some(&true))
                // Anchors alone meet only to settle the scale.
                .filter(|c| !(focus.anchor && c.anchor) || focus.width > anchor_target)
                .map(|c| {
                    let known = if c.rating.is_finite() && focus.rating.is_finite() {
                        (c.rating - focus.rating).abs()
                    } else {
                        0.0
                    };
                    let new = if history.met(focus.agent, c.agent) { 0.0 } else { NEW_OPPONENT_ELO };
                    (known - new + rng.random::<f64>() * NOISE_ELO, *c)
                })
                .collect();
            let needed = shape.agents() - 1;
            if others.len() < needed {
                continue;
            }
            others.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.agent.cmp(&b.1.agent)));
            let mut chosen = vec![focus];
            for (_, c) in &others {
                if chosen.len() == needed + 1 {
                    break;
                }
                let owned = c.owner.is_some() && chosen.iter().any(|o| o.owner == c.owner);
                let second_provisional = !c.established && chosen.iter().any(|o| !o.established);
                if !owned && !second_provisional {
                    chosen.push(c);
                }
            }
            if chosen.len() < needed + 1 {
                continue;
            }
            return Some(Pick { entry: e, agents: chosen.iter().map(|c| c.agent).collect() });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::collections::{HashMap, HashSet};

    #[derive(Default)]
    struct Played {
        pairings: HashMap<(usize, usize), u64>,
        met: HashSet<(usize, usize)>,
    }

    impl History for Played {
        fn pairings(&self, agent: usize, entry: usize) -> u64 {
            self.pairings.get(&(agent, entry)).copied().unwrap_or(0)
        }
        fn met(&self, a: usize, b: usize) -> bool {
            self.met.contains(&(a.min(b), a.max(b)))
        }
    }

    fn agent(agent: usize, rating: f64, width: f64, anchor: bool) -> Candidate {
        let owner = (!anchor).then_some(agent as u32);
        Candidate {
            agent,
            free: 1,
            anchor,
            rating,
            width,
            waited: 0.0,
            plays: vec![true, true],
            owner,
            established: true,
        }
    }

    const DUEL: [EntryShape; 2] =
        [EntryShape { seats: 2, cooperative: false }, EntryShape { seats: 1, cooperative: true }];

    #[test]
    fn the_least_known_agent_meets_its_nearest_free_neighbour() {
        let mut rng = SmallRng::seed_from_u64(1);
        let c = vec![
            agent(0, 0.0, 30.0, true),
            agent(1, 400.0, 30.0, true),
            agent(2, 390.0, 300.0, false),
            agent(3, -200.0, 50.0, false),
        ];
        let p = pick(&c, &DUEL, &Played::default(), 100.0, &mut rng).unwrap();
        assert_eq!(p.agents, vec![2, 1], "the widest interval first, against the nearest rating");
    }

    #[test]
    fn a_new_agent_is_matched_first_and_waiting_counts() {
        let mut rng = SmallRng::seed_from_u64(2);
        let mut c =
            vec![agent(0, 0.0, 30.0, true), agent(1, 10.0, 500.0, false), agent(2, f64::NAN, f64::INFINITY, false)];
        assert_eq!(pick(&c, &DUEL, &Played::default(), 100.0, &mut rng).unwrap().agents[0], 2);
        // Agent 1 has waited long enough to come before even an unrated one? No: unrated is
        // infinitely urgent; but with it busy, waiting decides between the rest.
        c[2].free = 0;
        c[0].waited = 60.0;
        assert_eq!(pick(&c, &DUEL, &Played::default(), 100.0, &mut rng).unwrap().agents[0], 0);
    }

    #[test]
    fn anchors_alone_meet_only_to_settle_the_scale() {
        let mut rng = SmallRng::seed_from_u64(3);
        let settled = vec![agent(0, 0.0, 60.0, true), agent(1, 100.0, 80.0, true)];
        assert_eq!(pick(&settled, &DUEL, &Played::default(), 100.0, &mut rng), None);
        let unsettled = vec![agent(0, 0.0, 160.0, true), agent(1, 100.0, 80.0, true)];
        assert!(pick(&unsettled, &DUEL, &Played::default(), 100.0, &mut rng).is_some());
    }

    #[test]
    fn the_least_played_entry_with_enough_free_agents() {
        let mut rng = SmallRng::seed_from_u64(4);
        let c = vec![agent(0, 0.0, 500.0, false), agent(1, 0.0, 30.0, false)];
        let mut played = Played::default();
        played.pairings.insert((0, 0), 5);
        assert_eq!(pick(&c, &DUEL, &played, 100.0, &mut rng).unwrap().entry, 1);
        // Four seats, two agents: that entry cannot be made.
        let four = [EntryShape { seats: 4, cooperative: false }, EntryShape { seats: 2, cooperative: false }];
        assert_eq!(pick(&c, &four, &Played::default(), 100.0, &mut rng).unwrap().entry, 1);
        // Nobody free, nothing made.
        let busy: Vec<Candidate> = c
            .iter()
            .cloned()
            .map(|mut a| {
                a.free = 0;
                a
            })
            .collect();
        assert_eq!(pick(&busy, &DUEL, &played, 100.0, &mut rng), None);
    }

    #[test]
    fn one_owners_agents_never_meet_and_a_provisional_agent_meets_established_ones() {
        let mut rng = SmallRng::seed_from_u64(6);
        // 1 and 2 are one client's; 3 is another's, far away in rating; 0 an anchor.
        let mut c = vec![
            agent(0, 900.0, 30.0, true),
            agent(1, 0.0, 500.0, false),
            agent(2, 0.0, 30.0, false),
            agent(3, 400.0, 30.0, false),
        ];
        c[2].owner = c[1].owner;
        for _ in 0..50 {
            let p = pick(&c, &DUEL, &Played::default(), 100.0, &mut rng).unwrap();
            assert_eq!(p.agents[0], 1);
            assert_ne!(p.agents[1], 2, "one owner's agents never meet");
        }
        // Provisional 1 meets neither provisional 3 nor its own 2: only the anchor is left.
        c[1].established = false;
        c[3].established = false;
        for _ in 0..50 {
            assert_eq!(pick(&c, &DUEL, &Played::default(), 100.0, &mut rng).unwrap().agents, vec![1, 0]);
        }
        // At four seats, three of them one client's or provisional: nothing can be made.
        let four = [EntryShape { seats: 4, cooperative: false }];
        let mut c4 = c.clone();
        c4.iter_mut().for_each(|a| a.plays = vec![true]);
        assert_eq!(pick(&c4, &four, &Played::default(), 100.0, &mut rng), None);
        c4[1].established = true;
        c4[2].owner = Some(7);
        let p = pick(&c4, &four, &Played::default(), 100.0, &mut rng).unwrap();
        let mut agents = p.agents.clone();
        agents.sort();
        assert_eq!(agents, vec![0, 1, 2, 3]);
    }

    #[test]
    fn an_agent_plays_only_its_entries() {
        let mut rng = SmallRng::seed_from_u64(5);
        let mut c = vec![agent(0, 0.0, 500.0, false), agent(1, 0.0, 30.0, false)];
        c[1].plays = vec![false, true];
        for _ in 0..20 {
            assert_eq!(pick(&c, &DUEL, &Played::default(), 100.0, &mut rng).unwrap().entry, 1);
        }
    }
}
