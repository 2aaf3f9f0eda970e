//! Copy-on-write storage for the world's arenas, so that the explorer's copies of a world
//! share every arena until one copy changes it, and remember each arena's state hash until
//! it changes.

use std::cell::Cell;
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
            let mut h = crate::explore::state::StateHasher::default();
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
