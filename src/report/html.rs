//! Self-contained HTML pages (no network, no external script or style): a subtest's timeline
//! under one or more profiles (`trace --format html`), a suite report linking each subtest's
//! timeline (`run --format html`), and the outcomes of an exploration with their replay tokens
//! (`explore --format html`).
//!
//! A timeline page has a section per profile, one above the other. In each, a lane per event
//! loop, per parallel queue, for timers and for the harness; every unit of work a box in a
//! column of its own, labelled by its kind (a task and its task source, a microtask, steps in
//! parallel, a timer) and by the algorithm steps it ran; hovering shows its trace lines and
//! clicking keeps them in the panel below. Under each event loop, each of its documents'
//! tools-ready as a band that changes colour (hatched while the document is not fully
//! active); under the AI agent queue, each observation and wait from its start to its outcome;
//! promises marked where they settled; expectations where they were checked. Columns are units
//! in the order they ran; the axis gives each column's virtual time, and a jump of the clock is
//! a gap labelled with it. With several profiles, units no other profile ran (same lane, same
//! description) are outlined, and the outcomes that differ are highlighted in the table above.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::timeline::{Timeline, Unit};
use crate::engine::trace::Lane;
use crate::explore::Exploration;
use crate::scenario::{FileResult, Status, SubtestResult};

const TITLE_W: u32 = 200;
/// A column's width: as wide as this at most, narrower (to [`MIN_SLOT_W`]) so that the whole
/// timeline fits [`FIT_W`]; a longer one opens zoomed to fit (down to [`MIN_ZOOM`]) or scrolls.
const SLOT_W: u32 = 136;
const MIN_SLOT_W: u32 = 60;
/// The canvas width that fits a 1400 px window (the page's margins and border taken off).
const FIT_W: u32 = 1350;
const JUMP_W: u32 = 58;
/// The smallest scale a timeline is shown at to fit [`FIT_W`] when the page opens: below it,
/// text would be too small to read, and the timeline scrolls sideways instead.
const MIN_ZOOM: f64 = 0.7;
const AXIS_H: u32 = 30;
const LANE_H: u32 = 112;
/// The widest a box grows into the free columns after it.
const MAX_BOX_W: u32 = 340;
const BAND_H: u32 = 22;
const SPAN_H: u32 = 26;
const CHECK_H: u32 = 20;

