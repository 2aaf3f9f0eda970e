// The engine's worker: loads the WebAssembly module once and answers the page's requests in
// order, so that a long run or exploration never holds the page's main thread.
import init, { call } from "./pkg/webmcp_ref_playground.js";

const ready = init();

self.onmessage = async (event) => {
  const { id, request } = event.data;
  try {
    await ready;
    const started = performance.now();
    const answer = JSON.parse(call(JSON.stringify(request)));
    self.postMessage({ id, answer, ms: performance.now() - started });
  } catch (e) {
    // A trap (a panic, or a stack or memory exhausted) leaves the module unusable: the page
    // starts a new worker.
    self.postMessage({ id, error: String(e && e.message ? e.message : e), broken: true });
  }
};
