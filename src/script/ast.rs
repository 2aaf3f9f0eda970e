//! The page script's syntax tree: a small, JavaScript-shaped language whose statements run in
//! a realm, inside tasks, callbacks and promise jobs of the simulation. Scripts are data so
//! that a world can be cloned and compared, which the explorer needs.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use crate::host::keys::{DocumentKey, PromiseKey};
use crate::host::shared::StateHasher;
use crate::host::value::Value;

/// A block of statements: a task's script, a callback's body.
///
/// A block never changes once parsed, and the world hashes a pending continuation's block each
/// time it queues one (an `await` in a long script queues the rest of it): the block's hash is
/// worked out once, on first use, so that queueing costs the same whatever the block's length.
#[derive(Clone, Debug)]
pub struct Block {
    /// The line of the scenario file where the block starts.
    pub line: u32,
    pub stmts: Vec<Stmt>,
    digest: OnceLock<u128>,
}

impl Block {
    pub fn new(line: u32, stmts: Vec<Stmt>) -> Block {
        Block {
            line,
            stmts,
            digest: OnceLock::new(),
        }
    }

    fn digest(&self) -> u128 {
        *self.digest.get_or_init(|| {
            let mut h = StateHasher::default();
            self.line.hash(&mut h);
            self.stmts.hash(&mut h);
            h.finish128()
        })
    }
}

impl PartialEq for Block {
    fn eq(&self, other: &Block) -> bool {
        self.line == other.line && self.stmts == other.stmts
    }
}

impl Eq for Block {}

impl Hash for Block {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u128(self.digest());
    }
}

/// One statement, with where it stands in the scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    pub line: u32,
    pub column: u32,
    pub kind: StmtKind,
}

/// Which settlement a reaction block runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Branch {
    Fulfilled,
    Rejected,
    Settled,
}

/// A statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum StmtKind {
    /// `[name =] [await] expr`
    Eval {
        bind: Option<String>,
        awaited: bool,
        expr: Expr,
    },
    /// `log "text {name.member}"`
    Log(Vec<LogPart>),
    /// `return expr` (in a tool's execute body)
    Return(Expr),
    /// `throw expr`
    Throw(Expr),
    /// `resolve p [with v]`: calls the resolve function of a promise or a thenable's `then`.
    Resolve { target: Expr, value: Expr },
    /// `reject p [with e]`
    Reject { target: Expr, value: Expr },
    /// `remove child`: removes the iframe whose document is `child`.
    Remove(Expr),
    /// `if EXPR:` + block, then optionally `else:` + block (or `else if EXPR:`, an `if` alone
    /// in the else block): ECMAScript's `if` statement, its test converted with ToBoolean.
    If {
        test: Expr,
        then: Arc<Block>,
        otherwise: Option<Arc<Block>>,
    },
    /// `navigate child to URL as name [bfcache]`: starts a navigation that commits later.
    Navigate {
        from: Expr,
        url: String,
        label: String,
        keep_in_bfcache: bool,
    },
    /// `after 10ms:` a timer (`setTimeout`) whose callback is the block.
    After { ms: u64, body: Arc<Block> },
    /// `on target event [once]:` an event listener whose callback is the block.
    On {
        target: Expr,
        event: String,
        once: bool,
        body: Arc<Block>,
    },
    /// `TARGET.MEMBER = EXPR`: a setter of an IDL attribute (an element's `value`, `checked`,
    /// `disabled`...), run with the value converted as Web IDL converts it.
    SetMember {
        target: Expr,
        member: String,
        value: Expr,
    },
    /// `top.ontoolchange = { ... }` or `= null`.
    SetHandler {
        target: Expr,
        event: String,
        body: Option<Arc<Block>>,
    },
    /// `on p fulfilled [as v]:` a reaction whose handler is the block.
    Then {
        promise: Expr,
        branch: Branch,
        bind: Option<String>,
        body: Arc<Block>,
    },
}

