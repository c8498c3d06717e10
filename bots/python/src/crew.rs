//! A crew of threads that steps a batch's games with the caller: the caller opens a pass,
//! every member (the caller too) takes games a few at a time until none are left, and the
//! caller returns once every member that joined has finished.
//!
//! Why not rayon's pool: a batch's pass is short (a tenth of a millisecond for 256 games) and
//! comes again as soon as the learner's policy has chosen. A rayon worker that finds no work
//! sleeps after some thirty yields, and waking it costs more than the pass it then helps with
//! (on two cores, rayon's two threads stepped 256 games of expedition no faster than one).
//! A crew member waits for the next pass spinning, then yielding, for a while ([`LINGER`])
//! before it sleeps; a pass wakes the sleepers, and does not wait for them: the caller works
//! from the start, and a member that arrives late takes what is left, or nothing.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a member waits for the next pass before it sleeps (spinning, then yielding the
/// core to anyone else who wants it): longer than a learner's policy takes between two steps,
/// mostly, and short enough that an idle batch gives its cores back at once.
const LINGER: Duration = Duration::from_millis(2);

/// Spins before a waiting member starts to yield.
const SPINS: u32 = 2_000;

/// One pass: the items and what to do with each, on the caller's stack.
struct Pass<'a> {
    run: &'a (dyn Fn(usize) + Sync),
    count: usize,
    /// Items are taken this many at a time.
    chunk: usize,
    next: AtomicUsize,
    /// A member's work panicked (the caller panics in turn).
    panicked: AtomicBool,
}

impl Pass<'_> {
    /// Take items until none are left.
    fn work(&self) {
        loop {
            let start = self.next.fetch_add(self.chunk, SeqCst);
            if start >= self.count {
                return;
            }
            for i in start..(start + self.chunk).min(self.count) {
                (self.run)(i);
            }
        }
    }
}

/// What the caller and the members share.
struct Shared {
    /// The open pass (null: none). A member reads it only after counting itself in `active`,
    /// and the caller closes the pass (null) before it waits for `active` to fall to zero: so
    /// no member holds a pass that has returned.
    pass: AtomicPtr<Pass<'static>>,
    active: AtomicUsize,
    /// Counts the passes opened: a member waits for it to change.
    opened: AtomicU64,
    stop: AtomicBool,
}

/// The caller and `size - 1` threads.
pub struct Crew {
    shared: Arc<Shared>,
    members: Vec<JoinHandle<()>>,
    /// One pass at a time (batches stepped from two Python threads take turns).
    gate: Mutex<()>,
}

impl Crew {
    /// A crew of `size` (the caller counts as one: `size - 1` threads are started).
    pub fn new(size: usize) -> std::io::Result<Crew> {
        let shared = Arc::new(Shared {
            pass: AtomicPtr::new(std::ptr::null_mut()),
            active: AtomicUsize::new(0),
            opened: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        let members = (1..size.max(1))
            .map(|i| {
                let shared = shared.clone();
                thread::Builder::new().name(format!("batch-{i}")).spawn(move || member(&shared))
            })
            .collect::<Result<_, _>>()?;
        Ok(Crew { shared, members, gate: Mutex::new(()) })
    }

    /// The caller and the threads.
    pub fn size(&self) -> usize {
        self.members.len() + 1
    }

    /// `f(i, &mut items[i])` for every item, each once, across the crew.
    pub fn for_each<T: Send>(&self, items: &mut [T], chunk: usize, f: impl Fn(usize, &mut T) + Sync) {
        let base = Items(items.as_mut_ptr());
        let run = |i: usize| {
            let base = &base;
            // SAFETY: `i < items.len()`, and a pass hands out each index once (`Pass::work`
            // takes them from one counter): no two threads hold the same item; `items` is
            // borrowed mutably for as long as the pass runs, which returns before this does.
            f(i, unsafe { &mut *base.0.add(i) })
        };
        self.run(items.len(), chunk, &run);
    }

    fn run(&self, count: usize, chunk: usize, run: &(dyn Fn(usize) + Sync)) {
        let pass =
            Pass { run, count, chunk: chunk.max(1), next: AtomicUsize::new(0), panicked: AtomicBool::new(false) };
        let _turn = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        let shared = &*self.shared;
        if !self.members.is_empty() {
            // SAFETY (of the lifetime erased): the pass is closed and every member that took
            // it has let go of it before this function returns (below).
            let erased = (&pass as *const Pass<'_>).cast::<Pass<'static>>().cast_mut();
            shared.pass.store(erased, SeqCst);
            shared.opened.fetch_add(1, SeqCst);
            for m in &self.members {
                m.thread().unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| pass.work()));
        shared.pass.store(std::ptr::null_mut(), SeqCst);
        // The members still on their last items: spinning a little, then yielding the core (a
        // member the system has paused, on a busy machine, needs one to finish on).
        let mut spins = 0u32;
        while shared.active.load(SeqCst) != 0 {
            back_off(&mut spins);
        }
        if let Err(panic) = mine {
            std::panic::resume_unwind(panic);
        }
        assert!(!pass.panicked.load(SeqCst), "a batch thread panicked stepping a game");
    }
}

/// One round of a wait: a spin while `spins` is below [`SPINS`] (counting it), then a yield of
/// the core to anyone else who wants it.
fn back_off(spins: &mut u32) {
    if *spins < SPINS {
        *spins += 1;
        std::hint::spin_loop();
    } else {
        thread::yield_now();
    }
}

/// A member's life: wait for a pass, join it, work, and again, until the crew is dropped.
fn member(shared: &Shared) {
    let mut seen = shared.opened.load(SeqCst);
    loop {
        let since = Instant::now();
        let mut spins = 0u32;
        loop {
            if shared.stop.load(SeqCst) {
                return;
            }
            let opened = shared.opened.load(SeqCst);
            if opened != seen {
                seen = opened;
                break;
            }
            if since.elapsed() < LINGER {
                back_off(&mut spins);
            } else {
                // Woken by the next pass (`unpark` after `opened` changes), or by the crew's
                // end; the timeout is a guard only.
                thread::park_timeout(Duration::from_millis(100));
            }
        }
        shared.active.fetch_add(1, SeqCst);
        let pass = shared.pass.load(SeqCst);
        if !pass.is_null() {
            // SAFETY: counted in `active` before reading `pass`, and `pass` not yet closed:
            // the caller waits for this member to leave before the pass goes out of scope.
            let pass = unsafe { &*pass };
            if catch_unwind(AssertUnwindSafe(|| pass.work())).is_err() {
                pass.panicked.store(true, SeqCst);
            }
        }
        shared.active.fetch_sub(1, SeqCst);
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.shared.stop.store(true, SeqCst);
        for m in self.members.drain(..) {
            m.thread().unpark();
            let _ = m.join();
        }
    }
}

/// The items' pointer, shared by the crew for one pass (see [`Crew::for_each`]).
struct Items<T>(*mut T);

// SAFETY: the crew hands each item to one thread at a time; items are `Send`.
unsafe impl<T: Send> Sync for Items<T> {}
