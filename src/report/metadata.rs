//! WPT expectation metadata: the `.ini` files wptrunner reads (`--metadata DIR`), one per test
//! file, as Servo and Gecko keep theirs.
//!
//! ```text
//! [child-frames.https.html]
//!   expected: ERROR
//!   [a cross-origin iframe not allowed to use tools still holds up the wait]
//!     expected: FAIL
//!   [two iframes: ready when the last one is]
//!     expected:
//!       if profile == "chromium-156": [FAIL, PASS]
//!       PASS
//! ```
//!
//! A file's path is its test ID with `.ini` added
//! (`DIR/webmcp/webmcp-ref/readiness/child-frames.tentative.https.html.ini`). A value is a
//! status or a list of them: the first is the expected one, the rest are known intermittent. A
//! key may have conditions, in wptrunner's language (`if os == "linux" and not debug: FAIL`:
//! `==`, `!=`, `not`, `and`, `or`, parentheses, strings, numbers, and the run's properties by
//! name), evaluated against the run's `run_info` as the wptreport writes it
//! ([`crate::report::wpt::run_info`]: `product`, `os`, `debug`, `profile`, each switch of the
//! profile with `_` for `-`...). The first condition that holds wins, a line with no `if` is the
//! default, and a condition naming a property the run does not have does not hold, as in
//! wptrunner. Keys other than `expected` are read and left alone.
//!
//! As in wptrunner, a subtest with no entry is expected to PASS and a file with no entry to be
//! OK, so a subtest that is PRECONDITION_FAILED because its profile lacks what the file
//! `requires:` has an entry saying so. Only what differs from that is written; what webmcp-ref
//! writes (conditions on `profile`) and what wptrunner's updater writes read the same in both.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::wpt::{result_test_id, subtest_status, test_status, SUBTEST_DEFAULT, TEST_DEFAULT};
use crate::scenario::FileResult;

/// The statuses a wptreport result may have.
const STATUSES: &[&str] = &[
    "PASS",
    "FAIL",
    "OK",
    "ERROR",
    "TIMEOUT",
    "CRASH",
    "NOTRUN",
    "PRECONDITION_FAILED",
    "SKIP",
];

/// A metadata file that cannot be read.
#[derive(Debug, Error)]
pub enum MetadataError {
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    /// An `.ini` file that is not a regular file, too large, or not UTF-8.
    #[error(transparent)]
    Read(#[from] crate::text::file::ReadError),
    #[error("{path}:{line}: {message}")]
    Syntax {
        path: String,
        line: u32,
        message: String,
    },
}

/// The statuses expected of a result: the first is the expected one, the rest known
/// intermittent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation(pub Vec<String>);

impl Expectation {
    pub fn single(status: &str) -> Expectation {
        Expectation(vec![status.to_string()])
    }

    pub fn first(&self) -> &str {
        self.0.first().map(String::as_str).unwrap_or("PASS")
    }

    pub fn intermittent(&self) -> &[String] {
        self.0.get(1..).unwrap_or(&[])
    }

    pub fn allows(&self, status: &str) -> bool {
        self.0.iter().any(|s| s == status)
    }

    fn write(&self) -> String {
        match self.0.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        }
    }
}

/// The properties of a run that conditions read: the wptreport's `run_info`.
pub type RunInfo = serde_json::Map<String, serde_json::Value>;

/// The run's profile, as its `run_info` names it.
pub fn profile_of(info: &RunInfo) -> &str {
    info.get("profile")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// A condition of wptrunner's metadata language, with the text it was read from.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub text: String,
    expr: Expr,
}

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    /// A property of the run.
    Var(String),
    Str(String),
    Num(f64),
    Not(Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinaryOp {
    Eq,
    Ne,
    And,
    Or,
}

impl BinaryOp {
    /// wptmanifest's precedence: `==` binds tightest, then `!=`, `not`, `and`, `or`.
    fn precedence(self) -> u8 {
        match self {
            BinaryOp::Eq => 5,
            BinaryOp::Ne => 4,
            BinaryOp::And => 2,
            BinaryOp::Or => 1,
        }
    }
}
const NOT_PRECEDENCE: u8 = 3;

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Num(f64),
    Op(String),
    Open,
    Close,
}

