//! The JavaScript values the page's script can hold: enough of ECMAScript's value space to
//! say what the platform's methods take and give back.

use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, OnceLock};

use serde::Serialize;

use super::callback::Callback;
use super::keys::{DocumentKey, EventKey, NodeKey, PromiseKey, SignalKey, ThenableKey};
use super::seam::Upper;
use super::HostState;

/// A JavaScript number; compared and hashed by its bits so that world states can be hashed.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Number(pub f64);

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits() || self.0 == other.0
    }
}
impl Eq for Number {}
impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // 0 and -0 are equal, so they must hash alike.
        let v = if self.0 == 0.0 { 0.0 } else { self.0 };
        v.to_bits().hash(state)
    }
}

/// Which constructor an error value came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ErrorKind {
    /// A `DOMException`; its name is the interesting part (`"AbortError"`, `"InvalidStateError"`).
    DomException,
    /// An ECMAScript error constructor: `TypeError`, `SyntaxError`, `Error`.
    Ecma,
}

/// An exception value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ErrorValue {
    pub kind: ErrorKind,
    pub name: String,
    pub message: String,
}

impl ErrorValue {
    pub fn dom(name: &str, message: impl Into<String>) -> ErrorValue {
        ErrorValue {
            kind: ErrorKind::DomException,
            name: name.into(),
            message: message.into(),
        }
    }
    pub fn type_error(message: impl Into<String>) -> ErrorValue {
        ErrorValue {
            kind: ErrorKind::Ecma,
            name: "TypeError".into(),
            message: message.into(),
        }
    }
    /// An error named by a scenario: a known ECMAScript constructor, or else a `DOMException`.
    pub fn named(name: &str, message: impl Into<String>) -> ErrorValue {
        let kind = if ECMA_ERRORS.contains(&name) {
            ErrorKind::Ecma
        } else {
            ErrorKind::DomException
        };
        ErrorValue {
            kind,
            name: name.into(),
            message: message.into(),
        }
    }
}

/// The ECMAScript error constructors a scenario may name.
pub const ECMA_ERRORS: &[&str] = &[
    "Error",
    "TypeError",
    "RangeError",
    "SyntaxError",
    "ReferenceError",
    "EvalError",
    "URIError",
];

/// Objects that `JSON.stringify` cannot turn into a string, which WebMCP's algorithms must
/// reject: a scenario names them because the engine holds no arbitrary objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Unserializable {
    /// An object that refers to itself: `JSON.stringify` throws a `TypeError`.
    Circular,
    /// An object whose `toJSON()` returns `undefined`: the serialization gives no string.
    ToJsonUndefined,
}

/// How deep arrays and objects may nest in one value: every walk of a value (its size, hash,
/// JSON, comparison, and dropping it) recurses, so its depth is bounded, as the parser bounds
/// the nesting of what a file writes.
pub const MAX_VALUE_DEPTH: u32 = 128;

/// The elements of an array or the properties of an object. A value that holds another holds
/// it by reference, as JavaScript does: `a = [a, a]` makes one array of two references to the
/// old one, never a copy of it. Each object has an identity of its own, which `===` compares
/// ([`Members::same`]): each evaluation of a literal makes a new one ([`Value::fresh`]). The
/// members themselves are never changed in place: the engine builds a changed copy (`DerefMut`
/// copies them first if another value still holds them; the copy is a new object), and a
/// script that sets a member of an object makes a new *version* of it, which keeps its
/// identity and which the script's heap records (see `script::heap`). Each keeps its size,
/// depth and hash once computed: walking a value that shares its parts costs what it holds,
/// not what it would be written out as.
pub struct Members<T>(Arc<MembersInner<T>>);

/// A new object identity (never 0). Only equality of identities is ever used: they never
/// reach a state hash, a trace or a report, so the order they are handed out in (across
/// threads) changes nothing.
fn new_object_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

struct MembersInner<T> {
    items: Vec<T>,
    /// The object's identity, which all its versions share.
    id: u64,
    /// The realm the array or object was made in, where the engine knows it: a script's
    /// literals and what Web IDL converts into a promise's realm (`instanceof` compares it);
    /// `None` for one the harness or an algorithm made, whose realm the engine does not keep.
    realm: Option<DocumentKey>,
    /// The interface whose prototype an object has, for a platform object the engine holds as
    /// members (the events WebMCP fires: `ToolActivatedEvent`); `None` for an array or a plain
    /// object.
    class: Option<&'static str>,
    /// (size, depth), once computed (see [`Value::size`]).
    measure: OnceLock<(u64, u32)>,
    /// The state hash of the items, once computed.
    hash: OnceLock<u64>,
}

