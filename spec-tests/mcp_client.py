"""A real MCP client (the Python `mcp` package) against `webmcp-ref serve` over stdio.

Run by spec-tests/gateway_python.rs: `python mcp_client.py BINARY SCENARIO`. It serves the
scenario's "late tools" subtest in real time (its tools register 1.5 s after serving starts),
lists the tools, observes the page, waits for the late tool with webmcp_wait_for, checks that
the server sent notifications/tools/list_changed, and calls the page tool directly. It prints
one line per check ("ok ..." or "FAIL ...") and a closing "N passed, N failed" line; its exit
status is 0 when every check passed.
"""

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


async def main(binary, scenario):
    list_changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            list_changed.set()

    server = StdioServerParameters(command=binary, args=["serve", scenario, "--subtest", "late tools"])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            started = time.monotonic()
            init = await session.initialize()
            check("the server says it sends tools/list_changed",
                  init.capabilities.tools is not None and init.capabilities.tools.list_changed is True,
                  repr(init.capabilities))

            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            check("the gateway's three tools are listed",
                  {"webmcp_observe", "webmcp_call", "webmcp_wait_for"} <= set(names), repr(names))
            check("no page tool before the page registers one", "shop.search" not in names, repr(names))
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

            observed = await session.call_tool("webmcp_observe", {"page": "shop"})
            body = text_of(observed)
            check("observe waits for readiness, then shows the late tools",
                  not observed.is_error and body.startswith(NOTICE) and '"search"' in body and "were ready" in body,
                  body)
            # Readiness settles at 2 s: the observation waits for it.
            check("observe answered after readiness settled", time.monotonic() - started >= 1.9,
                  f"{time.monotonic() - started:.3f} s")

            with anyio.fail_after(5):
                await list_changed.wait()
            check("notifications/tools/list_changed arrived", list_changed.is_set())

            listed = await session.list_tools()
            names = [t.name for t in listed.tools]
            check("the late tools are listed as MCP tools", {"shop.search", "shop.checkout"} <= set(names), repr(names))

            called = await session.call_tool("shop.search", {"query": "tea"})
            body = text_of(called)
            check("a page tool called as an MCP tool answers with its result",
                  not called.is_error and "3 results" in body and body.startswith(NOTICE), body)

            timed_out = await session.call_tool(
                "webmcp_wait_for", {"condition": "tool", "name": "refund", "timeoutMs": 150})
            body = text_of(timed_out)
            check("a timeout is a normal answer with the last state",
                  not timed_out.is_error and body.startswith(NOTICE) and "Timed out after 150 ms" in body, body)

            bad = await session.call_tool("webmcp_wait_for", {"condition": "stable"})
            check("bad arguments get a markdown answer", bad.is_error and "unknown condition" in text_of(bad),
                  text_of(bad))

    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2]))
