//! A tournament's games shown on a server as they are played (`arena tournament --http`), over
//! real gRPC: each is the game the tournament logged, move for move; a deal played at several
//! tables shows nothing of one until every one is over when strangers sit at them.

use crate::scratch;
use arena::server::table::SharedDeal;
use arena::server::{Hub, Running, ServerConfig};
use arena::tournament::live::Shown;
use arena::tournament::run::{RunOptions, Showcase};
use arena::tournament::{self, Tournament, external};
use engine::core::Seat;
use proto::v1;
use std::sync::Arc;
use std::time::Duration;

fn no_files(name: &str) -> Result<String, String> {
    Err(format!("no file {name} here"))
}

const TOURNAMENT: &str = "name: shown
seed: 5
games_per_pairing: 4
participants:
  - { name: random, bot: random }
  - { name: rules, bot: rules }
games:
  - { game: expedition, preset: no-dice, params: { players: 2 } }
  - { game: journey, preset: classic }
";

async fn matches(url: &str) -> v1::matches_client::MatchesClient<tonic::transport::Channel> {
    v1::matches_client::MatchesClient::new(arena::client::connect(url).await.unwrap())
}

/// A match's public events, read to its end.
async fn spectated(url: &str, id: &str) -> Vec<v1::match_event::Event> {
    let mut stream = matches(url)
        .await
        .spectate(v1::SpectateRequest { match_id: id.into(), from_version: 0, with_table: false })
        .await
        .unwrap();
    let mut events = Vec::new();
    while let Some(e) = stream.get_mut().message().await.unwrap() {
        events.push(e.event.unwrap());
    }
    events
}

/// A runtime, and a server on an ephemeral port of 127.0.0.1 in it.
fn serving() -> (tokio::runtime::Runtime, Running) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let server = rt.block_on(arena::server::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())).unwrap();
    (rt, server)
}

fn finished(hub: &Hub) -> Vec<Arc<arena::server::table::Table>> {
    hub.recently_finished(1000)
}

