// The playground's page: an editor, the profiles, and the engine's answers. Every engine call
// goes to a worker (worker.js): `quick` answers what the editor needs as one types (parse,
// links), `work` runs, draws timelines, explores, reports and exports, and is the one Cancel
// stops (by ending it and starting another).

const $ = (id) => document.getElementById(id);

class Engine {
  constructor(name) {
    this.name = name;
    this.pending = new Map();
    this.next = 1;
    this.start();
  }
  start() {
    this.worker = new Worker(new URL("worker.js", import.meta.url), { type: "module", name: this.name });
    this.worker.onmessage = (event) => {
      const { id, answer, error, broken, ms } = event.data;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (broken) this.restart(`the engine stopped: ${error}`);
      if (error) p.reject(new Error(error));
      else p.resolve(Object.assign(answer, { ms }));
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      // A worker that cannot load (its module or the WebAssembly missing) would fail again at
      // once: it is not restarted here, but at the next request.
      this.stop(`the engine's worker failed: ${event.message || "it could not load"}`);
    };
  }
  call(request) {
    if (!this.worker) this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, request });
    });
  }
  get busy() {
    return this.pending.size > 0;
  }
  // Ends the worker (whatever it is doing) and starts another; what was asked of the old one
  // is rejected with `why`.
  restart(why) {
    this.stop(why);
    this.start();
  }
  // Ends the worker; what was asked of it is rejected with `why`.
  stop(why) {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new Error(why));
  }
}

const quick = new Engine("webmcp-ref quick");
const work = new Engine("webmcp-ref work");

const state = {
  examples: [],
  subtests: [],
  view: "",
  parseTimer: 0,
  linkTimer: 0,
};

function profiles() {
  return [...document.querySelectorAll("#profiles input:checked")].map((i) => i.value);
}

function sets() {
  return $("sets").value.split(/[\s,]+/).filter((s) => s.length > 0);
}

function subtest() {
  return $("subtest").value || null;
}

function request(op, extra = {}) {
  return {
    op,
    path: $("path").value || "scenario.scn",
    text: $("text").value,
    profiles: profiles(),
    sets: sets(),
    subtest: subtest(),
    ...extra,
  };
}

