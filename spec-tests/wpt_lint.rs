//! The exported tests pass WPT's lint: the rules of web-platform-tests' `tools/lint/lint.py`
//! (their names and patterns are those of `tools/lint/rules.py`) that can apply to what
//! `export-wpt` writes, checked here because CI has no WPT checkout to run `./wpt lint` in.
//! The whole bundled suite is exported under `spec` and under `chromium-156`, and every file
//! written must pass with no exception list (WPT's `lint.ignore`).
//!
//! The rules, as lint.py applies them:
//! - on every line of every file: TRAILING WHITESPACE, INDENT TABS, CR AT EOL, W3C-TEST.ORG,
//!   WEB-PLATFORM.TEST, WEBIDL2.JS; of `.html`/`.js` files: SET TIMEOUT, CONSOLE,
//!   GENERATE_TESTS, LAYOUTTESTS APIS, MISSING DEPENDENCY, SPECIALPOWERS API, ASSERT_THROWS,
//!   PROMISE_REJECTS, ASSERT-PRECONDITION; of `.html` files: HTML INVALID SYNTAX;
//! - on every path: PATH LENGTH, WORKER COLLISION, TENTATIVE-DIRECTORY-NAME, FILE TYPE
//!   (symlinks), GITIGNORE; across paths: DUPLICATE-CASE-INSENSITIVE-PATH,
//!   DUPLICATE-BASENAME-PATH;
//! - on a test file (one outside `resources/`, `support/`, `tools/` and `common/`), parsed as
//!   HTML: PARSE-FAILED, MULTIPLE-TIMEOUT, INVALID-TIMEOUT, VARIANT-MISSING,
//!   MALFORMED-VARIANT, TESTHARNESS-IN-OTHER-TYPE, MULTIPLE-TESTHARNESS,
//!   MISSING-TESTHARNESSREPORT, MULTIPLE-TESTHARNESSREPORT, LATE-TIMEOUT,
//!   EARLY-TESTHARNESSREPORT, TESTHARNESS-PATH, TESTHARNESSREPORT-PATH, TESTDRIVER-PATH,
//!   TESTDRIVER-VENDOR-PATH, MISSING-REFTESTWAIT.
//!
//! Rules for files the export never writes (CSS tests, Python, `.any.js` metadata, Ahem,
//! mojom, reference files, WEB_FEATURES.yml) are not here. Beside the lint, the tree must hold
//! no test file without a test, no path of upstream's own, and `.tentative` names exactly for
//! the files that assert what the text does not say.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
#[allow(unused_imports)]
use webmcp_ref::prelude::*;
use webmcp_ref::export::{export_file, write_tree};
use webmcp_ref::Profile;

/// One lint error: the rule's name as `./wpt lint` prints it, the path below the tree's root,
/// and the line where the rule has one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LintError {
    rule: &'static str,
    path: String,
    line: Option<usize>,
}

impl std::fmt::Display for LintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.path, self.rule),
            None => write!(f, "{}: {}", self.path, self.rule),
        }
    }
}

/// The extensions WPT's script rules apply to.
const WEB: &[&str] = &["html", "htm", "js", "xht", "xhtml", "svg"];