#[test]
fn every_game_of_a_tournament_of_built_in_agents_is_shown_as_it_was_played() {
    let (rt, server) = serving();
    let (hub, url) = (server.hub.clone(), server.url());
    let t = Tournament::load("t.yaml", TOURNAMENT, &no_files).unwrap();
    let dir = scratch::scratch("shown", "built-in");
    let mut opts = RunOptions::quiet(2, None);
    opts.showcase = Some(Arc::new(Shown::on(hub.clone(), t.has_external())));
    external::with_agents(&t, &dir, &|_| {}, |factory| tournament::start(&t, &dir, None, factory, &opts)).unwrap();
    let logged = tournament::log::read_log(&dir).unwrap().records;
    let shown = finished(&hub);
    assert_eq!((logged.len(), shown.len()), (16, 16), "every game shown, once");
    rt.block_on(async {
        for record in &logged {
            let table = shown
                .iter()
                .find(|t| t.setup.seed == record.game.seed && t.setup.players == record.players)
                .unwrap_or_else(|| panic!("game {} was not shown", record.place().job));
            // Its record is the logged game: the same deal, every action, the same result.
            let got = matches(&url)
                .await
                .get_record(v1::GetRecordRequest { match_id: table.setup.id.clone() })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(got.actions, record.game.actions, "game {}", record.place().job);
            assert_eq!(got.players, record.players);
            // Spectators saw it start, every move, and its end.
            let events = spectated(&url, &table.setup.id).await;
            assert!(matches!(events.first(), Some(v1::match_event::Event::Started(_))));
            let moved: Vec<u32> = events
                .iter()
                .filter_map(|e| match e {
                    v1::match_event::Event::Moved(m) => Some(m.action),
                    _ => None,
                })
                .collect();
            assert_eq!(moved, record.game.actions);
            let Some(v1::match_event::Event::Ended(ended)) = events.last() else { panic!("no end: {events:?}") };
            let ranks: Vec<u32> = record.outcome.result.ranks.iter().map(|&r| u32::from(r)).collect();
            assert_eq!(ended.outcome.as_ref().unwrap().ranks, ranks);
        }
    });
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn with_strangers_at_the_tables_a_deal_shows_nothing_until_all_its_games_are_over() {
    let (rt, server) = serving();
    let (hub, url) = (server.hub.clone(), server.url());
    let t = Tournament::load("t.yaml", TOURNAMENT, &no_files).unwrap();
    // The two games of the first expedition deal, seats swapped.
    let jobs: Vec<_> = t.jobs.iter().filter(|j| j.group == 0 && j.deal == 0).cloned().collect();
    assert_eq!(jobs.len(), 2);
    let game = &t.games[0];
    let shown = Shown::on(hub.clone(), true);
    shown.scheduled(&jobs);
    let names = t.names();
    let play = |job: &tournament::schedule::Job| {
        let players: Vec<String> = job.seats.iter().map(|&p| names[p].clone()).collect();
        let mut g = game.spec.new_game(job.seed);
        let mut shown_game = shown.begin(job, game, &players, g.as_ref());
        let mut legal = Vec::new();
        let mut moves = 0usize;
        while let Some(seat) = g.to_move() {
            legal.clear();
            g.legal_actions(&mut legal);
            let action = legal[moves * 7 % legal.len()];
            moves += 1;
            shown_game.moved(Seat(seat.0), action);
            g.apply(action).unwrap();
        }
        shown_game.ended(&arena::referee::Referee::outcome(g.as_ref(), None), &[]);
    };
    play(&jobs[0]);
    let first = finished(&hub).pop().expect("the first game is shown");
    rt.block_on(async {
        // Over, but its deal is played at another table: it shows that it started, nothing more.
        let mut stream = matches(&url)
            .await
            .spectate(v1::SpectateRequest { match_id: first.setup.id.clone(), from_version: 0, with_table: true })
            .await
            .unwrap()
            .into_inner();
        let e = stream.message().await.unwrap().unwrap();
        assert!(matches!(e.event, Some(v1::match_event::Event::Started(_))), "{e:?}");
        let more = tokio::time::timeout(Duration::from_millis(300), stream.message()).await;
        assert!(more.is_err(), "a move of a held-back game was shown: {more:?}");
        let refused = matches(&url)
            .await
            .get_record(v1::GetRecordRequest { match_id: first.setup.id.clone() })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), tonic::Code::FailedPrecondition, "{refused:?}");
        assert!(refused.message().contains("its deal is still in play"), "{}", refused.message());
        // The other game of the deal ends: the waiting spectator gets every move, then the end.
        play(&jobs[1]);
        let (mut moves, mut tables) = (0, Vec::new());
        while let Some(e) = tokio::time::timeout(Duration::from_secs(10), stream.message()).await.unwrap().unwrap() {
            match e.event.unwrap() {
                v1::match_event::Event::Moved(_) => moves += 1,
                v1::match_event::Event::Table(_) => tables.push(e.version),
                v1::match_event::Event::Ended(_) => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(moves, first.lock().actions.len());
        // The table (asked for) came with the moves, not before: once, as the game ended.
        assert_eq!(tables, vec![moves as u64]);
        let record = matches(&url)
            .await
            .get_record(v1::GetRecordRequest { match_id: first.setup.id.clone() })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(record.actions, first.lock().actions);
    });
    rt.block_on(server.stop()).unwrap();
}

#[test]
fn a_deal_its_same_agents_play_one_game_after_another_shows_its_moves_live_and_holds_its_record() {
    let (rt, server) = serving();
    let (hub, url) = (server.hub.clone(), server.url());
    let t = Tournament::load("t.yaml", TOURNAMENT, &no_files).unwrap();
    let spec = t.games[0].spec.clone();
    // A ladder's competitive pairing: its records wait for the pairing, its moves do not.
    let deal = SharedDeal::records();
    let shown = arena::server::hub::Shown {
        game: "expedition".into(),
        spec: spec.clone(),
        seed: 8,
        scenario: String::new(),
        players: vec!["a".into(), "b".into()],
        move_time: None,
    };
    let mut g = spec.new_game(8);
    let table = hub.show(shown, g.clone_box(), Some(deal.clone())).unwrap();
    let mut legal = Vec::new();
    while let Some(seat) = g.to_move() {
        legal.clear();
        g.legal_actions(&mut legal);
        table.shown_move(seat.index(), legal[0]).unwrap();
        g.apply(legal[0]).unwrap();
    }
    hub.shown_over(&table, arena::referee::Referee::outcome(g.as_ref(), None), Vec::new());
    rt.block_on(async {
        let events = spectated(&url, &table.setup.id).await;
        let moves = events.iter().filter(|e| matches!(e, v1::match_event::Event::Moved(_))).count();
        assert_eq!(moves, table.lock().actions.len(), "every move shown while the deal is held");
        let get = || async {
            matches(&url).await.get_record(v1::GetRecordRequest { match_id: table.setup.id.clone() }).await
        };
        assert_eq!(get().await.unwrap_err().code(), tonic::Code::FailedPrecondition);
        deal.release();
        assert_eq!(get().await.unwrap().into_inner().actions, table.lock().actions);
    });
    rt.block_on(server.stop()).unwrap();
}