/// A condition's tokens, up to the `:` that ends it; returns them and the rest of the line.
fn tokens(line: &str) -> Result<(Vec<Token>, &str), String> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            ' ' => {
                chars.next();
            }
            ':' => return Ok((out, &line[i + 1..])),
            '(' => {
                chars.next();
                out.push(Token::Open);
            }
            ')' => {
                chars.next();
                out.push(Token::Close);
            }
            '"' | '\'' => {
                chars.next();
                let mut text = String::new();
                loop {
                    match chars.next() {
                        Some((_, '\\')) => match chars.next() {
                            Some((_, 'n')) => text.push('\n'),
                            Some((_, 't')) => text.push('\t'),
                            Some((_, other)) => text.push(other),
                            None => return Err("a string ends before its closing quote".into()),
                        },
                        Some((_, q)) if q == c => break,
                        Some((_, other)) => text.push(other),
                        None => return Err("a string ends before its closing quote".into()),
                    }
                }
                out.push(Token::Str(text));
            }
            '=' | '!' => {
                let mut op = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if c != '=' && c != '!' {
                        break;
                    }
                    op.push(c);
                    chars.next();
                }
                if op != "==" && op != "!=" {
                    return Err(format!("unknown operator {op:?} (`==` or `!=`)"));
                }
                out.push(Token::Op(op));
            }
            '0'..='9' => {
                let mut number = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if !(c.is_ascii_digit() || c == '.') {
                        break;
                    }
                    number.push(c);
                    chars.next();
                }
                out.push(Token::Num(
                    number
                        .parse()
                        .map_err(|_| format!("{number:?} is not a number"))?,
                ));
            }
            '#' => return Err("a comment before the end of a condition".into()),
            _ => {
                let mut ident = String::new();
                while let Some(&(_, c)) = chars.peek() {
                    if " :()[]=!'\".".contains(c) {
                        break;
                    }
                    ident.push(c);
                    chars.next();
                }
                if ident.is_empty() {
                    return Err(format!("unexpected {c:?} in a condition"));
                }
                out.push(match ident.as_str() {
                    "and" | "or" | "not" => Token::Op(ident),
                    _ => Token::Ident(ident),
                });
            }
        }
    }
    Err("a condition is followed by `: VALUE`".into())
}

struct ExprParser {
    tokens: Vec<Token>,
    at: usize,
}

impl ExprParser {
    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn peek_binary(&self) -> Option<BinaryOp> {
        match self.tokens.get(self.at) {
            Some(Token::Op(op)) => match op.as_str() {
                "==" => Some(BinaryOp::Eq),
                "!=" => Some(BinaryOp::Ne),
                "and" => Some(BinaryOp::And),
                "or" => Some(BinaryOp::Or),
                _ => None,
            },
            _ => None,
        }
    }