impl<T: Clone> Clone for MembersInner<T> {
    fn clone(&self) -> Self {
        MembersInner {
            items: self.items.clone(),
            id: new_object_id(),
            realm: self.realm,
            class: self.class,
            measure: OnceLock::new(),
            hash: OnceLock::new(),
        }
    }
}

impl<T> Members<T> {
    pub fn new(items: Vec<T>) -> Members<T> {
        Members::made(items, None, None)
    }

    /// New members made in `realm`.
    pub fn in_realm(items: Vec<T>, realm: DocumentKey) -> Members<T> {
        Members::made(items, Some(realm), None)
    }

    /// A platform object of interface `class`, made in `realm`, held as its members.
    pub fn platform(items: Vec<T>, realm: DocumentKey, class: &'static str) -> Members<T> {
        Members::made(items, Some(realm), Some(class))
    }

    fn made(items: Vec<T>, realm: Option<DocumentKey>, class: Option<&'static str>) -> Members<T> {
        Members::with_id(items, new_object_id(), realm, class)
    }

    fn with_id(
        items: Vec<T>,
        id: u64,
        realm: Option<DocumentKey>,
        class: Option<&'static str>,
    ) -> Members<T> {
        Members(Arc::new(MembersInner {
            items,
            id,
            realm,
            class,
            measure: OnceLock::new(),
            hash: OnceLock::new(),
        }))
    }

    /// A new version of the same object, holding `items` (see `script::heap`).
    pub fn version(&self, items: Vec<T>) -> Members<T> {
        Members::with_id(items, self.0.id, self.0.realm, self.0.class)
    }

    /// The object's identity, shared by its versions.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// Whether the two hold the very same version.
    pub fn ptr_eq(&self, other: &Members<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The interface of a platform object held as members (see [`Members::platform`]).
    pub fn class(&self) -> Option<&'static str> {
        self.0.class
    }

    /// The realm it was made in, where the engine knows it.
    pub fn realm(&self) -> Option<DocumentKey> {
        self.0.realm
    }

    /// Members just made, as made in `realm` (alike in everything but identity when another
    /// value holds them already).
    pub fn made_in(self, realm: DocumentKey) -> Members<T>
    where
        T: Clone,
    {
        match Arc::try_unwrap(self.0) {
            Ok(inner) => Members::with_id(inner.items, inner.id, Some(realm), inner.class),
            Err(shared) => Members::made(shared.items.clone(), Some(realm), shared.class),
        }
    }

    /// Whether two values are the very same object (not only equal ones), whichever of its
    /// versions each holds.
    pub fn same(&self, other: &Members<T>) -> bool {
        self.0.id == other.0.id
    }
}

impl<T> Clone for Members<T> {
    fn clone(&self) -> Self {
        Members(Arc::clone(&self.0))
    }
}

impl<T> Deref for Members<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0.items
    }
}

impl<T: Clone> DerefMut for Members<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        let inner = Arc::make_mut(&mut self.0);
        inner.measure = OnceLock::new();
        inner.hash = OnceLock::new();
        &mut inner.items
    }
}

impl<T> From<Vec<T>> for Members<T> {
    fn from(items: Vec<T>) -> Self {
        Members::new(items)
    }
}

impl<T> FromIterator<T> for Members<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Members::new(iter.into_iter().collect())
    }
}

impl<'a, T> IntoIterator for &'a Members<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.items.iter()
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Members<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.items.fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Members<T> {
    fn eq(&self, other: &Self) -> bool {
        self.same(other)
            || (self.0.items == other.0.items
                && self.0.realm == other.0.realm
                && self.0.class == other.0.class)
    }
}

impl<T: Eq> Eq for Members<T> {}

/// Members hash as the hash of their items, computed once; while an identity digest is taken
/// (see `shared::identity`), as the object's number there and then its items, walked anew.
impl<T: Hash> Hash for Members<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        if super::shared::identity::hash_object(self.0.id, state) {
            self.0.items.hash(state);
            (self.0.realm, self.0.class).hash(state);
            return;
        }
        let h = *self
            .0
            .hash
            .get_or_init(|| super::shared::value_hash(&self.0.items));
        state.write_u64(h);
        (self.0.realm, self.0.class).hash(state);
    }
}

