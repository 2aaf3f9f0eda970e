// A small testharness.js-compatible runtime, served by `webmcp-ref diff-browser` at
// /resources/testharness.js because no WPT checkout is available offline. It implements the
// part of testharness.js (https://web-platform-tests.org/writing-tests/testharness-api.html)
// that exported tests and simple hand-written tests use: test, async_test, promise_test,
// setup, done, the assert_* functions, promise_rejects_*, add_cleanup, step_timeout,
// step_func, unreached_func, and the completion callbacks that report results. Tests run one
// after another in the order they were defined, as testharness.js runs promise_tests; the
// harness times out after 10 s, or 60 s with <meta name="timeout" content="long">.

(function (global) {
  "use strict";

  const PASS = 0, FAIL = 1, TIMEOUT = 2, NOTRUN = 3, PRECONDITION_FAILED = 4;
  const STATUS_NAMES = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
  const HARNESS_NAMES = ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"];

  class AssertionError extends Error {
    constructor(message) {
      super(message);
      this.name = "AssertionError";
    }
  }
  class OptionalFeatureUnsupportedError extends AssertionError {
    constructor(message) {
      super(message);
      this.name = "OptionalFeatureUnsupportedError";
    }
  }

  // ---- formatting -------------------------------------------------------------------------

  function format_value(v, seen) {
    seen = seen || [];
    if (typeof v === "string") {
      return '"' + v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") + '"';
    }
    if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
    if (typeof v === "bigint") return String(v) + "n";
    if (v === undefined || v === null || typeof v === "boolean" || typeof v === "symbol")
      return String(v);
    if (typeof v === "function") return "function \"" + (v.name || "anonymous") + "\"";
    if (seen.includes(v)) return "[cycle]";
    if (Array.isArray(v)) {
      return "[" + v.map(x => format_value(x, seen.concat([v]))).join(", ") + "]";
    }
    let tag;
    try {
      tag = Object.prototype.toString.call(v).slice(8, -1);
    } catch (e) {
      return "object";
    }
    if (tag === "Error" || tag === "DOMException" || v instanceof Error) {
      return `object "${v.name}: ${v.message}"`;
    }
    if (typeof Node === "function" && v instanceof Node) return `${tag} node`;
    try {
      const text = JSON.stringify(v);
      if (text !== undefined && tag === "Object") return `object ${text}`;
    } catch (e) {}
    return `object "[object ${tag}]"`;
  }

  function same_value(a, b) {
    if (typeof a === "number" && typeof b === "number") {
      if (a !== a && b !== b) return true;
      if (a === 0 && b === 0) return Object.is(a, b);
    }
    return a === b;
  }

  function fail(assertion, description, message) {
    const prefix = description ? description + ": " : "";
    throw new AssertionError(`${prefix}${assertion}: ${message}`);
  }

  // ---- asserts ----------------------------------------------------------------------------

  const asserts = {
    assert_true(actual, description) {
      if (actual !== true) fail("assert_true", description, `expected true got ${format_value(actual)}`);
    },
    assert_false(actual, description) {
      if (actual !== false) fail("assert_false", description, `expected false got ${format_value(actual)}`);
    },
    assert_equals(actual, expected, description) {
      if (typeof actual !== typeof expected) {
        fail("assert_equals", description, `expected (${typeof expected}) ${format_value(expected)} but got (${typeof actual}) ${format_value(actual)}`);
      }
      if (!same_value(actual, expected)) {
        fail("assert_equals", description, `expected ${format_value(expected)} but got ${format_value(actual)}`);
      }
    },
    assert_not_equals(actual, expected, description) {
      if (same_value(actual, expected)) fail("assert_not_equals", description, `got disallowed value ${format_value(actual)}`);
    },
    assert_in_array(actual, expected, description) {
      if (!Array.isArray(expected) || expected.indexOf(actual) === -1) {
        fail("assert_in_array", description, `value ${format_value(actual)} not in array ${format_value(expected)}`);
      }
    },
    assert_array_equals(actual, expected, description) {
      if (actual === null || typeof actual !== "object" || !("length" in actual)) {
        fail("assert_array_equals", description, `value is ${format_value(actual)}, expected array`);
      }
      if (actual.length !== expected.length) {
        fail("assert_array_equals", description, `lengths differ, expected array ${format_value(expected)} length ${expected.length}, got ${format_value(actual)} length ${actual.length}`);
      }
      for (let i = 0; i < actual.length; i++) {
        if (!same_value(actual[i], expected[i])) {
          fail("assert_array_equals", description, `expected property ${i} to be ${format_value(expected[i])} but got ${format_value(actual[i])} (expected array ${format_value(expected)} got ${format_value(actual)})`);
        }
      }
    },
    assert_approx_equals(actual, expected, epsilon, description) {
      if (typeof actual !== "number" || Math.abs(actual - expected) > epsilon) {
        fail("assert_approx_equals", description, `expected ${format_value(expected)} +/- ${epsilon} but got ${format_value(actual)}`);
      }
    },
    assert_less_than(actual, expected, description) {
      if (!(actual < expected)) fail("assert_less_than", description, `expected a number less than ${format_value(expected)} but got ${format_value(actual)}`);
    },
    assert_greater_than(actual, expected, description) {
      if (!(actual > expected)) fail("assert_greater_than", description, `expected a number greater than ${format_value(expected)} but got ${format_value(actual)}`);
    },
    assert_less_than_equal(actual, expected, description) {
      if (!(actual <= expected)) fail("assert_less_than_equal", description, `expected a number less than or equal to ${format_value(expected)} but got ${format_value(actual)}`);
    },
    assert_greater_than_equal(actual, expected, description) {
      if (!(actual >= expected)) fail("assert_greater_than_equal", description, `expected a number greater than or equal to ${format_value(expected)} but got ${format_value(actual)}`);
    },
    assert_regexp_match(actual, expected, description) {
      if (!expected.test(actual)) fail("assert_regexp_match", description, `expected ${format_value(expected)} but got ${format_value(actual)}`);
    },
    assert_class_string(object, class_string, description) {
      const actual = Object.prototype.toString.call(object).slice(8, -1);
      if (actual !== class_string) fail("assert_class_string", description, `expected "${class_string}" but got "${actual}"`);
    },
    assert_own_property(object, name, description) {
      if (!Object.prototype.hasOwnProperty.call(object, name)) fail("assert_own_property", description, `expected property "${name}" missing`);
    },
    assert_not_own_property(object, name, description) {
      if (Object.prototype.hasOwnProperty.call(object, name)) fail("assert_not_own_property", description, `unexpected property "${name}" is found on object`);
    },
    assert_inherits(object, name, description) {
      if (Object.prototype.hasOwnProperty.call(object, name) || !(name in object)) fail("assert_inherits", description, `property "${name}" is not inherited`);
    },
    assert_idl_attribute(object, name, description) {
      asserts.assert_inherits(object, name, description);
    },
    assert_readonly(object, name, description) {
      const before = object[name];
      try {
        object[name] = before + "a";
        if (!same_value(object[name], before)) fail("assert_readonly", description, `changing property "${name}" succeeded`);
      } finally {
        try { object[name] = before; } catch (e) {}
      }
    },
    assert_unreached(description) {
      fail("assert_unreached", null, `Reached unreachable code${description ? ": " + description : ""}`);
    },
    assert_implements(condition, description) {
      if (!condition) fail("assert_implements", description, "feature not implemented");
    },
    assert_implements_optional(condition, description) {
      if (!condition) throw new OptionalFeatureUnsupportedError(description || "optional feature not implemented");
    },
    assert_throws_js(constructor, func, description) {
      try {
        func();
      } catch (e) {
        if (!(e instanceof constructor) && !(e && e.name === constructor.name)) {
          fail("assert_throws_js", description, `${func} threw ${format_value(e)} (${e && e.name}) expected instance of ${constructor.name}`);
        }
        return;
      }
      fail("assert_throws_js", description, `${func} did not throw`);
    },
    assert_throws_dom(type, a, b, c) {
      const func = typeof a === "function" && typeof b === "function" ? b : a;
      const description = typeof a === "function" && typeof b === "function" ? c : b;
      try {
        func();
      } catch (e) {
        if (!e || (typeof type === "string" ? e.name !== type : e.code !== type)) {
          fail("assert_throws_dom", description, `${func} threw ${format_value(e)} that is not a DOMException ${type}`);
        }
        return;
      }
      fail("assert_throws_dom", description, `${func} did not throw`);
    },
    assert_throws_exactly(exception, func, description) {
      try {
        func();
      } catch (e) {
        if (!same_value(e, exception)) fail("assert_throws_exactly", description, `${func} threw ${format_value(e)} but we expected it to throw ${format_value(exception)}`);
        return;
      }
      fail("assert_throws_exactly", description, `${func} did not throw`);
    },
  };

  // ---- tests ------------------------------------------------------------------------------

  const harness = {
    tests: [],
    properties: { allow_uncaught_exception: false, explicit_done: false, timeout_multiplier: 1 },
    status: { status: 0, message: null, stack: null },
    callbacks: { start: [], result: [], completion: [] },
    queue: Promise.resolve(),
    pending: 0,
    loaded: false,
    done_called: false,
    complete: false,
    timer: null,
    current: null,
  };

  class Test {
    constructor(name, properties) {
      this.name = name;
      this.properties = properties || {};
      this.status = NOTRUN;
      this.message = null;
      this.stack = null;
      this.phase = "initial";
      this.cleanups = [];
      this.timeouts = [];
      this.promise_test = false;
      harness.tests.push(this);
      harness.pending++;
    }
    get PASS() { return PASS; }
    get FAIL() { return FAIL; }
    get TIMEOUT() { return TIMEOUT; }
    get NOTRUN() { return NOTRUN; }
    get PRECONDITION_FAILED() { return PRECONDITION_FAILED; }

    step(func, this_obj, ...args) {
      if (this.phase === "complete") return undefined;
      if (this.phase === "initial") this.phase = "started";
      try {
        return func.apply(this_obj === undefined ? this : this_obj, args);
      } catch (e) {
        this.set_failure(e);
        this.done();
        return undefined;
      }
    }
    set_failure(e) {
      if (this.phase === "complete" || this.status !== NOTRUN) return;
      if (e instanceof OptionalFeatureUnsupportedError) {
        this.status = PRECONDITION_FAILED;
      } else {
        this.status = FAIL;
      }
      this.message = e && typeof e === "object" && "message" in e ? String(e.message) : String(e);
      this.stack = e && e.stack ? String(e.stack) : null;
    }
    step_func(func, this_obj) {
      const test = this;
      return function (...args) {
        return test.step(func, this_obj === undefined ? this : this_obj, ...args);
      };
    }
    step_func_done(func, this_obj) {
      const test = this;
      return function (...args) {
        const r = func ? test.step(func, this_obj === undefined ? this : this_obj, ...args) : undefined;
        test.done();
        return r;
      };
    }
    unreached_func(description) {
      return this.step_func(() => asserts.assert_unreached(description));
    }
    step_timeout(func, timeout, ...args) {
      const test = this;
      const id = setTimeout(() => test.step(func, test, ...args), timeout * harness.properties.timeout_multiplier);
      this.timeouts.push(id);
      return id;
    }
    step_wait(cond, description, timeout, interval) {
      timeout = timeout === undefined ? 3000 : timeout;
      interval = interval || 100;
      const start = performance.now();
      return new Promise((resolve, reject) => {
        const poll = () => {
          let r;
          try { r = cond(); } catch (e) { reject(e); return; }
          if (r) resolve();
          else if (performance.now() - start > timeout) reject(new AssertionError(description || "step_wait timed out"));
          else setTimeout(poll, interval);
        };
        poll();
      });
    }
    add_cleanup(func) {
      this.cleanups.push(func);
    }
    force_timeout() {
      this.status = TIMEOUT;
      this.message = "Test timed out";
      this.done();
    }
    done() {
      if (this.phase === "complete" || this.phase === "cleaning") return this.finished;
      if (this.status === NOTRUN) this.status = PASS;
      this.phase = "cleaning";
      for (const id of this.timeouts) clearTimeout(id);
      const results = [];
      for (const f of this.cleanups) {
        try {
          results.push(f());
        } catch (e) {
          harness_error(`Test named "${this.name}" threw an error in its cleanup: ${e && e.message}`);
        }
      }
      const waits = results.filter(r => r && typeof r.then === "function");
      this.finished = Promise.all(
        waits.map(p => p.then(undefined, e => harness_error(`Test named "${this.name}" failed in its cleanup: ${e && e.message}`)))
      ).then(() => {
        this.phase = "complete";
        harness.pending--;
        for (const cb of harness.callbacks.result) {
          try { cb(this); } catch (e) {}
        }
        maybe_complete();
      });
      return this.finished;
    }
  }

  function harness_error(message) {
    if (harness.status.status === 0) {
      harness.status.status = 1;
      harness.status.message = message;
    }
  }

  function start() {
    if (harness.started) return;
    harness.started = true;
    for (const cb of harness.callbacks.start) {
      try { cb(harness.properties); } catch (e) {}
    }
    const meta = document.querySelector('meta[name="timeout"]');
    const base = meta && meta.content === "long" ? 60000 : 10000;
    const timeout = harness.properties.timeout !== undefined ? harness.properties.timeout : base;
    if (timeout !== null && !harness.properties.explicit_timeout) {
      harness.timer = setTimeout(timed_out, timeout * harness.properties.timeout_multiplier);
    }
  }

  function timed_out() {
    if (harness.complete) return;
    harness.status.status = 2;
    harness.status.message = "the harness timed out";
    for (const t of harness.tests) {
      if (t.phase === "complete") continue;
      t.status = t.phase === "initial" ? NOTRUN : TIMEOUT;
      t.message = t.status === TIMEOUT ? "Test timed out" : null;
      t.phase = "complete";
    }
    harness.pending = 0;
    complete();
  }

  function maybe_complete() {
    if (harness.complete || harness.pending > 0 || !harness.loaded) return;
    if (harness.properties.explicit_done && !harness.done_called) return;
    complete();
  }

  function complete() {
    if (harness.complete) return;
    harness.complete = true;
    clearTimeout(harness.timer);
    const tests = harness.tests.map(t => t);
    for (const cb of harness.callbacks.completion) {
      try { cb(tests, harness.status, []); } catch (e) {}
    }
    display(tests);
  }

  function display(tests) {
    if (harness.properties.output === false || !document.body) return;
    const log = document.getElementById("log") || document.body.appendChild(document.createElement("div"));
    const pass = tests.filter(t => t.status === PASS).length;
    const summary = document.createElement("p");
    summary.textContent = `Harness status: ${HARNESS_NAMES[harness.status.status]}${harness.status.message ? " (" + harness.status.message + ")" : ""}. ${pass} of ${tests.length} tests passed.`;
    log.appendChild(summary);
    const table = document.createElement("table");
    for (const t of tests) {
      const row = table.insertRow();
      row.insertCell().textContent = STATUS_NAMES[t.status];
      row.insertCell().textContent = t.name;
      row.insertCell().textContent = t.message || "";
    }
    log.appendChild(table);
  }

  function test(func, name, properties) {
    start();
    const t = new Test(name || "Untitled", properties);
    const previous = harness.current;
    harness.current = t;
    t.step(func, t, t);
    t.done();
    harness.current = previous;
    return t;
  }

  function async_test(func, name, properties) {
    if (typeof func !== "function") {
      properties = name;
      name = func;
      func = null;
    }
    start();
    const t = new Test(name || "Untitled", properties);
    if (func) t.step(func, t, t);
    else t.phase = "started";
    return t;
  }

  function promise_test(func, name, properties) {
    start();
    const t = new Test(name || "Untitled", properties);
    t.promise_test = true;
    harness.queue = harness.queue.then(() => {
      if (harness.complete) return undefined;
      harness.current = t;
      let promise;
      try {
        t.phase = "started";
        promise = func.call(t, t);
      } catch (e) {
        t.set_failure(e);
        return t.done();
      }
      if (!promise || typeof promise.then !== "function") {
        t.set_failure(new AssertionError(`promise_test: test body must return a 'thenable' object (received ${format_value(promise)})`));
        return t.done();
      }
      return Promise.resolve(promise).then(
        () => t.done(),
        e => {
          if (e instanceof AssertionError || (e && e.name === "AssertionError")) t.set_failure(e);
          else t.set_failure(new AssertionError(`promise_test: Unhandled rejection with value: ${format_value(e)}`));
          return t.done();
        }
      );
    });
    return t;
  }

  function promise_rejects(test, check, promise, description) {
    return Promise.resolve(promise).then(
      value => test.step(() => fail("promise_rejects", description, `expected a rejection, got a fulfilment with ${format_value(value)}`)),
      e => test.step(() => check(e))
    );
  }

  function promise_rejects_js(test, constructor, promise, description) {
    return promise_rejects(test, e => {
      if (!(e instanceof constructor) && !(e && e.name === constructor.name)) {
        fail("promise_rejects_js", description, `expected ${constructor.name}, got ${format_value(e)}`);
      }
    }, promise, description);
  }

  function promise_rejects_dom(test, type, a, b, c) {
    const promise = b !== undefined && typeof a === "function" && !(a && typeof a.then === "function") ? b : a;
    const description = promise === b ? c : b;
    return promise_rejects(test, e => {
      if (!e || (typeof type === "string" ? e.name !== type : e.code !== type)) {
        fail("promise_rejects_dom", description, `expected DOMException ${type}, got ${format_value(e)}`);
      }
    }, promise, description);
  }

  function promise_rejects_exactly(test, exception, promise, description) {
    return promise_rejects(test, e => {
      if (!same_value(e, exception)) {
        fail("promise_rejects_exactly", description, `expected ${format_value(exception)}, got ${format_value(e)}`);
      }
    }, promise, description);
  }

  function setup(func_or_properties, maybe_properties) {
    let func = null;
    let properties = {};
    if (typeof func_or_properties === "function") {
      func = func_or_properties;
      properties = maybe_properties || {};
    } else {
      properties = func_or_properties || {};
    }
    Object.assign(harness.properties, properties);
    if (func) {
      try {
        func();
      } catch (e) {
        harness_error(`setup threw: ${e && e.message}`);
      }
    }
  }

  function done() {
    harness.done_called = true;
    maybe_complete();
  }

  global.addEventListener("error", e => {
    if (harness.properties.allow_uncaught_exception) return;
    harness_error(`Uncaught ${e.error && e.error.name ? e.error.name + ": " : ""}${e.message}`);
  });
  global.addEventListener("unhandledrejection", e => {
    if (harness.properties.allow_uncaught_exception) return;
    harness_error(`Unhandled rejection: ${format_value(e.reason)}`);
  });
  global.addEventListener("load", () => {
    harness.loaded = true;
    start();
    // Let tests defined in the load event's own task be queued first.
    setTimeout(maybe_complete, 0);
  });

  const exports = Object.assign({}, asserts, {
    test,
    async_test,
    promise_test,
    promise_rejects_js,
    promise_rejects_dom,
    promise_rejects_exactly,
    setup,
    done,
    format_value,
    step_timeout: (func, timeout, ...args) => setTimeout(func, timeout * harness.properties.timeout_multiplier, ...args),
    add_start_callback: cb => harness.callbacks.start.push(cb),
    add_result_callback: cb => harness.callbacks.result.push(cb),
    add_completion_callback: cb => harness.callbacks.completion.push(cb),
    generate_tests(func, args, properties) {
      for (const [name, ...rest] of args) test(() => func(...rest), name, properties);
    },
    AssertionError,
    OptionalFeatureUnsupportedError,
  });
  exports.add_cleanup = func => {
    if (harness.current) harness.current.add_cleanup(func);
  };
  for (const [k, v] of Object.entries(exports)) global[k] = v;
  global.testharness_status_names = { tests: STATUS_NAMES, harness: HARNESS_NAMES };
})(self);