    fn expr(&mut self, min: u8) -> Result<Expr, String> {
        let mut left = match self.next() {
            Some(Token::Op(op)) if op == "not" => Expr::Not(Box::new(self.expr(NOT_PRECEDENCE)?)),
            Some(Token::Open) => {
                let inner = self.expr(0)?;
                if self.next() != Some(Token::Close) {
                    return Err("a `(` without its `)`".into());
                }
                inner
            }
            // `True` and `False` are values' atoms, not a condition's: in a condition,
            // wptrunner reads them as properties of the run (which it has none of).
            Some(Token::Ident(name)) => Expr::Var(name),
            Some(Token::Str(s)) => Expr::Str(s),
            Some(Token::Num(n)) => Expr::Num(n),
            Some(other) => return Err(format!("unexpected {other:?} in a condition")),
            None => return Err("a condition ends where a value was expected".into()),
        };
        while let Some(op) = self.peek_binary() {
            if op.precedence() <= min {
                break;
            }
            self.at += 1;
            let right = self.expr(op.precedence())?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
        Ok(left)
    }
}

/// A property's value, or a literal's.
fn value_of(expr: &Expr, info: &RunInfo) -> Option<serde_json::Value> {
    use serde_json::Value;
    Some(match expr {
        Expr::Var(name) => info.get(name)?.clone(),
        Expr::Str(s) => Value::String(s.clone()),
        Expr::Num(n) => serde_json::json!(n),
        Expr::Not(e) => Value::Bool(!truthy(&value_of(e, info)?)),
        Expr::Binary(op, a, b) => {
            let (a, b) = (value_of(a, info)?, value_of(b, info)?);
            Value::Bool(match op {
                BinaryOp::Eq => same(&a, &b),
                BinaryOp::Ne => !same(&a, &b),
                BinaryOp::And => truthy(&a) && truthy(&b),
                BinaryOp::Or => truthy(&a) || truthy(&b),
            })
        }
    })
}

fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn truthy(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

impl Condition {
    /// Reads a condition (after its `if `): the condition, and the text after its `:`.
    pub fn parse(text: &str) -> Result<(Condition, &str), String> {
        let (tokens, rest) = tokens(text)?;
        let mut parser = ExprParser { tokens, at: 0 };
        let expr = parser.expr(0)?;
        if let Some(t) = parser.next() {
            return Err(format!("unexpected {t:?} after a condition"));
        }
        let consumed = text.len() - rest.len() - 1;
        Ok((
            Condition {
                text: text[..consumed].trim().to_string(),
                expr,
            },
            rest,
        ))
    }

    /// The condition that holds under these profiles: `profile == "a" or profile == "b"`.
    pub fn profiles(names: &[String]) -> Condition {
        let text = names
            .iter()
            .map(|p| format!("profile == {p:?}"))
            .collect::<Vec<_>>()
            .join(" or ");
        let parsed = Condition::parse(&format!("{text}:")).map(|(c, _)| c.expr);
        Condition {
            expr: parsed.unwrap_or(Expr::Num(0.0)),
            text,
        }
    }

    /// Whether it holds for a run: a property the run lacks makes it false (wptrunner's
    /// KeyError).
    pub fn holds(&self, info: &RunInfo) -> bool {
        value_of(&self.expr, info).is_some_and(|v| truthy(&v))
    }
}

/// A value with its conditions, in the order written: `(condition, expectation)`, where no
/// condition is the default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conditional {
    pub cases: Vec<(Option<Condition>, Expectation)>,
    /// The line of the key, for messages.
    pub line: u32,
}

impl Conditional {
    /// The expectation for a run: the first case that holds.
    pub fn under(&self, info: &RunInfo) -> Option<&Expectation> {
        self.cases
            .iter()
            .find(|(c, _)| c.as_ref().is_none_or(|c| c.holds(info)))
            .map(|(_, e)| e)
    }
}

/// The metadata of one test file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TestMetadata {
    /// The `.ini` file it was read from.
    pub path: String,
    pub expected: Option<Conditional>,
    /// Each subtest's `expected`, in the order written.
    pub subtests: Vec<(String, Conditional)>,
}

/// Every test file's metadata, by test ID.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    pub tests: BTreeMap<String, TestMetadata>,
}

impl Metadata {
    /// What is expected of a file in a run, when the metadata says.
    pub fn test(&self, id: &str, info: &RunInfo) -> Option<Expectation> {
        self.tests.get(id)?.expected.as_ref()?.under(info).cloned()
    }

    /// What is expected of a subtest in a run, when the metadata says.
    pub fn subtest(&self, id: &str, name: &str, info: &RunInfo) -> Option<Expectation> {
        self.tests
            .get(id)?
            .subtests
            .iter()
            .find(|(n, _)| n == name)?
            .1
            .under(info)
            .cloned()
    }

    /// Reads every `.ini` file under `dir` (`__dir__.ini`, wptrunner's per-folder defaults,
    /// says nothing about a test and is skipped).
    pub fn read_dir(dir: &Path) -> Result<Metadata, MetadataError> {
        let mut files = Vec::new();
        collect_ini(dir, &mut files).map_err(|error| MetadataError::Io {
            path: dir.display().to_string(),
            error,
        })?;
        files.sort();
        let mut out = Metadata::default();
        for f in files {
            let rel = f.strip_prefix(dir).unwrap_or(&f);
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let joined = parts.join("/");
            let Some(id) = joined.strip_suffix(".ini") else {
                continue;
            };
            let text = crate::text::file::read_text(&f, MAX_INI_BYTES, "an .ini file")?;
            let id = format!("/{id}");
            let test = parse(&f.display().to_string(), &id, &text)?;
            out.tests.insert(id, test);
        }
        Ok(out)
    }
}

