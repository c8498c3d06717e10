//! The threads the server's own bulk work runs on: its agents' thinking (one thread per
//! thinking slot) and a ladder's refits. They run at a lower priority (`nice` 10) than the
//! threads that answer requests and relay moves, so that when every core is busy, a
//! stranger's searches and a refit wait for a Play client's round trip, not the other way
//! round: the kernel gives a thread at nice 10 about a tenth of what one at nice 0 gets when
//! both want the same core, and all of it when the core is free.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// How much lower than the request path bulk work runs (a `nice` value).
pub const BULK_NICE: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

/// A fixed set of threads at the bulk priority, taking jobs in the order given.
pub struct Thinkers {
    jobs: Mutex<mpsc::Sender<Job>>,
}

/// Lower the calling thread's priority by [`BULK_NICE`] below what it was (at most to 19; once
/// lowered, an unprivileged thread cannot raise it again: only threads that do bulk work for
/// good call this).
pub fn lower_this_thread() {
    let nice = (this_threads_nice() + BULK_NICE).min(19);
    // SAFETY: gettid and setpriority have no preconditions; a failure (a system that refuses)
    // leaves the thread at its priority, which costs latency, not correctness.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice);
    }
}

/// The calling thread's `nice` value.
pub fn this_threads_nice() -> i32 {
    // SAFETY: as above; getpriority returns the value (or -1 with errno set, read as is).
    unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
}

impl Thinkers {
    /// `threads` threads (at least one), named `arena-<what>-K`.
    pub fn new(what: &str, threads: usize) -> Result<Arc<Thinkers>, String> {
        let threads = threads.max(1);
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for k in 0..threads {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("arena-{what}-{k}"))
                .spawn(move || {
                    lower_this_thread();
                    loop {
                        let job = match rx.lock().unwrap_or_else(|p| p.into_inner()).recv() {
                            Ok(job) => job,
                            // Every sender gone: the server is gone.
                            Err(_) => return,
                        };
                        // A job that panics loses its answer (its caller hears of it), not the thread.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                })
                .map_err(|e| format!("cannot start a thread for the server's {what}: {e}"))?;
        }
        Ok(Arc::new(Thinkers { jobs: Mutex::new(tx) }))
    }

    /// Run `job` on one of the threads; its result arrives on the receiver (an error if the
    /// job panicked).
    pub fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> tokio::sync::oneshot::Receiver<T> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let boxed: Job = Box::new(move || {
            let _ = tx.send(job());
        });
        // The threads live as long as this (they stop when it is dropped): a send cannot fail
        // while it is alive.
        let _ = self.jobs.lock().unwrap_or_else(|p| p.into_inner()).send(boxed);
        rx
    }
}

/// Run `job` on a thread of its own at the bulk priority (a ladder's refit); its result arrives
/// on the receiver.
pub fn run_apart<T: Send + 'static>(
    what: &str,
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<tokio::sync::oneshot::Receiver<T>, String> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name(format!("arena-{what}"))
        .spawn(move || {
            lower_this_thread();
            let _ = tx.send(job());
        })
        .map_err(|e| format!("cannot start a thread for the {what}: {e}"))?;
    Ok(rx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_run_at_the_bulk_priority_and_a_panic_loses_its_answer_only() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let thinkers = Thinkers::new("test", 2).unwrap();
        let before = this_threads_nice();
        let nice = rt.block_on(thinkers.run(this_threads_nice)).unwrap();
        assert_eq!(nice, (before + BULK_NICE).min(19));
        assert!(rt.block_on(thinkers.run(|| -> u32 { panic!("an agent's bug") })).is_err());
        assert_eq!(rt.block_on(thinkers.run(|| 6 * 7)).unwrap(), 42, "the threads outlive a panic");
        assert_eq!(this_threads_nice(), before, "the caller's priority is its own");
        let apart = rt.block_on(run_apart("refit", this_threads_nice).unwrap()).unwrap();
        assert_eq!(apart, (before + BULK_NICE).min(19));
    }
}