/// The line rules: name, pattern, the extensions it applies to (`None`: every file).
fn line_rules() -> Vec<(&'static str, regex::bytes::Regex, Option<&'static [&'static str]>)> {
    let html: &'static [&'static str] = &["html", "htm"];
    let rule = |name, pattern: &str, ext| {
        (
            name,
            regex::bytes::Regex::new(pattern).expect("a lint pattern"),
            ext,
        )
    };
    vec![
        rule("TRAILING WHITESPACE", r"[ \t\x0c\x0b]$", None),
        rule("INDENT TABS", r"^\t", None),
        rule("CR AT EOL", r"\r$", None),
        rule("SET TIMEOUT", r"setTimeout\s*\(", Some(WEB)),
        rule("W3C-TEST.ORG", r"w3c\-test\.org", None),
        rule("WEB-PLATFORM.TEST", r"web\-platform\.test", None),
        rule("WEBIDL2.JS", r"webidl2\.js", None),
        rule("CONSOLE", r"console\.[a-zA-Z]+\s*\(", Some(WEB)),
        rule("GENERATE_TESTS", r"generate_tests\s*\(", Some(WEB)),
        rule(
            "LAYOUTTESTS APIS",
            r"(eventSender|testRunner|internals)\.",
            Some(WEB),
        ),
        rule("MISSING DEPENDENCY", r"[^\w]/gen/", Some(WEB)),
        rule("SPECIALPOWERS API", r"SpecialPowers", Some(WEB)),
        rule("ASSERT_THROWS", r"[^.]assert_throws\(", Some(WEB)),
        rule("PROMISE_REJECTS", r"promise_rejects\(", Some(WEB)),
        rule("ASSERT-PRECONDITION", r"[^.]assert_precondition\(", Some(WEB)),
        rule(
            "HTML INVALID SYNTAX",
            concat!(
                r"<(a|abbr|article|audio|b|bdi|bdo|blockquote|body|button|canvas|caption|cite|",
                r"code|colgroup|data|datalist|dd|del|details|dfn|dialog|div|dl|dt|em|fieldset|",
                r"figcaption|figure|footer|form|h[1-6]|head|header|html|i|iframe|ins|kbd|label|",
                r"legend|li|main|map|mark|menu|meter|nav|noscript|object|ol|optgroup|option|",
                r"output|p|picture|pre|progress|q|rp|rt|ruby|s|samp|script|search|section|",
                r"select|slot|small|span|strong|style|sub|summary|sup|table|tbody|td|template|",
                r"textarea|tfoot|th|thead|time|title|tr|u|ul|var|video)(\s+[^>]+)?\s*/>"
            ),
            Some(html),
        ),
    ]
}

/// A file's name as WPT's manifest reads it.
struct SourceName<'a> {
    dir: Vec<&'a str>,
    /// The file name without its last extension.
    name: &'a str,
    ext: &'a str,
}

impl<'a> SourceName<'a> {
    fn of(path: &'a str) -> SourceName<'a> {
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let (name, ext) = file.rsplit_once('.').unwrap_or((file, ""));
        SourceName {
            dir: dir.split('/').filter(|d| !d.is_empty()).collect(),
            name,
            ext,
        }
    }

    /// The last `-` part of the name, before its first `.`.
    fn type_flag(&self) -> Option<&'a str> {
        self.name
            .rsplit_once('-')
            .map(|(_, f)| f.split('.').next().unwrap_or(f))
    }

    fn non_test(&self) -> bool {
        self.dir.is_empty()
            || self.dir[0] == "common"
            || self
                .dir
                .iter()
                .any(|d| ["resources", "support", "tools"].contains(d))
            || self.name.starts_with("MANIFEST")
            || self.name.starts_with('.')
            || self.ext == "headers"
            || self.ext == "ini"
    }

    fn markup(&self) -> bool {
        ["html", "htm", "xhtml", "xht", "xml", "svg"].contains(&self.ext)
    }

    /// The type of test a testharness.js file may not be, by its name: `None` when its name
    /// lets it be a testharness.js (or manual) test.
    fn other_type(&self) -> Option<&'static str> {
        let flag = self.type_flag();
        if flag == Some("visual") {
            Some("visual")
        } else if self.markup() && (flag == Some("crash") || self.dir.contains(&"crashtests")) {
            Some("crashtest")
        } else if self.markup() && (flag == Some("print") || self.dir.contains(&"print")) {
            Some("print-reftest")
        } else {
            None
        }
    }
}

/// What the lint reads of a parsed test file: its elements in document order, with their
/// attributes, and the root element's.
#[derive(Default)]
struct Elements {
    list: std::cell::RefCell<Vec<(String, BTreeMap<String, String>)>>,
}

