//! Footprints: which objects a unit of work read, wrote or added to, noted as it runs.
//!
//! The explorer opens a recording around each unit ([`record`]); the containers of
//! [`super`] note every access to their objects into it. Outside a recording nothing is
//! noted, and each access costs one relaxed atomic load.
//!
//! The kinds of access ([`Access`]): a read; a write; an addition (to a count, or to an
//! arena's set of keys), which commutes with another addition, a count's noting whether it
//! raised or lowered it; appending to a queue and taking from it, which commute with each
//! other (and appends of equal elements with each other); and a decrease followed by a test
//! of the count for zero. Two footprints conflict when they touch one object with accesses
//! that do not commute ([`Access::conflicts`]).
//!
//! Two more scopes shape a footprint:
//! - [`untracked`]: accesses that keep an index in step with the objects it is derived
//!   from (the unit changed those objects, and that is noted) are not noted;
//! - [`post_check`]: a check that runs after a unit and is a function of the state (a wait's
//!   condition, an invariant) keeps its accesses only when it changed something or read
//!   something the unit itself changed. Otherwise its result is the one it had before the
//!   unit ran, in any order of the units that did not change what it reads (see the
//!   explorer's argument), so it adds nothing to the unit's footprint. For that, a check must
//!   read the same objects whatever their values: it reads everything it may read before it
//!   decides anything (a check that stopped at a value another unit wrote would leave that
//!   unit's write out of the footprint of the unit after it).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a unit did to an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    /// An addition that commutes with other additions (to a set of keys, or to a count in no
    /// one direction).
    Add,
    /// An addition to a count ([`super::Counts`]) that raises it.
    Increase,
    /// An addition to a count that lowers it. A decrease takes away one of the things the
    /// count counts, so two decreases that could both run next find it at 2 at least.
    Decrease,
    /// A decrease followed by a check's test of the same count for zero (see [`post_check`]).
    DecreaseThenTest,
    /// An element appended to the back of a queue, with a hash of its value
    /// ([`super::value_hash`]): appending equal elements commutes (the queue ends the same
    /// either way). Two unequal elements sharing a hash would be taken as equal, as two
    /// states sharing a fingerprint would be merged: a 64-bit hash makes it as unlikely.
    Append(u64),
    /// An element taken out of a queue that was in it before anything was appended while it
    /// could be taken (the unit being taken, or one before it): taking it and appending to
    /// the queue commute.
    Take,
    Write,
}

impl Access {
    /// Both accesses by one unit, as one: it conflicts with whatever either does.
    pub fn join(self, other: Access) -> Access {
        use Access::*;
        match (self, other) {
            (a, b) if a == b => a,
            (Add | Increase | Decrease, Add | Increase | Decrease) => Add,
            (Decrease | DecreaseThenTest, Decrease | DecreaseThenTest) => DecreaseThenTest,
            // Taking from a queue and appending to it, in one unit: its appends are ordered
            // with others' appends and its takes with others' takes.
            _ => Write,
        }
    }

    /// Whether two units' accesses to one object order them.
    ///
    /// Reads commute, and so do additions, whatever their directions. A test for zero
    /// after a decrease commutes with another decrease: both decreases could run next, so the
    /// count is at 2 at least; after either alone it is not zero, and after both it is the
    /// same in either order, so every test for zero reads the same in both orders. It is
    /// dependent with an increase (from 1, the decrease reaches zero only if it comes first)
    /// and with any other addition. Appending to a queue commutes with taking from it what was
    /// there (the queue ends the same and the rest of it keeps its order), and with appending
    /// an equal element; two appends of unequal elements, or two takes, do not.
    pub fn conflicts(self, other: Access) -> bool {
        use Access::*;
        if let (Append(a), Append(b)) = (self, other) {
            return a != b;
        }
        !matches!(
            (self, other),
            (Read, Read)
                | (Add | Increase | Decrease, Add | Increase | Decrease)
                | (Decrease | DecreaseThenTest, Decrease | DecreaseThenTest)
                | (Append(_), Take)
                | (Take, Append(_))
        )
    }
}

