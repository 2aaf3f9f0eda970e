// webmcp-ref.js: the world of a test exported by `webmcp-ref export-wpt`.
//
// Loaded by the test page and by every helper frame (webmcp-ref-frame.html). A subtest of the
// scenario is a promise_test that starts with
//
//   const {s, w} = webmcpRef.subtest(t, "name");
//
// `s` holds the names the scenario binds (s.top, s.p, s.result); `w` carries out its lines:
//
//   page top URL            w.page("top"): the test page itself is the scenario's first page.
//   frame NAME in DOC URL   await w.frame("child", "top", URL, {allow}): an <iframe> whose src
//                           is webmcp-ref-frame.html on the origin URL names. https://a.test is
//                           the test's own origin, https://b.test get_host_info()'s
//                           HTTPS_REMOTE_ORIGIN, https://c.test its HTTPS_OTHER_NOTSAMESITE_ORIGIN.
//   promise/thenable/controller NAME in DOC
//                           made by DOC's own copy of this file, so they belong to DOC's realm.
//   task in DOC: BLOCK      w.task("child", (s, w) => {...}, {task: N}): a task (a timer of 0
//                           ms of the test page, so that tasks of its event loop keep their
//                           order) that runs the block in DOC's realm if DOC is still fully
//                           active; N numbers the subtest's
//                           tasks, and the task counts as finished once its block has returned
//                           (or its async block settled). For a document of the test's origin
//                           the block's source is evaluated in that document (so the promises,
//                           objects and callbacks it makes are of its realm); a cross-origin
//                           document gets the source by postMessage, evaluates it, and posts
//                           back its log lines, the values it binds (as snapshots: plain data)
//                           and its uncaught exceptions.
//   html in DOC: MARKUP     w.html("top", MARKUP): a task, as w.task's, that inserts the markup
//                           at the end of DOC's body; the cleanup removes it. A cross-origin
//                           document gets the markup by postMessage, in order with its tasks.
//   run / run 100ms / flush await w.run({from, until, next_timer, log, bound, settled, tasks}): a page
//                           has no "until idle". The engine ran the exported lines (default
//                           schedule, the profile the test was exported under) and wrote down
//                           the virtual time each drive starts and ends at, when the next timer
//                           or `at` block is due after it, and where it was at its end (how long
//                           its log was, which names were bound, which named promises had
//                           settled, which tasks had finished). The test waits in real
//                           time until `until`, measured from the last moment when nothing was
//                           pending, asks every cross-origin frame for an answer, then polls
//                           until the page is where the engine was, up to a deadline
//                           (webmcpRef.margin_ms, 1000 ms by default; ?webmcp-ref-margin=MS on
//                           the test's URL) cut to half the time left before the next timer, so
//                           that a wait never runs past a timer the scenario has not reached.
//   at 800ms: ...           w.at(800, async () => {...}): a real timer at that offset from the
//                           subtest's start, running the block's lines.
//   expect ...              await w.check(LINE, TEXT, () => assert_...): every expectation is
//                           checked (as the engine does) and the subtest fails at its end
//                           (w.end()) with every expectation that did not hold, and every
//                           uncaught exception no `expect uncaught` acknowledged.
//
// Names are shared by the whole subtest, as in the scenario; a subtest's frames, controllers
// and registrations on the test page are removed, aborted and awaited in its cleanup, since
// the exported subtests share one page where each scenario subtest had a world of its own.
// `webmcpRef.report()` gives each subtest's log and checks, which webmcp-ref diff-browser
// collects beside testharness.js's results.

