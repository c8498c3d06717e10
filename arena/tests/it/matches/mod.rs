//! Matches on a server under test, through the contract's client.

use proto::v1;
use proto::v1::matches_client::MatchesClient;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// The record of match `id` once it has ended, asked for until then; a match still in play
/// after `within` fails the test.
pub async fn wait_record(m: &mut MatchesClient<Channel>, id: &str, within: Duration) -> v1::MatchRecord {
    let start = Instant::now();
    loop {
        match m.get_record(v1::GetRecordRequest { match_id: id.into() }).await {
            Ok(r) => return r.into_inner(),
            Err(e) if e.code() == tonic::Code::FailedPrecondition => {}
            Err(e) => panic!("{e:?}"),
        }
        assert!(start.elapsed() < within, "match {id} did not end");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