impl TokenSink for Elements {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let Token::TagToken(tag) = token else {
            return TokenSinkResult::Continue;
        };
        if tag.kind != TagKind::StartTag {
            return TokenSinkResult::Continue;
        }
        let name = tag.name.to_string();
        let attrs = tag
            .attrs
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect();
        self.list.borrow_mut().push((name.clone(), attrs));
        // The tree builder's switches of tokenizer state, for the elements whose content is
        // not markup (html5lib's parse, which lint.py uses, does the same).
        match name.as_str() {
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            _ => TokenSinkResult::Continue,
        }
    }
}

fn parse_elements(text: &str) -> Vec<(String, BTreeMap<String, String>)> {
    let sink = Elements::default();
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(text));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.list.take()
}

/// The parsed-file rules of one test file.
fn check_parsed(path: &str, bytes: &[u8], out: &mut Vec<LintError>) {
    let name = SourceName::of(path);
    if name.non_test() || !name.markup() {
        return;
    }
    let error = |rule| LintError {
        rule,
        path: path.to_string(),
        line: None,
    };
    // html5lib decodes with the document's declared encoding and fails on next to nothing;
    // the export declares UTF-8, so a file that is not UTF-8 cannot be read as it says.
    let Ok(text) = std::str::from_utf8(bytes) else {
        out.push(error("PARSE-FAILED"));
        return;
    };
    let elements = parse_elements(text);
    let is = |(n, a): &(String, BTreeMap<String, String>), name: &str, key: &str, value: &str| {
        n == name && a.get(key).is_some_and(|v| v == value)
    };
    let timeouts: Vec<usize> = (0..elements.len())
        .filter(|&i| is(&elements[i], "meta", "name", "timeout"))
        .collect();
    if timeouts.len() > 1 {
        out.push(error("MULTIPLE-TIMEOUT"));
    }
    for &i in &timeouts {
        if elements[i].1.get("content").map(|c| c.to_lowercase()) != Some("long".into()) {
            out.push(error("INVALID-TIMEOUT"));
        }
    }
    let harness: Vec<usize> = (0..elements.len())
        .filter(|&i| is(&elements[i], "script", "src", "/resources/testharness.js"))
        .collect();
    let references = elements.iter().any(|(n, a)| {
        n == "link"
            && a.get("rel")
                .is_some_and(|r| r.split_whitespace().any(|r| r == "match" || r == "mismatch"))
    });
    if !harness.is_empty() || references {
        for (n, a) in &elements {
            if n == "meta" && a.get("name").is_some_and(|v| v == "variant") {
                match a.get("content") {
                    None => out.push(error("VARIANT-MISSING")),
                    Some(v) => {
                        let mut c = v.chars();
                        let malformed = match (c.next(), c.next()) {
                            (Some('?' | '#'), Some(second)) => v.starts_with('?') && second == '#',
                            _ => true,
                        };
                        if malformed {
                            out.push(error("MALFORMED-VARIANT"));
                        }
                    }
                }
            }
        }
    }
    if !harness.is_empty() {
        if name.other_type().is_some() || references {
            out.push(error("TESTHARNESS-IN-OTHER-TYPE"));
        }
        if harness.len() > 1 {
            out.push(error("MULTIPLE-TESTHARNESS"));
        }
        let reports: Vec<usize> = (0..elements.len())
            .filter(|&i| is(&elements[i], "script", "src", "/resources/testharnessreport.js"))
            .collect();
        match reports.len() {
            0 => out.push(error("MISSING-TESTHARNESSREPORT")),
            1 => {}
            _ => out.push(error("MULTIPLE-TESTHARNESSREPORT")),
        }
        if let Some(&t) = timeouts.first() {
            if t > harness[0] {
                out.push(error("LATE-TIMEOUT"));
            }
        }
        if let Some(&r) = reports.first() {
            if r < harness[0] {
                out.push(error("EARLY-TESTHARNESSREPORT"));
            }
        }
    }
    let root_class = elements
        .iter()
        .find(|(n, _)| n == "html")
        .and_then(|(_, a)| a.get("class").cloned())
        .unwrap_or_default();
    for (n, a) in &elements {
        let Some(src) = a.get("src").filter(|_| n == "script") else {
            continue;
        };
        for (script, rule) in [
            ("testharness.js", "TESTHARNESS-PATH"),
            ("testharnessreport.js", "TESTHARNESSREPORT-PATH"),
            ("testdriver.js", "TESTDRIVER-PATH"),
            ("testdriver-vendor.js", "TESTDRIVER-VENDOR-PATH"),
        ] {
            if src == script
                || (src.contains(&format!("/{script}")) && *src != format!("/resources/{script}"))
            {
                out.push(error(rule));
            }
        }
        if src == "/common/reftest-wait.js"
            && !root_class.split_whitespace().any(|c| c == "reftest-wait")
        {
            out.push(error("MISSING-REFTESTWAIT"));
        }
    }
}

