//! Small made-up Bikeshed sources for the cases the WebMCP text does not use.

use webmcp_ref::speccheck::{parse_bs, ParseError, Spec, StepKind};

fn parse(src: &str) -> Spec {
    parse_bs(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn error(src: &str) -> ParseError {
    match parse_bs(src) {
        Ok(spec) => panic!("expected an error, got {spec:?}"),
        Err(e) => e,
    }
}

fn shape(spec: &Spec) -> Vec<String> {
    spec.algorithms
        .iter()
        .map(|a| {
            let steps: Vec<String> = a.steps.iter().map(|s| s.number.to_string()).collect();
            format!("{}: {}", a.anchor, steps.join(" "))
        })
        .collect()
}

const META: &str = "<pre class=metadata>\nTitle: T\nIndent: 2\n</pre>\n\n";

#[test]
fn method_steps_paragraph_without_div() {
    let src = format!(
        "{META}The <dfn method for=Widget>spin(<var>speed</var>)</dfn> method steps are:\n\n\
         1. Let |s| be |speed|.\n\n\
         1. If |s| is zero:\n\n   1. Return.\n\n\
         1. Spin.\n\n\
         The <dfn attribute for=Widget>color</dfn> getter steps are:\n\n1. Return red.\n\n\
         Some unrelated <dfn>term</dfn> paragraph.\n\n1. A list that is not an algorithm.\n"
    );
    let spec = parse(&src);
    assert_eq!(
        shape(&spec),
        ["dom-widget-spin: 1 2 2.1 3", "dom-widget-color: 1"]
    );
    assert!(!spec.algorithms[0].wrapped);
    assert_eq!(spec.algorithms[0].steps[2].text, "Return.");
}

#[test]
fn html_ordered_lists() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>stir</dfn>:\n<ol>\n  <li>Take the <var>spoon</var>.\n  <li>Turn it:\n    <ol start=3>\n      \
         <li>left</li>\n      <li>right <p class=note>not this</p></li>\n    </ol>\n  <li>Stop.\n</ol>\n</div>\n"
    );
    let spec = parse(&src);
    assert_eq!(shape(&spec), ["stir: 1 2 2.3 2.4 3"]);
    let a = &spec.algorithms[0];
    assert_eq!(a.steps[0].text, "Take the spoon.");
    assert_eq!(a.steps[1].text, "Turn it:");
    assert_eq!(a.steps[3].text, "right");
    assert_eq!(a.header, "To stir:");
}

#[test]
fn html_list_inside_a_markdown_step() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>mix</dfn>:\n\n1. Add:\n   <ol>\n   <li>flour\n   <li>water\n   </ol>\n\n1. Wait.\n</div>\n"
    );
    assert_eq!(shape(&parse(&src)), ["mix: 1 1.1 1.2 2"]);
}

#[test]
fn nested_algorithms_are_separate() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>outer</dfn>:\n\n1. Do a thing.\n\n1. Run these:\n\n   <div algorithm>\n   \
         To <dfn for=outer>inner</dfn>:\n\n   1. Inner step.\n   </div>\n\n1. Finish.\n</div>\n"
    );
    let spec = parse(&src);
    assert_eq!(shape(&spec), ["outer: 1 2 3", "outer-inner: 1"]);
    assert_eq!(spec.algorithms[1].parent.as_deref(), Some("outer"));
    assert_eq!(spec.algorithms[0].steps[1].text, "Run these:");
}

#[test]
fn bullets_fold_into_their_step_unless_they_hold_steps() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>choose</dfn>:\n\n1. Pick one of:\n   - red\n   - blue\n\n\
         1. Then:\n\n   - If red:\n\n     1. Paint.\n\n   - Otherwise:\n\n     1. Wait.\n\n     1. Paint.\n</div>\n"
    );
    let spec = parse(&src);
    assert_eq!(shape(&spec), ["choose: 1 2 2.1 2.1.1 2.2 2.2.1 2.2.2"]);
    let a = &spec.algorithms[0];
    assert_eq!(a.steps[0].text, "Pick one of: red blue");
    assert_eq!(a.steps[2].kind, StepKind::Bullet);
    assert_eq!(a.steps[2].text, "If red:");
}

