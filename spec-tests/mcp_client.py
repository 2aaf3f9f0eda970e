"""A real MCP client (the Python `mcp` package) against `webmcp-ref serve`, over stdio or HTTP.

Run by spec-tests/gateway_python.rs: `python mcp_client.py BINARY SCENARIO [--http]`. It serves
the scenario's "late tools" subtest in real time (its tools register 1.5 s after serving
starts).

Over stdio, one client lists the tools, observes the page, waits for the late tool with
webmcp_wait_for, checks that the server sent notifications/tools/list_changed, and calls the
page tool directly. Over HTTP (`--http`: the binary listens on a free loopback port), two
clients share the one served world at once: both wait for the late tool, one calls the tool
that navigates the page and the other sees the navigation and calls the new page's tool, and
both hear list_changed. Every answer's structured content is checked against the tool's output
schema (the client does that itself) and for page text outside `untrusted`.

It prints one line per check ("ok ..." or "FAIL ...") and a closing "N passed, N failed" line;
its exit status is 0 when every check passed.
"""

import json
import re
import subprocess
import sys
import time

import anyio
import mcp_types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

NOTICE = "> **Untrusted page data.**"

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
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    return changed, on_message


def tool_named(tools, webmcp_name):
    """The MCP name of the page tool whose page-provided name (in its description) is this."""
    for t in tools:
        if t.name.startswith("page") and f'"name": "{webmcp_name}"' in (t.description or ""):
            return t.name
    return None


async def stdio_checks(binary, scenario):
    list_changed, on_message = list_changed_handler()
    server = StdioServerParameters(command=binary, args=["serve", scenario, "--subtest", "late tools"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            started = time.monotonic()
            init = await session.initialize()
            check("the server says it sends tools/list_changed",
                  init.capabilities.tools is not None and init.capabilities.tools.list_changed is True,
                  repr(init.capabilities))
            check("the scenario's title reaches the instructions only marked",
                  NOTICE in (init.instructions or "")
                  and (init.instructions or "").index(NOTICE) < (init.instructions or "").index("a shop whose"),
                  init.instructions)

            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            check("the gateway's three tools are listed",
                  {"webmcp_observe", "webmcp_call", "webmcp_wait_for"} <= set(names), repr(names))
            check("no page tool before the page registers one",
                  not any(n.startswith("page") for n in names), repr(names))
            check("every gateway tool declares an output schema",
                  all(t.output_schema for t in listed.tools), repr([t.name for t in listed.tools]))
            wait_for = next(t for t in listed.tools if t.name == "webmcp_wait_for")
            offered = wait_for.input_schema["properties"]["condition"]["enum"]
            check("wait-for offers the served world's conditions",
                  offered == ["tools-ready", "tool", "tool-gone", "navigation", "toolchange"], repr(offered))

            waited = await session.call_tool("webmcp_wait_for", {"condition": "tool", "name": "search"})
            body = text_of(waited)
            check("wait-for blocks until the late tool registers (1.5 s)",
                  not waited.is_error and "holds" in body and time.monotonic() - started >= 1.4,
                  f"{time.monotonic() - started:.3f} s: {body}")
            check("its match answer starts with the untrusted-data notice", body.startswith(NOTICE), body)
            check_structured("wait-for", waited, "holds")

            observed = await session.call_tool("webmcp_observe", {"page": "shop", "timeoutMs": 5000})
            body = text_of(observed)
            check("observe waits for readiness, then shows the late tools",
                  not observed.is_error and body.startswith(NOTICE) and '"search"' in body and "were ready" in body,
                  body)
            # Readiness settles at 2 s: the observation waits for it.
            check("observe answered after readiness settled", time.monotonic() - started >= 1.9,
                  f"{time.monotonic() - started:.3f} s")
            check_structured("observe", observed, "ready")

            with anyio.fail_after(5):
                await list_changed.wait()
            check("notifications/tools/list_changed arrived", list_changed.is_set())

            listed = await session.list_tools()
            search = tool_named(listed.tools, "search")
            checkout = tool_named(listed.tools, "checkout")
            check("the late tools are listed under the gateway's own names",
                  search is not None and checkout is not None and re.fullmatch(r"page1\.tool\d+", search),
                  repr([(t.name, t.title) for t in listed.tools]))
            entry = next(t for t in listed.tools if t.name == search)
            check("a page tool's title is the gateway's own, its page's words in the marked description",
                  "catalogue" not in (entry.title or "") and (entry.description or "").find(NOTICE) >= 0,
                  repr(entry))

            called = await session.call_tool(search, {"query": "tea"})
            body = text_of(called)
            check("a page tool called as an MCP tool answers with its result",
                  not called.is_error and "3 results" in body and body.startswith(NOTICE), body)
            check_structured("the page tool", called, "returned")

            timed_out = await session.call_tool(
                "webmcp_wait_for", {"condition": "tool", "name": "refund", "timeoutMs": 150})
            body = text_of(timed_out)
            check("a timeout is a normal answer with the last state",
                  not timed_out.is_error and body.startswith(NOTICE) and "Timed out after 150 ms" in body, body)

            bad = await session.call_tool("webmcp_wait_for", {"condition": "stable"})
            check("bad arguments get a markdown answer", bad.is_error and "unknown condition" in text_of(bad),
                  text_of(bad))
            check_structured("bad arguments", bad, "bad-arguments")


async def http_checks(binary, scenario):
    from mcp.client.streamable_http import streamable_http_client

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
        started = time.monotonic()
        changed_a, on_a = list_changed_handler()
        changed_b, on_b = list_changed_handler()
        async with streamable_http_client(url) as (read_a, write_a, *_):
            async with ClientSession(read_a, write_a, message_handler=on_a) as a:
                await a.initialize()
                async with streamable_http_client(url) as (read_b, write_b, *_):
                    async with ClientSession(read_b, write_b, message_handler=on_b) as b:
                        await b.initialize()
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
                        check("both agents heard tools/list_changed", changed_a.is_set() and changed_b.is_set())

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
    finally:
        server.kill()
        server.wait()


async def main(binary, scenario, http):
    if http:
        await http_checks(binary, scenario)
    else:
        await stdio_checks(binary, scenario)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], "--http" in sys.argv[3:]))