/// A piece of a `log` text or of a template literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LogPart {
    Text(String),
    Expr(Expr),
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A literal primitive, array or object without expressions in it.
    Literal(Value),
    Name(String),
    Member(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    /// `target.method(args)`
    Call {
        target: Box<Expr>,
        method: String,
        args: Vec<Expr>,
    },
    /// A global function or constructor: `AbortController()`, `DOMException("AbortError")`,
    /// `TypeError("x")`, `Promise.resolve(v)`, `Promise.reject(e)`, `AbortSignal.abort(r)`.
    Global {
        name: String,
        args: Vec<Expr>,
    },
    Object(Vec<(String, Expr)>),
    Array(Vec<Expr>),
    /// A callback written in place: `returns(v)`, `throws(e)`, `pending`, or a named script.
    Callback(CallbackBody),
    /// A template literal, `` `outer:${inner}` ``: its text, and each substitution converted
    /// with ECMAScript's ToString.
    Template(Vec<LogPart>),
    /// `!EXPR`: ECMAScript's logical NOT (the operand's ToBoolean, negated).
    Not(Box<Expr>),
    /// `A === B` (or `A !== B`, `negated`): ECMAScript's IsStrictlyEqual, objects compared
    /// by identity (see [`Value::is_strictly_equal`]).
    StrictEquals {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
    /// `VALUE instanceof INTERFACE` or `VALUE instanceof DOC.INTERFACE`: ECMAScript's
    /// InstanceofOperator against that interface object of the current realm or of the
    /// document's (see `instance`).
    InstanceOf {
        value: Box<Expr>,
        realm: Option<Box<Expr>>,
        interface: String,
    },
}

/// What a callback written by a scenario does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallbackBody {
    /// Returns the value (a promise stays a promise).
    Returns(Box<Expr>),
    /// Throws the value.
    Throws(Box<Expr>),
    /// Returns a promise that never settles.
    Pending,
    /// Runs a block as an async function; `input` and `options` (with `options.signal`, also
    /// named `signal`) are its parameters.
    Script(Arc<Block>),
}

/// A function value: a callback and the realm it was created in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Function {
    pub realm: DocumentKey,
    pub body: CallbackBody,
    /// The enclosing block's parameters, which the body can still name.
    pub captured: Vec<(String, Value)>,
}

/// An activation of a block: where it is, its realm, and its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frame {
    pub block: Arc<Block>,
    /// The next statement to run.
    pub pc: usize,
    pub realm: DocumentKey,
    pub locals: Vec<(String, Value)>,
    /// The promise of the block seen as an async function.
    pub completion: Option<PromiseKey>,
    /// The blocks this one runs inside (an `if`'s branch runs inside the block of its `if`),
    /// innermost last, each with the statement it goes on at once this one ends.
    pub outer: Vec<(Arc<Block>, usize)>,
}

impl Frame {
    pub fn new(block: Arc<Block>, realm: DocumentKey) -> Frame {
        Frame {
            block,
            pc: 0,
            realm,
            locals: Vec::new(),
            completion: None,
            outer: Vec::new(),
        }
    }

    /// The line of the statement about to run (or of the block's end).
    pub fn current_line(&self) -> u32 {
        self.block
            .stmts
            .get(self.pc.saturating_sub(1))
            .map(|s| s.line)
            .unwrap_or(self.block.line)
    }
}

#[cfg(test)]
mod tests {
    use std::hash::Hash;

    use crate::host::shared::StateHasher;
    use crate::script::parser::parse_script;

    fn hash_of(b: &super::Block) -> u128 {
        let mut h = StateHasher::default();
        b.hash(&mut h);
        h.finish128()
    }

    /// A block's remembered hash is a function of its statements: equal blocks hash alike
    /// (a copy, or the same text parsed again), and a block that says something else does not.
    #[test]
    fn a_blocks_hash_follows_its_statements() {
        let a = parse_script("x = 1\nlog \"a\"").unwrap();
        let again = parse_script("x = 1\nlog \"a\"").unwrap();
        let other = parse_script("x = 1\nlog \"b\"").unwrap();
        let shorter = parse_script("x = 1").unwrap();
        assert_eq!(hash_of(&a), hash_of(&again));
        assert_eq!(hash_of(&a), hash_of(&a.clone()));
        assert_eq!(a, again);
        assert_ne!(a, other);
        assert_ne!(hash_of(&a), hash_of(&other));
        assert_ne!(hash_of(&a), hash_of(&shorter));
        // A block inside a statement hashes by its own statements too.
        let timer = parse_script("after 5ms:\n  log \"a\"").unwrap();
        let other_timer = parse_script("after 5ms:\n  log \"b\"").unwrap();
        assert_ne!(timer, other_timer);
        assert_ne!(hash_of(&timer), hash_of(&other_timer));
    }
}