/// An error object: what a `throw`, a rejection or `abort(reason)` carries. It is shared, not
/// copied, wherever the value goes, so that `===` can tell the very error a script made from
/// another with the same name and message.
///
/// It also keeps the realm it was created in (see [`ErrorRealm`]), which `instanceof` compares
/// with the realm of the constructor it is given.
#[derive(Clone)]
pub struct ErrorObject(Arc<ErrorInner>);

struct ErrorInner {
    value: ErrorValue,
    realm: ErrorRealm,
}

/// The realm an error object was created in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorRealm {
    /// A document's realm: a script's current realm (what it throws and the literals it
    /// evaluates), the realm of the promise a method rejects, an AbortSignal's realm.
    In(DocumentKey),
    /// Made by the scenario's harness (an expectation's `TypeError("x")`): the test page's
    /// realm, as the export runs the harness there.
    Harness,
    /// Made by a platform binding or an algorithm, and not yet given to anyone: the realm it
    /// is created in is the one it first reaches, the realm of the method that throws it
    /// (the interpreter places it as the call returns) or of the promise it rejects. No other
    /// value holds it until then, so making it anew in that realm changes no identity a script
    /// can see.
    Unplaced,
}

impl ErrorObject {
    /// A new error that is not yet placed in a realm (see [`ErrorRealm::Unplaced`]).
    pub fn new(e: ErrorValue) -> ErrorObject {
        ErrorObject::made(ErrorRealm::Unplaced, e)
    }

    /// A new error object created in `realm`.
    pub fn in_realm(realm: DocumentKey, e: ErrorValue) -> ErrorObject {
        ErrorObject::made(ErrorRealm::In(realm), e)
    }

    fn made(realm: ErrorRealm, value: ErrorValue) -> ErrorObject {
        ErrorObject(Arc::new(ErrorInner { value, realm }))
    }

    /// The realm it was created in.
    pub fn realm(&self) -> ErrorRealm {
        self.0.realm
    }

    /// The error as it reaches `realm`: an unplaced one is made there, any other is itself.
    pub fn placed(self, realm: ErrorRealm) -> ErrorObject {
        match self.0.realm {
            ErrorRealm::Unplaced => ErrorObject::made(realm, self.0.value.clone()),
            _ => self,
        }
    }

    /// Whether the two are the very same error object.
    pub fn same(&self, other: &ErrorObject) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for ErrorObject {
    type Target = ErrorValue;
    fn deref(&self) -> &ErrorValue {
        &self.0.value
    }
}

impl std::fmt::Debug for ErrorObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.value.fmt(f)
    }
}

impl PartialEq for ErrorObject {
    fn eq(&self, other: &Self) -> bool {
        self.same(other) || (self.0.value == other.0.value && self.0.realm == other.0.realm)
    }
}

impl Eq for ErrorObject {}

impl Hash for ErrorObject {
    fn hash<H: Hasher>(&self, state: &mut H) {
        super::shared::identity::hash_place(Arc::as_ptr(&self.0), state);
        self.0.value.hash(state);
        self.0.realm.hash(state);
    }
}

/// A member's share of its holder's size.
trait Measured {
    /// (size, depth) of the member.
    fn measure(&self) -> (u64, u32);
}

impl Measured for Value {
    fn measure(&self) -> (u64, u32) {
        (self.size(), self.depth())
    }
}

impl Measured for (String, Value) {
    fn measure(&self) -> (u64, u32) {
        (self.0.len() as u64 + self.1.size(), self.1.depth())
    }
}

/// (size, depth) of an array or object, computed once.
fn measured<T: Measured>(members: &Members<T>) -> (u64, u32) {
    *members.0.measure.get_or_init(|| {
        members.0.items.iter().fold((1, 1), |(size, depth), item| {
            let (s, d) = item.measure();
            (size.saturating_add(s), depth.max(d.saturating_add(1)))
        })
    })
}

