//! Keys into the host's arenas. Nothing holds a reference into another arena: a key is
//! the only way to name a navigable, a document, a promise or any other simulated object.

use slotmap::new_key_type;

new_key_type! {
    /// A navigable; a top-level traversable is a navigable without a parent.
    pub struct NavigableKey;
    /// A `Document`, and with it its `Window` and its realm.
    pub struct DocumentKey;
    /// An event loop.
    pub struct EventLoopKey;
    /// A parallel queue (the AI agent queue, or the steps one "in parallel" block runs).
    pub struct ParallelQueueKey;
    /// A promise.
    pub struct PromiseKey;
    /// A pair of resolving functions, with their shared "already resolved" record.
    pub struct ResolverKey;
    /// An object with a `then` method that is not a native promise.
    pub struct ThenableKey;
    /// An `AbortSignal` (an `AbortController` is named by the key of its signal).
    pub struct SignalKey;
    /// An event listener.
    pub struct ListenerKey;
    /// A timer on the virtual clock.
    pub struct TimerKey;
    /// A DOM node: a document's node, an element, a text node, ... (see `dom`).
    pub struct NodeKey;
    /// A DOM event, kept while script may still hold it (see `dom::dispatch`).
    pub struct EventKey;
}
