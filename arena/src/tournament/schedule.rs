//! The schedule: every game of a tournament, a pure function of the tournament file.
//!
//! - A competitive game for `n` seats is played by every set of `n` participants (every
//!   pair, for two players). Each deal (seed) is played once per rotation of the set over
//!   the seats: two-player games once per seat order, 3–4 player tables rotating over the
//!   same seed. So every pairing gets the same games, and every participant each seat
//!   equally often.
//! - A cooperative game (journey) is played by every participant alone on every deal (as
//!   all the seats of a table): the plays of one deal are compared pairwise.
//! - Deals are shared: deal `k` of a game has the same seed for every pairing and
//!   participant, derived from the master seed, the game's place in the file and `k`.
//!
//! Games are listed deal by deal (deal 0 of every game, then deal 1, ...), so a run stopped
//! early, or a shard, covers every game and pairing evenly.

use super::config::ResolvedGame;
use engine::core::game_seed;
use serde::{Deserialize, Serialize};

/// One game to play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The game's place in the schedule (its id in the log).
    pub id: u64,
    /// The game entry of the tournament file.
    pub group: usize,
    /// The deal, counted within the game entry.
    pub deal: u32,
    /// The seed the deal is dealt from.
    pub seed: u64,
    /// The participant at each seat.
    pub seats: Vec<usize>,
}

/// The seed of deal `deal` of game entry `group`.
pub fn deal_seed(master: u64, group: usize, deal: u32) -> u64 {
    game_seed(game_seed(master, 0x6a09_e667 ^ group as u64), u64::from(deal))
}

/// Every way to choose `k` of `0..n`, in lexicographic order.
pub fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    let mut c: Vec<usize> = (0..k).collect();
    loop {
        out.push(c.clone());
        let Some(i) = (0..k).rev().find(|&i| c[i] < n - k + i) else { return out };
        c[i] += 1;
        for j in i + 1..k {
            c[j] = c[j - 1] + 1;
        }
    }
}

/// The whole schedule of a tournament.
pub fn schedule(master: u64, deals: u32, participants: usize, games: &[ResolvedGame]) -> Vec<Job> {
    let tables: Vec<Vec<Vec<usize>>> = games
        .iter()
        .map(|g| {
            if g.cooperative {
                (0..participants).map(|p| vec![p; g.seats]).collect()
            } else {
                let n = g.seats;
                combinations(participants, n)
                    .into_iter()
                    .flat_map(|set| (0..n).map(move |r| (0..n).map(|s| set[(s + r) % n]).collect::<Vec<_>>()))
                    .collect()
            }
        })
        .collect();
    let mut jobs = Vec::new();
    for deal in 0..deals {
        for (group, seatings) in tables.iter().enumerate() {
            let seed = deal_seed(master, group, deal);
            for seats in seatings {
                jobs.push(Job { id: jobs.len() as u64, group, deal, seed, seats: seats.clone() });
            }
        }
    }
    jobs
}

