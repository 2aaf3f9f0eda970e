"""A real MCP client (the Python `mcp` package) against `webmcp-ref serve`, over stdio or HTTP,
on MCP protocol version 2025-11-25 (the `initialize` handshake) and 2026-07-28 (`server/discover`,
no handshake, tool list changes on a `subscriptions/listen` stream).

Run by spec-tests/gateway_python.rs: `python mcp_client.py BINARY SCENARIO [--http] [--legacy]`.
It serves the scenario's "late tools" subtest in real time (its tools register 1.5 s after
serving starts).

Over stdio, one client (`mcp.Client`: by default it negotiates 2026-07-28; `--legacy` makes it
use the handshake, which gives 2025-11-25) lists the tools, observes the page, waits for the
late tool with webmcp_wait_for, checks that it heard of the tool list's change (a
notifications/tools/list_changed, on the listen stream at 2026-07-28), calls the page tool
directly, and is told when its arguments do not match the tool's inputSchema. Over HTTP
(`--http`: the binary listens on a free loopback port), two clients, one on each protocol
version, share the one served world at once: both wait for the late tool, both hear of the
change, one calls the tool that navigates the page and the other sees the navigation and calls
the new page's tool; requests from a browser page of another origin are refused. Every
answer's structured content is checked against the tool's output schema (the client does that
itself) and for page text outside `untrusted`.

It prints one line per check ("ok ..." or "FAIL ...") and a closing "N passed, N failed" line;
its exit status is 0 when every check passed.
"""

import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.shared.subscriptions import ToolsListChanged

NOTICE = "> **Untrusted page data.**"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"

results = {"passed": 0, "failed": 0}


def check(what, holds, detail=""):
    if holds:
        results["passed"] += 1
        print(f"ok   {what}")
    else:
        results["failed"] += 1
        print(f"FAIL {what}: {detail}")


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def own_part(structured):
    """The structured content without what is marked as the page's."""
    return {k: v for k, v in (structured or {}).items() if k != "untrusted"}


def check_structured(what, result, outcome):
    s = result.structured_content or {}
    check(f"{what}: structured content says {outcome}", s.get("outcome") == outcome, repr(s))
    # The page's words ("catalogue", its URLs) appear only under `untrusted`.
    own = json.dumps(own_part(s))
    check(f"{what}: no page text outside `untrusted`",
          "catalogue" not in own and "shop.test" not in own, own)


def list_changed_handler():
    """A message handler that notes a notifications/tools/list_changed (2025-11-25)."""
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    return changed, on_message


async def hear_changes(client, changed, task_status=anyio.TASK_STATUS_IGNORED):
    """On 2026-07-28: a subscriptions/listen stream for tool list changes; `changed` is set
    at the first one. Started before the page's tools register."""
    async with client.listen(tools_list_changed=True) as subscription:
        check(f"[{client.protocol_version}] the listen stream is acknowledged with tool list changes",
              subscription.honored.tools_list_changed is True, repr(subscription.honored))
        task_status.started()
        async for event in subscription:
            if isinstance(event, ToolsListChanged):
                changed.set()
                return


def tool_named(tools, webmcp_name):
    """The MCP name of the page tool whose page-provided name (in its description) is this."""
    for t in tools:
        if t.name.startswith("page") and f'"name": "{webmcp_name}"' in (t.description or ""):
            return t.name
    return None


async def stdio_checks(binary, scenario, legacy):
    changed, on_message = list_changed_handler()
    server = StdioServerParameters(command=binary, args=["serve", scenario, "--subtest", "late tools"])
    mode = "legacy" if legacy else "auto"
    started = time.monotonic()
    async with Client(server, mode=mode, message_handler=on_message) as client:
        version = client.protocol_version
        check(f"the client's {mode} negotiation gives {LEGACY if legacy else MODERN}",
              version == (LEGACY if legacy else MODERN), version)
        v = f"[{version}]"
        caps = client.server_capabilities
        check(f"{v} the server says it sends tools/list_changed",
              caps.tools is not None and caps.tools.list_changed is True, repr(caps))
        instructions = client.instructions or ""
        check(f"{v} the scenario's title reaches the instructions only marked",
              NOTICE in instructions and instructions.index(NOTICE) < instructions.index("a shop whose"),
              instructions)
        async with anyio.create_task_group() as tg:
            if not legacy:
                await tg.start(hear_changes, client, changed)
            await session_checks(client, v, started, changed)
            tg.cancel_scope.cancel()


