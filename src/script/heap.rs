//! Setting a member of an array's or object's: `obj.x = v` (ECMAScript's PutValue on an
//! ordinary object, [[Set]] then [[DefineOwnProperty]]).
//!
//! The engine's arrays and objects are immutable values shared by reference (see
//! `Members`), and copies of a world share them, so an object cannot change in place. Setting
//! a member makes a new *version* of the object instead, with the same identity, and the heap
//! (part of the world's state) records it as the object's current version. Whatever holds the
//! object keeps the version it was given, and every use of it goes through the heap:
//!
//! - the page's script reads a member of the current version ([`Heap::version_of`] before
//!   each member or index read), so every name and every value that holds the object sees the
//!   change, as they would in JavaScript;
//! - a value that leaves the script for the platform (a method's or a global's arguments, a
//!   callback's result or exception, a settled promise's value) is given as its current
//!   versions throughout ([`Heap::resolved`]): what a platform algorithm reads of an object is
//!   what the object held when the value reached it. This is the one place where the engine
//!   keeps less than JavaScript does: an algorithm that keeps an object and reads it again
//!   later (the tool result that "imperative execute steps" serialize a task after the callback
//!   returned) reads it as it was handed over, not as a script changed it in between;
//! - the harness reads current versions too.
//!
//! Explorer: the heap is one tracked object of the state (every read of an object's member
//! notes a read of it, every set a write), and a state whose heap is not empty adds the
//! identity digest to its hash, with the heap's entries numbered by where the rest of the
//! state holds their objects (see [`hash_heap`]).
//!
//! <https://tc39.es/ecma262/#sec-putvalue>,
//! <https://tc39.es/ecma262/#sec-ordinaryset>

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use crate::host::shared::identity;
use crate::host::shared::Shared;
use crate::host::value::{Members, Unserializable, Value, MAX_VALUE_DEPTH};

/// The current version of every array and object a script has changed, by identity.
#[derive(Clone, Default)]
pub struct Heap {
    versions: Shared<BTreeMap<u64, Value>>,
}

impl Heap {
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty()
    }

    /// The current version of an array or object (the value itself if it never changed);
    /// any other value is itself.
    pub fn version_of(&self, v: &Value) -> Value {
        match v {
            Value::Array(m) => self.current(m.id()).unwrap_or_else(|| v.clone()),
            Value::Object(m) => self.current(m.id()).unwrap_or_else(|| v.clone()),
            other => other.clone(),
        }
    }

    fn current(&self, id: u64) -> Option<Value> {
        if self.versions.is_empty() {
            return None;
        }
        self.versions.get(&id).cloned()
    }

    /// The value with every array and object in it as its current version, each keeping its
    /// identity. An object that holds itself (through its members' current versions) is cut
    /// where it would repeat by `Circular`, which the platform's `JSON.stringify` rejects as it
    /// rejects a cyclic object; `None` when the value would nest deeper than
    /// [`MAX_VALUE_DEPTH`].
    pub fn resolved(&self, v: &Value) -> Option<Value> {
        if self.versions.is_empty() {
            return Some(v.clone());
        }
        let mut walk = Walk::default();
        self.resolve(v, &mut walk)
    }

    fn resolve(&self, v: &Value, walk: &mut Walk) -> Option<Value> {
        let id = match v {
            Value::Array(m) => m.id(),
            Value::Object(m) => m.id(),
            other => return Some(other.clone()),
        };
        if walk.path.contains(&id) {
            return Some(Value::Unserializable(Unserializable::Circular));
        }
        // Each object is resolved once: a value that holds one object many times (or holds
        // objects that hold each other many times over) costs what it holds, not what it would
        // be written out as.
        if let Some(done) = walk.done.get(&id) {
            return Some(done.clone());
        }
        if walk.path.len() as u32 >= MAX_VALUE_DEPTH {
            return None;
        }
        walk.path.push(id);
        let current = self.version_of(v);
        let out = match &current {
            Value::Array(m) => {
                let items = m
                    .iter()
                    .map(|i| self.resolve(i, walk))
                    .collect::<Option<Vec<_>>>()?;
                if items.iter().zip(m.iter()).all(|(a, b)| same_value(a, b)) {
                    current.clone()
                } else {
                    Value::Array(m.version(items))
                }
            }
            Value::Object(m) => {
                let items = m
                    .iter()
                    .map(|(k, i)| Some((k.clone(), self.resolve(i, walk)?)))
                    .collect::<Option<Vec<_>>>()?;
                if items
                    .iter()
                    .zip(m.iter())
                    .all(|((_, a), (_, b))| same_value(a, b))
                {
                    current.clone()
                } else {
                    Value::Object(m.version(items))
                }
            }
            other => other.clone(),
        };
        walk.path.pop();
        walk.done.insert(id, out.clone());
        Some(out)
    }

    /// Records `version` as the object's current version.
    pub fn set(&mut self, id: u64, version: Value) {
        self.versions.insert(id, version);
    }
}

/// Where a resolution is: the objects it is inside of, and those it has resolved.
#[derive(Default)]
struct Walk {
    path: Vec<u64>,
    done: std::collections::HashMap<u64, Value>,
}

/// Whether resolving left a member as it was (the very same version, or the same primitive).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => x.same(y) && x.ptr_eq(y),
        (Value::Object(x), Value::Object(y)) => x.same(y) && x.ptr_eq(y),
        _ => a == b,
    }
}

/// ECMAScript's [[Set]] of `member` on an ordinary object: the new version of `object` with
/// the property's value replaced where it is, or added after the others.
pub fn with_member(object: &Members<(String, Value)>, member: &str, value: Value) -> Value {
    let mut items: Vec<(String, Value)> = object.iter().cloned().collect();
    match items.iter_mut().find(|(k, _)| k == member) {
        Some((_, v)) => *v = value,
        None => items.push((member.to_string(), value)),
    }
    Value::Object(object.version(items))
}

/// Hashes the heap into a world's state hash, after everything else the state holds.
/// Outside an identity digest: how many objects changed, and their versions' contents,
/// whatever order their identities were handed out in. In a digest: each entry by the number
/// the rest of the walk gave its object, in that order, and only for objects the state holds
/// (a version nothing holds any more changes nothing); versions can hold changed objects in
/// turn, so it goes on until no entry gets a number.
pub fn hash_heap<H: Hasher>(heap: &Heap, h: &mut H) {
    let versions = &*heap.versions;
    versions.len().hash(h);
    if versions.is_empty() {
        return;
    }
    if !identity::active() {
        let mut sum = 0u64;
        for v in versions.values() {
            let mut one = crate::host::shared::StateHasher::default();
            v.hash(&mut one);
            sum = sum.wrapping_add(Hasher::finish(&one));
        }
        sum.hash(h);
        return;
    }
    let mut done = std::collections::BTreeSet::new();
    loop {
        let mut next: Vec<(u64, u64)> = versions
            .keys()
            .filter(|id| !done.contains(*id))
            .filter_map(|id| identity::object_place(*id).map(|place| (place, *id)))
            .collect();
        if next.is_empty() {
            break;
        }
        next.sort_unstable();
        for (place, id) in next {
            done.insert(id);
            place.hash(h);
            versions[&id].hash(h);
        }
    }
}
