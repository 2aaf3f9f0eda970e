// The report of results that `webmcp-ref diff-browser` serves at /resources/testharnessreport.js:
// when the harness completes, the results (each test's status and message, the harness's
// status, and what resources/webmcp-ref.js recorded of each subtest: its log and checks) are
// POSTed to the server that served the page. A WPT checkout has its own file of this name.
add_completion_callback(function (tests, harness_status) {
  var names = self.testharness_status_names || {
    tests: ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"],
    harness: ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"],
  };
  var report = {
    url: location.pathname,
    status: names.harness[harness_status.status],
    message: harness_status.message || null,
    tests: tests.map(function (t) {
      return { name: t.name, status: names.tests[t.status], message: t.message || null };
    }),
    webmcp_ref: self.webmcpRef && self.webmcpRef.report ? self.webmcpRef.report() : null,
  };
  fetch("/webmcp-ref/results", {
    method: "POST",
    // A CORS-safelisted type: a page whose origin is opaque (sandboxed by its own CSP) posts
    // cross-origin, without a preflight the server would have to answer.
    headers: { "content-type": "text/plain;charset=UTF-8" },
    body: JSON.stringify(report),
    keepalive: true,
  });
});
