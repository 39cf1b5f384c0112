"""`sagasu serve` seen by the official MCP Python SDK (PyPI package `mcp`), over stdio and over
streamable HTTP with a bearer token: the client lists exactly one tool, `ask`, and gets a cited
answer with structured content in the contract's shape. Run by `.ci/run`:

    python3 scripts/mcp_sdk_check.py target/debug/sagasu

Exit status 0 when both transports pass, 1 otherwise (with the reason).
"""

import asyncio
import os
import re
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

QUESTION = "What did we decide about the Pro plan price?"
CONTRACT_FIELDS = ["question", "intent", "answer", "confidence", "conflicts", "citations", "sources"]


def field(obj, snake: str, camel: str):
    """An attribute under its SDK 2 (snake_case) or SDK 1 (camelCase) name."""
    return getattr(obj, snake, None) if hasattr(obj, snake) else getattr(obj, camel, None)


async def exercise(session: ClientSession, transport: str) -> None:
    await session.initialize()
    tools = (await session.list_tools()).tools
    names = [t.name for t in tools]
    assert names == ["ask"], f"{transport}: expected one tool `ask`, got {names}"
    assert field(tools[0], "output_schema", "outputSchema"), f"{transport}: `ask` has no output schema"
    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    result = await session.call_tool("ask", {"question": QUESTION}, progress_callback=on_progress)
    assert not field(result, "is_error", "isError"), f"{transport}: the tool failed: {result.content}"
    s = field(result, "structured_content", "structuredContent")
    assert s, f"{transport}: no structured content"
    missing = [f for f in CONTRACT_FIELDS if f not in s]
    assert not missing, f"{transport}: structured content lacks {missing}"
    assert s["citations"], f"{transport}: no citations"
    text = result.content[0].text
    assert re.search(r"\[\d+\]", text), f"{transport}: the text has no inline citation: {text[:200]}"
    first = text.splitlines()[0]
    print(f"  {transport}: 1 tool, {len(s['citations'])} citations, {len(progress)} progress notes; {first[:90]}")


async def over_stdio(binary: str) -> None:
    params = StdioServerParameters(command=binary, args=["serve"], env={"RUST_LOG": "warn"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "stdio")


async def over_http(binary: str) -> None:
    token = "sdk-check-token"
    env = dict(os.environ, SAGASU_TOKEN=token)
    proc = subprocess.Popen(
        [binary, "serve", "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        url = None
        for line in proc.stderr:
            m = re.search(r"(http://\S+)", line)
            if m:
                url = m.group(1)
                break
        assert url, "the HTTP server never said where it listens"
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with client:
            async with streamable_http_client(url, http_client=client) as streams:
                read, write = streams[0], streams[1]
                async with ClientSession(read, write) as session:
                    await exercise(session, "http")
    finally:
        proc.terminate()
        proc.wait(timeout=60)


async def main() -> int:
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/sagasu"
    try:
        await over_stdio(binary)
        await over_http(binary)
    except AssertionError as e:
        print(f"MCP SDK check failed: {e}")
        return 1
    print("MCP SDK check: ok (official Python SDK, stdio and streamable HTTP)")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
