//! Copy-on-write storage for the world's arenas, so that the explorer's copies of a world
//! share every arena until one copy changes it, and remember each arena's state hash until
//! it changes; the hash a world's state is compared by; and the footprint of a unit of
//! work: which of these objects it read and wrote (see [`footprint`]).
//!
//! Every [`Shared`] value and every element of an [`Arena`] or a [`SecondaryArena`] is an
//! object with an identity of its own. While the explorer records a footprint, reading one
//! (`Deref`, `get`, indexing) notes a read of it and changing one (`DerefMut`, `get_mut`,
//! `insert`, `remove`) notes a write; an arena's set of keys is an object too, which
//! iterating reads and inserting or removing adds to. Nothing is noted otherwise: outside a
//! recording the cost is one relaxed atomic load per access.

use std::cell::Cell;
use std::hash::Hasher;
use std::ops::{Deref, DerefMut, Index, IndexMut};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use slotmap::{Key, SecondaryMap, SlotMap};

pub mod footprint;
pub mod identity;

use footprint::note;
pub use footprint::Access;

/// A new object identity (never 0, which is "not tracked"; the top bit is left for keyed
/// elements, see [`element_id`]).
fn new_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed) & !(1 << 63)
}

/// The identity of the element named `key` in the arena `arena`: the top bit set, the rest
/// a mix of the two.
#[inline]
fn element_id(arena: u64, key: u64) -> u64 {
    let mut h = (arena ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0x517c_c1b7_2722_0a95);
    h = (h.rotate_left(29) ^ key).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h ^ (h >> 31)) | (1 << 63)
}

/// A value shared between copies of a world until one of them changes it.
#[derive(Debug)]
pub struct Shared<T> {
    inner: Rc<Memo<T>>,
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Self {
        Shared::new(T::default())
    }
}

#[derive(Debug)]
struct Memo<T> {
    value: T,
    /// The value's state hash once computed (0: not yet); forgotten when the value changes.
    hash: Cell<u64>,
    /// The object's identity in footprints (0: its accesses are not noted).
    id: u64,
}

impl<T: Clone> Clone for Memo<T> {
    fn clone(&self) -> Self {
        Memo {
            value: self.value.clone(),
            hash: self.hash.clone(),
            id: self.id,
        }
    }
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared {
            inner: Rc::new(Memo {
                value,
                hash: Cell::new(0),
                id: new_id(),
            }),
        }
    }

    /// A value whose accesses footprints do not note: an index the scheduler keeps beside
    /// the objects it is derived from (a unit that changes what the index says has written
    /// those objects), or storage inside an arena, whose elements are noted by key.
    pub fn untracked(value: T) -> Shared<T> {
        Shared {
            inner: Rc::new(Memo {
                value,
                hash: Cell::new(0),
                id: 0,
            }),
        }
    }

    /// The value, without noting a read (for an arena's own bookkeeping).
    fn quiet(&self) -> &T {
        &self.inner.value
    }

    /// The value's hash, computed by `compute` the first time and remembered until the value
    /// changes.
    pub fn hash_with(&self, compute: impl FnOnce(&T) -> u64) -> u64 {
        if identity::active() {
            return compute(&self.inner.value).max(1);
        }
        match self.inner.hash.get() {
            0 => {
                let h = compute(&self.inner.value).max(1);
                self.inner.hash.set(h);
                h
            }
            h => h,
        }
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            inner: Rc::clone(&self.inner),
        }
    }
}

impl<T: Clone> Shared<T> {
    /// The value to change, without noting a write (for an arena's own bookkeeping).
    fn quiet_mut(&mut self) -> &mut T {
        let memo = Rc::make_mut(&mut self.inner);
        memo.hash.set(0);
        &mut memo.value
    }

    /// The value itself, copied only if another world still shares it.
    fn into_value(self) -> T {
        match Rc::try_unwrap(self.inner) {
            Ok(memo) => memo.value,
            Err(rc) => rc.value.clone(),
        }
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        if self.inner.id != 0 {
            note(self.inner.id, Access::Read);
        }
        &self.inner.value
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        if self.inner.id != 0 {
            note(self.inner.id, Access::Write);
        }
        self.quiet_mut()
    }
}

/// A shared element hashes as its remembered state hash.
impl<T: std::hash::Hash> std::hash::Hash for Shared<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash_with(|v| {
            let mut h = StateHasher::default();
            v.hash(&mut h);
            std::hash::Hasher::finish(&h)
        }));
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner) || self.inner.value == other.inner.value
    }
}

