"""Run in a fresh process: import a server, create it, answer the first tools/list in memory.

`python startup_probe.py mcpstub PACKAGE` or `python startup_probe.py mcpserver MODULE`; prints the
seconds from before the first import to the first tools/list answer, and the number of tools.
"""

import time

START = time.perf_counter()

import importlib  # noqa: E402
import sys  # noqa: E402

import anyio  # noqa: E402
from mcp import Client  # noqa: E402


async def main(kind: str, name: str) -> None:
    module = importlib.import_module(name)
    server = module.create_server() if kind == "mcpstub" else module.mcp
    async with Client(server) as client:
        listed = await client.list_tools()
    print(f"{time.perf_counter() - START:.6f} {len(listed.tools)}")


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2])
