//! The standings as the wire and the web face show them, for a standing ladder and a
//! tournament alike: a rating list as a `RatingTable` (paged, each row marked), and an agent's
//! rating over time. Below both `ladder` and `tournament`, which import it and not each other's.

use proto::v1;
use reports::ratings::RatingList;

/// What the standings say of each participant (by index) besides its rating.
pub trait Marks {
    /// A built-in agent the ladder keeps.
    fn anchor(&self, _participant: usize) -> bool {
        false
    }
    /// A person (who played on the web face), rated like an agent.
    fn person(&self, _participant: usize) -> bool {
        false
    }
    /// Playing now (connected, or an anchor).
    fn connected(&self, _participant: usize) -> bool {
        false
    }
    /// Ranked; `false` for an agent still provisional (listed apart).
    fn established(&self, _participant: usize) -> bool {
        true
    }
    /// A provisional agent's results against established agents so far.
    fn qualifying(&self, _participant: usize) -> u32 {
        0
    }
    /// Why and until when it is rested, if it is.
    fn rested(&self, _participant: usize) -> String {
        String::new()
    }
}

/// No marks: everyone ranked, no anchor, nobody connected (a tournament's standings).
pub struct NoMarks;
impl Marks for NoMarks {}

/// Which rows of each list: of the agents whose name holds `search` (any, when empty; letters
/// of either case alike), from the `offset`-th on (0 the first), at most `limit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    pub offset: usize,
    pub limit: usize,
    /// Lower case.
    pub search: String,
}

impl Page {
    /// Rows a page holds when the request names no limit, and at most.
    pub const DEFAULT_LIMIT: usize = 50;
    pub const MAX_LIMIT: usize = 500;
    /// The longest search, in bytes.
    pub const MAX_SEARCH: usize = 64;
    /// Every row.
    pub const ALL: Page = Page { offset: 0, limit: usize::MAX, search: String::new() };

    /// The page a request asks for, or why there is none.
    pub fn of(req: &v1::StandingsRequest) -> Result<Page, String> {
        let limit = match req.limit {
            0 => Page::DEFAULT_LIMIT,
            n => (n as usize).min(Page::MAX_LIMIT),
        };
        if req.search.len() > Page::MAX_SEARCH {
            return Err(format!(
                "search: {} bytes, at most {} are taken (a part of an agent's name)",
                req.search.len(),
                Page::MAX_SEARCH
            ));
        }
        Ok(Page { offset: req.offset as usize, limit, search: req.search.to_lowercase() })
    }

    /// Does the page list the agent named `name`?
    fn lists(&self, name: &str) -> bool {
        self.search.is_empty() || name.to_lowercase().contains(&self.search)
    }
}

/// A rating list as the wire has it: the page `page` of its ranked agents (the established;
/// ranks count them alone) and of its provisional ones, as `marks` tell them apart. Of those
/// without a rating, it lists the ones that are playing (connected or anchors) and the ones
/// kept out of the rated pool; an agent gone before its first rated result is left out.
pub fn rating_table(label: &str, list: &RatingList, marks: &dyn Marks, page: &Page) -> v1::RatingTable {
    let row = |e: &reports::ratings::Rated, rank: u32| {
        let (lower, upper) = e.interval.unwrap_or((e.rating, e.rating));
        v1::RatingRow {
            rank,
            agent: e.name.clone(),
            rating: e.rating,
            lower,
            upper,
            results: e.games,
            score: e.score,
            anchor: marks.anchor(e.participant),
            connected: marks.connected(e.participant),
            bound: e.bound.map(|b| b.label().to_string()).unwrap_or_default(),
            qualifying: if rank == 0 { marks.qualifying(e.participant) } else { 0 },
            rested: marks.rested(e.participant),
            person: marks.person(e.participant),
        }
    };
    let (ranked, provisional): (Vec<_>, Vec<_>) = list.entries.iter().partition(|e| marks.established(e.participant));
    // Each with its rank in the whole list, then those the search keeps.
    fn matching<'a>(all: Vec<&'a reports::ratings::Rated>, page: &Page) -> Vec<(usize, &'a reports::ratings::Rated)> {
        all.into_iter().enumerate().filter(|(_, e)| page.lists(&e.name)).collect()
    }
    let (ranked, provisional) = (matching(ranked, page), matching(provisional, page));
    let page_of = |all: &[(usize, &reports::ratings::Rated)], ranked: bool| -> Vec<v1::RatingRow> {
        all.iter()
            .skip(page.offset)
            .take(page.limit)
            .map(|&(k, e)| row(e, if ranked { k as u32 + 1 } else { 0 }))
            .collect()
    };
    v1::RatingTable {
        label: label.to_string(),
        rows: page_of(&ranked, true),
        unrated: list
            .unrated
            .iter()
            .map(|u| v1::UnratedRow {
                agent: u.name.clone(),
                reason: u.reason.clone(),
                anchor: marks.anchor(u.participant),
                connected: marks.connected(u.participant),
            })
            .filter(|u| u.anchor || u.connected || u.reason != reports::ratings::NO_RATED_GAME)
            .filter(|u| page.lists(&u.agent))
            .take(page.limit)
            .collect(),
        provisional: page_of(&provisional, false),
        total: ranked.len() as u32,
        offset: page.offset.min(ranked.len()) as u32,
        provisional_total: provisional.len() as u32,
    }
}