/// The most bytes one `.ini` file may hold (wptrunner's are a few hundred).
pub const MAX_INI_BYTES: u64 = 1 << 20;

/// The `.ini` files under `dir`, each folder walked once however many links reach it (a link
/// to a folder above it does not loop). What is named `.ini` and is not a regular file is
/// listed, for the reader to refuse with its kind.
fn collect_ini(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    fn walk(
        dir: &Path,
        out: &mut Vec<PathBuf>,
        walked: &mut std::collections::BTreeSet<PathBuf>,
    ) -> std::io::Result<()> {
        if !walked.insert(std::fs::canonicalize(dir)?) {
            return Ok(());
        }
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out, walked)?;
            } else if path.extension().is_some_and(|e| e == "ini")
                && path.file_name().is_some_and(|n| n != "__dir__.ini")
            {
                out.push(path);
            }
        }
        Ok(())
    }
    walk(dir, out, &mut std::collections::BTreeSet::new())
}

/// A section heading's name: `\]` and `\\` are escapes.
fn unescape_heading(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn escape_heading(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// Where a heading's closing `]` is (the first one not escaped).
fn heading_end(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            ']' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

/// Reads one `.ini` file: the metadata of the test `id`.
pub fn parse(path: &str, id: &str, text: &str) -> Result<TestMetadata, MetadataError> {
    let err = |line: usize, message: String| MetadataError::Syntax {
        path: path.to_string(),
        line: line as u32 + 1,
        message,
    };
    let file_name = id.rsplit('/').next().unwrap_or(id);
    let mut test = TestMetadata {
        path: path.to_string(),
        ..TestMetadata::default()
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut in_test = false;
    // The subtest whose keys follow, by index into test.subtests.
    let mut subtest: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let indent = raw.len() - raw.trim_start_matches(' ').len();
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            i += 1;
            continue;
        }
        if raw.starts_with('\t') {
            return Err(err(i, "indent with spaces, not tabs".into()));
        }
        if let Some(rest) = line.strip_prefix('[') {
            let end = heading_end(rest).ok_or_else(|| err(i, "a heading ends with `]`".into()))?;
            if !rest[end + 1..].trim().is_empty() {
                return Err(err(i, "nothing may follow a heading's `]`".into()));
            }
            let name = unescape_heading(&rest[..end]);
            if indent == 0 {
                if in_test {
                    return Err(err(i, "one test per file".into()));
                }
                if name != file_name {
                    return Err(err(
                        i,
                        format!("the file is the metadata of {file_name}, not of {name}"),
                    ));
                }
                in_test = true;
                subtest = None;
            } else {
                if !in_test {
                    return Err(err(i, "a subtest's heading comes under its test's".into()));
                }
                if test.subtests.iter().any(|(n, _)| *n == name) {
                    return Err(err(i, format!("subtest {name:?} is named twice")));
                }
                test.subtests.push((name, Conditional::default()));
                subtest = Some(test.subtests.len() - 1);
            }
            i += 1;
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(err(
                i,
                format!("expected `[heading]` or `key: value`, found {line:?}"),
            ));
        };
        if !in_test {
            return Err(err(i, "keys come under the test's heading".into()));
        }
        let key = key.trim();
        let value = value.trim();
        let start = i;
        // A key with no value has its conditions on the lines below, indented further.
        let mut cases = Vec::new();
        if value.is_empty() {
            i += 1;
            while i < lines.len() {
                let raw = lines[i];
                let deeper = raw.len() - raw.trim_start_matches(' ').len() > indent;
                let l = raw.trim();
                if l.is_empty() || l.starts_with('#') {
                    i += 1;
                    continue;
                }
                if !deeper {
                    break;
                }
                cases.push(case(l).map_err(|m| err(i, m))?);
                i += 1;
            }
            if cases.is_empty() {
                return Err(err(start, format!("`{key}:` has no value")));
            }
        } else {
            cases.push((None, value.to_string()));
            i += 1;
        }
        if key != "expected" {
            continue;
        }
        let cases = cases
            .into_iter()
            .map(|(condition, v)| Ok((condition, expectation(&v)?)))
            .collect::<Result<Vec<_>, String>>()
            .map_err(|m| err(start, m))?;
        let conditional = Conditional {
            cases,
            line: start as u32 + 1,
        };
        match subtest {
            Some(s) => test.subtests[s].1 = conditional,
            None => test.expected = Some(conditional),
        }
    }
    if !in_test {
        return Err(MetadataError::Syntax {
            path: path.to_string(),
            line: 1,
            message: format!("no [{file_name}] heading"),
        });
    }
    Ok(test)
}

/// One line of a conditional value: `if CONDITION: VALUE`, or `VALUE`.
fn case(line: &str) -> Result<(Option<Condition>, String), String> {
    let Some(cond) = line.strip_prefix("if ") else {
        return Ok((None, line.to_string()));
    };
    let (condition, value) = Condition::parse(cond)?;
    Ok((Some(condition), value.trim().to_string()))
}

/// A value without its inline comment (`FAIL  # why`); a `#` inside quotes is kept.
fn without_comment(value: &str) -> &str {
    let mut quote = None;
    for (i, c) in value.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') => return value[..i].trim_end(),
            _ => {}
        }
    }
    value.trim_end()
}

