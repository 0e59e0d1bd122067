"""Run `mcpstub ARGS...` in this process and write its peak resident set (VmHWM, kB) to a file.

`python -m benchmarks.peak_probe OUT ARGS...`. A process's own peak can be read only while it
lives; polling from outside misses what it allocates in its last milliseconds (writing the
package), so the process reports it itself, on its way out; then it exits as the command does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn


def _peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    out = Path(sys.argv[1])
    sys.argv = ["mcpstub", *sys.argv[2:]]
    from mcpstub import cli  # noqa: PLC0415 - after argv is set

    leave = cli.leave

    def reported(code: int) -> NoReturn:
        out.write_text(str(_peak_kb()))
        leave(code)

    # The command as the `mcpstub` script runs it (`cli.run`: its collector and exit included),
    # with the peak written on its way out.
    cli.leave = reported
    cli.run()


if __name__ == "__main__":
    main()