/// One point of an agent's rating over time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistoryPoint {
    pub rated_games: u64,
    pub rating: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Is a rating history point due, `rated` results in, the last noted at `noted`? One each time
/// the results have grown by 2% (at least 20): enough to draw, bounded over a ladder's life
/// (some 500 points per million results).
pub fn history_due(noted: u64, rated: u64) -> bool {
    rated >= noted + (noted / 50).max(20)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reports::ratings::{Pairwise, RatedGame, RatingOptions, rate};

    /// Anchor 3, connected 2, provisional 1 (with 4 qualifying results).
    struct Test;
    impl Marks for Test {
        fn anchor(&self, p: usize) -> bool {
            p == 3
        }
        fn connected(&self, p: usize) -> bool {
            p == 2 || p == 3
        }
        fn established(&self, p: usize) -> bool {
            p != 1
        }
        fn qualifying(&self, p: usize) -> u32 {
            if p == 1 { 4 } else { 0 }
        }
    }

    fn games(pairs: &[(usize, usize)]) -> Vec<RatedGame> {
        (0..12)
            .map(|i| {
                let (a, b) = pairs[i % pairs.len()];
                RatedGame {
                    group: 0,
                    unit: i as u64,
                    results: vec![Pairwise { a, b, score: (i % 2) as f64 }],
                    plays: 1,
                }
            })
            .collect()
    }

    #[test]
    fn agents_without_a_rating_are_listed_while_they_play() {
        // a and b met; c (connected), d (an anchor) and e (gone) have played nothing.
        let names: Vec<String> = ["a", "b", "c", "d", "e"].iter().map(|s| s.to_string()).collect();
        let list = rate(&names, &games(&[(0, 1)]), &RatingOptions { anchor: None, bootstrap: 20, seed: 1 });
        let table = rating_table("overall", &list, &NoMarks, &Page::ALL);
        assert_eq!(table.rows.iter().map(|r| r.agent.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        struct Playing;
        impl Marks for Playing {
            fn anchor(&self, p: usize) -> bool {
                p == 3
            }
            fn connected(&self, p: usize) -> bool {
                p == 2
            }
        }
        let table = rating_table("overall", &list, &Playing, &Page::ALL);
        let unrated: Vec<_> =
            table.unrated.iter().map(|u| (u.agent.as_str(), u.reason.as_str(), u.anchor, u.connected)).collect();
        assert_eq!(unrated, [("c", "no rated game", false, true), ("d", "no rated game", true, false)]);
    }

    #[test]
    fn provisional_agents_are_listed_apart_and_pages_are_ranks() {
        let names: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let list = rate(
            &names,
            &games(&[(0, 1), (1, 2), (2, 3), (3, 0)]),
            &RatingOptions { anchor: None, bootstrap: 20, seed: 1 },
        );
        let all = rating_table("overall", &list, &Test, &Page::ALL);
        assert_eq!(all.total, 3);
        assert_eq!(all.rows.iter().map(|r| r.rank).collect::<Vec<_>>(), [1, 2, 3], "ranks count the established");
        assert!(all.rows.iter().all(|r| r.agent != "b"));
        assert_eq!(all.provisional.len(), 1);
        let b = &all.provisional[0];
        assert_eq!((b.agent.as_str(), b.rank, b.qualifying), ("b", 0, 4));
        // The second page of one row: the second rank.
        let page = rating_table("overall", &list, &Test, &Page { offset: 1, limit: 1, search: String::new() });
        assert_eq!((page.rows.len(), page.rows[0].rank, page.offset, page.total), (1, 2, 1, 3));
        assert_eq!(page.rows[0].agent, all.rows[1].agent);
        assert!(page.provisional.is_empty(), "the provisional rows are paged alike");
        assert_eq!(page.provisional_total, 1);
        // Past the end: no rows, the totals told.
        let past = rating_table("overall", &list, &Test, &Page { offset: 9, limit: 5, search: String::new() });
        assert!(past.rows.is_empty() && past.offset == 3 && past.total == 3);
        let asked =
            |offset, limit, search: &str| Page::of(&v1::StandingsRequest { offset, limit, search: search.into() });
        assert_eq!(asked(0, 0, "").unwrap().limit, Page::DEFAULT_LIMIT);
        assert_eq!(asked(7, 100_000, "").unwrap(), Page { offset: 7, limit: 500, search: String::new() });
        // A search keeps the rows whose name holds it, either case, each with its own rank.
        let found = rating_table("overall", &list, &Test, &asked(0, 0, "D").unwrap());
        let named: Vec<_> = found.rows.iter().map(|r| (r.agent.as_str(), r.rank)).collect();
        let d = all.rows.iter().find(|r| r.agent == "d").unwrap().rank;
        assert_eq!((named, found.total, found.provisional_total), (vec![("d", d)], 1, 0));
        let none = rating_table("overall", &list, &Test, &asked(0, 0, "zz").unwrap());
        assert!(none.rows.is_empty() && none.provisional.is_empty() && none.total == 0);
        let long = asked(0, 0, &"x".repeat(65)).unwrap_err();
        assert!(long.contains("search: 65 bytes, at most 64"), "{long}");
    }
}
