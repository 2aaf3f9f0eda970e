//! Copy-on-write storage for the world's arenas, so that the explorer's copies of a world
//! share every arena until one copy changes it, and remember each arena's state hash until
//! it changes; and the hash a world's state is compared by.

use std::cell::Cell;
use std::hash::Hasher;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;

/// A value shared between copies of a world until one of them changes it.
#[derive(Debug, Default)]
pub struct Shared<T> {
    inner: Rc<Memo<T>>,
}

#[derive(Debug, Default)]
struct Memo<T> {
    value: T,
    /// The value's state hash once computed (0: not yet); forgotten when the value changes.
    hash: Cell<u64>,
}

impl<T: Clone> Clone for Memo<T> {
    fn clone(&self) -> Self {
        Memo {
            value: self.value.clone(),
            hash: self.hash.clone(),
        }
    }
}

impl<T> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared {
            inner: Rc::new(Memo {
                value,
                hash: Cell::new(0),
            }),
        }
    }

    /// The value's hash, computed by `compute` the first time and remembered until the value
    /// changes.
    pub fn hash_with(&self, compute: impl FnOnce(&T) -> u64) -> u64 {
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

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner.value
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        let memo = Rc::make_mut(&mut self.inner);
        memo.hash.set(0);
        &mut memo.value
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
        (&self.inner.value).into_iter()
    }
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