fn expectation(value: &str) -> Result<Expectation, String> {
    let value = without_comment(value);
    let unquote = |s: &str| {
        s.strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
            .unwrap_or(s)
            .to_string()
    };
    let items: Vec<String> = match value.strip_prefix('[') {
        Some(list) => list
            .strip_suffix(']')
            .ok_or("a list ends with `]`")?
            .split(',')
            .map(|s| unquote(s.trim()))
            .filter(|s| !s.is_empty())
            .collect(),
        None => vec![unquote(value.trim())],
    };
    let mut out = Vec::new();
    for s in items {
        let s = s.as_str();
        if !STATUSES.contains(&s) {
            return Err(format!(
                "unknown status {s:?} (one of {})",
                STATUSES.join(", ")
            ));
        }
        if out.iter().any(|o: &String| o == s) {
            return Err(format!("{s} is listed twice"));
        }
        out.push(s.to_string());
    }
    Ok(Expectation(out))
}

/// The text of a conditional value, under a key at `indent` spaces.
fn write_value(out: &mut String, indent: usize, c: &Conditional) {
    let pad = " ".repeat(indent);
    match c.cases.as_slice() {
        [(None, e)] => {
            let _ = writeln!(out, "{pad}expected: {}", e.write());
        }
        cases => {
            let _ = writeln!(out, "{pad}expected:");
            for (condition, e) in cases {
                match condition {
                    None => {
                        let _ = writeln!(out, "{pad}  {}", e.write());
                    }
                    Some(c) => {
                        let _ = writeln!(out, "{pad}  if {}: {}", c.text, e.write());
                    }
                }
            }
        }
    }
}

/// The `.ini` text of one test's metadata.
pub fn write(id: &str, test: &TestMetadata) -> String {
    let mut out = String::new();
    let name = id.rsplit('/').next().unwrap_or(id);
    let _ = writeln!(out, "[{}]", escape_heading(name));
    if let Some(e) = &test.expected {
        write_value(&mut out, 2, e);
    }
    for (name, e) in &test.subtests {
        let _ = writeln!(out, "  [{}]", escape_heading(name));
        write_value(&mut out, 4, e);
    }
    out
}

