"""Ahead: what is done with the files rendered before the models are finished, while they are.

The models are generated in worker processes after every other file is rendered (`pipeline.render`).
Meanwhile a thread encodes each of those files once, hashes it for the stamp and, in a run that
writes, stages it beside its target (`write.Staging`), so that writing the package after the models
only renames files into place. A file the last stamp records with the same hash is not staged (the
plan will most likely find it unchanged), nor a handler stub where a file is (it is never
replaced). Whatever is not made ahead is made when asked for: the files are the same either way.

At 500 `shared` tools (51 MB of package) a cold run with it takes 0.94 times as long as without
(docs/performance.md, "Where the time goes").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping

from mcpstub.engine.stamp import file_hash, recorded_hashes
from mcpstub.write import Staging


class Ahead:
    """The bytes and hashes of `ours`, and staged copies of `ours` and `yours` (with `staging`),
    made in a thread (hashlib and file writes release the GIL)."""

    def __init__(
        self, ours: Mapping[str, str], yours: Mapping[str, str] | None = None, staging: Staging | None = None
    ) -> None:
        self._ours, self._yours = dict(ours), dict(yours or {})
        self._staging = staging
        self._done: dict[str, tuple[str, str, bytes | None]] = {}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        """What fails here is left to be made when asked for, where it is reported (a folder that
        cannot be written, say): nothing more is staged."""
        staging = self._staging
        try:
            recorded = recorded_hashes(staging.out) if staging is not None else {}
            for rel, text in self._ours.items():
                data = text.encode("utf-8")
                digest = file_hash(data)
                kept: bytes | None = data
                if staging is not None and recorded.get(rel) != digest:
                    staging.stage(rel, text, data)
                    kept = None  # written: not held in memory as well
                self._done[rel] = (text, digest, kept)
            for rel, text in self._yours.items():
                if staging is not None and not os.path.lexists(staging.out / rel):
                    staging.stage(rel, text, text.encode("utf-8"))
        except Exception:  # see the docstring
            return

    def _made(self, rel: str, text: str) -> tuple[str, str, bytes | None] | None:
        self._thread.join()
        made = self._done.get(rel)
        return made if made is not None and made[0] is text else None

    def of(self, rel: str, text: str) -> str:
        """The hash of file `rel` holding `text`: the one computed ahead if it was of this text."""
        made = self._made(rel, text)
        return made[1] if made is not None else file_hash(text.encode("utf-8"))

    def encoded(self, rel: str, text: str) -> bytes:
        """File `rel`'s bytes (UTF-8) when it holds `text`: the ones made ahead if of this text."""
        made = self._made(rel, text)
        return made[2] if made is not None and made[2] is not None else text.encode("utf-8")

    @property
    def staging(self) -> Staging | None:
        """Where the files were staged, once they are (None: a run that does not write)."""
        self._thread.join()
        return self._staging