/// The objects one unit touched: (object, access), sorted by object, one entry each.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Footprint {
    /// Private: the masks are derived from it.
    accesses: Vec<(u64, Access)>,
    /// Touches everything: a harness action between units, or a unit whose footprint cannot
    /// be told (a trigger of the scenario was waiting on the state).
    pub global: bool,
    /// A quick test before the exact one: which objects it touched, by kind of access.
    masks: Masks,
}

/// One bit per object (a hash of its id, in 64 bits) for each kind of access: two footprints
/// can conflict only where their masks meet in kinds that do not commute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Masks {
    read: u64,
    write: u64,
    /// Additions of every kind, tests after a decrease included.
    add: u64,
    /// Tests after a decrease.
    test: u64,
    queue: u64,
}

impl Masks {
    const ALL: Masks = Masks {
        read: u64::MAX,
        write: u64::MAX,
        add: u64::MAX,
        test: u64::MAX,
        queue: u64::MAX,
    };

    fn of(accesses: &[(u64, Access)]) -> Masks {
        let mut m = Masks::default();
        for (id, a) in accesses {
            let b = bit(*id);
            match a {
                Access::Read => m.read |= b,
                Access::Write => m.write |= b,
                Access::Add | Access::Increase | Access::Decrease => m.add |= b,
                Access::DecreaseThenTest => {
                    m.add |= b;
                    m.test |= b;
                }
                Access::Append(_) | Access::Take => m.queue |= b,
            }
        }
        m
    }

    /// False when no object is touched by both in kinds that could conflict
    /// ([`Access::conflicts`]): a write with anything, a read with an addition or a queue's
    /// change, an addition with a queue's change, a test after a decrease with an addition,
    /// and two queues' changes. (Only additions with additions, tests with decreases, reads
    /// with reads and a queue's appends with its takes commute.)
    fn may_conflict(&self, o: &Masks) -> bool {
        let touched = |m: &Masks| m.read | m.write | m.add | m.queue;
        (self.write & touched(o))
            | (touched(self) & o.write)
            | (self.read & (o.add | o.queue))
            | ((self.add | self.queue) & o.read)
            | (self.add & o.queue)
            | (self.queue & o.add)
            | (self.test & o.add)
            | (self.add & o.test)
            | (self.queue & o.queue)
            != 0
    }
}

/// An object's bit in a footprint's masks.
fn bit(id: u64) -> u64 {
    1 << (id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58)
}

impl Footprint {
    /// A footprint that conflicts with every other.
    pub fn everything() -> Footprint {
        Footprint {
            accesses: Vec::new(),
            global: true,
            masks: Masks::ALL,
        }
    }

    /// The footprint of a scope's notes (left sorted).
    fn from_notes(notes: &mut [(u64, Access)]) -> Footprint {
        notes.sort_unstable_by_key(|(id, _)| *id);
        let distinct = notes.chunk_by(|a, b| a.0 == b.0).count();
        let mut accesses: Vec<(u64, Access)> = Vec::with_capacity(distinct);
        for &(id, a) in notes.iter() {
            match accesses.last_mut() {
                Some((last, b)) if *last == id => *b = b.join(a),
                _ => accesses.push((id, a)),
            }
        }
        let masks = Masks::of(&accesses);
        Footprint {
            accesses,
            global: false,
            masks,
        }
    }

    /// Whether the two units are dependent: one wrote what the other read or wrote.
    pub fn conflicts(&self, other: &Footprint) -> bool {
        if self.global || other.global {
            return true;
        }
        if !self.masks.may_conflict(&other.masks) {
            return false;
        }
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.accesses, &other.accesses);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    if a[i].1.conflicts(b[j].1) {
                        return true;
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        false
    }

    /// The objects it touched and how, sorted by object, one entry each.
    pub fn accesses(&self) -> &[(u64, Access)] {
        &self.accesses
    }