/// One value per profile, folded into conditions: a profile whose expectation is the default
/// gets none; when every profile run has the same one, it is written without a condition.
fn fold(per_profile: &[(String, Option<Expectation>)]) -> Option<Conditional> {
    let non_default: Vec<&(String, Option<Expectation>)> =
        per_profile.iter().filter(|(_, e)| e.is_some()).collect();
    if non_default.is_empty() {
        return None;
    }
    if non_default.len() == per_profile.len() && non_default.windows(2).all(|w| w[0].1 == w[1].1) {
        let e = non_default[0].1.clone()?;
        return Some(Conditional {
            cases: vec![(None, e)],
            line: 0,
        });
    }
    // One case per distinct expectation, naming its profiles, in the order first met.
    let mut cases: Vec<(Vec<String>, Expectation)> = Vec::new();
    for (p, e) in non_default {
        let Some(e) = e else { continue };
        match cases.iter_mut().find(|(_, x)| x == e) {
            Some((ps, _)) => ps.push(p.clone()),
            None => cases.push((vec![p.clone()], e.clone())),
        }
    }
    Some(Conditional {
        cases: cases
            .into_iter()
            .map(|(profiles, e)| (Some(Condition::profiles(&profiles)), e))
            .collect(),
        line: 0,
    })
}

/// The expectation to write for a result: `None` when it is the default. The metadata read
/// before (`previous`) is kept when it already expects the result, intermittent statuses
/// included; otherwise the result is what is expected now.
fn to_write(status: &str, default: &str, previous: Option<Expectation>) -> Option<Expectation> {
    let e = match previous {
        Some(p) if p.allows(status) => p,
        _ => Expectation::single(status),
    };
    (e != Expectation::single(default)).then_some(e)
}

/// The metadata that expects exactly what the runs gave (one run per profile, over the same
/// files), keeping the intermittent statuses `previous` lists for results it expected: a
/// `(relative path, text)` per file, `None` for a file with nothing to expect (whose `.ini`,
/// if any, is then removed).
pub fn from_runs(
    runs: &[(&RunInfo, &[FileResult])],
    previous: Option<&Metadata>,
    wpt_root: Option<&Path>,
) -> Vec<(String, Option<String>)> {
    let Some((_, first)) = runs.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (fi, file) in first.iter().enumerate() {
        let id = result_test_id(file, wpt_root);
        let mut test = TestMetadata::default();
        let per_profile: Vec<(String, Option<Expectation>)> = runs
            .iter()
            .map(|(info, files)| {
                let prev = previous.and_then(|m| m.test(&id, info));
                (
                    profile_of(info).to_string(),
                    to_write(test_status(&files[fi]), TEST_DEFAULT, prev),
                )
            })
            .collect();
        test.expected = fold(&per_profile);
        for (si, sub) in file.subtests.iter().enumerate() {
            let per_profile: Vec<(String, Option<Expectation>)> = runs
                .iter()
                .map(|(info, files)| {
                    let s = &files[fi].subtests[si];
                    let prev = previous.and_then(|m| m.subtest(&id, &s.name, info));
                    (
                        profile_of(info).to_string(),
                        to_write(subtest_status(s.status), SUBTEST_DEFAULT, prev),
                    )
                })
                .collect();
            if let Some(c) = fold(&per_profile) {
                test.subtests.push((sub.name.clone(), c));
            }
        }
        let path = format!("{}.ini", id.trim_start_matches('/'));
        let text =
            (test.expected.is_some() || !test.subtests.is_empty()).then(|| write(&id, &test));
        out.push((path, text));
    }
    out
}

/// What a run came to against the metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Check {
    /// `(test ID, subtest or None for the file, profile, status, expected statuses)`.
    pub unexpected: Vec<Unexpected>,
    /// Entries that name no test or subtest that was run, or expect only the default.
    pub stale: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unexpected {
    pub test: String,
    pub subtest: Option<String>,
    pub profile: String,
    pub status: String,
    pub expected: Expectation,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.unexpected.is_empty() && self.stale.is_empty()
    }

    /// The check, for people: each unexpected result and each stale entry.
    pub fn human(&self, dir: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nAgainst the expectations in {dir}: {} unexpected result(s), {} stale entr{}",
            self.unexpected.len(),
            self.stale.len(),
            if self.stale.len() == 1 { "y" } else { "ies" }
        );
        for u in &self.unexpected {
            let what = match &u.subtest {
                Some(s) => format!("{} :: {s:?}", u.test),
                None => u.test.clone(),
            };
            let _ = writeln!(
                out,
                "    UNEXPECTED {} (expected {}) [{}]  {what}",
                u.status,
                u.expected.write(),
                u.profile
            );
        }
        for s in &self.stale {
            let _ = writeln!(out, "    STALE      {s}");
        }
        out
    }
}