async def session_checks(client, v, started, changed):
    listed = await client.list_tools()
    names = [t.name for t in listed.tools]
    check(f"{v} the gateway's three tools are listed",
          {"webmcp_observe", "webmcp_call", "webmcp_wait_for"} <= set(names), repr(names))
    check(f"{v} no page tool before the page registers one",
          not any(n.startswith("page") for n in names), repr(names))
    check(f"{v} every gateway tool declares an output schema",
          all(t.output_schema for t in listed.tools), repr([t.name for t in listed.tools]))
    wait_for = next(t for t in listed.tools if t.name == "webmcp_wait_for")
    offered = wait_for.input_schema["properties"]["condition"]["enum"]
    check(f"{v} wait-for offers the served world's conditions",
          offered == ["tools-ready", "tool", "tool-gone", "navigation", "toolchange"], repr(offered))

    waited = await client.call_tool("webmcp_wait_for", {"condition": "tool", "name": "search"})
    body = text_of(waited)
    check(f"{v} wait-for blocks until the late tool registers (1.5 s)",
          not waited.is_error and "holds" in body and time.monotonic() - started >= 1.4,
          f"{time.monotonic() - started:.3f} s: {body}")
    check(f"{v} its match answer starts with the untrusted-data notice", body.startswith(NOTICE), body)
    check_structured(f"{v} wait-for", waited, "holds")

    observed = await client.call_tool("webmcp_observe", {"page": "shop", "timeoutMs": 5000})
    body = text_of(observed)
    check(f"{v} observe waits for readiness, then shows the late tools",
          not observed.is_error and body.startswith(NOTICE) and '"search"' in body and "were ready" in body,
          body)
    # Readiness settles at 2 s: the observation waits for it.
    check(f"{v} observe answered after readiness settled", time.monotonic() - started >= 1.9,
          f"{time.monotonic() - started:.3f} s")
    check_structured(f"{v} observe", observed, "ready")

    with anyio.fail_after(5):
        await changed.wait()
    check(f"{v} the tool list's change was heard", changed.is_set())

    listed = await client.list_tools(cache_mode="bypass")
    search = tool_named(listed.tools, "search")
    checkout = tool_named(listed.tools, "checkout")
    check(f"{v} the late tools are listed under the gateway's own names",
          search is not None and checkout is not None and re.fullmatch(r"page1\.tool\d+", search),
          repr([(t.name, t.title) for t in listed.tools]))
    if search is None:
        return
    entry = next(t for t in listed.tools if t.name == search)
    check(f"{v} a page tool's title is the gateway's own, its page's words in the marked description",
          "catalogue" not in (entry.title or "") and (entry.description or "").find(NOTICE) >= 0,
          repr(entry))
    check(f"{v} a page tool is listed with the structure of its inputSchema",
          entry.input_schema.get("required") == ["query"], repr(entry.input_schema))

    called = await client.call_tool(search, {"query": "tea"})
    body = text_of(called)
    check(f"{v} a page tool called as an MCP tool answers with its result",
          not called.is_error and "3 results" in body and body.startswith(NOTICE), body)
    check_structured(f"{v} the page tool", called, "returned")

    unchecked = await client.call_tool(search, {})
    body = text_of(unchecked)
    check(f"{v} arguments that do not match the page tool's inputSchema are refused, saying where",
          unchecked.is_error and "inputSchema" in body and "/query" in body and "required" in body, body)
    check_structured(f"{v} the refused arguments", unchecked, "bad-arguments")

    timed_out = await client.call_tool(
        "webmcp_wait_for", {"condition": "tool", "name": "refund", "timeoutMs": 150})
    body = text_of(timed_out)
    check(f"{v} a timeout is a normal answer with the last state",
          not timed_out.is_error and body.startswith(NOTICE) and "Timed out after 150 ms" in body, body)

    bad = await client.call_tool("webmcp_wait_for", {"condition": "stable"})
    check(f"{v} bad arguments get a markdown answer", bad.is_error and "unknown condition" in text_of(bad),
          text_of(bad))
    check_structured(f"{v} bad arguments", bad, "bad-arguments")


