//! The deadline keeper: a thread of its own that answers a request whose deadline has passed
//! while the driver cannot, because the page is inside one long unit of work (a unit runs
//! whole: nothing else of the page runs in the middle of one, and the driver owns the page).
//!
//! Every request with a deadline is registered with the keeper as it arrives (before the
//! driver, busy or not, reads it), with an answer that needs nothing of the page (the request
//! timed out while the page was busy) and the slot its answer goes to. The driver answers
//! first whenever it can (its own answer says more); the keeper answers [`GRACE`] after the
//! deadline only what is still unanswered then. What the deadline does to the page (the call's
//! signal aborted, the observation abandoned) waits for the driver, between units, as
//! everything done to the page does.

use std::collections::BTreeMap;
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
        let spawned = std::thread::Builder::new()
            .name("webmcp-ref deadlines".into())
            .spawn(move || keep(&theirs));
        if let Err(e) = spawned {
            // The driver still answers every deadline between units.
            eprintln!("webmcp-ref serve: the deadline keeper could not start: {e}");
        }
        Keeper { shared }
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

fn keep(shared: &(Mutex<Pending>, Condvar)) {
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
