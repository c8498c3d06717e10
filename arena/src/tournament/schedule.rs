//! The schedule: every game of a tournament, a pure function of the tournament file.
//!
//! - A competitive game for `n` seats is played by every set of `n` participants (every
//!   pair, for two players; in a gauntlet, only the sets with a gauntlet participant). Each
//!   deal (seed) is played once per rotation of the set over the seats (`seats: all`: once
//!   per order): two-player games once per seat order, 3–4 player tables rotating over the
//!   same seed. So every pairing gets the same games, and every participant each seat
//!   equally often.
//! - A cooperative game (journey) is played by every participant alone on every deal (as
//!   all the seats of a table): the plays of one deal are compared pairwise.
//! - Deals are shared: deal `k` of a game has the same seed for every pairing and
//!   participant, derived from the master seed, the game's place in the file and `k` — or
//!   given by the game's deals file (a seed, a position, or both), which it then plays alone.
//!
//! Games are listed deal by deal (deal 0 of every game, then deal 1, ...), so a run stopped
//! early, or a shard, covers every game and pairing evenly.

use super::config::{ResolvedGame, SeatOrders};
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
    /// The position it starts from (a deal of a deals file), if not a fresh deal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
}

/// What a schedule follows from, besides the games.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The master seed.
    pub master: u64,
    /// Deals per pairing (for games without a deals file).
    pub deals: u32,
    pub participants: usize,
    /// Only sets with one of these play (empty: every set).
    pub gauntlet: Vec<usize>,
    pub seats: SeatOrders,
}

/// Every order of `set`, or its rotations.
fn orders(set: &[usize], seats: SeatOrders) -> Vec<Vec<usize>> {
    let n = set.len();
    match seats {
        SeatOrders::Rotations => (0..n).map(|r| (0..n).map(|s| set[(s + r) % n]).collect()).collect(),
        SeatOrders::All => {
            let mut out = Vec::new();
            let mut order = set.to_vec();
            permute(&mut order, 0, &mut out);
            out
        }
    }
}

