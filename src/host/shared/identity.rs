//! Which objects are the very same, as the explorer must see it in a scenario that can tell
//! (one that uses `===` or `!==`).
//!
//! Arrays, plain objects, errors and functions are compared by identity there (see
//! `Value::is_strictly_equal`): an error's or a function's is its allocation, an array's or
//! object's the identity all its versions share (see `script::heap`); two names bound to one
//! object share it, and two evaluations of `{}` make two. A world's state hash covers their
//! contents only, so two states that differ only in which names share an object would merge,
//! and `===` could then tell apart two schedules the explorer took for one. The digest numbers
//! each object by where a fixed walk of the state first meets it (so the numbers depend
//! neither on addresses nor on the order the objects were made in) and hashes the whole walk
//! with those numbers: two states get the same digest only when their objects are shared
//! alike. While it runs no remembered hash is used or kept, since a remembered hash stands for
//! contents only.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::Hasher;

thread_local! {
    /// While a digest is taken: each object's number, by address.
    static PLACES: RefCell<Option<HashMap<Place, u64>>> = const { RefCell::new(None) };
}

/// What an object is known by: its allocation (an error, a function), or the identity that
/// all versions of an array or object share (see `Members`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    Address(*const ()),
    Object(u64),
}

/// While a digest is taken, writes the number of the object at `address` (the next one if it
/// is new) into `state`, and says so; otherwise writes nothing.
pub(crate) fn hash_place<T: ?Sized, H: Hasher>(address: *const T, state: &mut H) -> bool {
    write_place(Place::Address(address as *const ()), state)
}

/// [`hash_place`] for an array or object, by its identity.
pub(crate) fn hash_object<H: Hasher>(id: u64, state: &mut H) -> bool {
    write_place(Place::Object(id), state)
}

/// The number an array or object already has in the digest being taken, if any.
pub(crate) fn object_place(id: u64) -> Option<u64> {
    PLACES.with(|p| p.borrow().as_ref()?.get(&Place::Object(id)).copied())
}

fn write_place<H: Hasher>(at: Place, state: &mut H) -> bool {
    match place(at) {
        Some(n) => {
            state.write_u64(n);
            true
        }
        None => false,
    }
}

/// The object's number in the digest being taken (the next one if it is new), or `None`
/// when no digest is being taken.
fn place(at: Place) -> Option<u64> {
    PLACES.with(|p| {
        let mut p = p.borrow_mut();
        let map = p.as_mut()?;
        let next = map.len() as u64;
        Some(*map.entry(at).or_insert(next))
    })
}

/// Whether a digest is being taken (remembered hashes are then neither read nor kept).
pub fn active() -> bool {
    PLACES.with(|p| p.borrow().is_some())
}

/// Runs `walk` (which hashes every value of a state, bypassing every remembered hash) with
/// objects numbered by first sight. The walk holds every object it meets, so no address is
/// reused while it runs.
pub fn digest<R>(walk: impl FnOnce() -> R) -> R {
    struct Reset(Option<HashMap<Place, u64>>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let old = self.0.take();
            PLACES.with(|p| *p.borrow_mut() = old);
        }
    }
    let old = PLACES.with(|p| p.borrow_mut().replace(HashMap::new()));
    let _reset = Reset(old);
    walk()
}