/// A shard of the schedule: `k` of `n` (0-based) holds the games whose id is `k` modulo `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard expects K/N with 0 ≤ K < N, got `{text}`");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (k.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    pub fn holds(&self, job: &Job) -> bool {
        job.id % u64::from(self.count) == u64::from(self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::config::TournamentConfig;
    use std::collections::BTreeMap;

    fn resolved(participants: usize, games: &str) -> (Vec<ResolvedGame>, TournamentConfig) {
        let mut text = String::from("games_per_pairing: 3\nparticipants:\n");
        for p in 0..participants {
            text += &format!("  - {{ name: p{p}, bot: random }}\n");
        }
        text += &format!("games: {games}\n");
        let c = TournamentConfig::parse("t", &text).unwrap();
        (c.resolve_games(&|_| Err("no files".into())).unwrap(), c)
    }

    #[test]
    fn combinations_are_every_subset_once() {
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(5, 3).len(), 10);
        assert_eq!(combinations(4, 4), vec![vec![0, 1, 2, 3]]);
        assert!(combinations(2, 3).is_empty());
    }

    /// Every pairing plays the same number of games, every member of it each seat equally
    /// often, on the same deals.
    fn check_balance(participants: usize, players: usize) {
        let (games, c) = resolved(participants, &format!("[{{game: expedition, params: {{players: {players}}}}}]"));
        let jobs = schedule(c.seed, c.games_per_pairing, participants, &games);
        let mut per_set: BTreeMap<Vec<usize>, Vec<&Job>> = BTreeMap::new();
        for j in &jobs {
            let mut set = j.seats.clone();
            set.sort_unstable();
            per_set.entry(set).or_default().push(j);
        }
        assert_eq!(per_set.len(), combinations(participants, players).len());
        for (set, js) in &per_set {
            assert_eq!(js.len(), 3 * players, "{set:?}: every deal once per rotation");
            for &p in set {
                for seat in 0..players {
                    let n = js.iter().filter(|j| j.seats[seat] == p).count();
                    assert_eq!(n, 3, "{set:?}: participant {p} at seat {seat}");
                }
            }
            let mut seeds: Vec<u64> = js.iter().map(|j| j.seed).collect();
            seeds.sort_unstable();
            seeds.dedup();
            assert_eq!(seeds.len(), 3, "{set:?}: the same three deals, each once per rotation");
        }
        // Deals are shared by every pairing.
        let all: std::collections::BTreeSet<u64> = jobs.iter().map(|j| j.seed).collect();
        assert_eq!(all.len(), 3);
        // Ids are the places in the schedule, and it is a pure function of the file.
        assert!(jobs.iter().enumerate().all(|(i, j)| j.id == i as u64));
        assert_eq!(jobs, schedule(c.seed, c.games_per_pairing, participants, &games));
        assert_ne!(jobs, schedule(c.seed + 1, c.games_per_pairing, participants, &games));
    }

    #[test]
    fn competitive_tables_are_balanced_for_two_three_and_four_players() {
        check_balance(3, 2);
        check_balance(4, 2);
        check_balance(4, 3);
        check_balance(5, 3);
        check_balance(4, 4);
        check_balance(5, 4);
    }

    #[test]
    fn a_cooperative_deal_is_played_by_every_participant() {
        let (games, c) = resolved(3, "[{game: journey, params: {travellers: 2}}, {game: expedition}]");
        let jobs = schedule(c.seed, c.games_per_pairing, 3, &games);
        let journey: Vec<&Job> = jobs.iter().filter(|j| j.group == 0).collect();
        assert_eq!(journey.len(), 3 * 3, "three deals, three participants");
        for deal in 0..3 {
            let plays: Vec<&&Job> = journey.iter().filter(|j| j.deal == deal).collect();
            let who: Vec<usize> = plays.iter().map(|j| j.seats[0]).collect();
            assert_eq!(who, vec![0, 1, 2]);
            assert!(plays.iter().all(|j| j.seats.len() == 2 && j.seats[0] == j.seats[1]), "one team per play");
            assert!(plays.iter().all(|j| j.seed == plays[0].seed), "the same deal for all");
        }
        // Deal by deal: a prefix of the schedule covers every game entry.
        assert_eq!(jobs[..jobs.len() / 3].iter().map(|j| j.deal).max(), Some(0));
    }

    #[test]
    fn shards_split_the_schedule() {
        let (games, c) = resolved(3, "[{game: expedition}]");
        let jobs = schedule(c.seed, c.games_per_pairing, 3, &games);
        let shards: Vec<Shard> = (0..4).map(|k| Shard::parse(&format!("{k}/4")).unwrap()).collect();
        for j in &jobs {
            assert_eq!(shards.iter().filter(|s| s.holds(j)).count(), 1);
        }
        assert!(Shard::parse("4/4").is_err() && Shard::parse("1").is_err() && Shard::parse("0/0").is_err());
    }
}