    /// Adds another footprint's accesses to this one.
    pub fn extend(&mut self, other: &Footprint) {
        self.global |= other.global;
        // Both lists are sorted by object, one entry each: merged in one pass.
        let (a, b) = (std::mem::take(&mut self.accesses), &other.accesses);
        let mut merged = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    merged.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    merged.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    merged.push((a[i].0, a[i].1.join(b[j].1)));
                    i += 1;
                    j += 1;
                }
            }
        }
        merged.extend_from_slice(&a[i..]);
        merged.extend_from_slice(&b[j..]);
        self.masks = if self.global {
            Masks::ALL
        } else {
            Masks::of(&merged)
        };
        self.accesses = merged;
    }

    /// How many bytes it holds.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Footprint>()
            + self.accesses.capacity() * std::mem::size_of::<(u64, Access)>()
    }
}

/// How many threads are recording now: the one check an access makes when none is.
static RECORDING: AtomicUsize = AtomicUsize::new(0);

/// The accesses noted in one scope, in the order they came, and the mask of the objects
/// among them accessed other than by reading (a quick test for a check after the unit).
#[derive(Default)]
struct Notes {
    notes: Vec<(u64, Access)>,
    changed: u64,
    /// The notes joined by object, up to the count it gives: built by the first check after
    /// a unit of many notes, and brought up to date by each check after it.
    index: Option<(usize, HashMap<u64, Access>)>,
}

thread_local! {
    /// Open scopes, innermost last: `Some` notes, `None` is an untracked scope.
    static SCOPES: RefCell<Vec<Option<Notes>>> = const { RefCell::new(Vec::new()) };
    /// Buffers of closed scopes, kept for the next ones (a unit opens a scope, and each of
    /// the checks after it another).
    static BUFFERS: RefCell<Vec<Vec<(u64, Access)>>> = const { RefCell::new(Vec::new()) };
}

/// An empty scope, with a buffer of an earlier one.
fn open_scope() -> Notes {
    Notes {
        notes: BUFFERS.with(|b| b.borrow_mut().pop()).unwrap_or_default(),
        changed: 0,
        index: None,
    }
}

/// Keeps a closed scope's buffer for a later one.
fn give_back(mut notes: Vec<(u64, Access)>) {
    notes.clear();
    BUFFERS.with(|b| {
        let mut b = b.borrow_mut();
        if b.len() < 16 {
            b.push(notes);
        }
    });
}

/// Notes an access to an object, if this thread is recording.
#[inline]
pub fn note(id: u64, access: Access) {
    if RECORDING.load(Ordering::Relaxed) != 0 {
        note_slow(id, access);
    }
}

#[cold]
fn note_slow(id: u64, access: Access) {
    SCOPES.with(|s| {
        if let Some(Some(top)) = s.borrow_mut().last_mut() {
            top.notes.push((id, access));
            if access != Access::Read {
                top.changed |= bit(id);
            }
        }
    });
}

/// Whether this thread is recording a footprint now.
pub fn recording() -> bool {
    RECORDING.load(Ordering::Relaxed) != 0
        && SCOPES.with(|s| matches!(s.borrow().last(), Some(Some(_))))
}

/// Runs `f`, recording the footprint of what it does.
pub fn record<R>(f: impl FnOnce() -> R) -> (R, Footprint) {
    struct Close;
    impl Drop for Close {
        fn drop(&mut self) {
            RECORDING.fetch_sub(1, Ordering::Relaxed);
        }
    }
    RECORDING.fetch_add(1, Ordering::Relaxed);
    let _close = Close;
    SCOPES.with(|s| s.borrow_mut().push(Some(open_scope())));
    let r = f();
    let mut notes = SCOPES
        .with(|s| s.borrow_mut().pop())
        .flatten()
        .unwrap_or_default()
        .notes;
    let footprint = Footprint::from_notes(&mut notes);
    give_back(notes);
    (r, footprint)
}