fn permute(v: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
    if k == v.len() {
        out.push(v.clone());
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permute(v, k + 1, out);
        v.swap(k, i);
    }
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
pub fn schedule(plan: &Plan, games: &[ResolvedGame]) -> Vec<Job> {
    let tables: Vec<Vec<Vec<usize>>> = games
        .iter()
        .map(|g| {
            if g.cooperative {
                (0..plan.participants).map(|p| vec![p; g.seats]).collect()
            } else {
                combinations(plan.participants, g.seats)
                    .into_iter()
                    .filter(|set| plan.gauntlet.is_empty() || set.iter().any(|p| plan.gauntlet.contains(p)))
                    .flat_map(|set| orders(&set, plan.seats))
                    .collect()
            }
        })
        .collect();
    let deals_of = |g: &ResolvedGame| g.deals.as_ref().map_or(plan.deals, |d| d.len() as u32);
    let most = games.iter().map(deals_of).max().unwrap_or(0);
    let mut jobs = Vec::new();
    for deal in 0..most {
        for (group, seatings) in tables.iter().enumerate() {
            let game = &games[group];
            if deal >= deals_of(game) {
                continue;
            }
            let given = game.deals.as_ref().map(|d| &d[deal as usize]);
            let seed = given.and_then(|d| d.seed).unwrap_or_else(|| deal_seed(plan.master, group, deal));
            let scenario = given.and_then(|d| d.scenario.clone());
            for seats in seatings {
                jobs.push(Job {
                    id: jobs.len() as u64,
                    group,
                    deal,
                    seed,
                    seats: seats.clone(),
                    scenario: scenario.clone(),
                });
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

    /// What a directory of this shard (or of the whole schedule) plays, in words.
    pub fn name(shard: Option<Shard>) -> String {
        match shard {
            Some(s) => format!("shard {}/{}", s.index, s.count),
            None => "the whole schedule".to_string(),
        }
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

    fn plan(c: &TournamentConfig) -> Plan {
        Plan {
            master: c.seed,
            deals: c.games_per_pairing,
            participants: c.participants.len(),
            gauntlet: c.gauntlet_indices(),
            seats: c.seats,
        }
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
        let jobs = schedule(&plan(&c), &games);
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
        assert_eq!(jobs, schedule(&plan(&c), &games));
        assert_ne!(jobs, schedule(&Plan { master: c.seed + 1, ..plan(&c) }, &games));
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
        let jobs = schedule(&plan(&c), &games);
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
        let jobs = schedule(&plan(&c), &games);
        let shards: Vec<Shard> = (0..4).map(|k| Shard::parse(&format!("{k}/4")).unwrap()).collect();
        for j in &jobs {
            assert_eq!(shards.iter().filter(|s| s.holds(j)).count(), 1);
        }
        assert!(Shard::parse("4/4").is_err() && Shard::parse("1").is_err() && Shard::parse("0/0").is_err());
    }

    #[test]
    fn a_gauntlet_plays_only_its_participants_pairings() {
        let (games, mut c) =
            resolved(4, "[{game: expedition}, {game: expedition, params: {players: 3}}, {game: journey}]");
        c.gauntlet = vec!["p2".into()];
        let jobs = schedule(&plan(&c), &games);
        for j in &jobs {
            if games[j.group].cooperative {
                continue;
            }
            assert!(j.seats.contains(&2), "{j:?}: every competitive game has the gauntlet participant");
        }
        let pairs = jobs.iter().filter(|j| j.group == 0).count();
        assert_eq!(pairs, 3 * 3 * 2, "3 opponents, 3 deals, 2 seat orders");
        let tables = jobs.iter().filter(|j| j.group == 1).count();
        assert_eq!(tables, 3 * 3 * 3, "the 3 sets of 3 with p2, 3 deals, 3 rotations");
        assert_eq!(jobs.iter().filter(|j| j.group == 2).count(), 4 * 3, "every participant plays each journey deal");
    }

    #[test]
    fn all_seat_orders_of_three_players() {
        let (games, mut c) = resolved(3, "[{game: expedition, params: {players: 3}}]");
        c.seats = SeatOrders::All;
        let jobs = schedule(&plan(&c), &games);
        for deal in 0..3 {
            let mut orders: Vec<Vec<usize>> = jobs.iter().filter(|j| j.deal == deal).map(|j| j.seats.clone()).collect();
            orders.sort();
            orders.dedup();
            assert_eq!(orders.len(), 6, "deal {deal}: all 6 orders of 3 players");
        }
    }

    #[test]
    fn a_deals_file_is_played_by_every_pairing() {
        let (mut games, c) = resolved(3, "[{game: journey}, {game: expedition}]");
        let text = "- 17\n- { seed: 5, scenario: { journey: [5♥, 9♠] } }\n- { journey: [K♠] }\n";
        games[0].deals = Some(crate::tournament::config::read_deals("deals.yaml", text).unwrap());
        let jobs = schedule(&plan(&c), &games);
        let journey: Vec<&Job> = jobs.iter().filter(|j| j.group == 0).collect();
        assert_eq!(journey.len(), 3 * 3, "three deals, each played by the three participants");
        assert!(journey.iter().filter(|j| j.deal == 0).all(|j| j.seed == 17 && j.scenario.is_none()));
        assert!(
            journey
                .iter()
                .filter(|j| j.deal == 1)
                .all(|j| j.seed == 5 && j.scenario.as_deref().unwrap().contains("5♥"))
        );
        assert!(journey.iter().filter(|j| j.deal == 2).all(|j| j.scenario.as_deref().unwrap().contains("K♠")));
        assert_eq!(jobs.iter().filter(|j| j.group == 1).count(), 3 * 3 * 2, "the other game as usual");
        assert!(crate::tournament::config::read_deals("d", "- -3\n").unwrap_err().contains("deal 0"));
        assert!(crate::tournament::config::read_deals("d", "[]").unwrap_err().contains("no deals"));
    }
}
