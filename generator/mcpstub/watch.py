"""Watch mode: generate again whenever the toolset or a file it references changes.

`watch(run, sources)` calls `run()` once, then polls the files `sources()` names (size, modification
and change time, inode: an editor that saves by renaming is seen too, and a tool that sets the
modification time back is not missed; a file not there yet is seen once made)
and calls `run()` after each change, in this process, so imports and the model cache stay warm.
Ctrl-C (SIGINT), SIGTERM or SIGHUP (its terminal closed) ends it with exit code 0, even where the
shell started it with SIGINT ignored (a background job).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mcpstub.layout import STOPPING_SIGNALS

POLL_SECONDS = 0.01
# A save in place (some editors, `open(path, "w")`) can leave the file empty longer than a poll: its
# text is waited for this long before the empty file is taken for what the user meant.
EMPTY_SECONDS = 0.25
_Stamp = tuple[int, int, int, int] | None


def _stamp(path: Path) -> _Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None  # missing for now (an editor between delete and rename): a change like any other
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)  # (no tool sets the change time)


def _stamps(paths: list[Path]) -> dict[Path, _Stamp]:
    return {p: _stamp(p) for p in paths}


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _changed(before: dict[Path, _Stamp], after: dict[Path, _Stamp], shown: Callable[[Path], str]) -> str:
    """`[12:03:04] tools.yaml changed`: the time and what changed, as a line before a run."""
    said = [
        f"{shown(p)} {'removed' if stamp is None else 'made' if before.get(p) is None else 'changed'}"
        for p, stamp in after.items()
        if stamp != before.get(p)
    ] or ["a watched file changed"]
    more = f" and {len(said) - 3} more" if len(said) > 3 else ""
    return f"[{time.strftime('%H:%M:%S')}] {', '.join(said[:3])}{more}"


def watch(
    run: Callable[[], object],
    sources: Callable[[], list[Path]],
    poll: float = POLL_SECONDS,
    shown: Callable[[Path], str] = str,
) -> int:
    """Run, then again on every change of the watched files (each said first, by `shown` path,
    with the time), until Ctrl-C."""
    for name in STOPPING_SIGNALS:  # (a terminal closed: SIGHUP, unless ignored, as under nohup)
        number = getattr(signal, name, None)
        if number is not None and (name == "SIGINT" or signal.getsignal(number) is not signal.SIG_IGN):
            signal.signal(number, _interrupt)
    try:
        seen = _stamps(sources())
        run()
        seen = {p: seen.get(p, _stamp(p)) for p in sources()}
        there = sum(stamp is not None for stamp in seen.values())  # (not those looked for)
        count = f"{there} file{'s' * (there != 1)}"
        print(f"watching {count}; Ctrl-C to stop", file=sys.stderr, flush=True)
        while True:
            time.sleep(poll)
            now = _stamps(sources())
            if now == seen:
                continue
            time.sleep(poll)  # let a save written in several steps finish
            settled = _stamps(sources())
            if settled != now:
                continue
            if any(stamp is not None and stamp[2] == 0 for stamp in settled.values()):  # (empty)
                time.sleep(EMPTY_SECONDS)
                if _stamps(sources()) != settled:
                    continue
            print(_changed(seen, settled, shown), file=sys.stderr, flush=True)
            seen = settled
            run()
            # Files the toolset references since this run are watched from their state now.
            seen = {p: seen.get(p, _stamp(p)) for p in sources()}
    except KeyboardInterrupt:
        print("stopped watching", file=sys.stderr)
        return 0