#[test]
fn definition_lists_and_steps_inside_them() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>switch</dfn> on |x|:\n\n1. Switch on |x|:\n\n   : one\n   :: Say hi.\n\n   : two\n   ::\n     \
         1. Wave.\n\n     1. Leave.\n\n1. Done.\n</div>\n"
    );
    let spec = parse(&src);
    assert_eq!(shape(&spec), ["switch: 1 1.1 1.2 2"]);
    assert_eq!(
        spec.algorithms[0].steps[0].text,
        "Switch on x: one Say hi. two"
    );
}

#[test]
fn numbering_is_rendered_numbering() {
    let src = format!(
        "{META}<div algorithm=count-up>\n3. three\n1. four\n\n   7. nested seven\n</div>\n"
    );
    let spec = parse(&src);
    assert_eq!(shape(&spec), ["count-up: 3 4 4.7"]);
    assert_eq!(spec.algorithms[0].name, "count-up");
}

#[test]
fn asides_are_not_steps_and_issues_are_recorded() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>guard</dfn>:\n\nIssue: before any step.\n\n1. Check.\n\n   Note: ignored\n   \
         still the note\n\n   <p class=issue>Watch out.</p>\n\n   <wpt>\n   some/test.html\n   </wpt>\n\n   \
         <div class=example>\n   1. not a step either\n   </div>\n\n1. Go.\n\n   Issue(#7): Later.\n</div>\n"
    );
    let spec = parse(&src);
    assert_eq!(shape(&spec), ["guard: 1 2"]);
    let a = &spec.algorithms[0];
    assert_eq!(a.steps[0].text, "Check.");
    let issues: Vec<(Option<String>, Option<String>, &str)> = a
        .issues
        .iter()
        .map(|i| {
            (
                i.after_step.as_ref().map(|s| s.to_string()),
                i.remote_id.clone(),
                i.text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        issues,
        [
            (None, None, "before any step."),
            (Some("1".into()), None, "Watch out."),
            (Some("2".into()), Some("#7".into()), "Later."),
        ]
    );
}

#[test]
fn default_indent_is_four_spaces() {
    // Without Indent metadata a 2-space indented item is not nested.
    let src = "<div algorithm>\nTo <dfn>flat</dfn>:\n\n1. a\n\n  1. b\n\n    1. c\n</div>\n";
    assert_eq!(shape(&parse(src)), ["flat: 1 2 2.1"]);
}

#[test]
fn errors_carry_line_numbers() {
    let cases = [
        (
            format!("{META}text\n\n<div algorithm>\nTo <dfn>x</dfn>:\n\n1. a\n"),
            8,
            "never closed",
        ),
        (
            format!("{META}<div algorithm>\nNo definition here.\n\n1. a\n</div>\n"),
            6,
            "no <dfn>",
        ),
        (
            format!("{META}<div algorithm>\n<dfn>a</dfn> and <dfn>b</dfn>\n\n1. a\n</div>\n"),
            6,
            "several",
        ),
        (
            format!("{META}<div algorithm>\nThe <dfn method>f()</dfn> method steps are:\n</div>\n"),
            7,
            "for=",
        ),
        (format!("{META}ok\n<!-- open\n\n"), 7, "comment"),
        (
            format!(
                "{META}<div algorithm>\nTo <dfn>d</dfn>:\n\n1. a\n\n   Text.\n\n   1. b\n\n   More.\n\n   1. c\n</div>\n"
            ),
            17,
            "numbered",
        ),
        (
            format!("{META}<div algorithm=z>\n0. zero\n</div>\n"),
            7,
            "numbered from 1",
        ),
        (
            "<pre class=metadata>\nIndent: two\n</pre>\n".to_string(),
            2,
            "Indent",
        ),
    ];
    for (src, line, words) in cases {
        let e = error(&src);
        assert_eq!(e.line, line, "{e}\n{src}");
        assert!(e.message.contains(words), "{e}");
        assert!(e.to_string().starts_with(&format!("line {line}, column ")));
        assert!(e.column >= 1, "{e}");
    }
}

#[test]
fn duplicate_anchors_are_refused() {
    let src = format!(
        "{META}<div algorithm>\nTo <dfn>same</dfn>:\n\n1. a\n</div>\n<div algorithm=same>\n1. b\n</div>\n"
    );
    let e = error(&src);
    assert_eq!(e.line, 11);
}

#[test]
fn dfn_for_is_inherited() {
    let src = format!(
        "{META}<div algorithm dfn-for=Gadget dfn-type=method>\nThe <dfn>run(x)</dfn> method steps are:\n\n1. a\n</div>\n"
    );
    assert_eq!(shape(&parse(&src)), ["dom-gadget-run: 1"]);
}