function status(text) {
  $("status").textContent = text;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function show(...nodes) {
  $("output").replaceChildren(...nodes);
}

// ---- The editor: line numbers, and the parser's error at its line as one types.

function drawGutter(badLine) {
  const lines = $("text").value.split("\n").length;
  const gutter = $("gutter");
  gutter.replaceChildren();
  for (let i = 1; i <= lines; i++) {
    const line = el("span", i === badLine ? { class: "bad", title: "the parser stopped here" } : {}, String(i));
    gutter.append(line, "\n");
  }
  gutter.scrollTop = $("text").scrollTop;
}

function caretTo(line, column) {
  const text = $("text").value;
  let offset = 0;
  for (let i = 1; i < line; i++) offset = text.indexOf("\n", offset) + 1;
  offset += Math.max(0, column - 1);
  $("text").focus();
  $("text").setSelectionRange(offset, offset);
}

async function parseNow() {
  const answer = await quick.call(request("parse")).catch((e) => ({ ok: false, error: e.message }));
  const p = $("parse");
  if (answer.ok) {
    p.className = "good";
    p.textContent = `${answer.subtests.length} subtests${answer.title ? `: ${answer.title}` : ""}`;
    state.subtests = answer.subtests;
    fillSubtests();
    drawGutter(0);
  } else if (answer.at) {
    p.className = "bad";
    p.replaceChildren(
      el("a", { href: "#", onclick: (e) => { e.preventDefault(); caretTo(answer.at.line, answer.at.column); } },
        `line ${answer.at.line}, column ${answer.at.column}`),
      `: ${answer.at.message}`,
    );
    p.title = answer.error;
    drawGutter(answer.at.line);
  } else {
    p.className = "bad";
    p.textContent = answer.error;
    drawGutter(0);
  }
}

function fillSubtests() {
  const select = $("subtest");
  const wanted = select.value || select.dataset.wanted || "";
  select.replaceChildren(el("option", { value: "" }, "(every subtest)"));
  for (const s of state.subtests) select.append(el("option", { value: s.name }, `${s.name} (line ${s.line})`));
  if (state.subtests.some((s) => s.name === wanted)) select.value = wanted;
  delete select.dataset.wanted;
}

function edited() {
  clearTimeout(state.parseTimer);
  drawGutter(0);
  state.parseTimer = setTimeout(parseNow, 250);
  linkLater();
}

// ---- The link: the fragment carries the scenario, the profiles, the switches, the subtest
// and what was shown.

function linkLater() {
  clearTimeout(state.linkTimer);
  state.linkTimer = setTimeout(writeLink, 400);
}

async function writeLink() {
  const answer = await quick.call(request("link", { view: state.view || null })).catch(() => null);
  if (answer && answer.ok) history.replaceState(null, "", `#${answer.fragment}`);
}

async function openLink() {
  if (!location.hash.includes("s=")) return false;
  const answer = await quick.call({ op: "open", link: location.hash });
  if (!answer.ok) {
    status(`This link cannot be opened: ${answer.error}`);
    return false;
  }
  $("path").value = answer.path;
  $("text").value = answer.text;
  // A bundled example, unchanged, is shown as that example.
  const example = state.examples.find((e) => e.path === answer.path && e.text === answer.text);
  $("example").value = example ? example.path : "";
  if (answer.profiles.length > 0) {
    for (const box of document.querySelectorAll("#profiles input")) box.checked = answer.profiles.includes(box.value);
  }
  $("sets").value = answer.sets.join(", ");
  $("subtest").dataset.wanted = answer.subtest || "";
  await parseNow();
  const act = { run, timeline, explore, markdown, export: exportTest }[answer.view];
  if (act) act();
  return true;
}

// ---- The engine's answers.

async function perform(what, op, extra, render) {
  state.view = op;
  writeLink();
  busy(true);
  document.body.dataset.busy = "true";
  status(`${what}...`);
  try {
    const answer = await work.call(request(op, extra));
    if (!answer.ok) {
      status("");
      show(refusal(answer));
      if (answer.at) caretTo(answer.at.line, answer.at.column);
      return;
    }
    status(`${what}: done in ${Math.round(answer.ms)} ms`);
    render(answer);
  } catch (e) {
    status(e.message === "cancelled"
      ? `Cancelled: ${what} was stopped with the engine's worker, and a new worker started.`
      : `${what}: ${e.message}`);
  } finally {
    busy(work.busy);
    // For whoever reads the page (a test, an extension): what was last asked, and whether the
    // engine is still at work.
    document.body.dataset.busy = String(work.busy);
    document.body.dataset.last = op;
  }
}

function refusal(answer) {
  return el("p", { class: "refusal", role: "alert" }, answer.error);
}

function busy(on) {
  for (const id of ["run", "timeline", "markdown", "export", "explore", "suite"]) {
    if ($(id)) $(id).disabled = on;
  }
  $("cancel").disabled = !on;
}

function run() {
  return perform("Run", "run", {}, (answer) => {
    const names = answer.runs.map((r) => r.profile);
    const rows = new Map();
    for (const r of answer.runs) {
      for (const f of r.files) {
        if (f.error) rows.set(`(the file) ${f.error}`, new Map());
        for (const s of f.subtests) {
          if (!rows.has(s.name)) rows.set(s.name, new Map());
          rows.get(s.name).set(r.profile, s);
        }
      }
    }
    const table = el("table", { id: "results" },
      el("thead", {}, el("tr", {}, el("th", {}, "subtest"), ...names.map((n) => el("th", {}, n)))));
    const body = el("tbody");
    for (const [name, byProfile] of rows) {
      const statuses = names.map((n) => byProfile.get(n)?.status ?? "");
      const differs = new Set(statuses).size > 1;
      body.append(el("tr", { "data-subtest": name },
        el("th", { scope: "row" }, name),
        ...names.map((n) => {
          const s = byProfile.get(n);
          const message = s ? s.messages.join("\n") : "";
          return el("td", { class: `${s?.status ?? ""}${differs ? " differs" : ""}`, title: message, "data-profile": n }, s?.status ?? "not run");
        })));
    }
    table.append(body);
    const parts = [table];
    if (answer.differences) parts.push(el("h3", {}, "Where the profiles' outcomes differ"), el("pre", { class: "report" }, answer.differences));
    parts.push(el("details", {}, el("summary", {}, "The report, as webmcp-ref run writes it"), el("pre", { class: "report" }, answer.human)));
    show(...parts);
  });
}

function needOne() {
  if (!subtest() && state.subtests.length > 1) {
    status("Pick a subtest: a timeline or a report is of one subtest.");
    return false;
  }
  return true;
}

function timeline(extra = {}) {
  if (!extra.subtest && !needOne()) return;
  return perform("Timeline", "timeline", extra, (answer) => {
    const frame = el("iframe", { class: "timeline", title: `The timeline of ${answer.subtest}`, sandbox: "allow-scripts" });
    frame.srcdoc = answer.html;
    show(el("h3", {}, `Timeline: ${answer.subtest}`), frame);
  });
}

function markdown() {
  if (!needOne()) return;
  const base = location.href.split("#")[0];
  return perform("Markdown report", "markdown", { base }, (answer) => {
    const area = el("textarea", { class: "copy", readonly: "" });
    area.value = answer.markdown;
    show(el("div", { class: "buttons" },
      el("button", { onclick: () => navigator.clipboard.writeText(area.value).then(() => status("The report is copied.")) }, "Copy")),
      area);
  });
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  return el("a", { href: url, download: name }, name);
}

function exportTest() {
  return perform("Export", "export", {}, (answer) => {
    const leftOut = answer.subtests.flatMap((s) => s.left_out.map((l) => `${s.name}, line ${l.line}: ${l.text} (${l.why})`));
    const files = el("ul", {},
      el("li", {}, download(answer.path.split("/").pop(), answer.html, "text/html"), ` (${answer.path})`),
      ...answer.resources.map((r) => el("li", {}, download(r.path.split("/").pop(), r.text, "text/javascript"), ` (${r.path})`)));
    show(
      el("p", {}, answer.has_test
        ? `The WPT test under ${answer.profile}, and the files it loads, to put at these paths of a WPT checkout:`
        : "Nothing of this scenario is something a page can check: no test was written."),
      files,
      ...(leftOut.length ? [el("details", {}, el("summary", {}, `Left out (${leftOut.length})`), el("pre", { class: "report" }, leftOut.join("\n")))] : []),
      el("details", {}, el("summary", {}, "The test"), el("pre", { class: "report" }, answer.html)));
  });
}

function number(id) {
  const v = $(id).value.trim();
  return v === "" ? null : Number(v);
}

function explore() {
  return perform("Explore", "explore", {
    max_schedules: number("max-schedules"),
    max_seconds: number("max-seconds"),
    random: number("random"),
    seed: number("seed"),
  }, (answer) => {
    const parts = [];
    for (const e of answer.explorations) {
      const list = el("ul");
      for (const o of e.outcomes) {
        const values = o.values.map(([k, v]) => `${k} = ${v}`).join(", ");
        list.append(el("li", { class: "outcome" },
          `${o.status}${values ? ` (${values})` : ""}, ${o.schedules} ${e.counted === "Schedules" ? "schedules" : "traces"} `,
          el("code", {}, o.schedule), " ",
          el("button", { onclick: () => timeline({ subtest: e.subtest, profiles: [e.profile], schedule: o.schedule }) }, "timeline")));
      }
      parts.push(el("h3", {}, `${e.subtest} under ${e.profile}${e.complete ? "" : " (incomplete)"}`), list);
    }
    if (answer.differences) parts.push(el("h3", {}, "Where the outcomes differ"), el("pre", { class: "report" }, answer.differences));
    parts.push(el("details", { open: "" }, el("summary", {}, "The report, as webmcp-ref explore writes it"), el("pre", { class: "report" }, answer.human)));
    show(...parts);
  });
}

function suite() {
  return perform("The bundled suite", "suite", {}, (answer) => {
    show(el("p", { id: "suite-result" },
      `${answer.files} files, ${answer.subtests} subtests under ${answer.profiles.join(", ")}: ${answer.passed} passed, ${answer.failed} failed (${Math.round(answer.ms)} ms in this page)`),
      el("pre", { class: "report" }, answer.failures.join("\n")));
  });
}

// ---- Start: the profiles, the examples, and the link's state.

async function start() {
  const [p, ex] = await Promise.all([quick.call({ op: "profiles" }), quick.call({ op: "examples" })]);
  for (const profile of p.profiles) {
    const box = el("input", { type: "checkbox", value: profile.name });
    box.checked = profile.name === "spec";
    box.addEventListener("change", linkLater);
    $("profiles").append(el("label", { title: profile.about }, box, ` ${profile.name}`));
  }
  for (const s of p.switches) {
    for (const v of s.values) $("switch-list").append(el("option", { value: `${s.name}=${v.name}` }, v.meaning));
  }
  state.examples = ex.examples;
  for (const e of ex.examples) $("example").append(el("option", { value: e.path }, e.path.replace(/^wpt-mirror\//, "")));
  $("example").addEventListener("change", () => {
    const e = state.examples.find((x) => x.path === $("example").value);
    if (!e) return;
    $("path").value = e.path;
    $("text").value = e.text;
    $("subtest").value = "";
    edited();
  });
  $("text").addEventListener("input", edited);
  $("text").addEventListener("scroll", () => { $("gutter").scrollTop = $("text").scrollTop; });
  $("path").addEventListener("input", edited);
  $("sets").addEventListener("input", linkLater);
  $("subtest").addEventListener("change", linkLater);
  $("run").addEventListener("click", run);
  $("timeline").addEventListener("click", () => timeline());
  $("markdown").addEventListener("click", markdown);
  $("export").addEventListener("click", exportTest);
  $("explore").addEventListener("click", explore);
  $("suite").addEventListener("click", suite);
  $("cancel").addEventListener("click", () => work.restart("cancelled"));
  $("share").addEventListener("click", async () => {
    await writeLink();
    await navigator.clipboard.writeText(location.href).then(
      () => status("The link is copied: it carries the scenario, the profiles and the subtest."),
      () => status(`The link: ${location.href}`));
  });
  if (!(await openLink())) {
    const first = state.examples.find((e) => e.path.includes("readiness/")) || state.examples[0];
    if (first) {
      $("example").value = first.path;
      $("path").value = first.path;
      $("text").value = first.text;
    }
    await parseNow();
  }
  document.body.dataset.ready = "true";
}

start().catch((e) => status(`The playground could not start: ${e.message}`));
