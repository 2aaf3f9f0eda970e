//! Callbacks: the page's script as the host sees it.
//!
//! <https://webidl.spec.whatwg.org/#idl-callback-functions>
//!
//! Everything the page's script hands the platform to run later is a callback: a tool's
//! `execute` function, an event listener, a promise reaction's handler, a timer's callback, a
//! task's script, and the rest of an async script after an `await`. The host keeps a callback,
//! compares and hashes it with the world, knows the realm it belongs to, and calls it through
//! [`Host::call`](super::Host::call); what a callback does is the script language's business
//! (the page script's layer), which is why the host holds it as a trait object.

use std::any::Any;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::keys::DocumentKey;

/// What a callback must offer the host. The script language implements it for its code.
pub trait Code: fmt::Debug + Send + Sync + 'static {
    /// The realm the callback's function object belongs to (named by its document).
    fn realm(&self) -> DocumentKey;
    /// A short description for traces (`script (line 12)`).
    fn describe(&self) -> String;
    fn as_any(&self) -> &dyn Any;
    fn eq_code(&self, other: &dyn Code) -> bool;
    fn hash_code(&self, state: &mut dyn Hasher);
}

/// Any comparable, hashable script value with a realm and a description is callback code.
pub trait ScriptCode: fmt::Debug + PartialEq + Eq + Hash + Send + Sync + 'static {
    fn realm(&self) -> DocumentKey;
    fn describe(&self) -> String;
}

impl<T: ScriptCode> Code for T {
    fn realm(&self) -> DocumentKey {
        ScriptCode::realm(self)
    }
    fn describe(&self) -> String {
        ScriptCode::describe(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn eq_code(&self, other: &dyn Code) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn hash_code(&self, mut state: &mut dyn Hasher) {
        self.hash(&mut state);
    }
}

/// A callback of the page's script.
#[derive(Clone)]
pub struct Callback(Arc<dyn Code>);

impl Callback {
    pub fn new(code: impl Code) -> Callback {
        Callback(Arc::new(code))
    }

    /// The realm of the callback's function object.
    pub fn realm(&self) -> DocumentKey {
        self.0.realm()
    }

    pub fn describe(&self) -> String {
        self.0.describe()
    }

    /// Whether the two are the very same function object (each evaluation of a function
    /// written in place makes a new one).
    pub fn same(&self, other: &Callback) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The code, for the script language that made it.
    pub fn code<T: 'static>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }
}

impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Callback {
    fn eq(&self, other: &Callback) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.eq_code(&*other.0)
    }
}

impl Eq for Callback {}

impl Hash for Callback {
    fn hash<H: Hasher>(&self, state: &mut H) {
        super::shared::identity::hash_place(Arc::as_ptr(&self.0), state);
        self.0.hash_code(state);
    }
}