/// A JavaScript value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Undefined,
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Members<Value>),
    /// A plain object, its properties in creation order.
    Object(Members<(String, Value)>),
    Promise(PromiseKey),
    Thenable(ThenableKey),
    /// A document's `Window`, `Document` or `ModelContext`, or the name a scenario gives the
    /// document (which stands for all three): every method and member takes any of them, and
    /// only `===` tells them apart.
    Window(DocumentKey, Facet),
    /// An `AbortController`, named by its signal.
    Controller(SignalKey),
    Signal(SignalKey),
    Error(ErrorObject),
    Unserializable(Unserializable),
    /// A function the page's script made (a tool's `execute` callback).
    Function(Callback),
    /// A DOM node (an element, a document's node, text).
    Node(NodeKey),
    /// An event dispatched at a node (see `dom::dispatch`).
    Event(EventKey),
    /// A platform object whose only state is the document or realm it belongs to.
    Platform(PlatformObject),
}

pub use super::seam::Facet;

/// The platform objects a [`Value::Platform`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlatformObject {
    /// A document's `DOMImplementation` (`document.implementation`).
    DomImplementation(DocumentKey),
    /// A `DOMParser`, made in the realm of this document.
    DomParser(DocumentKey),
    /// The `CSSStyleDeclaration` `getComputedStyle(element)` gives, made in the realm of the
    /// window's document: live, each read computes the element's style as it is then.
    ComputedStyle(DocumentKey, NodeKey),
}

impl PlatformObject {
    /// Its interface's name.
    pub fn interface(self) -> &'static str {
        match self {
            PlatformObject::DomImplementation(_) => "DOMImplementation",
            PlatformObject::DomParser(_) => "DOMParser",
            PlatformObject::ComputedStyle(..) => "CSSStyleDeclaration",
        }
    }

    /// The document whose realm it belongs to.
    pub fn realm(self) -> DocumentKey {
        match self {
            PlatformObject::DomImplementation(d)
            | PlatformObject::DomParser(d)
            | PlatformObject::ComputedStyle(d, _) => d,
        }
    }
}