impl<T: Eq> Eq for Shared<T> {}

impl<'a, T> IntoIterator for &'a Shared<T>
where
    &'a T: IntoIterator,
{
    type Item = <&'a T as IntoIterator>::Item;
    type IntoIter = <&'a T as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        (&**self).into_iter()
    }
}

/// An arena of objects named by slotmap keys, each element an object of its own in
/// footprints, copied on write element by element: cloning an arena copies no element.
///
/// Reading an element notes a read of it, changing one a write; `insert` and `remove` also
/// add to the arena's set of keys, which iterating (and `len`) reads. Adding to the set of
/// keys commutes: two units that each insert an element are not ordered by it (their keys
/// then depend on the order, which only names the elements: see the explorer's argument).
#[derive(Debug)]
pub struct Arena<K: Key, V> {
    id: u64,
    map: Shared<SlotMap<K, Shared<V>>>,
}

impl<K: Key, V> Clone for Arena<K, V> {
    fn clone(&self) -> Self {
        Arena {
            id: self.id,
            map: self.map.clone(),
        }
    }
}

impl<K: Key, V: Clone> Default for Arena<K, V> {
    fn default() -> Self {
        Arena::new()
    }
}

impl<K: Key, V: Clone> Arena<K, V> {
    pub fn new() -> Arena<K, V> {
        Arena {
            id: new_id(),
            map: Shared::untracked(SlotMap::with_key()),
        }
    }

    #[inline]
    fn key_id(&self, key: K) -> u64 {
        element_id(self.id, key.data().as_ffi())
    }

    fn read_all(&self) {
        if footprint::recording() {
            note(self.id, Access::Read);
            for k in self.map.quiet().keys() {
                note(self.key_id(k), Access::Read);
            }
        }
    }

    pub fn insert(&mut self, value: V) -> K {
        note(self.id, Access::Add);
        let key = self.map.quiet_mut().insert(Shared::untracked(value));
        note(self.key_id(key), Access::Write);
        key
    }

    /// Inserts the value `make` builds from its own key.
    pub fn insert_with_key(&mut self, make: impl FnOnce(K) -> V) -> K {
        note(self.id, Access::Add);
        let key = self
            .map
            .quiet_mut()
            .insert_with_key(|k| Shared::untracked(make(k)));
        note(self.key_id(key), Access::Write);
        key
    }

    pub fn remove(&mut self, key: K) -> Option<V> {
        note(self.key_id(key), Access::Write);
        let gone = self.map.quiet_mut().remove(key)?;
        note(self.id, Access::Add);
        Some(gone.into_value())
    }

    #[inline]
    pub fn get(&self, key: K) -> Option<&V> {
        note(self.key_id(key), Access::Read);
        self.map.quiet().get(key).map(Shared::quiet)
    }

    #[inline]
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        note(self.key_id(key), Access::Write);
        self.map.quiet_mut().get_mut(key).map(Shared::quiet_mut)
    }

    pub fn contains_key(&self, key: K) -> bool {
        note(self.key_id(key), Access::Read);
        self.map.quiet().contains_key(key)
    }

    pub fn len(&self) -> usize {
        note(self.id, Access::Read);
        self.map.quiet().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys, in slot order (reads the set of keys, not the elements).
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        note(self.id, Access::Read);
        self.map.quiet().keys()
    }

    /// Every element, in slot order (reads every one of them).
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> + '_ {
        self.read_all();
        self.map.quiet().iter().map(|(k, v)| (k, v.quiet()))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.iter().map(|(_, v)| v)
    }

    /// The arena's state hash, remembered until it changes (each element's too).
    pub fn hash_with(&self, element: impl Fn(K, &V, &mut StateHasher)) -> u64 {
        self.map.hash_with(|m| {
            let mut h = StateHasher::default();
            h.write_usize(m.len());
            for (k, v) in m.iter() {
                let e = v.hash_with(|v| {
                    let mut h = StateHasher::default();
                    element(k, v, &mut h);
                    Hasher::finish(&h)
                });
                h.write_u64(e);
            }
            Hasher::finish(&h)
        })
    }

    /// How many elements, without noting a read (for the explorer's measures).
    pub fn count(&self) -> usize {
        self.map.quiet().len()
    }

    /// The element `key`, noting `access` to its part `part` instead of to the whole of it:
    /// for an element made of parts that are objects of their own (an event loop's queues).
    /// Every access to such a part goes through `part` or [`Arena::part_mut`].
    pub fn part(&self, key: K, part: u64, access: Access) -> &V {
        note(element_id(self.key_id(key), part), access);
        self.map.quiet()[key].quiet()
    }

    /// The element `key`, to change its part `part`, noting `access` to that part.
    pub fn part_mut(&mut self, key: K, part: u64, access: Access) -> &mut V {
        note(element_id(self.key_id(key), part), access);
        self.map.quiet_mut()[key].quiet_mut()
    }
}