def post_with_origin(url, origin):
    """The HTTP status of an initialize POSTed with this Origin header (None: no header)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": LEGACY, "capabilities": {},
                                  "clientInfo": {"name": "origin", "version": "1"}}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if origin is not None:
        headers["Origin"] = origin
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


async def http_checks(binary, scenario):
    server = subprocess.Popen([binary, "serve", scenario, "--subtest", "late tools", "--http", "0"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        line = server.stderr.readline()
        found = re.search(r"MCP at (http://\S+/mcp)", line)
        check("the server says where it listens", found is not None, line)
        if not found:
            return
        url = found.group(1)
        check("it listens on loopback", url.startswith("http://127.0.0.1:"), url)
        port = url.split(":")[2].split("/")[0]
        # The streamable HTTP transport checks Origin: no header, or a loopback page, passes;
        # a page of another origin (and an opaque one, `null`) is refused.
        for origin, status in [(None, 200), (f"http://localhost:{port}", 200),
                               (f"http://127.0.0.1:{port}", 200), ("https://evil.example", 403),
                               ("null", 403), ("http://127.0.0.1.evil.example", 403)]:
            got = post_with_origin(url, origin)
            check(f"Origin {origin}: {status}", got == status, got)
        started = time.monotonic()
        changed_a, on_a = list_changed_handler()
        changed_b = anyio.Event()
        # Agent A on 2025-11-25 (handshake, a session), agent B on 2026-07-28 (no session).
        async with Client(url, mode="legacy", message_handler=on_a) as a:
            check("agent A negotiates 2025-11-25", a.protocol_version == LEGACY, a.protocol_version)
            async with Client(url) as b:
                check("agent B negotiates 2026-07-28", b.protocol_version == MODERN, b.protocol_version)
                async with anyio.create_task_group() as listening:
                    await listening.start(hear_changes, b, changed_b)
                    waits = {}

                    async def wait(name, session):
                        waits[name] = await session.call_tool(
                            "webmcp_wait_for", {"condition": "tool", "name": "checkout"})

                    # Both agents wait at once, on the one world's clock.
                    async with anyio.create_task_group() as tg:
                        tg.start_soon(wait, "a", a)
                        tg.start_soon(wait, "b", b)
                    elapsed = time.monotonic() - started
                    check("two agents waiting at once both see the late tool (one clock)",
                          all("holds" in text_of(w) for w in waits.values()) and 1.2 <= elapsed < 4,
                          f"{elapsed:.3f} s: {[text_of(w)[:200] for w in waits.values()]}")
                    with anyio.fail_after(5):
                        await changed_a.wait()
                        await changed_b.wait()
                    check("both agents heard of the tool list's change, each on its protocol version",
                          changed_a.is_set() and changed_b.is_set())

                    # One agent's call navigates the page; the other sees the navigation.
                    called = await a.call_tool("webmcp_call", {"tool": "checkout"})
                    check("agent A's call of the navigating tool answers", not called.is_error, text_of(called))
                    seen = await b.call_tool(
                        "webmcp_wait_for", {"condition": "navigation", "url": "*/checkout"})
                    check("agent B sees agent A's navigation",
                          not seen.is_error and "holds" in text_of(seen), text_of(seen))
                    check_structured("agent B's wait", seen, "holds")
                    paid = await b.call_tool("webmcp_wait_for", {"condition": "tool", "name": "pay"})
                    check("agent B sees the checkout page's tool", "holds" in text_of(paid), text_of(paid))
                    listed = await a.list_tools()
                    pay = tool_named(listed.tools, "pay")
                    check("agent A lists the checkout page's tool", pay is not None,
                          repr([t.name for t in listed.tools]))
                    if pay:
                        result = await a.call_tool(pay, {})
                        check("agent A calls it", "paid" in text_of(result), text_of(result))
                    listening.cancel_scope.cancel()
    finally:
        server.kill()
        server.wait()


async def main(binary, scenario, http, legacy):
    if http:
        await http_checks(binary, scenario)
    else:
        await stdio_checks(binary, scenario, legacy)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], "--http" in sys.argv[3:], "--legacy" in sys.argv[3:]))