impl Value {
    pub fn number(n: f64) -> Value {
        Value::Number(Number(n))
    }

    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    /// Whether the two are the very same value at the top: the same version of an array or
    /// object, or equal otherwise.
    pub fn ptr_eq_top(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Array(a), Value::Array(b)) => a.ptr_eq(b),
            (Value::Object(a), Value::Object(b)) => a.ptr_eq(b),
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
                false
            }
            (a, b) => a == b,
        }
    }

    /// A new error, not yet placed in a realm (see [`ErrorRealm::Unplaced`]).
    pub fn error(e: ErrorValue) -> Value {
        Value::Error(ErrorObject::new(e))
    }

    /// The value as it reaches `realm`: an unplaced error is made there (see
    /// [`ErrorRealm::Unplaced`]); any other value is itself.
    pub fn placed(self, realm: ErrorRealm) -> Value {
        match self {
            Value::Error(e) => Value::Error(e.placed(realm)),
            other => other,
        }
    }

    /// An array or object just made, as made in `realm` (see [`Members::made_in`]); any other
    /// value is itself.
    pub fn made_in(self, realm: DocumentKey) -> Value {
        match self {
            Value::Array(m) => Value::Array(m.made_in(realm)),
            Value::Object(m) => Value::Object(m.made_in(realm)),
            other => other,
        }
    }

    /// A new error object created in `realm`.
    pub fn error_in(realm: DocumentKey, e: ErrorValue) -> Value {
        Value::Error(ErrorObject::in_realm(realm, e))
    }

    /// A new object for each array, object and error in the value, alike in everything but
    /// identity: what evaluating a literal makes, each time it is evaluated. The harness's
    /// (see [`ErrorRealm::Harness`]); a script's is [`Value::fresh_in`].
    pub fn fresh(&self) -> Value {
        self.fresh_made(ErrorRealm::Harness)
    }

    /// [`Value::fresh`], evaluated by a script of `realm`: its errors are that realm's.
    pub fn fresh_in(&self, realm: DocumentKey) -> Value {
        self.fresh_made(ErrorRealm::In(realm))
    }

    fn fresh_made(&self, realm: ErrorRealm) -> Value {
        fn members<T>(items: Vec<T>, realm: ErrorRealm, class: Option<&'static str>) -> Members<T> {
            match realm {
                ErrorRealm::In(d) => Members::made(items, Some(d), class),
                _ => Members::made(items, None, class),
            }
        }
        match self {
            Value::Array(items) => Value::Array(members(
                items.iter().map(|i| i.fresh_made(realm)).collect(),
                realm,
                None,
            )),
            Value::Object(props) => Value::Object(members(
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), v.fresh_made(realm)))
                    .collect(),
                realm,
                props.class(),
            )),
            Value::Error(e) => Value::Error(ErrorObject::made(realm, ErrorValue::clone(e))),
            other => other.clone(),
        }
    }

    /// ECMAScript's IsStrictlyEqual (`===`): numbers by value (`NaN` is not equal to itself,
    /// `0` equals `-0`), other primitives by value, objects by identity. `same_navigable`
    /// says whether two documents are shown by one navigable, whose WindowProxy is then one
    /// object. `None` when either is an object made by `Cyclic()` or `ToJSONUndefined()`,
    /// which the engine holds as a kind of value with no identity, so it cannot tell one from
    /// another.
    ///
    /// <https://tc39.es/ecma262/#sec-isstrictlyequal>
    pub fn is_strictly_equal(
        &self,
        other: &Value,
        same_navigable: impl Fn(DocumentKey, DocumentKey) -> bool,
    ) -> Option<bool> {
        if matches!(self, Value::Unserializable(_)) || matches!(other, Value::Unserializable(_)) {
            return None;
        }
        Some(match (self, other) {
            (Value::Undefined, Value::Undefined) | (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a.0 == b.0,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a.same(b),
            (Value::Object(a), Value::Object(b)) => a.same(b),
            (Value::Error(a), Value::Error(b)) => a.same(b),
            (Value::Window(a, Facet::Window), Value::Window(b, Facet::Window)) => {
                a == b || same_navigable(*a, *b)
            }
            (Value::Window(a, fa), Value::Window(b, fb)) => a == b && fa == fb,
            (Value::Promise(a), Value::Promise(b)) => a == b,
            (Value::Thenable(a), Value::Thenable(b)) => a == b,
            (Value::Controller(a), Value::Controller(b)) => a == b,
            (Value::Signal(a), Value::Signal(b)) => a == b,
            (Value::Node(a), Value::Node(b)) => a == b,
            (Value::Event(a), Value::Event(b)) => a == b,
            (Value::Platform(a), Value::Platform(b)) => a == b,
            // Each evaluation of a function written in place (`returns(v)`, a script's name)
            // makes a new function object, as the export's arrow functions do.
            (Value::Function(a), Value::Function(b)) => a.same(b),
            _ => false,
        })
    }

    /// An array of these elements.
    pub fn array(items: Vec<Value>) -> Value {
        Value::Array(Members::new(items))
    }

    /// The value's size, what the value-size budget counts: a byte of a string (or of a
    /// property's name, or of an error's name and message), and every value in it, count one
    /// each, and a value held twice counts twice (as `JSON.stringify` would write it out).
    /// Computed once per array or object, from its members' sizes: cheap however large the
    /// value it describes.
    pub fn size(&self) -> u64 {
        match self {
            Value::String(s) => 1 + s.len() as u64,
            Value::Array(items) => measured(items).0,
            Value::Object(props) => measured(props).0,
            Value::Error(e) => 1 + (e.name.len() + e.message.len()) as u64,
            _ => 1,
        }
    }

    /// Whether two values are the very same array or object (not only equal ones).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Array(a), Value::Array(b)) => a.same(b),
            (Value::Object(a), Value::Object(b)) => a.same(b),
            _ => false,
        }
    }

    /// How deep arrays and objects nest in it: 0 for a primitive, 1 for an array of
    /// primitives.
    pub fn depth(&self) -> u32 {
        match self {
            Value::Array(items) => measured(items).1,
            Value::Object(props) => measured(props).1,
            _ => 0,
        }
    }

    /// ECMAScript's ToString, as a template literal's substitution applies it. An object is
    /// converted through its `toString` (ToPrimitive with hint string): an array joins its
    /// elements with commas (`undefined` and `null` as empty), an error gives
    /// `Error.prototype.toString`, any other object its `[object Class]` tag. A function's
    /// `toString` gives its source text, which the simulation does not keep: it reads
    /// `function () { [code] }`.
    ///
    /// <https://tc39.es/ecma262/#sec-tostring>
    pub fn to_js_string(&self) -> String {
        match self {
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => number_to_js_string(n.0),
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .map(|v| match v {
                    Value::Undefined | Value::Null => String::new(),
                    other => other.to_js_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            Value::Error(e) => match (e.name.is_empty(), e.message.is_empty()) {
                (_, true) => e.name.clone(),
                (true, false) => e.message.clone(),
                (false, false) => format!("{}: {}", e.name, e.message),
            },
            Value::Object(m) if m.class().is_some() => {
                format!("[object {}]", m.class().unwrap_or("Object"))
            }
            Value::Object(_) | Value::Thenable(_) | Value::Unserializable(_) => {
                "[object Object]".into()
            }
            Value::Promise(_) => "[object Promise]".into(),
            Value::Window(_, facet) => format!("[object {}]", facet.class()),
            Value::Controller(_) => "[object AbortController]".into(),
            Value::Signal(_) => "[object AbortSignal]".into(),
            Value::Function(_) => "function () { [code] }".into(),
            Value::Node(_) => "[object HTMLElement]".into(),
            Value::Event(_) => "[object Event]".into(),
            Value::Platform(o) => format!("[object {}]", o.interface()),
        }
    }

    /// The value as diff-browser compares it with what a page read: JSON's text for strings
    /// and for the structure of arrays and plain objects, ToString for other primitives, and a
    /// word for what a page cannot compare by value (`window`, `promise`, `function`). The
    /// exported tests' runtime writes the same text for the same value (its `canon`).
    pub fn canonical(&self) -> String {
        self.canonical_at(0)
    }

    fn canonical_at(&self, depth: usize) -> String {
        let json = |s: &str| serde_json::to_string(s).unwrap_or_default();
        if depth > 32 {
            return "…".into();
        }
        match self {
            Value::String(s) => json(s),
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => number_to_js_string(n.0),
            Value::Function(_) => "function".into(),
            Value::Error(e) => format!("error {} {}", json(&e.name), json(&e.message)),
            Value::Promise(_) => "promise".into(),
            Value::Window(..) => "window".into(),
            Value::Controller(_) => "AbortController".into(),
            Value::Signal(_) => "AbortSignal".into(),
            Value::Node(_) => "node".into(),
            Value::Event(_) => "event".into(),
            Value::Platform(o) => o.interface().into(),
            Value::Thenable(_) => "{\"then\":function}".into(),
            Value::Unserializable(Unserializable::ToJsonUndefined) => {
                "{\"toJSON\":function}".into()
            }
            Value::Unserializable(Unserializable::Circular) => "…".into(),
            Value::Array(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|v| v.canonical_at(depth + 1))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Value::Object(props) => format!(
                "{{{}}}",
                props
                    .iter()
                    .map(|(k, v)| format!("{}:{}", json(k), v.canonical_at(depth + 1)))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }

    /// A plain object made from properties in the order they were defined, as an object
    /// literal or `JSON.parse` makes it: a key defined twice keeps its first place and its last
    /// value, and the keys are put in the order ECMAScript gives an ordinary object's own
    /// keys (`OrdinaryOwnPropertyKeys`: array indices first, ascending, then the other strings
    /// in the order they were made), which `JSON.stringify`, `Object.keys` and `for-in` follow.
    ///
    /// <https://tc39.es/ecma262/#sec-ordinaryownpropertykeys>
    pub fn object(props: Vec<(String, Value)>) -> Value {
        // Each key's place found by a look-up: an object of many properties costs their number.
        let mut out: Vec<(String, Value)> = Vec::with_capacity(props.len());
        let mut place: std::collections::HashMap<String, usize> =
            std::collections::HashMap::with_capacity(props.len());
        for (k, v) in props {
            match place.get(&k) {
                Some(&i) => out[i].1 = v,
                None => {
                    place.insert(k.clone(), out.len());
                    out.push((k, v));
                }
            }
        }
        order_own_keys(&mut out);
        Value::Object(Members::new(out))
    }

    /// ECMAScript's Type(x) is Object.
    pub fn is_object(&self) -> bool {
        !matches!(
            self,
            Value::Undefined | Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)
        )
    }

    /// A property of a plain object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(props) => props.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// What `JSON.stringify(value)` gives, or the exception it throws.
    ///
    /// <https://infra.spec.whatwg.org/#serialize-a-javascript-value-to-a-json-string>
    pub fn to_json_string(&self) -> Result<String, ErrorValue> {
        let mut out = String::new();
        if !self.write_json(&mut out)? {
            return Err(ErrorValue::type_error(
                "JSON.stringify gave undefined: the value has no JSON form",
            ));
        }
        Ok(out)
    }

    /// Writes the JSON form; returns false where JSON.stringify gives `undefined`.
    fn write_json(&self, out: &mut String) -> Result<bool, ErrorValue> {
        match self {
            Value::Undefined => return Ok(false),
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(&number_to_json(n.0)),
            Value::String(s) => write_json_string(s, out),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    let mut inner = String::new();
                    if item.write_json(&mut inner)? {
                        out.push_str(&inner);
                    } else {
                        out.push_str("null");
                    }
                }
                out.push(']');
            }
            Value::Object(props) => {
                out.push('{');
                let mut first = true;
                // SerializeJSONObject takes EnumerableOwnProperties, in OrdinaryOwnPropertyKeys'
                // order (objects the engine made are already in it).
                let mut ordered: Vec<&(String, Value)> = props.iter().collect();
                ordered.sort_by_key(|(k, _)| match array_index(k) {
                    Some(i) => (0, i),
                    None => (1, 0),
                });
                for (k, v) in ordered {
                    let mut inner = String::new();
                    if !v.write_json(&mut inner)? {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    write_json_string(k, out);
                    out.push(':');
                    out.push_str(&inner);
                }
                out.push('}');
            }
            // Platform objects and promises have no own enumerable properties.
            Value::Promise(_)
            | Value::Thenable(_)
            | Value::Controller(_)
            | Value::Signal(_)
            | Value::Event(_)
            | Value::Platform(_)
            | Value::Error(_) => out.push_str("{}"),
            // A node's `ownerDocument.defaultView.document...` leads back to it: a cycle.
            Value::Node(_) => {
                return Err(ErrorValue::type_error(
                    "Converting circular structure to JSON (a Node)",
                ))
            }
            // Functions have no JSON form.
            Value::Function(_) => return Ok(false),
            // `window.window === window`: a cycle.
            Value::Window(..) => {
                return Err(ErrorValue::type_error(
                    "Converting circular structure to JSON (a Window)",
                ))
            }
            Value::Unserializable(Unserializable::Circular) => {
                return Err(ErrorValue::type_error(
                    "Converting circular structure to JSON",
                ))
            }
            Value::Unserializable(Unserializable::ToJsonUndefined) => return Ok(false),
        }
        Ok(true)
    }

    /// `JSON.parse` of a string, as a plain value.
    pub fn from_json_str(s: &str) -> Result<Value, ErrorValue> {
        // JSON's grammar allows an escaped lone surrogate, which serde_json refuses.
        let s = crate::text::js_string::unescape_lone_surrogates_in_json(s);
        let parsed: serde_json::Value = serde_json::from_str(&s)
            .map_err(|e| ErrorValue::named("SyntaxError", format!("JSON.parse: {e}")))?;
        Ok(Value::from_json(&parsed))
    }

    pub fn from_json(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::number(n.as_f64().unwrap_or(f64::NAN)),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => Value::object(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

impl<U: Upper> HostState<U> {
    /// `a === b` (see [`Value::is_strictly_equal`]): two WindowProxies are one object when
    /// their documents were loaded in one navigable.
    pub fn is_strictly_equal(&self, a: &Value, b: &Value) -> Option<bool> {
        a.is_strictly_equal(b, |x, y| {
            let navigable = |d: DocumentKey| self.documents.get(d).and_then(|doc| doc.navigable);
            navigable(x).is_some() && navigable(x) == navigable(y)
        })
    }

    /// A short description of a value, for traces and messages.
    pub fn describe_value(&self, v: &Value) -> String {
        match v {
            Value::Promise(p) => self.promise_label(*p),
            Value::Thenable(t) => format!("thenable {}", self.thenables[*t].label),
            Value::Window(d, _) => format!("window of {}", self.label(*d)),
            Value::Controller(s) => format!("controller {}", self.signals[*s].label),
            Value::Signal(s) => format!("signal of {}", self.signals[*s].label),
            Value::Error(e) => {
                format!("{}({})", e.name, crate::text::js_string::quoted(&e.message))
            }
            Value::String(s) => crate::text::js_string::quoted(s),
            Value::Function(_) => "function".into(),
            Value::Undefined => "undefined".into(),
            Value::Node(n) => self.describe_node(*n),
            Value::Platform(o) => format!("{} of {}", o.interface(), self.label(o.realm())),
            Value::Event(e) => match self.dom.events.get(*e) {
                Some(r) => format!("{} event", r.init.event_type),
                None => "event".into(),
            },
            // An array or object without a JSON form (a window inside, a cycle): its class, as
            // the exported tests' runtime shows it (`Object.prototype.toString`'s tag).
            other => other.to_json_string().unwrap_or_else(|_| match other {
                Value::Array(_) => "Array".into(),
                Value::Object(_) => "Object".into(),
                _ => format!("{other:?}"),
            }),
        }
    }

    /// How a value reads in a log line or a message.
    pub fn display_value(&self, v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Undefined => "undefined".into(),
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => number_to_js_string(n.0),
            Value::Error(e) if e.message.is_empty() => e.name.clone(),
            Value::Error(e) => format!("{}: {}", e.name, e.message),
            other => self.describe_value(other),
        }
    }
}

/// Whether a property key is an array index: the canonical decimal form of an integer from 0
/// to 2^32 - 2.
///
/// <https://tc39.es/ecma262/#array-index>
pub fn array_index(key: &str) -> Option<u32> {
    let n: u32 = key.parse().ok()?;
    (n != u32::MAX && n.to_string() == key).then_some(n)
}

/// Puts an ordinary object's own keys in ECMAScript's order (step 2: array indices ascending;
/// step 3: the other strings in the order they were made). A stable sort: only indices move.
fn order_own_keys(props: &mut [(String, Value)]) {
    props.sort_by_key(|(k, _)| match array_index(k) {
        Some(i) => (0, i),
        None => (1, 0),
    });
}

/// Number::toString for the values JSON needs; non-finite numbers serialize as `null`.
pub fn number_to_json(n: f64) -> String {
    if !n.is_finite() {
        return "null".into();
    }
    number_to_js_string(n)
}

/// ECMAScript's Number::toString for the common range (integers print without a fraction).
pub fn number_to_js_string(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n == 0.0 {
        return "0".into();
    }
    if n.fract() == 0.0 && n.abs() < 1e21 {
        return format!("{}", n as i128);
    }
    let s = format!("{n}");
    if n.abs() >= 1e21 || n.abs() < 1e-6 {
        let e = format!("{n:e}");
        // Rust writes `1e21`, JavaScript `1e+21`.
        return match e.split_once('e') {
            Some((m, exp)) if !exp.starts_with('-') => format!("{m}e+{exp}"),
            _ => e,
        };
    }
    s
}

fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            // Well-formed JSON.stringify writes a lone surrogate as its escape.
            c => match crate::text::js_string::as_lone_surrogate(c) {
                Some(unit) => {
                    let _ = write!(out, "\\u{unit:04x}");
                }
                None => out.push(c),
            },
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_follow_json_stringify() {
        let v = Value::object(vec![
            ("status".into(), Value::string("resolved")),
            ("n".into(), Value::number(5.0)),
            ("skip".into(), Value::Undefined),
            (
                "a".into(),
                Value::array(vec![Value::Undefined, Value::number(0.5)]),
            ),
        ]);
        assert_eq!(
            v.to_json_string().unwrap(),
            r#"{"status":"resolved","n":5,"a":[null,0.5]}"#
        );
        assert!(Value::Undefined.to_json_string().is_err());
        assert!(Value::Unserializable(Unserializable::Circular)
            .to_json_string()
            .is_err());
        assert_eq!(Value::number(f64::NAN).to_json_string().unwrap(), "null");
        assert_eq!(number_to_js_string(1e21), "1e+21");
    }

    #[test]
    fn a_lone_surrogate_is_escaped_by_stringify_and_read_back_by_parse() {
        let lone = crate::text::js_string::lone_surrogate(0xD800).unwrap();
        let v = Value::object(vec![("t".into(), Value::string(format!("a{lone}")))]);
        let json = v.to_json_string().unwrap();
        assert_eq!(json, r#"{"t":"a\ud800"}"#);
        assert_eq!(Value::from_json_str(&json).unwrap(), v);
    }

    #[test]
    fn objects_keep_ecmascript_own_key_order() {
        // OrdinaryOwnPropertyKeys: array indices first, ascending, then strings as made.
        let v = Value::object(vec![
            ("b".into(), Value::number(1.0)),
            ("2".into(), Value::number(2.0)),
            ("a".into(), Value::number(3.0)),
            ("10".into(), Value::number(4.0)),
            ("01".into(), Value::number(5.0)),
            ("b".into(), Value::number(6.0)),
        ]);
        assert_eq!(
            v.to_json_string().unwrap(),
            r#"{"2":2,"10":4,"b":6,"a":3,"01":5}"#
        );
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("4294967294"), Some(4294967294));
    }
}
