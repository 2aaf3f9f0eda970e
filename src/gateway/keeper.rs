//! The deadline keeper: a thread of its own that answers a request whose deadline has passed
//! while the driver cannot, because the page is inside one long unit of work (a unit runs
//! whole: nothing else of the page runs in the middle of one, and the driver owns the page).
//!
//! Every request with a deadline is registered with the keeper as it arrives (before the
//! driver, busy or not, reads it), with an answer that needs nothing of the page (the request
//! timed out while the page was busy) and the slot its answer goes to. The driver answers
//! first whenever it can (its own answer says more); the keeper answers [`GRACE`] after the
//! deadline only what is still unanswered then, and only while the driver is inside a unit
//! (between units, a late answer is the driver's: it was only slow to look). What the
//! deadline does to the page (the call's signal aborted, the observation abandoned) waits for
//! the driver, between units, as everything done to the page does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How long after a deadline the keeper answers what the driver has not.
pub const GRACE: Duration = Duration::from_millis(3);

/// Where a request's answer goes: the driver's answer or the keeper's, whichever comes first.
pub(super) struct Slot<T>(Arc<Mutex<Option<oneshot::Sender<T>>>>);

impl<T> Clone for Slot<T> {
    fn clone(&self) -> Self {
        Slot(self.0.clone())
    }
}

impl<T> Slot<T> {
    pub(super) fn new(sender: oneshot::Sender<T>) -> Slot<T> {
        Slot(Arc::new(Mutex::new(Some(sender))))
    }

    /// Answers, unless the request was answered already; true if this answered it.
    pub(super) fn send(&self, value: T) -> bool {
        let sender = self.0.lock().ok().and_then(|mut s| s.take());
        sender.is_some_and(|s| s.send(value).is_ok())
    }
}

/// What the keeper does when a deadline passes unanswered.
type Fire = Box<dyn FnOnce() + Send>;

struct Pending {
    due: BTreeMap<(Instant, u64), Fire>,
    /// Each request's deadline, by its id.
    of_request: std::collections::HashMap<u64, Instant>,
    stop: bool,
}

/// The keeper's handle; the thread stops when it is dropped.
pub(super) struct Keeper {
    shared: Arc<(Mutex<Pending>, Condvar)>,
    /// Whether the driver is inside a unit of the page now. A deadline passed while it is
    /// not is the driver's to answer (it was only late to look: a busy machine), never the
    /// keeper's, whose answer says the page was busy.
    in_unit: Arc<AtomicBool>,
}

impl Keeper {
    pub(super) fn start() -> Keeper {
        let shared = Arc::new((
            Mutex::new(Pending {
                due: BTreeMap::new(),
                of_request: std::collections::HashMap::new(),
                stop: false,
            }),
            Condvar::new(),
        ));
        let theirs = shared.clone();
        let in_unit = Arc::new(AtomicBool::new(false));
        let driver_in_unit = in_unit.clone();
        let spawned = std::thread::Builder::new()
            .name("webmcp-ref deadlines".into())
            .spawn(move || keep(&theirs, &driver_in_unit));
        if let Err(e) = spawned {
            // The driver still answers every deadline between units.
            eprintln!("webmcp-ref serve: the deadline keeper could not start: {e}");
        }
        Keeper { shared, in_unit }
    }

    /// The driver begins (true) or ends (false) a unit of the page.
    pub(super) fn in_unit(&self, inside: bool) {
        self.in_unit.store(inside, Ordering::SeqCst);
    }

    /// Request `id`'s deadline at `due`, and what to answer then.
    pub(super) fn add(&self, id: u64, due: Instant, fire: Fire) {
        let (lock, wake) = &*self.shared;
        if let Ok(mut p) = lock.lock() {
            p.due.insert((due, id), fire);
            p.of_request.insert(id, due);
            wake.notify_one();
        }
    }

    /// The request was answered, cancelled, or its deadline handled by the driver.
    pub(super) fn remove(&self, id: u64) {
        if let Ok(mut p) = self.shared.0.lock() {
            if let Some(due) = p.of_request.remove(&id) {
                p.due.remove(&(due, id));
            }
        }
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        let (lock, wake) = &*self.shared;
        if let Ok(mut p) = lock.lock() {
            p.stop = true;
            wake.notify_one();
        }
    }
}

fn keep(shared: &(Mutex<Pending>, Condvar), in_unit: &AtomicBool) {
    let (lock, wake) = shared;
    let Ok(mut pending) = lock.lock() else {
        return;
    };
    loop {
        if pending.stop {
            return;
        }
        let now = Instant::now();
        let next = pending.due.keys().next().copied();
        match next {
            None => match wake.wait(pending) {
                Ok(p) => pending = p,
                Err(_) => return,
            },
            // The driver is between units: it answers this deadline itself, as soon as it
            // looks; the keeper looks again a grace later.
            Some((due, id)) if due + GRACE <= now && !in_unit.load(Ordering::SeqCst) => {
                if let Some(fire) = pending.due.remove(&(due, id)) {
                    pending.due.insert((now, id), fire);
                    pending.of_request.insert(id, now);
                }
                match wake.wait_timeout(pending, GRACE) {
                    Ok((p, _)) => pending = p,
                    Err(_) => return,
                }
            }
            Some((due, id)) if due + GRACE <= now => {
                let fire = pending.due.remove(&(due, id));
                pending.of_request.remove(&id);
                drop(pending);
                if let Some(fire) = fire {
                    fire();
                }
                pending = match lock.lock() {
                    Ok(p) => p,
                    Err(_) => return,
                };
            }
            Some((due, _)) => match wake.wait_timeout(pending, due + GRACE - now) {
                Ok((p, _)) => pending = p,
                Err(_) => return,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_the_driver_does_not_answer_is_answered_by_the_keeper() {
        let keeper = Keeper::start();
        // Between units, a passed deadline is left to the driver.
        let (tx, mut rx) = oneshot::channel::<&str>();
        let theirs = Slot::new(tx);
        keeper.add(
            0,
            Instant::now(),
            Box::new(move || {
                theirs.send("the keeper's");
            }),
        );
        std::thread::sleep(Duration::from_millis(30));
        assert!(rx.try_recv().is_err(), "not answered between units");
        keeper.remove(0);
        keeper.in_unit(true);
        let (tx, mut rx) = oneshot::channel::<&str>();
        let slot = Slot::new(tx);
        let theirs = slot.clone();
        let due = Instant::now() + Duration::from_millis(20);
        keeper.add(
            1,
            due,
            Box::new(move || {
                theirs.send("the keeper's");
            }),
        );
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(rx.try_recv(), Ok("the keeper's"));
        assert!(!slot.send("the driver's"), "answered once");
        // One the driver answered first stays the driver's.
        let (tx, mut rx) = oneshot::channel::<&str>();
        let slot = Slot::new(tx);
        let theirs = slot.clone();
        keeper.add(
            2,
            Instant::now(),
            Box::new(move || {
                theirs.send("the keeper's");
            }),
        );
        slot.send("the driver's");
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(rx.try_recv(), Ok("the driver's"));
    }
}