impl<'a, K: Key, V: Clone> IntoIterator for &'a Arena<K, V> {
    type Item = (K, &'a V);
    type IntoIter = Box<dyn Iterator<Item = (K, &'a V)> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<'a, K: Key, V: Clone> IntoIterator for &'a SecondaryArena<K, V> {
    type Item = (K, &'a V);
    type IntoIter = Box<dyn Iterator<Item = (K, &'a V)> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<K: Key, V: Clone> Index<K> for Arena<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, key: K) -> &V {
        note(self.key_id(key), Access::Read);
        self.map.quiet()[key].quiet()
    }
}

impl<K: Key, V: Clone> IndexMut<K> for Arena<K, V> {
    #[inline]
    fn index_mut(&mut self, key: K) -> &mut V {
        note(self.key_id(key), Access::Write);
        self.map.quiet_mut()[key].quiet_mut()
    }
}

impl<K: Key + std::hash::Hash, V: Clone + std::hash::Hash> std::hash::Hash for Arena<K, V> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash_with(|k, v, h| {
            std::hash::Hash::hash(&k, h);
            std::hash::Hash::hash(v, h);
        }));
    }
}

/// A map from the keys of another arena to values, each entry an object in footprints, as
/// for [`Arena`].
#[derive(Debug)]
pub struct SecondaryArena<K: Key, V> {
    id: u64,
    map: Shared<SecondaryMap<K, V>>,
}

impl<K: Key, V: Clone> Clone for SecondaryArena<K, V> {
    fn clone(&self) -> Self {
        SecondaryArena {
            id: self.id,
            map: self.map.clone(),
        }
    }
}

impl<K: Key, V: Clone> Default for SecondaryArena<K, V> {
    fn default() -> Self {
        SecondaryArena {
            id: new_id(),
            map: Shared::untracked(SecondaryMap::new()),
        }
    }
}

impl<K: Key, V: Clone> SecondaryArena<K, V> {
    #[inline]
    fn key_id(&self, key: K) -> u64 {
        element_id(self.id, key.data().as_ffi())
    }

    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        note(self.id, Access::Add);
        note(self.key_id(key), Access::Write);
        self.map.quiet_mut().insert(key, value)
    }

    pub fn remove(&mut self, key: K) -> Option<V> {
        note(self.key_id(key), Access::Write);
        let gone = self.map.quiet_mut().remove(key)?;
        note(self.id, Access::Add);
        Some(gone)
    }

    /// The value of `key`, made by `V::default()` if it has none (`None` for a key its
    /// arena no longer holds).
    pub fn entry_or_default(&mut self, key: K) -> Option<&mut V>
    where
        V: Default,
    {
        note(self.key_id(key), Access::Write);
        let map = self.map.quiet_mut();
        if !map.contains_key(key) {
            note(self.id, Access::Add);
        }
        map.entry(key).map(|e| e.or_default())
    }

    #[inline]
    pub fn get(&self, key: K) -> Option<&V> {
        note(self.key_id(key), Access::Read);
        self.map.quiet().get(key)
    }

    #[inline]
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        note(self.key_id(key), Access::Write);
        self.map.quiet_mut().get_mut(key)
    }

    pub fn contains_key(&self, key: K) -> bool {
        note(self.key_id(key), Access::Read);
        self.map.quiet().contains_key(key)
    }

    pub fn len(&self) -> usize {
        note(self.id, Access::Read);
        self.map.quiet().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> + '_ {
        if footprint::recording() {
            note(self.id, Access::Read);
            for k in self.map.quiet().keys() {
                note(self.key_id(k), Access::Read);
            }
        }
        self.map.quiet().iter()
    }

    /// The map's state hash, remembered until it changes.
    pub fn hash_with(&self, compute: impl FnOnce(&SecondaryMap<K, V>) -> u64) -> u64 {
        self.map.hash_with(compute)
    }
}