(function () {
  "use strict";
  const ref = (self.webmcpRef = self.webmcpRef || {});
  const params = new URLSearchParams(location.search);
  const IN_FRAME = params.has("webmcp-ref-frame");
  const script_url = document.currentScript ? document.currentScript.src : location.href;
  const FRAME_PAGE = new URL("webmcp-ref-frame.html", script_url).pathname;
  ref.margin_ms = Number(params.get("webmcp-ref-margin")) || 1000;
  ref.results = [];

  const tag_of = v => {
    try {
      return Object.prototype.toString.call(v).slice(8, -1);
    } catch (e) {
      return "Object";
    }
  };
  const is_promise = v => v !== null && typeof v === "object" && tag_of(v) === "Promise";
  const is_error = v =>
    v !== null &&
    typeof v === "object" &&
    (v.__error === true || tag_of(v) === "Error" || tag_of(v) === "DOMException");
  // Every wait and timer of this file, and of the scenario's `after` blocks (w.timeout), is
  // testharness.js's step_timeout, as WPT asks of tests: it scales a timeout by the run's
  // timeout multiplier. The test page loads testharness.js, and so does every helper frame
  // (webmcp-ref-frame.html, which sets up no test of its own), so the timer is always this
  // window's own. A crash test loads no harness (WPT reports no assertion of one): its waits
  // are rendering frames, until the time has passed, and a wait of 0 a posted message.
  const HARNESS = typeof step_timeout === "function";
  function timer(f, ms) {
    ms = Math.max(0, ms);
    if (HARNESS) return step_timeout(f, ms);
    if (ms === 0) {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => f();
      channel.port2.postMessage(null);
      return undefined;
    }
    const end = performance.now() + ms;
    const frame = () => (performance.now() >= end ? f() : requestAnimationFrame(frame));
    requestAnimationFrame(frame);
    return undefined;
  }
  const sleep = ms => new Promise(resolve => timer(resolve, ms));
  const fail = message => {
    throw typeof AssertionError === "function" ? new AssertionError(message) : new Error(message);
  };

  // ---- origins --------------------------------------------------------------------------

  let origins = null;
  function origin_map() {
    if (origins) return origins;
    if (IN_FRAME) {
      origins = JSON.parse(params.get("origins") || "{}");
      return origins;
    }
    const info = typeof get_host_info === "function" ? get_host_info() : {};
    origins = {
      "https://a.test": location.origin,
      "https://b.test": info.HTTPS_REMOTE_ORIGIN,
      "https://c.test": info.HTTPS_OTHER_NOTSAMESITE_ORIGIN || info.HTTPS_NOTSAMESITE_ORIGIN,
      "http://b.test": info.HTTP_REMOTE_ORIGIN,
    };
    return origins;
  }
  // A scenario origin (or URL on one) as the origin the test runs on.
  function to_real(s) {
    for (const [scenario, real] of Object.entries(origin_map())) {
      if (s === scenario || s.startsWith(scenario + "/") || s.startsWith(scenario + "?")) {
        if (!real) throw new Error(`no origin for ${scenario}: is /common/get-host-info.sub.js loaded?`);
        return real + s.slice(scenario.length);
      }
    }
    return s;
  }
  // An iframe's allow attribute with the scenario's origins in it made real
  // (allow="tools https://a.test" names the page's real origin).
  function allow_attribute(a) {
    return a
      .split(/(\s+|;)/)
      .map(token => (token.startsWith("https://") ? to_real(token) : token))
      .join("");
  }
  // Real origins in a text, as the scenario names them.
  function to_scenario(s) {
    for (const [scenario, real] of Object.entries(origin_map())) {
      if (real) s = s.split(real).join(scenario);
    }
    return s;
  }

  // ---- values ---------------------------------------------------------------------------

  // How a value reads in a log line (the engine's display of a value).
  function show(v) {
    if (typeof v === "string") return to_scenario(v);
    if (v === undefined) return "undefined";
    if (v === null) return "null";
    if (typeof v !== "object" && typeof v !== "function") return String(v);
    if (is_error(v)) return v.message ? `${v.name}: ${to_scenario(v.message)}` : v.name;
    if (typeof v === "function") return "function";
    if (is_promise(v) || v.__promise) return "promise";
    if (Array.isArray(v) || tag_of(v) === "Object") {
      try {
        const text = JSON.stringify(v);
        if (text !== undefined) return to_scenario(text);
      } catch (e) {}
    }
    return tag_of(v);
  }

  // A value as the engine's diff-browser compares it: the same text the engine writes for
  // the same value (webmcp_ref::host::value::Value::canonical).
  function canon(v, depth) {
    depth = depth || 0;
    if (depth > 32) return "…";
    if (typeof v === "string") return JSON.stringify(to_scenario(v));
    if (v === undefined) return "undefined";
    if (v === null) return "null";
    if (typeof v === "number") return Object.is(v, -0) ? "0" : String(v);
    if (typeof v === "boolean") return String(v);
    if (typeof v === "function") return "function";
    if (is_error(v))
      return `error ${JSON.stringify(v.name)} ${JSON.stringify(to_scenario(v.message || ""))}`;
    if (is_promise(v) || v.__promise) return "promise";
    if (v.__window || tag_of(v) === "Window") return "window";
    if (v.__function) return "function";
    if (Array.isArray(v)) return "[" + v.map(i => canon(i, depth + 1)).join(",") + "]";
    if (tag_of(v) === "Object")
      return (
        "{" +
        Object.keys(v)
          .map(k => JSON.stringify(k) + ":" + canon(v[k], depth + 1))
          .join(",") +
        "}"
      );
    return tag_of(v);
  }

  // A value as plain data that postMessage can carry: what a cross-origin frame's bindings
  // look like to the test page.
  function snapshot(v, label_window, depth) {
    depth = depth || 0;
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
    if (typeof v === "function") return { __function: true };
    if (depth > 8) return { __deep: true };
    try {
      if (v.window === v) return { __window: label_window(v) };
    } catch (e) {
      return { __window: "a cross-origin window" };
    }
    const tag = tag_of(v);
    if (tag === "Error" || tag === "DOMException")
      return { __error: true, name: v.name, message: v.message };
    if (tag === "Promise") {
      const st = state_record(v);
      return { __promise: st.state, value: snapshot(st.value, label_window, depth + 1) };
    }
    if (tag === "AbortController") return { signal: snapshot(v.signal, label_window, depth + 1) };
    if (tag === "AbortSignal")
      return { aborted: v.aborted, reason: snapshot(v.reason, label_window, depth + 1) };
    if (typeof v.type === "string" && "isTrusted" in v && "currentTarget" in v) {
      const e = {
        __event: true,
        type: v.type,
        interface: tag,
        target: target_label_in(v.target, label_window),
        bubbles: v.bubbles,
        cancelable: v.cancelable,
        composed: v.composed,
        isTrusted: v.isTrusted,
      };
      if ("ready" in v) e.ready = v.ready;
      if ("toolName" in v) e.toolName = v.toolName;
      return e;
    }
    if (Array.isArray(v)) return v.map(x => snapshot(x, label_window, depth + 1));
    const out = {};
    for (const k in v) {
      let x;
      try {
        x = v[k];
      } catch (e) {
        continue;
      }
      if (typeof x === "function") continue;
      out[k] = snapshot(x, label_window, depth + 1);
    }
    return out;
  }

  function target_label_in(target, label_window) {
    if (!target) return String(target);
    try {
      if (target.window === target) return `${label_window(target)}.window`;
    } catch (e) {}
    if (tag_of(target) === "ModelContext") {
      for (const w of [self, self.parent, self.top]) {
        try {
          if (w.document.modelContext === target) return `${label_window(w)}.modelContext`;
        } catch (e) {}
      }
    }
    return tag_of(target);
  }

  // The engine's value equality for expectations: an expected error with no message matches
  // any error of that name; objects match when they have the same keys and matching values.
  ref.error = (name, message) => ({ __pattern_error: true, name, message: message || "" });
  function matches(actual, expected) {
    if (actual === expected) return true;
    if (expected !== null && typeof expected === "object" && expected.__pattern_error) {
      return (
        is_error(actual) &&
        actual.name === expected.name &&
        (expected.message === "" || actual.message === expected.message)
      );
    }
    if (Array.isArray(expected)) {
      return (
        Array.isArray(actual) &&
        actual.length === expected.length &&
        expected.every((e, i) => matches(actual[i], e))
      );
    }
    if (expected !== null && typeof expected === "object") {
      if (actual === null || typeof actual !== "object") return false;
      // A window, a promise, a signal...: the same object or nothing (walking a window's
      // properties would never end: window.window is the window).
      if (tag_of(expected) !== "Object" || tag_of(actual) !== "Object") return false;
      const keys = Object.keys(actual);
      const wanted = Object.keys(expected);
      return (
        keys.length === wanted.length &&
        wanted.every(k => keys.includes(k) && matches(actual[k], expected[k]))
      );
    }
    return Object.is(actual, expected) || actual === expected;
  }
  function error_name(v) {
    if (is_error(v)) return v.name;
    if (typeof v === "string") return v;
    return undefined;
  }

  // A named promise's state, recorded by reactions added when it was bound.
  const states = new WeakMap();
  function state_record(p) {
    let st = states.get(p);
    if (!st) {
      st = { state: "pending", value: undefined, listeners: [] };
      states.set(p, st);
      const settle = (state, value) => {
        st.state = state;
        st.value = value;
        for (const f of st.listeners) f();
      };
      Promise.prototype.then.call(
        p,
        v => settle("fulfilled", v),
        e => settle("rejected", e)
      );
    }
    return st;
  }
  function state_of(p) {
    if (p !== null && typeof p === "object" && typeof p.__promise === "string")
      return { state: p.__promise, value: p.value };
    if (is_promise(p)) return state_record(p);
    fail(`${show(p)} is not a promise`);
  }

  function index(x, k) {
    // An array index ("1") reads the element, as JavaScript does; another string finds the
    // element with that name (the scenario language's tools["search"]).
    if (Array.isArray(x) && typeof k === "string" && !/^(0|[1-9][0-9]*)$/.test(k))
      return x.find(i => i && i.name === k);
    return x[k];
  }
  function interface_of(e) {
    if (e !== null && typeof e === "object" && e.__event) return e.interface;
    return tag_of(e);
  }

  // ---- realm helpers: every copy of this file makes things of its own realm ----------------

  ref.realm = {
    evaluate: source => (0, eval)("(" + source + ")"),
    deferred() {
      let resolve, reject;
      const promise = new Promise((a, b) => {
        resolve = a;
        reject = b;
      });
      return { promise, resolve, reject };
    },
    controller: () => new AbortController(),
    // A thenable whose `then` belongs to this realm.
    thenable(behaviour, kept) {
      return {
        then(resolve, reject) {
          const settle = "resolves" in behaviour
            ? () => resolve(behaviour.resolves)
            : () => reject(behaviour.rejects);
          if ("after" in behaviour) timer(settle, behaviour.after);
          else if ("resolves" in behaviour || "rejects" in behaviour) settle();
          else if ("throws" in behaviour) throw behaviour.throws;
          else kept.push({ resolve, reject });
        },
      };
    },
    then: (p, f, r) => p.then(f, r),
    // The `w` that a block running in this realm gets: the world's methods, and callbacks
    // (guard) made in this realm, so that their jobs and listeners are this realm's.
    facade(world) {
      const facade = {
        log: text => world.log_line(text),
        show,
        resolve: (p, v) => world.settle(p, false, v),
        reject: (p, v) => world.settle(p, true, v),
        remove: d => world.remove(d),
        navigate: (d, url, label) => world.navigate(d, url, label),
        guard: fn => guard(world, fn),
        index,
        origin: to_real,
        interface_of,
        target_label: e => world.target_label(e),
        with_cleanup_signal: o => world.with_cleanup_signal(o),
        kept_thenable: () => ref.realm.thenable({}, []),
        timeout: (f, ms) => timer(f, ms),
      };
      Object.defineProperty(facade, "cleanup_signal", { get: () => world.cleanup_signal });
      return facade;
    },
  };

  // A callback of the scenario's script: what it throws is an uncaught exception of the
  // subtest (as in the engine), not the harness's.
  function guard(world, fn) {
    return function (...args) {
      let r;
      try {
        r = fn.apply(this, args);
      } catch (e) {
        world.uncaught_error(e);
        return undefined;
      }
      if (is_promise(r)) r.then(undefined, e => world.uncaught_error(e));
      return undefined;
    };
  }

  // The names a subtest binds. A name bound to a promise gets its state recorded; a
  // controller is aborted in the cleanup.
  function names(world) {
    const store = Object.create(null);
    const proxy = new Proxy(store, {
      get(target, key) {
        if (typeof key !== "string") return undefined;
        if (key in store) return store[key];
        if (world.mirror && key in world.mirror) return world.mirror[key];
        if (key === "then" || key === "toJSON") return undefined;
        throw new ReferenceError(`${key} is not defined`);
      },
      set(target, key, value) {
        store[key] = value;
        world.bound(key, value);
        return true;
      },
      has: (target, key) => key in store,
    });
    return { store, proxy };
  }

  class Doc {
    constructor(fields) {
      Object.assign(this, fields);
    }
    // A cross-origin document's `document` throws a SecurityError, as the engine's script
    // reaching another origin does.
    get document() {
      return this._document !== undefined ? this._document : this.window.document;
    }
    get modelContext() {
      return this.document.modelContext;
    }
  }

  // ---- the test page's world -------------------------------------------------------------

  let world_count = 0;
  const worlds = new Map();

  class World {
    constructor(t, name) {
      this.t = t;
      this.name = name;
      this.id = `${Date.now().toString(36)}-${++world_count}`;
      this.live = true;
      this.docs = Object.create(null);
      const n = names(this);
      this.store = n.store;
      this.s = n.proxy;
      this.lines = [];
      this.finished_tasks = new Set();
      this.inserted = [];
      this.checks = [];
      this.failures = [];
      this.uncaught = [];
      this.acknowledged = new Set();
      this.controllers = [];
      this.resolvers = new WeakMap();
      this.hellos = new Map();
      this.loading = [];
      this.requests = new Map();
      this.request_count = 0;
      this.cleanup_controller = new AbortController();
      this.anchor = { virtual: 0, real: performance.now() };
      this.last_next_timer = null;
      this.at_blocks = [];
      this.recorded = false;
      worlds.set(this.id, this);
    }

    get cleanup_signal() {
      return this.cleanup_controller.signal;
    }

    with_cleanup_signal(options) {
      if (options && options.signal) return options;
      return Object.assign({}, options, { signal: this.cleanup_signal });
    }

    bound(name, value) {
      if (is_promise(value)) state_record(value);
      if (tag_of(value) === "AbortController") this.controllers.push(value);
    }

    doc(d) {
      const doc = typeof d === "string" ? this.docs[d] : d;
      if (!(doc instanceof Doc)) throw new TypeError(`${show(d)} is not a document`);
      return doc;
    }

    label_window(win) {
      for (const name in this.docs) if (this.docs[name].window === win) return name;
      return "a window";
    }

    target_label(e) {
      if (e !== null && typeof e === "object" && e.__event) return e.target;
      const target = e && e.target;
      for (const name in this.docs) {
        const d = this.docs[name];
        if (d.window === target) return `${name}.window`;
        if (d.direct && d._document && d._document.modelContext === target)
          return `${name}.modelContext`;
      }
      return target_label_in(target, w => this.label_window(w));
    }

    // ---- lines that build the world

    page(name) {
      const d = new Doc({
        name,
        window: self,
        _document: document,
        direct: true,
        page: true,
        origin: "https://a.test",
        real_origin: location.origin,
        parent: null,
        removed: false,
        realm: ref.realm,
        facade: this,
      });
      this.docs[name] = d;
      this.store[name] = d;
    }

    frame_url(url, name, policy, site_keyed) {
      const real = new URL(to_real(url));
      const target = new URL(FRAME_PAGE, real.origin);
      const search = {
        "webmcp-ref-frame": "",
        world: this.id,
        name,
        page: Object.keys(this.docs).find(n => this.docs[n].page) || "",
        origins: JSON.stringify(origin_map()),
        scenario_url: url,
      };
      // A Permissions-Policy header on the frame's document, through wptserve's
      // pipe=header(NAME,VALUE), the scenario's origins in it made real; and
      // Origin-Agent-Cluster: ?0 for a site-keyed one.
      const pipes = [];
      if (policy !== undefined) {
        const value = policy.replace(/"(https:\/\/[^"]*)"/g, (m, o) => `"${to_real(o)}"`);
        pipes.push(`header(Permissions-Policy,${value.replace(/[\\,()]/g, c => "\\" + c)})`);
      }
      if (site_keyed) pipes.push("header(Origin-Agent-Cluster,?0)");
      if (pipes.length) search.pipe = pipes.join("|");
      target.search = new URLSearchParams(search).toString();
      return target.href;
    }

    expect_hello(name, fields) {
      return new Promise((resolve, reject) => {
        timer(() => {
          if (this.hellos.get(name) !== entry) return;
          this.hellos.delete(name);
          reject(new Error(`the frame ${name} did not load within 10 s`));
        }, 10000);
        const entry = { fields, resolve, reject };
        this.hellos.set(name, entry);
      });
    }

    async frame(name, parent_name, url, options) {
      options = options || {};
      const parent = this.doc(parent_name);
      if (url === "about:blank") return this.blank_frame(name, parent, options);
      const origin = new URL(url).origin;
      const src = this.frame_url(url, name, options.policy, options.site_keyed);
      const real_origin = new URL(src).origin;
      const fields = {
        name,
        origin,
        real_origin,
        direct: real_origin === location.origin,
        parent: parent.name,
        removed: false,
        iframe: null,
      };
      const hello = this.expect_hello(name, fields);
      if (parent.direct) {
        const iframe = parent.document.createElement("iframe");
        if (options.allow !== undefined) iframe.allow = allow_attribute(options.allow);
        iframe.src = src;
        fields.iframe = iframe;
        parent.document.body.appendChild(iframe);
      } else {
        this.post(parent, { op: "frame", name, url: src, allow: options.allow });
      }
      await hello;
    }

    // An iframe with no src: its about:blank document has its parent's origin (HTML), and
    // gets this file's realm helpers by a script element of its own.
    async blank_frame(name, parent, options) {
      if (!parent.direct) throw new Error(`the about:blank iframe ${name} of a cross-origin document`);
      const iframe = parent.document.createElement("iframe");
      if (options.allow !== undefined) iframe.allow = allow_attribute(options.allow);
      parent.document.body.appendChild(iframe);
      const win = iframe.contentWindow;
      await new Promise((resolve, reject) => {
        const script = win.document.createElement("script");
        script.src = script_url;
        script.onload = resolve;
        script.onerror = () => reject(new Error(`webmcp-ref.js did not load in ${name}`));
        win.document.head.appendChild(script);
      });
      const d = new Doc({
        name,
        origin: parent.origin,
        real_origin: parent.real_origin,
        direct: true,
        parent: parent.name,
        removed: false,
        iframe,
        window: win,
      });
      d._document = win.document;
      d.realm = win.webmcpRef.realm;
      d.facade = win.webmcpRef.realm.facade(this);
      this.docs[name] = d;
      this.store[name] = d;
    }

    on_hello(event, data) {
      const pending = this.hellos.get(data.name);
      if (!pending) return;
      this.hellos.delete(data.name);
      const fields = pending.fields;
      const win = event.source;
      const d = new Doc(Object.assign({}, fields, { window: win }));
      if (d.direct) {
        d._document = win.document;
        d.realm = win.webmcpRef.realm;
        d.facade = win.webmcpRef.realm.facade(this);
      }
      this.docs[data.name] = d;
      this.store[data.name] = d;
      pending.resolve(d);
    }

    promise(name, doc_name, settle) {
      const d = this.doc(doc_name);
      if (!d.direct) {
        this.post(d, { op: "promise", name, settle });
        this.store[name] = { __promise: "pending", value: undefined, __remote: d.name };
        return;
      }
      const def = d.realm.deferred();
      this.resolvers.set(def.promise, def);
      this.s[name] = def.promise;
      if (settle && "fulfilled" in settle) def.resolve(settle.fulfilled);
      if (settle && "rejected" in settle) def.reject(settle.rejected);
    }

    thenable(name, doc_name, behaviour) {
      const d = this.doc(doc_name);
      if (!d.direct) {
        this.post(d, { op: "thenable", name, behaviour: behaviour || {} });
        this.store[name] = { __remote: d.name };
        return;
      }
      const kept = [];
      const t = d.realm.thenable(behaviour || {}, kept);
      this.resolvers.set(t, { kept });
      this.s[name] = t;
    }

    controller(name, doc_name) {
      const d = this.doc(doc_name);
      if (!d.direct) {
        this.post(d, { op: "controller", name });
        this.store[name] = { __remote: d.name };
        return;
      }
      this.s[name] = d.realm.controller();
    }

    // Is this document still the one its frame shows, in the tree?
    current(d) {
      if (d.removed) return false;
      if (d.page) return true;
      try {
        if (d.direct && d.window.document !== d._document) return false;
      } catch (e) {
        return false;
      }
      return this.fully_active(this.docs[d.parent]);
    }

    task(doc_name, fn, options) {
      options = options || {};
      const d = this.doc(doc_name);
      if (!d.direct) {
        // A cross-origin frame's task is waited for by asking the frame for an answer
        // (settle_frames), not by its number.
        if (options.task !== undefined) this.finished_tasks.add(options.task);
        this.post(d, { op: "task", source: String(fn), as: options.as, env: this.env() });
        if (options.as) this.store[options.as] = { __promise: "pending", value: undefined, __remote: d.name };
        return;
      }
      const completion = options.as ? d.realm.deferred() : null;
      if (completion) this.s[options.as] = completion.promise;
      if (!this.current(d)) return; // a task of a document that is not fully active never runs
      const finished = () => {
        if (options.task !== undefined) this.finished_tasks.add(options.task);
      };
      // Every task of a document of the test's origin is a timer of the test page, whatever its
      // document: they share the page's event loop, and timers of one window run in the order
      // they were set, as the engine runs tasks queued on one event loop (each window's timers
      // are a separate task queue in Chromium, so a child's timer may overtake the top's).
      timer(() => {
        if (!this.live || !this.current(d)) return;
        const f = d.page ? fn : d.realm.evaluate(String(fn));
        let r;
        try {
          r = f(this.s, d.facade);
        } catch (e) {
          finished();
          if (completion) completion.reject(e);
          else this.uncaught_error(e, d.name);
          return;
        }
        if (is_promise(r)) {
          d.realm.then(
            r,
            v => {
              finished();
              if (completion) completion.resolve(v);
            },
            e => {
              finished();
              if (completion) completion.reject(e);
              else this.uncaught_error(e, d.name);
            }
          );
        } else {
          finished();
          if (completion) completion.resolve(r);
        }
      }, 0);
    }

    // `html in DOC:`: a task (a timer of the test page, in order with w.task's) that inserts
    // the markup at the end of DOC's body; the subtest's cleanup removes what it inserted.
    // A cross-origin frame is asked to insert it, in order with the tasks posted to it; the
    // frame goes with the subtest, and the markup with it.
    html(doc_name, markup) {
      const d = this.doc(doc_name);
      if (!d.direct) {
        this.post(d, { op: "html", markup });
        return;
      }
      timer(() => {
        if (!this.live || !this.current(d)) return;
        const body = d.document.body;
        const before = new Set(body.childNodes);
        body.insertAdjacentHTML("beforeend", markup);
        for (const n of body.childNodes) if (!before.has(n)) this.inserted.push(n);
      }, 0);
    }

    // Values of the test page's names that a cross-origin frame may read.
    env() {
      const out = {};
      for (const k in this.store) {
        const v = this.store[k];
        if (v instanceof Doc || (v && typeof v === "object" && v.__remote)) continue;
        if (v === null || typeof v !== "object") {
          if (typeof v !== "function") out[k] = v;
          continue;
        }
        if (Array.isArray(v) || tag_of(v) === "Object") {
          try {
            out[k] = snapshot(v, w => this.label_window(w));
          } catch (e) {}
        }
      }
      return out;
    }

    settle(target, reject, value) {
      if (target !== null && typeof target === "object" && target.__remote) {
        const name = Object.keys(this.store).find(k => this.store[k] === target);
        this.post(this.docs[target.__remote], { op: "settle", name, reject, value });
        return;
      }
      const r = this.resolvers.get(target);
      if (!r) throw new TypeError(`${show(target)} has no resolving functions to call`);
      if (r.kept) {
        for (const k of r.kept) (reject ? k.reject : k.resolve)(value);
        return;
      }
      (reject ? r.reject : r.resolve)(value);
    }

    remove(d) {
      d = this.doc(d);
      if (d.page) throw new DOMException("the test page is not in an iframe", "InvalidStateError");
      if (d.iframe) d.iframe.remove();
      else this.post(this.docs[d.parent], { op: "remove", name: d.name });
      const gone = [d];
      while (gone.length) {
        const g = gone.pop();
        g.removed = true;
        for (const n in this.docs) if (this.docs[n].parent === g.name && !this.docs[n].removed) gone.push(this.docs[n]);
      }
    }

    navigate(d, url, label) {
      d = this.doc(d);
      const src = this.frame_url(url, label);
      const real_origin = new URL(src).origin;
      const fields = {
        name: label,
        origin: new URL(url).origin,
        real_origin,
        direct: real_origin === location.origin,
        parent: d.parent,
        removed: false,
        iframe: d.iframe,
      };
      this.loading.push(this.expect_hello(label, fields));
      d.removed = true;
      if (d.iframe) d.iframe.src = src;
      else this.post(this.docs[d.parent], { op: "navigate", name: d.name, url: src });
    }

    // ---- what a block of the test page's realm calls (a frame's block gets the same
    // methods from its own realm: ref.realm.facade)

    log(text) {
      this.log_line(text);
    }
    show(v) {
      return show(v);
    }
    resolve(p, v) {
      this.settle(p, false, v);
    }
    reject(p, v) {
      this.settle(p, true, v);
    }
    guard(fn) {
      return guard(this, fn);
    }
    index(x, k) {
      return index(x, k);
    }
    origin(url) {
      return to_real(url);
    }
    interface_of(e) {
      return interface_of(e);
    }
    kept_thenable() {
      return ref.realm.thenable({}, []);
    }
    timeout(f, ms) {
      return timer(f, ms);
    }

    // ---- the log, uncaught exceptions

    log_line(text) {
      if (this.live) this.lines.push(String(text));
    }

    uncaught_error(e, realm) {
      if (!this.live) return;
      this.uncaught.push({ name: error_name(e) || show(e), text: show(e), realm: realm || "" });
    }

    // ---- cross-origin frames

    post(d, message) {
      if (!d || d.direct) throw new Error("internal: post to a document of the test's origin");
      message.webmcpRef = "op";
      message.world = this.id;
      d.window.postMessage(message, "*");
    }

    request(d, message, timeout_ms) {
      const id = ++this.request_count;
      return new Promise((resolve, reject) => {
        timer(() => {
          if (!this.requests.delete(id)) return;
          reject(new Error(`${d.name} did not answer within ${timeout_ms || 5000} ms`));
        }, timeout_ms || 5000);
        this.requests.set(id, { resolve });
        this.post(d, Object.assign(message, { id }));
      });
    }

    on_message(event, data) {
      switch (data.kind) {
        case "hello":
          return this.on_hello(event, data);
        case "log":
          return this.log_line(data.text);
        case "bind":
          this.store[data.name] = data.value;
          return;
        case "uncaught":
          if (this.live) this.uncaught.push(data.error);
          return;
        case "reply": {
          const r = this.requests.get(data.id);
          if (!r) return;
          this.requests.delete(data.id);
          r.resolve(data.value);
          return;
        }
      }
    }

    // Every cross-origin frame still in the tree answers once it has handled what came
    // before; navigations under way finish.
    async settle_frames() {
      const loading = this.loading.splice(0);
      await Promise.all(loading);
      const remote = Object.values(this.docs).filter(d => !d.direct && this.fully_active(d));
      await Promise.all(remote.map(d => this.request(d, { op: "ping" }, 3000).catch(() => {})));
    }

    // ---- drives

    async run(drive) {
      if (this.last_next_timer === null)
        this.anchor = { virtual: drive.from, real: performance.now() };
      const gap = drive.next_timer === null ? Infinity : drive.next_timer - drive.until;
      const target = this.anchor.real + (drive.until - this.anchor.virtual);
      await sleep(target - performance.now());
      await this.settle_frames();
      // Then until the page is where the engine's run was at the end of the drive, polling,
      // up to a deadline (the margin) that never reaches the next timer or `at` block: a
      // loaded machine waits longer, an idle one no longer than it must.
      const deadline = performance.now() + Math.max(0, Math.min(ref.margin_ms, Math.floor(gap / 2)));
      while (!this.reached(drive) && performance.now() < deadline) {
        await sleep(5);
        await this.settle_frames();
      }
      // What the engine's run did not show (a line it did not log) has one more turn to come.
      await sleep(0);
      this.last_next_timer = drive.next_timer;
    }

    // The page is where the engine's run was at the end of a drive.
    reached(drive) {
      if (drive.log !== undefined && this.lines.length < drive.log) return false;
      for (const name of drive.bound || []) if (this.lookup(name) === undefined) return false;
      for (const task of drive.tasks || []) if (!this.finished_tasks.has(task)) return false;
      for (const name of drive.settled || []) {
        const v = this.lookup(name);
        if (v === undefined) return false;
        try {
          if (state_of(v).state === "pending") return false;
        } catch (e) {
          return true;
        }
      }
      return true;
    }

    // A name's value, or undefined while the page has not bound it (reading an unbound name
    // of the subtest throws a ReferenceError, as a script's would).
    lookup(name) {
      try {
        return this.s[name];
      } catch (e) {
        return undefined;
      }
    }

    // An `at` block: its lines run at that offset of virtual time from the subtest's start.
    at(ms, fn) {
      if (this.last_next_timer === null) this.last_next_timer = ms;
      const when = this.anchor.real + (ms - this.anchor.virtual);
      this.at_blocks.push(
        new Promise(resolve =>
          timer(async () => {
            try {
              await fn();
            } catch (e) {
              this.failures.push(`the block at ${ms}ms: ${to_scenario(String(e && e.message !== undefined ? e.message : e))}`);
            }
            resolve();
          }, Math.max(0, when - performance.now()))
        )
      );
    }

    // ---- what expectations read

    fully_active(d) {
      d = this.doc(d);
      if (d.removed) return false;
      if (d.page) return true;
      return this.fully_active(this.docs[d.parent]);
    }

    doc_origin(d) {
      return this.doc(d).real_origin;
    }

    async read(d, what) {
      d = this.doc(d);
      if (d.direct) {
        return what === "originAgentCluster" ? d.window.originAgentCluster : d.document.modelContext[what];
      }
      return this.request(d, { op: "read", what });
    }

    async tool_names(d) {
      d = this.doc(d);
      if (!d.direct) return this.request(d, { op: "read", what: "tools" });
      let tools;
      try {
        tools = await d.document.modelContext.getTools();
      } catch (e) {
        return []; // a document that may not use tools has none
      }
      return tools.filter(t => t.window === d.window).map(t => t.name);
    }

    state(p) {
      return state_of(p).state;
    }

    log_lines() {
      return this.lines.slice();
    }

    // ---- checks

    async check(line, text, fn, options) {
      options = options || {};
      let passed = true;
      let message = "";
      this.observed = null;
      try {
        const r = fn();
        if (r && typeof r.then === "function") await r;
      } catch (e) {
        passed = false;
        message = to_scenario(e && e.message !== undefined ? e.message : String(e));
      }
      const observed = this.observed;
      this.checks.push({ line, text, passed, message, observed, sometimes: !!options.sometimes });
      if (!passed && !options.sometimes) this.failures.push(`line ${line}: ${text}: ${message}`);
    }

    // Each assertion first records what it read, as the engine words the same observation.
    assert_value(actual, expected, equal) {
      this.observed = canon(actual);
      const same = typeof expected === "object" && expected !== null ? matches(actual, expected) : Object.is(actual, expected) || actual === expected;
      if (same !== equal)
        fail(equal ? `expected ${describe(expected)}, got ${show(actual)}` : `expected anything but ${describe(expected)}`);
    }

    assert_matches(actual, expected) {
      if (!matches(actual, expected))
        fail(`expected ${describe(expected)}, got ${show(actual)}`);
    }

    assert_not_matches(actual, expected) {
      if (matches(actual, expected)) fail(`expected anything but ${describe(expected)}`);
    }

    assert_promise(p, state, expected) {
      const st = state_of(p);
      const got = st.state === "pending" ? "pending" : `${st.state} with ${show(st.value)}`;
      this.observed = st.state;
      if (arguments.length >= 3 && st.state === state)
        this.observed =
          state === "fulfilled" ? `fulfilled ${canon(st.value)}` : `rejected ${error_name(st.value)}`;
      if (st.state !== state) fail(`expected ${state}, got ${got}`);
      if (arguments.length < 3) return;
      if (state === "fulfilled" && !matches(st.value, expected))
        fail(`expected fulfilled with ${describe(expected)}, got ${got}`);
      if (state === "rejected" && error_name(st.value) !== expected)
        fail(`expected rejected with ${expected}, got ${got}`);
    }

    assert_log(lines) {
      this.observed = canon(this.lines);
      assert_array_equals(this.lines, lines);
    }

    assert_log_has(line) {
      this.observed = this.lines.includes(line) ? "present" : "absent";
      assert_in_array(line, this.lines);
    }

    assert_log_in(orders) {
      this.observed = canon(this.lines);
      const log = JSON.stringify(this.lines);
      if (!orders.some(o => JSON.stringify(o) === log))
        fail(`expected one of ${orders.map(o => JSON.stringify(o)).join(" or ")}, got ${log}`);
    }

    assert_log_lacks(line) {
      this.observed = this.lines.includes(line) ? "present" : "absent";
      if (this.lines.includes(line)) fail(`expected no line ${JSON.stringify(line)}, got ${JSON.stringify(this.lines)}`);
    }

    assert_uncaught(name) {
      this.acknowledged.add(name);
      this.observed = this.uncaught.some(u => u.name === name) ? "uncaught" : "none";
      if (!this.uncaught.some(u => u.name === name))
        fail(`expected an uncaught ${name}, got ${JSON.stringify(this.uncaught.map(u => u.text))}`);
    }

    async end() {
      await Promise.all(this.at_blocks);
      await this.settle_frames();
      for (const u of this.uncaught) {
        if (!this.acknowledged.has(u.name))
          this.failures.push(`uncaught ${u.text}${u.realm ? ` in a script of ${u.realm}` : ""}`);
      }
      this.record();
      if (this.failures.length) fail(this.failures.join("\n"));
    }

    record() {
      if (this.recorded) return;
      this.recorded = true;
      ref.results.push({
        name: this.name,
        test: this.t.name,
        log: this.lines.slice(),
        checks: this.checks.slice(),
        uncaught: this.uncaught.slice(),
        failures: this.failures.slice(),
      });
    }

    // The next subtest starts on a page with no frame, no tool and no event under way.
    async cleanup() {
      this.record();
      this.live = false;
      for (const d of Object.values(this.docs)) {
        if (!d.page && d.iframe && this.docs[d.parent] && this.docs[d.parent].page) d.iframe.remove();
      }
      for (const n of this.inserted) n.remove();
      this.cleanup_controller.abort();
      for (const c of this.controllers) {
        try {
          c.abort();
        } catch (e) {}
      }
      const mc = document.modelContext;
      if (mc) {
        for (const h of ["ontoolchange", "ontoolactivated", "ontoolcancel"]) {
          try {
            if (h in mc) mc[h] = null;
          } catch (e) {}
        }
        const deadline = performance.now() + 2000;
        while (performance.now() < deadline) {
          let tools = [];
          try {
            tools = await mc.getTools();
          } catch (e) {
            break;
          }
          if (!tools.some(t => t.window === self)) break;
          await sleep(20);
        }
      }
      await sleep(ref.margin_ms / 2);
      worlds.delete(this.id);
    }
  }

  function describe(expected) {
    if (expected !== null && typeof expected === "object" && expected.__pattern_error)
      return expected.message ? `${expected.name}: ${expected.message}` : `an error named ${expected.name}`;
    if (typeof expected === "string") return JSON.stringify(to_scenario(expected));
    try {
      return to_scenario(JSON.stringify(expected, (k, v) => (v && v.__pattern_error ? `<${v.name}>` : v)));
    } catch (e) {
      return show(expected);
    }
  }

  ref.file = info => {
    ref.info = info;
  };

  ref.subtest = (t, name) => {
    const world = new World(t, name);
    t.add_cleanup(() => world.cleanup());
    return { s: world.s, w: world };
  };

  // A crash test (a scenario WPT's naming makes one: `NAME-crash`): its subtests run one after
  // another, as promise_tests would, with no harness and no assertion; the test is that the
  // browser does not crash, and it ends when the root element loses its `test-wait` class.
  const crash_subtests = [];
  let crash_run = null;
  ref.crash_test = (fn, name) => {
    crash_subtests.push({ fn, name });
    if (crash_run) return;
    crash_run = new Promise(resolve => self.addEventListener("load", resolve, { once: true }))
      .then(async () => {
        for (const { fn, name } of crash_subtests) {
          const cleanups = [];
          const t = { name, add_cleanup: f => cleanups.push(f) };
          try {
            await fn(t);
          } catch (e) {
            ref.results.push({ name, test: name, failures: [String(e && e.message !== undefined ? e.message : e)] });
          }
          for (const f of cleanups) {
            try {
              await f();
            } catch (e) {}
          }
        }
      })
      .then(() => document.documentElement.classList.remove("test-wait"));
  };

  ref.report = () => ({
    scenario: ref.info && ref.info.scenario,
    profile: ref.info && ref.info.profile,
    margin_ms: ref.margin_ms,
    subtests: ref.results,
  });

  if (!IN_FRAME) {
    self.addEventListener("message", event => {
      const data = event.data;
      if (!data || typeof data !== "object" || data.webmcpRef !== "frame") return;
      const world = worlds.get(data.world);
      if (world) world.on_message(event, data);
    });
    return;
  }

  // ---- a helper frame: carries out what the test page asks of a cross-origin document ----

  const frame_name = params.get("name");
  const world_id = params.get("world");
  const page_name = params.get("page");
  const to_page = (kind, fields) =>
    self.top.postMessage(Object.assign({ webmcpRef: "frame", world: world_id, kind, name: frame_name }, fields), "*");
  const label_window = win => {
    if (win === self) return frame_name;
    if (win === self.top) return page_name || "the page";
    return "a window";
  };

  const frame_world = {
    mirror: Object.create(null),
    resolvers: new WeakMap(),
    nested: Object.create(null),
    live: true,
    bound(name, value) {
      to_page("bind", { name, value: snapshot(value, label_window) });
      if (is_promise(value)) {
        const st = state_record(value);
        st.listeners.push(() => to_page("bind", { name, value: snapshot(value, label_window) }));
      }
    },
    log_line: text => to_page("log", { text: String(text) }),
    uncaught_error(e) {
      to_page("uncaught", { error: { name: error_name(e) || show(e), text: show(e), realm: frame_name } });
    },
    settle(target, reject, value) {
      const r = this.resolvers.get(target);
      if (!r) throw new TypeError(`${show(target)} has no resolving functions to call`);
      if (r.kept) {
        for (const k of r.kept) (reject ? k.reject : k.resolve)(value);
        return;
      }
      (reject ? r.reject : r.resolve)(value);
    },
    remove(d) {
      if (d && d.nested_name && this.nested[d.nested_name]) this.nested[d.nested_name].remove();
      else throw new DOMException("this frame cannot remove that document", "InvalidStateError");
    },
    navigate() {
      throw new DOMException("a cross-origin frame's script navigates nothing in the export", "NotSupportedError");
    },
    target_label: e => (e !== null && typeof e === "object" && e.__event ? e.target : target_label_in(e && e.target, label_window)),
    with_cleanup_signal: o => o,
    cleanup_signal: undefined,
  };
  const n = names(frame_world);
  const s = n.proxy;
  n.store[frame_name] = new Doc({ name: frame_name, window: self, _document: document, direct: true });
  if (page_name) n.store[page_name] = new Doc({ name: page_name, window: self.top, direct: false });
  const w = ref.realm.facade(frame_world);

  function tools_of_this_document() {
    return document.modelContext
      .getTools()
      .then(tools => tools.filter(t => t.window === self).map(t => t.name), () => []);
  }

  self.addEventListener("message", event => {
    const m = event.data;
    if (!m || typeof m !== "object" || m.webmcpRef !== "op" || m.world !== world_id) return;
    switch (m.op) {
      case "task": {
        Object.assign(frame_world.mirror, m.env || {});
        const completion = m.as ? ref.realm.deferred() : null;
        if (completion) s[m.as] = completion.promise;
        let r;
        try {
          r = ref.realm.evaluate(m.source)(s, w);
        } catch (e) {
          if (completion) completion.reject(e);
          else frame_world.uncaught_error(e);
          return;
        }
        if (completion) {
          if (is_promise(r)) r.then(completion.resolve, completion.reject);
          else completion.resolve(r);
        } else if (is_promise(r)) {
          r.then(undefined, e => frame_world.uncaught_error(e));
        }
        return;
      }
      case "promise": {
        const def = ref.realm.deferred();
        frame_world.resolvers.set(def.promise, def);
        s[m.name] = def.promise;
        if (m.settle && "fulfilled" in m.settle) def.resolve(m.settle.fulfilled);
        if (m.settle && "rejected" in m.settle) def.reject(m.settle.rejected);
        return;
      }
      case "thenable": {
        const kept = [];
        const t = ref.realm.thenable(m.behaviour || {}, kept);
        frame_world.resolvers.set(t, { kept });
        s[m.name] = t;
        return;
      }
      case "controller":
        s[m.name] = new AbortController();
        return;
      case "html":
        document.body.insertAdjacentHTML("beforeend", m.markup);
        return;
      case "settle": {
        try {
          frame_world.settle(n.store[m.name], m.reject, m.value);
        } catch (e) {
          frame_world.uncaught_error(e);
        }
        return;
      }
      case "frame": {
        const iframe = document.createElement("iframe");
        if (m.allow !== undefined && m.allow !== null) iframe.allow = allow_attribute(m.allow);
        iframe.src = m.url;
        frame_world.nested[m.name] = iframe;
        document.body.appendChild(iframe);
        return;
      }
      case "remove":
        if (frame_world.nested[m.name]) frame_world.nested[m.name].remove();
        return;
      case "navigate":
        if (frame_world.nested[m.name]) frame_world.nested[m.name].src = m.url;
        return;
      case "read": {
        const answer = value => to_page("reply", { id: m.id, value: snapshot(value, label_window) });
        if (m.what === "tools") tools_of_this_document().then(answer);
        else if (m.what === "originAgentCluster") answer(window.originAgentCluster);
        else answer(document.modelContext ? document.modelContext[m.what] : undefined);
        return;
      }
      case "ping":
        to_page("reply", { id: m.id, value: true });
        return;
    }
  });

  to_page("hello", {});
})();