/// Runs `f` without noting its accesses.
pub fn untracked<R>(f: impl FnOnce() -> R) -> R {
    if RECORDING.load(Ordering::Relaxed) == 0 {
        return f();
    }
    SCOPES.with(|s| s.borrow_mut().push(None));
    let r = f();
    SCOPES.with(|s| s.borrow_mut().pop());
    r
}

/// The most notes of a unit [`post_check`] scans for each object a check read.
const SCAN_AT_MOST: usize = 32;

/// Runs a check after a unit (see the module's comment): its accesses join the unit's only
/// when it wrote something or read something the unit changed. An increase of a count is
/// not such a change: a test for zero after it is false, in every order, and a check acts
/// only when its tests for zero hold. A test for zero of a count the unit decreased joins as
/// [`Access::DecreaseThenTest`].
pub fn post_check<R>(f: impl FnOnce() -> R) -> R {
    if !recording() {
        return f();
    }
    SCOPES.with(|s| s.borrow_mut().push(Some(open_scope())));
    let r = f();
    let spent = SCOPES.with(|s| {
        let mut s = s.borrow_mut();
        let Notes {
            notes: mut check,
            changed: check_changed,
            ..
        } = s.pop().flatten().unwrap_or_default();
        let Some(Some(Notes {
            notes: unit,
            changed,
            index,
        })) = s.last_mut()
        else {
            return check;
        };
        // The common case, told from the masks alone: the check only read, and nothing it
        // read was changed by the unit.
        if check_changed == 0 && check.iter().all(|(id, _)| *changed & bit(*id) == 0) {
            return check;
        }
        // What the unit did to one object, joined. A unit of a few notes is scanned for each
        // object the check read; a longer one is joined by object once, and the index kept
        // for the next checks after the same unit (a check of every document after a unit
        // that touched them all costs what the two hold, not their product).
        let did: Vec<Option<Access>> = if unit.len() <= SCAN_AT_MOST {
            check
                .iter()
                .map(|(id, _)| {
                    unit.iter()
                        .filter(|(i, _)| i == id)
                        .map(|(_, a)| *a)
                        .reduce(Access::join)
                })
                .collect()
        } else {
            let (upto, by_object) = index.get_or_insert_with(|| (0, HashMap::new()));
            for (id, a) in &unit[*upto..] {
                by_object
                    .entry(*id)
                    .and_modify(|d| *d = d.join(*a))
                    .or_insert(*a);
            }
            *upto = unit.len();
            check
                .iter()
                .map(|(id, _)| by_object.get(id).copied())
                .collect()
        };
        let wrote = check.iter().any(|(_, a)| *a != Access::Read);
        let keep = wrote
            || did
                .iter()
                .any(|d| !matches!(d, None | Some(Access::Read | Access::Increase)));
        if keep {
            for ((id, a), d) in check.drain(..).zip(did) {
                let a = match (a, d) {
                    (Access::Read, Some(Access::Decrease | Access::DecreaseThenTest)) => {
                        Access::DecreaseThenTest
                    }
                    _ => a,
                };
                unit.push((id, a));
                if a != Access::Read {
                    *changed |= bit(id);
                }
            }
        }
        check
    });
    give_back(spent);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The masks are a quick test before the exact one: they must never say "no conflict"
    /// where the accesses conflict, for any two kinds on one object.
    /// Every kind of access (two appends of different elements).
    const KINDS: [Access; 9] = {
        use Access::*;
        [
            Read,
            Add,
            Increase,
            Decrease,
            DecreaseThenTest,
            Append(1),
            Append(2),
            Take,
            Write,
        ]
    };

    #[test]
    fn masks_never_hide_a_conflict() {
        use Access::*;
        for a in KINDS {
            for b in KINDS {
                let (fa, fb) = (
                    Footprint::from_notes(&mut [(7, a), (9, Read)]),
                    Footprint::from_notes(&mut [(3, Read), (7, b)]),
                );
                assert_eq!(fa.conflicts(&fb), a.conflicts(b), "{a:?} and {b:?}");
                // Told apart from the masks alone when they touch different objects.
                let fc = Footprint::from_notes(&mut [(8, b)]);
                assert!(!fa.conflicts(&fc), "{a:?} and {b:?} on different objects");
            }
        }
    }

    #[test]
    fn accesses_join_and_conflict_as_documented() {
        let (_, f) = record(|| {
            note(1, Access::Read);
            note(2, Access::Add);
            note(1, Access::Read);
            note(3, Access::Read);
            note(3, Access::Add);
        });
        assert_eq!(
            f.accesses,
            vec![(1, Access::Read), (2, Access::Add), (3, Access::Write)]
        );
        let (_, g) = record(|| {
            note(1, Access::Read);
            note(2, Access::Add);
        });
        assert!(!f.conflicts(&g));
        let (_, h) = record(|| note(2, Access::Read));
        assert!(f.conflicts(&h));
        note(9, Access::Write); // not recording: nothing happens
    }

    #[test]
    fn a_post_check_keeps_its_reads_only_when_they_matter() {
        let (_, f) = record(|| {
            note(1, Access::Write);
            post_check(|| note(2, Access::Read));
            post_check(|| {
                note(1, Access::Read);
                note(4, Access::Read)
            });
            untracked(|| note(5, Access::Write));
        });
        assert_eq!(f.accesses, vec![(1, Access::Write), (4, Access::Read)]);
    }

    #[test]
    fn a_test_for_zero_after_an_increase_is_left_out_and_after_a_decrease_kept() {
        let (_, up) = record(|| {
            note(1, Access::Increase);
            post_check(|| note(1, Access::Read));
        });
        assert_eq!(up.accesses, vec![(1, Access::Increase)]);
        let (_, down) = record(|| {
            note(1, Access::Decrease);
            post_check(|| {
                note(1, Access::Read);
                note(2, Access::Read)
            });
        });
        assert_eq!(
            down.accesses,
            vec![(1, Access::DecreaseThenTest), (2, Access::Read)]
        );
        // Decreases commute with each other, tested or not; a tested one is ordered with an
        // increase, and an increase with a test for zero.
        let (_, other_down) = record(|| note(1, Access::Decrease));
        assert!(!down.conflicts(&other_down) && !down.conflicts(&down));
        assert!(down.conflicts(&up));
        assert!(!up.conflicts(&other_down));
        let (_, test) = record(|| note(1, Access::Read));
        assert!(up.conflicts(&test) && other_down.conflicts(&test));
        // A unit that both raised and lowered a count is an addition in no one direction:
        // a test after it is kept, and then it is a write.
        let (_, both) = record(|| {
            note(1, Access::Increase);
            note(1, Access::Decrease);
            post_check(|| note(1, Access::Read));
        });
        assert_eq!(both.accesses, vec![(1, Access::Write)]);
    }

    #[test]
    fn appending_to_a_queue_commutes_with_taking_from_it_and_with_appending_an_equal_element() {
        let (_, append) = record(|| note(7, Access::Append(1)));
        let (_, same) = record(|| note(7, Access::Append(1)));
        let (_, other) = record(|| note(7, Access::Append(2)));
        assert!(!append.conflicts(&same) && append.conflicts(&other));
        let (_, take) = record(|| note(7, Access::Take));
        let (_, look) = record(|| note(7, Access::Read));
        assert!(!append.conflicts(&take));
        assert!(take.conflicts(&take));
        assert!(append.conflicts(&look) && take.conflicts(&look));
        let (_, both) = record(|| {
            note(7, Access::Take);
            note(7, Access::Append(1))
        });
        assert!(both.conflicts(&append) && both.conflicts(&take));
    }

    #[test]
    fn a_join_conflicts_with_whatever_either_access_conflicts_with() {
        for a in KINDS {
            for b in KINDS {
                let j = a.join(b);
                assert_eq!(j, b.join(a));
                assert_eq!(a.conflicts(b), b.conflicts(a));
                for c in KINDS {
                    if a.conflicts(c) || b.conflicts(c) {
                        assert!(j.conflicts(c), "{a:?} joined with {b:?} is {j:?}");
                    }
                }
            }
        }
    }
}