/// Compares runs (one per profile) with the metadata. `whole_suite`: the files run are all
/// the metadata is about, so an entry for a file not run is stale too.
pub fn check(
    runs: &[(&RunInfo, &[FileResult])],
    metadata: &Metadata,
    wpt_root: Option<&Path>,
    whole_suite: bool,
) -> Check {
    let mut out = Check::default();
    let mut seen_tests = Vec::new();
    let Some((_, first)) = runs.first() else {
        return out;
    };
    for (fi, file) in first.iter().enumerate() {
        let id = result_test_id(file, wpt_root);
        seen_tests.push(id.clone());
        for (info, files) in runs {
            let profile = profile_of(info).to_string();
            let f = &files[fi];
            let status = test_status(f);
            let expected = metadata
                .test(&id, info)
                .unwrap_or_else(|| Expectation::single(TEST_DEFAULT));
            if !expected.allows(status) {
                out.unexpected.push(Unexpected {
                    test: id.clone(),
                    subtest: None,
                    profile: profile.clone(),
                    status: status.into(),
                    expected,
                });
            }
            for s in &f.subtests {
                let status = subtest_status(s.status);
                let expected = metadata
                    .subtest(&id, &s.name, info)
                    .unwrap_or_else(|| Expectation::single(SUBTEST_DEFAULT));
                if !expected.allows(status) {
                    out.unexpected.push(Unexpected {
                        test: id.clone(),
                        subtest: Some(s.name.clone()),
                        profile: profile.clone(),
                        status: status.into(),
                        expected,
                    });
                }
            }
        }
        let Some(test) = metadata.tests.get(&id) else {
            continue;
        };
        // A subtest filter runs some subtests only: an entry for another says nothing.
        let all_run = file.subtests.len();
        for (name, c) in &test.subtests {
            if !file.subtests.iter().any(|s| s.name == *name) {
                if all_run > 0 {
                    out.stale.push(format!(
                        "{}:{}: [{name}]: {id} has no such subtest",
                        test.path, c.line
                    ));
                }
                continue;
            };
            let says_something = runs.iter().any(|(info, _)| {
                c.under(info)
                    .is_some_and(|e| *e != Expectation::single(SUBTEST_DEFAULT))
            });
            if !says_something {
                out.stale.push(format!(
                    "{}:{}: [{name}]: expects only what is expected without it under {}",
                    test.path,
                    c.line,
                    runs.iter()
                        .map(|r| profile_of(r.0))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    if whole_suite {
        for (id, test) in &metadata.tests {
            if !seen_tests.contains(id) {
                out.stale
                    .push(format!("{}: no test {id} was run", test.path));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(pairs: &[(&str, serde_json::Value)]) -> RunInfo {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn a_file_reads_back_as_written() {
        let test = TestMetadata {
            path: String::new(),
            expected: Some(Conditional {
                cases: vec![(None, Expectation::single("ERROR"))],
                line: 0,
            }),
            subtests: vec![
                (
                    "a ] and a \\ in a name".into(),
                    Conditional {
                        cases: vec![(None, Expectation::single("FAIL"))],
                        line: 0,
                    },
                ),
                (
                    "intermittent under two profiles".into(),
                    Conditional {
                        cases: vec![
                            (
                                Some(Condition::profiles(&["chromium-156".into(), "text".into()])),
                                Expectation(vec!["FAIL".into(), "PASS".into()]),
                            ),
                            (None, Expectation::single("PASS")),
                        ],
                        line: 0,
                    },
                ),
            ],
        };
        let text = write("/webmcp/x.https.html", &test);
        assert_eq!(
            text,
            "[x.https.html]\n  expected: ERROR\n  [a \\] and a \\\\ in a name]\n    expected: FAIL\n  [intermittent under two profiles]\n    expected:\n      if profile == \"chromium-156\" or profile == \"text\": [FAIL, PASS]\n      PASS\n"
        );
        let back = parse("x.ini", "/webmcp/x.https.html", &text).unwrap();
        assert_eq!(
            back.expected,
            test.expected.map(|mut e| {
                e.line = 2;
                e
            })
        );
        assert_eq!(back.subtests.len(), 2);
        for ((n1, c1), (n2, c2)) in back.subtests.iter().zip(&test.subtests) {
            assert_eq!(n1, n2);
            assert_eq!(c1.cases, c2.cases);
        }
        let c = &back.subtests[1].1;
        let text_run = info(&[("profile", "text".into())]);
        assert_eq!(c.under(&text_run).unwrap().intermittent(), ["PASS"]);
        let spec_run = info(&[("profile", "spec".into())]);
        assert_eq!(c.under(&spec_run).unwrap().first(), "PASS");
    }

    /// What wptrunner's updater writes: conditions on any property of the run, with `and`,
    /// `or`, `not`, parentheses, `!=`, numbers, boolean properties, quoted statuses, comments.
    #[test]
    fn wptrunner_conditions_evaluate_against_the_run_info() {
        let text = "[x.https.html]\n  [s]\n    expected:\n      if (os == \"linux\") and not debug: [PRECONDITION_FAILED, PASS]  # flaky\n      if readiness_api != 'pr373' or bits == 32: \"FAIL\"\n      PASS\n";
        let t = parse("x.ini", "/x.https.html", text).unwrap();
        let c = &t.subtests[0].1;
        let linux = info(&[
            ("os", "linux".into()),
            ("debug", false.into()),
            ("readiness_api", "pr373".into()),
        ]);
        assert_eq!(c.under(&linux).unwrap().0, ["PRECONDITION_FAILED", "PASS"]);
        let debug = info(&[
            ("os", "linux".into()),
            ("debug", true.into()),
            ("readiness_api", "none".into()),
            ("bits", 64.into()),
        ]);
        assert_eq!(c.under(&debug).unwrap().first(), "FAIL");
        // Both sides of `or` are read, as wptrunner's `operator.or_` does: a missing one makes
        // the whole condition not hold.
        let no_bits = info(&[("debug", true.into()), ("readiness_api", "none".into())]);
        assert_eq!(c.under(&no_bits).unwrap().first(), "PASS");
        // A property the run lacks: the condition does not hold (wptrunner's KeyError).
        let bare = info(&[("readiness_api", "pr373".into())]);
        assert_eq!(c.under(&bare).unwrap().first(), "PASS");
        let bits = info(&[("readiness_api", "pr373".into()), ("bits", 32.into())]);
        assert_eq!(c.under(&bits).unwrap().first(), "FAIL");
        // `==` binds tighter than `not`, which binds tighter than `and`, then `or`.
        let (cond, rest) = Condition::parse("not a == \"x\" and b or c: PASS").unwrap();
        assert_eq!(rest, " PASS");
        assert!(cond.holds(&info(&[
            ("a", "y".into()),
            ("b", true.into()),
            ("c", false.into())
        ])));
        assert!(!cond.holds(&info(&[
            ("a", "x".into()),
            ("b", true.into()),
            ("c", false.into())
        ])));
        assert!(cond.holds(&info(&[
            ("a", "x".into()),
            ("b", true.into()),
            ("c", true.into())
        ])));
    }

    #[test]
    fn a_malformed_file_says_where() {
        let e = parse(
            "x.ini",
            "/x.https.html",
            "[x.https.html]\n  [s]\n    expected: MAYBE\n",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("x.ini:3: unknown status \"MAYBE\""),
            "{e}"
        );
        let e = parse("x.ini", "/x.https.html", "[y.https.html]\n").unwrap_err();
        assert!(e.to_string().contains("not of y.https.html"), "{e}");
        let e = parse(
            "x.ini",
            "/x.https.html",
            "[x.https.html]\n  [s]\n    expected:\n      if os === \"linux\": FAIL\n",
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("x.ini:4: unknown operator"),
            "{e}"
        );
    }
}