/// Every file below `root`, as paths below it joined with `/`.
fn files_below(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.is_symlink() {
                walk(&path, root, out);
            } else if let Ok(rel) = path.strip_prefix(root) {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// WPT's lint of every file below `root` (a WPT checkout's root, or a tree laid out as one).
fn lint(root: &Path) -> Vec<LintError> {
    let paths = files_below(root);
    let rules = line_rules();
    let mut out = Vec::new();
    let mut lower: BTreeMap<String, &String> = BTreeMap::new();
    let mut basenames: BTreeMap<String, Vec<&String>> = BTreeMap::new();
    for path in &paths {
        let error = |rule, line| LintError {
            rule,
            path: path.clone(),
            line,
        };
        // Paths.
        if path.len() + 1 > 150 {
            out.push(error("PATH LENGTH", None));
        }
        if [".any.html", ".any.worker.html", ".worker.html"]
            .iter()
            .any(|e| path.ends_with(e))
        {
            out.push(error("WORKER COLLISION", None));
        }
        let parts: Vec<&str> = path.split('/').collect();
        if parts[..parts.len() - 1]
            .iter()
            .any(|d| d.contains("tentative") && *d != "tentative")
        {
            out.push(error("TENTATIVE-DIRECTORY-NAME", None));
        }
        if root.join(path).is_symlink() {
            out.push(error("FILE TYPE", None));
        }
        if parts.len() > 1 && parts[parts.len() - 1] == ".gitignore" {
            out.push(error("GITIGNORE", None));
        }
        if let Some(first) = lower.insert(path.to_lowercase(), path) {
            if first != path {
                out.push(error("DUPLICATE-CASE-INSENSITIVE-PATH", None));
            }
        }
        let name = SourceName::of(path);
        if !name.non_test() && ["html", "htm", "xhtml", "xht", "svg", "js"].contains(&name.ext) {
            let stem = path.rsplit_once('.').map_or(path.as_str(), |(s, _)| s);
            basenames.entry(stem.to_string()).or_default().push(path);
        }
        // Lines.
        let bytes = std::fs::read(root.join(path)).unwrap_or_default();
        let ext = name.ext;
        let applicable: Vec<_> = rules
            .iter()
            .filter(|(_, _, exts)| exts.is_none_or(|e| e.contains(&ext)))
            .collect();
        for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
            if i > 0 && line.is_empty() && i == bytes.split(|b| *b == b'\n').count() - 1 {
                continue;
            }
            for (rule, pattern, _) in &applicable {
                if pattern.is_match(line) {
                    out.push(error(rule, Some(i + 1)));
                }
            }
        }
        // The parsed file.
        check_parsed(path, &bytes, &mut out);
    }
    for same in basenames.values().filter(|v| v.len() > 1) {
        for path in same {
            out.push(LintError {
                rule: "DUPLICATE-BASENAME-PATH",
                path: (*path).clone(),
                line: None,
            });
        }
    }
    out.sort();
    out
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "webmcp-ref-wpt-lint-{}/{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bundled_suite() -> Vec<webmcp_ref::scenario::ast::ScenarioFile> {
    let mirror = Path::new(env!("CARGO_MANIFEST_DIR")).join("wpt-mirror");
    webmcp_ref::scenario::suite::discover(&[mirror])
        .unwrap()
        .iter()
        .map(|p| webmcp_ref::scenario::suite::load(p).unwrap())
        .collect()
}

/// The upstream WPT files the bundled suite mirrors, as its `mirrors:` headers name them
/// (`web-platform-tests/wpt webmcp/imperative/executeTool-abort.https.html ...`).
fn upstream_paths(files: &[webmcp_ref::scenario::ast::ScenarioFile]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        for m in &f.mirrors {
            for word in m.split_whitespace() {
                let word = word.trim_matches(|c: char| c == ',' || c == '(' || c == ')');
                if word.starts_with("webmcp/") {
                    out.push(word.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn the_export_of_the_whole_suite_passes_wpts_lint_under_spec_and_chromium_156() {
    let files = bundled_suite();
    let upstream = upstream_paths(&files);
    assert!(
        upstream
            .iter()
            .any(|p| p == "webmcp/imperative/executeTool-abort.https.html"),
        "{upstream:?}"
    );
    for profile in ["spec", "chromium-156"] {
        let profile = Profile::named(profile).unwrap();
        let exported: Vec<_> = files.iter().map(|f| export_file(f, &profile)).collect();
        let root = scratch(&profile.name);
        write_tree(&exported, &root).unwrap();
        let errors = lint(&root);
        assert!(
            errors.is_empty(),
            "under {}, ./wpt lint would say:\n{}",
            profile.name,
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        );
        let written = files_below(&root);
        // One copy of the helpers, under resources/.
        assert_eq!(
            written
                .iter()
                .filter(|p| p.ends_with("/webmcp-ref.js"))
                .collect::<Vec<_>>(),
            ["webmcp/webmcp-ref/resources/webmcp-ref.js"]
        );
        for path in &written {
            // Paths of their own: under a folder upstream does not have, never one of
            // upstream's.
            assert!(path.starts_with("webmcp/webmcp-ref/"), "{path}");
            assert!(!upstream.contains(path), "{path} is upstream's");
            if SourceName::of(path).non_test() {
                continue;
            }
            // Every test file is a test: a crash test, or a testharness.js test that defines
            // at least one.
            let text = std::fs::read_to_string(root.join(path)).unwrap();
            let crash = path.split('.').next().unwrap().ends_with("-crash");
            assert!(
                if crash {
                    text.contains("<html class=\"test-wait\">")
                        && text.contains("webmcpRef.crash_test(")
                        && !text.contains("testharness")
                } else {
                    text.contains("\npromise_test(")
                },
                "{path} has no test"
            );
        }
        assert!(written
            .iter()
            .any(|p| p.ends_with("/imperative/executeTool-same-document-navigation-crash.https.html")));
        // `.tentative` exactly where the file asserts what the published text does not say:
        // PR #373's readiness API, or a name upstream gave it.
        for (f, e) in files.iter().zip(&exported) {
            let tentative = e.test_path.contains(".tentative.");
            let upstream_tentative = f.path.contains(".tentative.");
            let requires_pr373 = f.requires.iter().any(|t| t.to_string() == "readiness-api=pr373");
            assert_eq!(
                tentative,
                upstream_tentative
                    || webmcp_ref::scenario::runner::asserts_beyond_the_text(f),
                "{}",
                e.test_path
            );
            if requires_pr373 {
                assert!(tentative, "{}", e.test_path);
            }
        }
        // A file with no subtest a page can check is not written (testharness.js would never
        // complete it).
        for e in &exported {
            assert_eq!(
                written.contains(&e.test_path),
                e.has_test(),
                "{}",
                e.test_path
            );
        }
    }
}

/// The lint finds what each of its rules is about (so that a clean export is a finding).
#[test]
fn the_lint_finds_what_each_rule_is_about() {
    let root = scratch("rules");
    let write = |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let harness = "<script src=\"/resources/testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n";
    write(
        "a/timer.html",
        &format!("{harness}<script>\nsetTimeout (() => {{}}, 1);\nstep_timeout(() => {{}}, 1);\n</script>\n"),
    );
    write("a/x-crash.html", &format!("<html class=\"test-wait\">\n{harness}"));
    write(
        "a/report.html",
        "<script src=\"/resources/testharness.js\"></script>\n",
    );
    write("a/space.html", &format!("{harness}<p>x \n\tindented\r\n"));
    write(
        "a/late.html",
        &format!("{harness}<meta name=\"timeout\" content=\"long\">\n"),
    );
    write(
        "a/short.html",
        &format!("<meta name=\"timeout\" content=\"short\">\n{harness}"),
    );
    write("a/Case.html", harness);
    write("a/case.html", harness);
    write("a/two.html", harness);
    write("a/two.js", "\n");
    write("a/x-tentative/t.html", harness);
    write("a/latin1.html", "caf\u{e9}\n");
    write("a/slash.html", &format!("{harness}<div/>\n"));
    write(
        "a/path.html",
        "<script src=\"testharness.js\"></script>\n<script src=\"/resources/testharnessreport.js\"></script>\n",
    );
    std::fs::write(root.join("a/latin1.html"), b"caf\xe9\n").unwrap();
    // In a script, markup is text: this file has one testharness.js and no element `<div/>`.
    write(
        "a/script.html",
        &format!("{harness}<script>\nconst s = '<script src=\"/resources/testharness.js\"></' + 'script>';\n</script>\n"),
    );
    // Resources are not tests, but their lines are linted.
    write("a/resources/helper.js", "console.log(1);\n");
    let errors = lint(&root);
    let has = |rule: &str, path: &str| {
        errors
            .iter()
            .any(|e| e.rule == rule && e.path == format!("a/{path}"))
    };
    assert!(has("SET TIMEOUT", "timer.html"), "{errors:?}");
    assert!(has("TESTHARNESS-IN-OTHER-TYPE", "x-crash.html"));
    assert!(has("MISSING-TESTHARNESSREPORT", "report.html"));
    assert!(has("TRAILING WHITESPACE", "space.html"));
    assert!(has("INDENT TABS", "space.html"));
    assert!(has("CR AT EOL", "space.html"));
    assert!(has("LATE-TIMEOUT", "late.html"));
    assert!(has("INVALID-TIMEOUT", "short.html"));
    assert!(has("DUPLICATE-CASE-INSENSITIVE-PATH", "case.html"));
    assert!(has("DUPLICATE-BASENAME-PATH", "two.html"));
    assert!(has("TENTATIVE-DIRECTORY-NAME", "x-tentative/t.html"));
    assert!(has("PARSE-FAILED", "latin1.html"));
    assert!(has("HTML INVALID SYNTAX", "slash.html"));
    assert!(has("TESTHARNESS-PATH", "path.html"));
    assert!(has("CONSOLE", "resources/helper.js"));
    assert!(
        !errors.iter().any(|e| e.path == "a/script.html"),
        "{errors:?}"
    );
    // Exactly one line of timer.html: step_timeout is what WPT asks for.
    assert_eq!(
        errors
            .iter()
            .filter(|e| e.rule == "SET TIMEOUT")
            .map(|e| e.line)
            .collect::<Vec<_>>(),
        [Some(4)]
    );
}