/// A count per key, read only through [`Counts::is_zero`]. (The readiness index counts, for
/// each traversable, the documents of its tree whose tools are not ready; a wait reads
/// whether that count is zero.)
///
/// An addition notes its direction ([`Access::Increase`], [`Access::Decrease`]): additions
/// commute with each other whatever their signs, and a test for zero is dependent with every
/// one of them. The direction is what a check after the unit needs (see
/// [`footprint::post_check`]): a test for zero after an increase is false in every order.
/// Because a count is never read but by a test for zero, a read of a count in a footprint is
/// always one.
#[derive(Clone, Debug, Default)]
pub struct Counts<K: Key> {
    counts: SecondaryArena<K, u32>,
}

impl<K: Key> Counts<K> {
    /// Adds `delta` to the count of `key` (from 0 if it has none), saturating at 0.
    pub fn add(&mut self, key: K, delta: i64) {
        let arena = &mut self.counts;
        let key_id = arena.key_id(key);
        let map = arena.map.quiet_mut();
        let before = map.get(key).copied();
        let now = (i64::from(before.unwrap_or(0)) + delta).clamp(0, i64::from(u32::MAX)) as u32;
        if before.is_none() {
            note(arena.id, Access::Add);
        }
        match delta.signum() {
            1 => note(key_id, Access::Increase),
            -1 => note(key_id, Access::Decrease),
            _ => {}
        }
        map.insert(key, now);
    }

    /// Sets the count of `key` (a write: it is dependent with every addition and test).
    pub fn set(&mut self, key: K, count: u32) {
        self.counts.insert(key, count);
    }

    /// Whether the count of `key` is zero (or it has none).
    pub fn is_zero(&self, key: K) -> bool {
        note(self.counts.key_id(key), Access::Read);
        self.counts.map.quiet().get(key).is_none_or(|n| *n == 0)
    }

    /// The counts' state hash, remembered until they change.
    pub fn hash_with(&self, compute: impl FnOnce(&SecondaryMap<K, u32>) -> u64) -> u64 {
        self.counts.hash_with(compute)
    }
}

impl<K: Key, V: Clone> Index<K> for SecondaryArena<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, key: K) -> &V {
        note(self.key_id(key), Access::Read);
        &self.map.quiet()[key]
    }
}

impl<K: Key, V: Clone> IndexMut<K> for SecondaryArena<K, V> {
    #[inline]
    fn index_mut(&mut self, key: K) -> &mut V {
        note(self.key_id(key), Access::Write);
        &mut self.map.quiet_mut()[key]
    }
}

/// A 64-bit hash of a value, with the state's hasher (for [`Access::Append`]).
pub fn value_hash<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
    let mut h = StateHasher::default();
    value.hash(&mut h);
    Hasher::finish(&h)
}

/// A 128-bit hash built from two independent multiply-rotate lanes: fast, and wide enough
/// that two distinct states of one subtest sharing a hash is not a practical concern (the
/// explorer would then merge them, the one way its reduction could lose an outcome).
pub struct StateHasher {
    a: u64,
    b: u64,
}

impl Default for StateHasher {
    fn default() -> Self {
        StateHasher {
            a: 0x243f_6a88_85a3_08d3,
            b: 0x1319_8a2e_0370_7344,
        }
    }
}

impl StateHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.a = (self.a.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
        self.b =
            (self.b.rotate_left(23) ^ word.rotate_left(32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    pub fn finish128(&self) -> u128 {
        let a = self.a ^ (self.b >> 29);
        let b = self.b ^ (self.a >> 31);
        ((a as u128) << 64) | b as u128
    }
}

impl Hasher for StateHasher {
    fn finish(&self) -> u64 {
        self.a ^ self.b.rotate_left(17)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.mix(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.mix(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.mix(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.mix(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_share_until_one_changes_and_the_hash_is_forgotten_on_change() {
        let mut a = Shared::new(vec![1, 2, 3]);
        let b = a.clone();
        assert!(std::ptr::eq(&*a, &*b));
        assert_eq!(a.hash_with(|v| v.len() as u64), 3);
        a.push(4);
        assert!(!std::ptr::eq(&*a, &*b));
        assert_eq!(*b, vec![1, 2, 3]);
        assert_eq!(a.hash_with(|v| v.len() as u64), 4);
        assert_eq!(b.hash_with(|v| v.len() as u64), 3);
    }
}
