//! The worker pool every series of games runs on (`arena play --jobs`, `arena compare`, the
//! tournament): workers take the next index in turn, and the calling thread receives each
//! result, in index order or as it arrives.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

/// The order results reach the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Strictly by index (what a seed decides does not depend on the number of workers).
    Index,
    /// As they are done.
    Arrival,
}

/// What the caller wants after a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Start no further work (work in flight finishes and is dropped).
    Stop,
}

/// Run `work(i)` for every `i` in `0..total` on `workers` threads (on the calling thread alone
/// with one) and hand each result to `emit` on the calling thread, in `order`. A failed
/// `work(i)` is returned as the error (with [`Order::Index`], in its turn: every result before
/// it is emitted first); so is an error of `emit`. Either, or [`Flow::Stop`], stops handing out
/// work.
pub fn run<T: Send>(
    workers: usize,
    total: u64,
    order: Order,
    work: impl Fn(u64) -> Result<T, String> + Sync,
    mut emit: impl FnMut(u64, T) -> Result<Flow, String>,
) -> Result<(), String> {
    let workers = (workers.max(1) as u64).min(total.max(1));
    if workers == 1 {
        for i in 0..total {
            if emit(i, work(i)?)? == Flow::Stop {
                break;
            }
        }
        return Ok(());
    }
    let next = AtomicU64::new(0);
    let (tx, rx) = mpsc::channel::<(u64, Result<T, String>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (tx, next, work) = (tx.clone(), &next, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let r = work(i);
                    // After a failure no work starts: the failure is reported in its turn.
                    if r.is_err() {
                        next.store(total, Ordering::Relaxed);
                    }
                    if tx.send((i, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let stop = || next.store(total, Ordering::Relaxed);
        let mut waiting = BTreeMap::new();
        let mut due = 0;
        for (i, r) in rx {
            waiting.insert(i, r);
            // Every result that may go out now: the one that came (arrival order), or all
            // those next in line (index order).
            while let Some((i, r)) = match order {
                Order::Arrival => waiting.pop_first(),
                Order::Index => waiting.remove(&due).map(|r| (due, r)),
            } {
                due = i + 1;
                let flow = r.and_then(|t| emit(i, t)).inspect_err(|_| stop())?;
                if flow == Flow::Stop {
                    stop();
                    return Ok(());
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_index_order_whatever_the_workers() {
        for workers in [1, 2, 5] {
            let mut seen = Vec::new();
            run(
                workers,
                40,
                Order::Index,
                |i| Ok(i * i),
                |i, v| {
                    seen.push((i, v));
                    Ok(Flow::Continue)
                },
            )
            .unwrap();
            assert_eq!(seen, (0..40).map(|i| (i, i * i)).collect::<Vec<_>>(), "{workers} workers");
        }
    }

    #[test]
    fn arrival_order_gives_every_result_once() {
        let mut seen = Vec::new();
        run(3, 50, Order::Arrival, Ok, |i, v| {
            assert_eq!(i, v);
            seen.push(i);
            Ok(Flow::Continue)
        })
        .unwrap();
        seen.sort();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn a_failure_is_reported_in_its_turn_and_stops_the_work() {
        for workers in [1, 3] {
            let mut seen = Vec::new();
            let started = AtomicU64::new(0);
            let r = run(
                workers,
                1000,
                Order::Index,
                |i| {
                    started.fetch_add(1, Ordering::Relaxed);
                    if i == 7 { Err(format!("unit {i} failed")) } else { Ok(i) }
                },
                |i, _| {
                    seen.push(i);
                    Ok(Flow::Continue)
                },
            );
            assert_eq!(r, Err("unit 7 failed".into()));
            assert_eq!(seen, (0..7).collect::<Vec<_>>(), "{workers} workers");
            assert!(started.load(Ordering::Relaxed) < 1000, "work went on after the failure");
        }
    }

    #[test]
    fn stop_and_emit_errors_end_the_run() {
        for workers in [1, 2] {
            let mut seen = 0;
            run(workers, 1000, Order::Index, Ok, |i, _| {
                seen += 1;
                Ok(if i == 4 { Flow::Stop } else { Flow::Continue })
            })
            .unwrap();
            assert_eq!(seen, 5);
            let r = run(workers, 1000, Order::Arrival, Ok, |_, _| Err::<Flow, _>("cannot write".to_string()));
            assert_eq!(r, Err("cannot write".into()));
        }
    }
}