/// Text for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root { --ready: #a7e3a1; --not-ready: #f6b0a0; --inactive: #d8d8d8; --fail: #c62828; --pass: #2e7d32; }
* { box-sizing: border-box; }
body { font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0; color: #1d1d1f; background: #fafafa; }
header.page { padding: 14px 20px 6px; }
header.page h1 { font-size: 18px; margin: 0 0 4px; }
header.page .sub { color: #555; }
code, pre, .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
table.outcomes { border-collapse: collapse; margin: 8px 20px 12px; background: white; }
table.outcomes th, table.outcomes td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
table.outcomes tr.differs td { background: #fff3c4; }
section.timeline { margin: 0 0 18px; }
section.timeline > h2 { font-size: 15px; margin: 10px 20px 4px; }
section.timeline > h2 .status { font-size: 12px; padding: 1px 6px; border-radius: 3px; color: white; margin-left: 6px; }
.status.PASS { background: var(--pass); } .status.FAIL, .status.ERROR { background: var(--fail); } .status.PRECONDITION_FAILED { background: #777; }
.scroll { overflow-x: auto; margin: 0 20px; background: white; border: 1px solid #ddd; }
.canvas { position: relative; }
.row { position: absolute; left: 0; border-top: 1px solid #eee; }
.row.lane { border-top: 1px solid #cfcfcf; }
.row-title { position: absolute; left: 0; top: 0; width: 200px; height: 100%; padding: 4px 8px; background: #f4f4f6; border-right: 1px solid #ddd; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; z-index: 2; }
.row.lane .row-title { font-weight: 600; }
.row-title .lane-kind { font-size: 10px; font-weight: 400; color: #666; text-transform: uppercase; letter-spacing: .04em; }
.row-title .lane-name { white-space: normal; overflow-wrap: anywhere; }
.row.band .row-title, .row.spans .row-title, .row.checks .row-title { color: #555; padding-left: 16px; font-size: 11px; }
.axis { position: absolute; top: 0; height: 30px; font-size: 11px; color: #444; }
.tick { position: absolute; top: 8px; white-space: nowrap; }
.jump { position: absolute; top: 30px; bottom: 0; background: repeating-linear-gradient(135deg, #f3f3f3 0 4px, #e6e6e6 4px 8px); border-left: 1px dashed #aaa; border-right: 1px dashed #aaa; z-index: 1; }
.jump span { position: absolute; top: -26px; left: 0; right: 0; text-align: center; font-size: 11px; color: #8a4b00; font-weight: 600; }
.unit { position: absolute; height: 102px; top: 5px; border-radius: 5px; padding: 3px 6px; overflow: hidden; cursor: pointer; border: 1px solid rgba(0,0,0,.18); z-index: 3; }
.unit .k { font-size: 11px; font-weight: 700; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.unit .k .n { color: #555; font-weight: 400; margin-left: 4px; }
.unit .w, .unit .s { font-size: 11px; line-height: 1.25; white-space: normal; overflow-wrap: anywhere; overflow: hidden; display: -webkit-box; -webkit-box-orient: vertical; }
.unit .w { -webkit-line-clamp: 2; } .unit .s { -webkit-line-clamp: 4; }
.unit .s { color: #333; font-style: italic; }
.unit.task { background: #d6e6ff; } .unit.microtask { background: #eadcff; } .unit.parallel { background: #ffe2bf; }
.unit.timer { background: #e9e9e9; } .unit.harness { background: #f7f7f7; border-style: dashed; }
.unit.finding { border: 2px solid var(--fail); }
.unit.differs { outline: 3px dashed #d500f9; outline-offset: -1px; }
.unit.selected { box-shadow: 0 0 0 3px #1565c0; }
.unit .choice { font-size: 10px; color: #8a4b00; font-weight: 400; margin-left: 5px; }
.band-seg { position: absolute; top: 3px; height: 16px; border-radius: 3px; font-size: 11px; padding: 0 5px; white-space: nowrap; overflow: hidden; }
.band-seg.ready { background: var(--ready); } .band-seg.not-ready { background: var(--not-ready); }
.band-seg.inactive { background: repeating-linear-gradient(135deg, var(--inactive) 0 5px, #f1f1f1 5px 10px); color: #444; }
.span { position: absolute; top: 3px; height: 20px; border-radius: 10px; font-size: 11px; padding: 2px 8px; white-space: nowrap; overflow: visible; background: #fff3e0; border: 1px solid #e0a050; z-index: 2; }
.span .queued { color: #777; }
.span.narrow { overflow: visible; } .span.narrow .span-text { position: absolute; right: 6px; top: 2px; background: #fff3e0; padding: 0 4px; border-radius: 8px; }
.axis-title { position: absolute; left: 8px; top: 8px; color: #555; font-style: italic; }
button.fit { font-size: 11px; margin-left: 10px; }
.span .outcome { font-weight: 700; margin-left: 6px; padding: 0 5px; border-radius: 3px; color: white; }
.outcome.ready { background: var(--pass); } .outcome.timed-out { background: #e65100; } .outcome.navigated, .outcome.destroyed { background: #6a1b9a; } .outcome.pending { background: #777; }
.span-queued { position: absolute; top: 8px; height: 8px; border-top: 2px dotted #e0a050; }
.settle { position: absolute; bottom: 2px; font-size: 10px; padding: 0 3px; border-radius: 3px; background: white; border: 1px solid #999; z-index: 4; white-space: nowrap; }
.settle.fulfilled { border-color: var(--pass); color: var(--pass); } .settle.rejected { border-color: var(--fail); color: var(--fail); }
.expectation { position: absolute; height: 17px; font-size: 11px; padding: 0 5px; border-radius: 3px; color: white; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; z-index: 3; }
.expectation.pass { background: var(--pass); } .expectation.fail { background: var(--fail); } .expectation.sometimes.fail { background: #8d6e63; }
svg.causes { position: absolute; left: 0; top: 0; pointer-events: none; z-index: 2; }
svg.causes path { fill: none; stroke: #607d8b; stroke-width: 1.2; opacity: .55; }
svg.causes path.hot { stroke: #1565c0; stroke-width: 2.2; opacity: 1; }
aside#detail { display: none; position: fixed; left: 0; right: 0; bottom: 0; margin: 0; background: #263238; color: #eceff1; max-height: 34vh; overflow: auto; padding: 8px 20px; }
aside#detail pre { margin: 0; white-space: pre-wrap; }
aside#detail button { float: right; }
body.detail-open aside#detail { display: block; }
body.detail-open { padding-bottom: 36vh; }
.legend { margin: 4px 20px 10px; color: #444; font-size: 12px; }
.legend span.key { display: inline-block; width: 14px; height: 10px; border-radius: 2px; vertical-align: middle; margin: 0 3px 0 10px; border: 1px solid rgba(0,0,0,.2); }
table.suite { border-collapse: collapse; margin: 8px 20px; background: white; }
table.suite th, table.suite td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
td.PASS { color: var(--pass); font-weight: 600; } td.FAIL, td.ERROR { color: var(--fail); font-weight: 600; } td.PRECONDITION_FAILED { color: #777; }
.explore { margin: 8px 20px 16px; padding: 8px 12px; background: white; border: 1px solid #ddd; }
.explore h3 { margin: 0 0 6px; font-size: 14px; }
.verdict { font-weight: 700; } .verdict.PASS { color: var(--pass); } .verdict.FAIL, .verdict.INCOMPLETE { color: var(--fail); }
"#;

const SCRIPT: &str = r#"
(function () {
  const detail = document.querySelector('#detail pre');
  function show(el) {
    document.querySelectorAll('.selected').forEach(e => e.classList.remove('selected'));
    el.classList.add('selected');
    if (detail) detail.textContent = el.getAttribute('data-lines') || el.getAttribute('title') || '';
    // The panel opens only when asked for, and the page makes room below the lanes for it.
    document.body.classList.add('detail-open');
  }
  const close = document.querySelector('#detail button');
  if (close) close.addEventListener('click', () => document.body.classList.remove('detail-open'));
  document.querySelectorAll('button.fit').forEach(b => {
    b.addEventListener('click', () => {
      const scroll = b.closest('section').querySelector('.scroll');
      const canvas = scroll.querySelector('.canvas');
      if (canvas.style.zoom && canvas.style.zoom !== '1') { canvas.style.zoom = '1'; b.textContent = 'zoom to fit'; }
      else { canvas.style.zoom = Math.min(1, scroll.clientWidth / canvas.offsetWidth); b.textContent = 'actual size'; }
    });
  });
  document.querySelectorAll('.unit, .expectation').forEach(el => {
    el.addEventListener('click', () => show(el));
    el.addEventListener('mouseenter', () => {
      const id = el.id;
      document.querySelectorAll('svg.causes path').forEach(p => {
        p.classList.toggle('hot', p.dataset.from === id || p.dataset.to === id);
      });
    });
  });
  // `#check`: the page's own account of its layout, for the browser test: what it shows, and
  // whether every box lies inside its lane and no two boxes of a lane overlap.
  if (location.hash === '#check') {
    const problems = [];
    const count = s => document.querySelectorAll(s).length;
    document.querySelectorAll('section.timeline').forEach(sec => {
      const lanes = {};
      sec.querySelectorAll('.row.lane').forEach(l => { lanes[l.dataset.lane] = l.getBoundingClientRect(); });
      const seen = {};
      sec.querySelectorAll('.unit').forEach(u => {
        const r = u.getBoundingClientRect(), lane = lanes[u.dataset.lane];
        if (!lane) { problems.push('no lane ' + u.dataset.lane); return; }
        if (r.top < lane.top - 0.5 || r.bottom > lane.bottom + 0.5) problems.push('box ' + u.id + ' outside its lane');
        for (const o of (seen[u.dataset.lane] || [])) {
          if (r.left < o.right - 0.5 && o.left < r.right - 0.5) problems.push('boxes ' + u.id + ' and ' + o.id + ' overlap');
        }
        (seen[u.dataset.lane] = seen[u.dataset.lane] || []).push({left: r.left, right: r.right, id: u.id});
      });
    });
    // Nothing covers a lane: the detail panel shows only once a box is clicked.
    const panel = document.querySelector('#detail');
    if (panel && getComputedStyle(panel).display !== 'none') {
      const p = panel.getBoundingClientRect();
      document.querySelectorAll('.row.lane').forEach(l => {
        const r = l.getBoundingClientRect();
        if (r.bottom > p.top && r.top < p.bottom) problems.push('the detail panel covers lane ' + l.dataset.lane);
      });
    }
    const out = {
      sections: Array.from(document.querySelectorAll('section.timeline')).map(s => s.dataset.profile),
      lanes: Array.from(document.querySelectorAll('section.timeline:first-of-type .row.lane')).map(l => l.dataset.lane),
      units: count('.unit'),
      kinds: Array.from(new Set(Array.from(document.querySelectorAll('.unit')).map(u => u.dataset.kind))),
      bands: Array.from(document.querySelectorAll('.band-seg')).map(b => b.dataset.document + ':' + b.dataset.state),
      outcomes: Array.from(document.querySelectorAll('.span .outcome')).map(o => o.textContent),
      expectations: Array.from(document.querySelectorAll('.expectation')).map(e => e.dataset.line + ':' + (e.classList.contains('pass') ? 'pass' : 'fail')),
      settles: count('.settle'),
      causes: count('svg.causes path'),
      differs: count('.differs'),
      // Every box's label as shown, for the check that the steps are read without a hover.
      labels: Array.from(document.querySelectorAll('.unit .s')).map(e => ({text: e.textContent, cut: e.scrollHeight > e.clientHeight + 1})),
      // What a window must be to show every timeline whole.
      width: Math.max(document.documentElement.scrollWidth, ...Array.from(document.querySelectorAll('.canvas')).map(c => Math.ceil(c.getBoundingClientRect().width) + 44)),
      height: document.documentElement.scrollHeight,
      problems: problems,
    };
    const pre = document.createElement('pre');
    pre.id = 'layout-check';
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }
})();
"#;

fn page(title: &str, body: &str, detail: bool) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}",
        escape(title)
    );
    if detail {
        out.push_str(
            "<aside id=\"detail\"><button type=\"button\">close</button><pre></pre></aside>\n",
        );
    }
    let _ = write!(out, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// Where each slot starts, the clock jumps before it, and the columns' width.
struct Axis {
    x: Vec<u32>,
    jumps: Vec<(u32, u64, u64)>,
    width: u32,
    slot_w: u32,
}

/// The time axis is compressed: a column per unit, in the order they ran, whatever virtual
/// time passes between them, and a jump of the clock a narrow hatched gap labelled with how
/// long it is. Columns narrow (down to [`MIN_SLOT_W`]) for the timeline to fit [`FIT_W`].
fn axis(t: &Timeline) -> Axis {
    let jumps_count = t.slots.windows(2).filter(|w| w[1] > w[0]).count() as u32;
    // One column more after the last, for the labels that run past it (expectations).
    let columns = t.slots.len() as u32 + 1;
    let room = FIT_W.saturating_sub(TITLE_W + 8 + jumps_count * JUMP_W);
    let slot_w = (room / columns.max(1)).clamp(MIN_SLOT_W, SLOT_W);
    let mut x = Vec::new();
    let mut jumps = Vec::new();
    let mut at = TITLE_W + 8;
    for (i, &time) in t.slots.iter().enumerate() {
        if i > 0 && time > t.slots[i - 1] {
            jumps.push((at, t.slots[i - 1], time));
            at += JUMP_W;
        }
        x.push(at);
        at += slot_w;
    }
    Axis {
        x,
        jumps,
        width: at + slot_w,
        slot_w,
    }
}

/// How long a jump of the clock is, short enough for its gap: `+100 ms`, `+4.9 s`.
fn jump_label(ms: u64) -> String {
    if ms < 1000 {
        format!("+{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("+{} s", ms / 1000)
    } else {
        format!("+{:.1} s", ms as f64 / 1000.0)
    }
}

fn lane_class(lane: &Lane) -> &'static str {
    match lane {
        Lane::Harness => "harness",
        Lane::EventLoop(_) => "event-loop",
        Lane::ParallelQueue(_) => "parallel-queue",
        Lane::Timers => "timers",
    }
}

fn kind_class(kind: &str) -> &'static str {
    if kind.starts_with("task") {
        "task"
    } else if kind == "microtask" {
        "microtask"
    } else if kind == "in parallel" {
        "parallel"
    } else if kind == "timer" {
        "timer"
    } else {
        "harness"
    }
}

fn outcome_class(outcome: &str) -> &'static str {
    for c in ["timed-out", "navigated", "destroyed", "ready"] {
        if outcome.starts_with(c) {
            return c;
        }
    }
    "pending"
}

/// One profile's timeline, as a `<section>`; `differs[i]`: unit i ran under no other profile.
fn section(profile: &str, sub: &SubtestResult, t: &Timeline, differs: &[bool], id: &str) -> String {
    let ax = axis(t);
    let slot_w = ax.slot_w;
    let mut rows = String::new();
    let mut y = AXIS_H;
    let mut lane_y: BTreeMap<usize, u32> = BTreeMap::new();
    let row = |rows: &mut String,
               class: &str,
               y: u32,
               h: u32,
               attrs: &str,
               title: &str,
               inner: &str| {
        // A lane's title: what kind of lane, small, above its name.
        let shown = match title.split_once(": ").filter(|_| class.starts_with("lane")) {
            Some((kind, name)) => format!(
                "<div class=\"lane-kind\">{}</div><div class=\"lane-name\">{}</div>",
                escape(kind),
                escape(name)
            ),
            None => escape(title),
        };
        let _ = writeln!(
            rows,
            "<div class=\"row {class}\" style=\"top:{y}px;height:{h}px;width:{}px\"{attrs}><div class=\"row-title\" title=\"{}\">{shown}</div>{inner}</div>",
            ax.width,
            escape(title)
        );
    };
    for (li, lane) in t.lanes.iter().enumerate() {
        // The lane and its boxes.
        let mut inner = String::new();
        // A box takes its column, and the free columns after it in its lane up to the next
        // jump of the clock (at most [`MAX_BOX_W`]), so that its steps read without a hover.
        let in_lane: Vec<usize> = (0..t.units.len())
            .filter(|&ui| t.units[ui].lane == li)
            .collect();
        for (k, &ui) in in_lane.iter().enumerate() {
            let u = &t.units[ui];
            let x = ax.x[u.slot];
            // Never across a jump of the clock: a box is one instant.
            let next_jump = ax.jumps.iter().map(|j| j.0).find(|&j| j > x);
            let next = in_lane
                .get(k + 1)
                .map_or(ax.width - 2, |&n| ax.x[t.units[n].slot])
                .min(next_jump.map_or(u32::MAX, |j| j + 4));
            let width = (next.saturating_sub(x + 6))
                .min(MAX_BOX_W.max(slot_w - 6))
                .max(slot_w - 6);
            inner.push_str(&unit_box(
                u,
                ui,
                x,
                differs.get(ui) == Some(&true),
                id,
                &lane.title(),
                width,
            ));
        }
        for s in t.settles.iter().filter(|s| s.lane == li) {
            let _ = write!(
                inner,
                "<div class=\"settle {}\" style=\"left:{}px\" title=\"{} (realm {}) {}\">{} {}</div>",
                if s.fulfilled { "fulfilled" } else { "rejected" },
                ax.x[s.slot] + slot_w - 70,
                escape(&s.promise),
                escape(&s.realm),
                if s.fulfilled { "fulfilled" } else { "rejected" },
                if s.fulfilled { "\u{2713}" } else { "\u{2717}" },
                escape(&s.promise)
            );
        }
        lane_y.insert(li, y);
        let heading = match lane {
            Lane::EventLoop(l) => format!("event loop: {l}"),
            Lane::ParallelQueue(q) => format!("parallel queue: {q}"),
            other => other.title(),
        };
        row(
            &mut rows,
            &format!("lane {}", lane_class(lane)),
            y,
            LANE_H,
            &format!(" data-lane=\"{}\"", escape(&lane.title())),
            &heading,
            &inner,
        );
        y += LANE_H;
        // Under the harness: the expectations, stacked where several were checked at once.
        if matches!(lane, Lane::Harness) && !t.checks.is_empty() {
            let mut per_slot: BTreeMap<usize, u32> = BTreeMap::new();
            let mut inner = String::new();
            for c in &t.checks {
                let k = per_slot.entry(c.slot).or_insert(0);
                let lines = format!(
                    "line {}: {}\nexpected: {}\nactual:   {}{}",
                    c.line,
                    c.text,
                    c.expected,
                    c.actual,
                    if c.sometimes {
                        "\n(expect sometimes: not on this schedule is no failure; explore says whether some schedule reaches it)"
                    } else {
                        ""
                    }
                );
                let _ = write!(
                    inner,
                    "<div class=\"expectation {}{}\" data-line=\"{}\" style=\"left:{}px;top:{}px;max-width:{}px\" title=\"{}\" data-lines=\"{}\">{} {}: {}</div>",
                    if c.passed { "pass" } else { "fail" },
                    if c.sometimes { " sometimes" } else { "" },
                    c.line,
                    ax.x[c.slot] + 4,
                    2 + *k * CHECK_H,
                    ax.width.saturating_sub(ax.x[c.slot] + 12),
                    escape(&lines),
                    escape(&lines),
                    match (c.passed, c.sometimes) {
                        (true, _) => "\u{2713}",
                        (false, true) => "~",
                        (false, false) => "\u{2717}",
                    },
                    c.line,
                    escape(c.text.trim_start_matches("expect "))
                );
                *k += 1;
            }
            let h = per_slot.values().max().copied().unwrap_or(1) * CHECK_H + 4;
            row(&mut rows, "checks", y, h, "", "expectations", &inner);
            y += h;
        }
        // Under an event loop: its documents' tools-ready.
        for d in t.documents.iter().filter(|d| d.lane == li) {
            let mut inner = String::new();
            for s in &d.segments {
                let state = if !s.active {
                    "inactive"
                } else if s.ready {
                    "ready"
                } else {
                    "not-ready"
                };
                let text = match (s.active, s.ready) {
                    (true, true) => "tools-ready true".to_string(),
                    (true, false) => "tools-ready false".to_string(),
                    (false, r) => format!("not fully active (tools-ready {r})"),
                };
                let left = ax.x[s.from];
                let right = ax.x[s.to] + slot_w;
                let _ = write!(
                    inner,
                    "<div class=\"band-seg {state}\" data-document=\"{}\" data-state=\"{state}\" style=\"left:{left}px;width:{}px\" title=\"{}: {text}\">{text}</div>",
                    escape(&d.name),
                    right - left - 2,
                    escape(&d.name)
                );
            }
            row(
                &mut rows,
                "band",
                y,
                BAND_H,
                &format!(" data-document=\"{}\"", escape(&d.name)),
                &format!("{}: tools-ready", d.name),
                &inner,
            );
            y += BAND_H;
        }
        // Under a parallel queue: its observations and waits.
        for s in t.spans.iter().filter(|s| s.lane == li) {
            let left = ax.x[s.asked];
            let begin = ax.x[s.from];
            let end = s.to.map(|to| ax.x[to] + slot_w).unwrap_or(ax.width - 8);
            let outcome = s.outcome.clone().unwrap_or_else(|| "still waiting".into());
            let queued = if begin > left {
                format!(
                    "<div class=\"span-queued\" style=\"left:{left}px;width:{}px\" title=\"asked for at {} ms; its queue begins it at {} ms\"></div>",
                    begin - left,
                    t.slots[s.asked],
                    t.slots[s.from]
                )
            } else {
                String::new()
            };
            let width = end.saturating_sub(begin + 4).max(40);
            // A span too short for its label and outcome has them end where it ends, running
            // back over the time before it, never past the canvas.
            let text_w = (s.label.chars().count() + outcome.chars().count()) as u32 * 7 + 40;
            let inner = format!(
                "{queued}<div class=\"span {}{}\" style=\"left:{begin}px;width:{width}px\" title=\"{}: {}\"><span class=\"span-text\"><span class=\"label\">{}</span><span class=\"outcome {}\">{}</span></span></div>",
                if s.observation { "observation" } else { "wait" },
                if text_w > width { " narrow" } else { "" },
                escape(&s.label),
                escape(&outcome),
                escape(&s.label),
                outcome_class(&outcome),
                escape(&outcome)
            );
            row(&mut rows, "spans", y, SPAN_H, "", &s.label, &inner);
            y += SPAN_H;
        }
    }
    // The time axis, and the clock's jumps.
    let mut axis_html = String::from(
        "<div class=\"axis-title\" title=\"a column per unit, in the order they ran; a hatched gap is the clock jumping, labelled with how far\">virtual time, compressed</div>",
    );
    let mut last: Option<u64> = None;
    for (i, &time) in t.slots.iter().enumerate() {
        if last != Some(time) {
            let _ = write!(
                axis_html,
                "<div class=\"tick\" style=\"left:{}px\">{time} ms</div>",
                ax.x[i] + 4
            );
            last = Some(time);
        }
    }
    let mut jumps = String::new();
    for (x, from, to) in &ax.jumps {
        let _ = write!(
            jumps,
            "<div class=\"jump\" style=\"left:{x}px;width:{JUMP_W}px\" title=\"the clock jumps from {from} ms to {to} ms\"><span>{}</span></div>",
            jump_label(to - from)
        );
    }
    // What made each unit runnable, across lanes.
    let mut paths = String::new();
    for (ui, u) in t.units.iter().enumerate() {
        let Some(c) = u.cause else { continue };
        let cause = &t.units[c];
        if cause.lane == u.lane {
            continue;
        }
        let (Some(y1), Some(y2)) = (lane_y.get(&cause.lane), lane_y.get(&u.lane)) else {
            continue;
        };
        let x1 = ax.x[cause.slot] + slot_w - 8;
        let y1 = y1 + LANE_H / 2;
        let x2 = ax.x[u.slot] + 2;
        let y2 = y2 + LANE_H / 2;
        let mid = (x1 + x2) / 2;
        let _ = write!(
            paths,
            "<path data-from=\"{id}-u{c}\" data-to=\"{id}-u{ui}\" d=\"M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}\" marker-end=\"url(#{id}-arrow)\"/>"
        );
    }
    let status = sub.status.name();
    // Wider than the window: shown zoomed to fit where the scale stays readable (the button
    // gives the actual size back), else at actual size, scrolling sideways.
    let zoom = f64::from(FIT_W) / f64::from(ax.width);
    let fit = (ax.width > FIT_W && zoom >= MIN_ZOOM).then_some(zoom);
    format!(
        "<section class=\"timeline\" data-profile=\"{}\">\n<h2>profile {}<span class=\"status {status}\">{status}</span> <span class=\"mono\" style=\"font-weight:400;color:#555\">schedule {} · {} units · {} ms virtual</span>{}</h2>\n<div class=\"scroll\"><div class=\"canvas\" style=\"width:{}px;height:{}px{}\">\n<div class=\"axis\" style=\"width:{}px\">{axis_html}</div>\n{jumps}\n{rows}<svg class=\"causes\" width=\"{}\" height=\"{y}\"><defs><marker id=\"{id}-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" style=\"fill:#607d8b;stroke:none\"/></marker></defs>{paths}</svg>\n</div></div>\n</section>\n",
        escape(profile),
        escape(profile),
        escape(&sub.schedule),
        sub.units,
        sub.time,
        match fit {
            None => "",
            Some(_) => "<button class=\"fit\" type=\"button\">actual size</button>",
        },
        ax.width,
        y + 4,
        fit.map_or(String::new(), |z| format!(";zoom:{z:.3}")),
        ax.width,
        ax.width
    )
}

fn unit_box(
    u: &Unit,
    ui: usize,
    x: u32,
    differs: bool,
    id: &str,
    lane: &str,
    width: u32,
) -> String {
    let class = kind_class(&u.kind);
    let lines = u.lines.join("\n");
    let what = if u.what.is_empty() {
        "expectations checked".to_string()
    } else {
        u.what.clone()
    };
    // The description without the kind and lane the box already shows.
    let short = what
        .split_once(": ")
        .filter(|_| class != "harness")
        .map(|(_, rest)| rest.to_string())
        .unwrap_or(what.clone());
    // Every algorithm and its steps, wrapped in the box (the trace lines are the hover's).
    let steps = u.steps.join("; ");
    let choice = u
        .choice
        .as_ref()
        .map(|c| {
            format!(
                "<span class=\"choice\" title=\"choice point {}: {} of {} runnable\">choice {}/{}</span>",
                c.point,
                c.taken + 1,
                c.candidates,
                c.taken + 1,
                c.candidates
            )
        })
        .unwrap_or_default();
    format!(
        "<div class=\"unit {class}{}{}\" id=\"{id}-u{ui}\" data-kind=\"{}\" data-lane=\"{}\" data-unit=\"{}\" style=\"left:{x}px;width:{}px\" title=\"{}\" data-lines=\"{}\"><div class=\"k\">{}<span class=\"n\">{}</span>{choice}</div><div class=\"w\">{}</div><div class=\"s\">{}</div></div>",
        if u.finding { " finding" } else { "" },
        if differs { " differs" } else { "" },
        escape(&u.kind),
        escape(lane),
        u.number.map(|n| n.to_string()).unwrap_or_default(),
        width,
        escape(&lines),
        escape(&lines),
        escape(&u.kind),
        u.number.map(|n| format!("#{n}")).unwrap_or_default(),
        escape(&short),
        escape(&steps)
    )
}

/// The outcome values of each profile's run, and where they differ.
fn outcome_table(runs: &[(String, &SubtestResult)]) -> String {
    let outcomes: Vec<&[(String, String)]> =
        runs.iter().map(|(_, s)| s.outcome.as_slice()).collect();
    let mut out = String::from("<table class=\"outcomes\"><tr><th></th>");
    for (p, s) in runs {
        let _ = write!(
            out,
            "<th>{} <span class=\"status {}\" style=\"color:white;padding:0 4px;border-radius:3px\">{}</span></th>",
            escape(p),
            s.status.name(),
            s.status.name()
        );
    }
    out.push_str("</tr>\n");
    for (k, vals, differs) in super::outcome_rows(&outcomes) {
        let _ = write!(
            out,
            "<tr{}><td class=\"mono\">{}</td>",
            if differs { " class=\"differs\"" } else { "" },
            escape(&k)
        );
        for v in vals {
            let _ = write!(out, "<td class=\"mono\">{}</td>", escape(&v));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

const LEGEND: &str = "<div class=\"legend\">boxes: <span class=\"key\" style=\"background:#d6e6ff\"></span>task <span class=\"key\" style=\"background:#eadcff\"></span>microtask <span class=\"key\" style=\"background:#ffe2bf\"></span>in parallel <span class=\"key\" style=\"background:#e9e9e9\"></span>timer <span class=\"key\" style=\"background:#f7f7f7\"></span>harness · tools-ready: <span class=\"key\" style=\"background:var(--ready)\"></span>true <span class=\"key\" style=\"background:var(--not-ready)\"></span>false <span class=\"key\" style=\"background:repeating-linear-gradient(135deg,#d8d8d8 0 3px,#f1f1f1 3px 6px)\"></span>not fully active · arrows: what made a unit runnable · <i>choice 1/2</i>: the first of two runnable units was taken · expectations: \u{2713} holds, \u{2717} fails, ~ an <code>expect sometimes</code> this schedule does not reach · the time axis is compressed: columns are units in the order they ran, a hatched gap is the clock jumping (labelled with how far) · hover a box for its trace lines, click to keep them in a panel</div>\n";

/// The timeline page of one subtest under each profile (`runs`, one above the other).
/// `replay`: the command that prints this page again.
pub fn timeline_page(path: &str, runs: &[(String, &SubtestResult)], replay: &str) -> String {
    let Some((_, first)) = runs.first() else {
        return page("no run", "", false);
    };
    let timelines: Vec<Timeline> = runs.iter().map(|(_, s)| Timeline::of(s)).collect();
    // A unit no other profile ran, matched by lane and description, counted with repeats.
    let keys: Vec<Vec<String>> = timelines
        .iter()
        .map(|t| t.units.iter().map(|u| t.unit_key(u)).collect())
        .collect();
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header class=\"page\"><h1>{}</h1><div class=\"sub\"><span class=\"mono\">{}</span> · line {} · replay: <code>{}</code></div></header>",
        escape(&first.name),
        escape(path),
        first.line,
        escape(replay)
    );
    body.push_str(&outcome_table(runs));
    body.push_str(LEGEND);
    for (i, ((profile, sub), t)) in runs.iter().zip(&timelines).enumerate() {
        let differs: Vec<bool> = if runs.len() < 2 {
            vec![false; t.units.len()]
        } else {
            let mut others: BTreeMap<&str, i64> = BTreeMap::new();
            for (j, k) in keys.iter().enumerate() {
                if j != i {
                    for key in k {
                        *others.entry(key.as_str()).or_insert(0) += 1;
                    }
                }
            }
            let n_others = (runs.len() - 1) as i64;
            let mut used: BTreeMap<&str, i64> = BTreeMap::new();
            keys[i]
                .iter()
                .map(|key| {
                    let u = used.entry(key.as_str()).or_insert(0);
                    *u += 1;
                    // Ran by every other profile as often as here, at least.
                    others.get(key.as_str()).copied().unwrap_or(0) < *u * n_others
                })
                .collect()
        };
        body.push_str(&section(profile, sub, t, &differs, &format!("p{i}")));
    }
    page(&first.name, &body, true)
}

/// Where a subtest's timeline page is, relative to the suite page: one file per subtest, below
/// its file's WPT path.
pub fn timeline_file(test_id: &str, index: usize) -> String {
    format!("{}/{index:02}.html", test_id.trim_start_matches('/'))
}

/// The suite page of a run under one or more profiles: a row per subtest, its status under
/// each profile, and a link to its timeline (`link(file index, subtest index)`).
pub fn suite_page(
    runs: &[(String, Vec<FileResult>)],
    link: &dyn Fn(usize, usize) -> String,
    command: &str,
) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header class=\"page\"><h1>webmcp-ref run</h1><div class=\"sub\"><code>{}</code></div></header>",
        escape(command)
    );
    for (name, results) in runs {
        let s = super::summary(results);
        let _ = writeln!(
            body,
            "<div class=\"legend\">profile <b>{}</b>: {}</div>",
            escape(name),
            escape(&s.to_string())
        );
    }
    body.push_str("<table class=\"suite\"><tr><th>file</th><th>subtest</th>");
    for (name, _) in runs {
        let _ = write!(body, "<th>{}</th>", escape(name));
    }
    body.push_str("<th>timeline</th></tr>\n");
    let Some((_, first)) = runs.first() else {
        return page("webmcp-ref run", &body, false);
    };
    for (fi, file) in first.iter().enumerate() {
        for (si, sub) in file.subtests.iter().enumerate() {
            let _ = write!(
                body,
                "<tr><td class=\"mono\">{}</td><td>{}</td>",
                escape(&file.path),
                escape(&sub.name)
            );
            let statuses: Vec<Status> = runs
                .iter()
                .map(|(_, files)| files[fi].subtests[si].status)
                .collect();
            for st in &statuses {
                let _ = write!(body, "<td class=\"{}\">{}</td>", st.name(), st.name());
            }
            let _ = writeln!(
                body,
                "<td><a href=\"{}\">timeline</a></td></tr>",
                escape(&link(fi, si))
            );
        }
    }
    body.push_str("</table>\n");
    page("webmcp-ref run", &body, false)
}

/// The outcomes of explorations, each with the token that replays it.
pub fn explore_page(results: &[Exploration], sets: &[String], command: &str) -> String {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header class=\"page\"><h1>webmcp-ref explore</h1><div class=\"sub\"><code>{}</code></div></header>",
        escape(command)
    );
    for e in results {
        let verdict = if e.not_run.is_some() {
            "NOT RUN"
        } else if !e.complete {
            "INCOMPLETE"
        } else if e.passed() {
            "PASS"
        } else {
            "FAIL"
        };
        let _ = write!(
            body,
            "<div class=\"explore\" data-subtest=\"{}\" data-profile=\"{}\"><h3><span class=\"verdict {}\">{verdict}</span> {} :: {} <span class=\"mono\">[{}]</span></h3>",
            escape(&e.subtest),
            escape(&e.profile),
            verdict.replace(' ', "_"),
            escape(&e.file),
            escape(&e.subtest),
            escape(&e.profile)
        );
        if let Some(why) = &e.not_run {
            let _ = writeln!(body, "<div>{}</div></div>", escape(why));
            continue;
        }
        let _ = write!(
            body,
            "<div>{} schedules, {} distinct states, {} distinct outcome(s)</div><table class=\"suite\"><tr><th>schedules</th><th>status</th><th>what it came to</th><th>replay token</th><th>replay with its timeline</th></tr>",
            e.schedules,
            e.states,
            e.outcomes.len()
        );
        // Only the values that differ between outcomes say anything.
        let differing: Vec<&str> = {
            let mut keys: Vec<&str> = e
                .outcomes
                .iter()
                .flat_map(|o| o.values.iter().map(|(k, _)| k.as_str()))
                .collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .filter(|key| {
                    let vals: Vec<Option<&String>> = e
                        .outcomes
                        .iter()
                        .map(|o| o.values.iter().find(|(k, _)| k == key).map(|(_, v)| v))
                        .collect();
                    vals.windows(2).any(|w| w[0] != w[1])
                })
                .collect()
        };
        for o in &e.outcomes {
            let mut values: Vec<String> = o
                .values
                .iter()
                .filter(|(k, _)| differing.contains(&k.as_str()))
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            if values.is_empty() {
                values.push("(the only outcome)".into());
            }
            values.extend(o.messages.iter().cloned());
            let replay = format!(
                "{} --format html",
                super::replay_command(&e.file, &e.subtest, &e.profile, sets, &o.schedule)
            );
            let _ = write!(
                body,
                "<tr class=\"outcome-row\"><td>{}</td><td class=\"{}\">{}</td><td class=\"mono\">{}</td><td class=\"mono token\">{}</td><td><code>{}</code></td></tr>",
                o.schedules,
                o.status,
                o.status,
                escape(&values.join("; ")),
                escape(&o.schedule),
                escape(&replay)
            );
        }
        body.push_str("</table>");
        for v in &e.expectations {
            let _ = write!(
                body,
                "<div class=\"mono verdict-line {}\">{}: line {}: {}</div>",
                if v.holds { "holds" } else { "fails" },
                escape(&super::verdict_label(v)),
                v.line,
                escape(&v.text)
            );
        }
        body.push_str("</div>\n");
    }
    page("webmcp-ref explore", &body, false)
}
