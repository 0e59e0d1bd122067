"""Benchmarks 1 and 2: cold generation vs bare datamodel-code-generator, and no-op regeneration.

Cold: a fresh `mcpstub generate` process into an empty folder, against a fresh process making the
same `datamodel_code_generator.generate()` call mcpstub makes (same combined schema, same options,
captured from `generator.models`) and writing its output. Both are timed from outside, interpreter
start-up included, alternating so drift hits both alike.
No-op: `mcpstub generate` again on an up-to-date tree (nothing changed).
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import MCPSTUB, PYTHON, WORK, env, fresh_dir, median, timed_run
from benchmarks.toolset import write_toolset

# The bare call, in a fresh process: load the captured (document, options), generate, write.
BARE = """\
import pickle, sys
import datamodel_code_generator
with open(sys.argv[1], "rb") as f:
    document, options = pickle.load(f)
source = datamodel_code_generator.generate(document, **options)
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write(source)
"""


def capture_call(toolset: Path, target: Path) -> None:
    """Record the document and options mcpstub passes to datamodel-code-generator for a toolset."""
    import datamodel_code_generator  # noqa: PLC0415

    from mcpstub.models import render_models  # noqa: PLC0415
    from mcpstub.pipeline import check_toolset  # noqa: PLC0415

    checked = check_toolset(toolset)
    assert checked.toolset is not None, checked.diagnostics
    calls: list[tuple[Any, dict[str, Any]]] = []
    real = datamodel_code_generator.generate

    def spy(document: Any, **options: Any) -> Any:
        calls.append((document, options))
        return real(document, **options)

    datamodel_code_generator.generate = spy  # type: ignore[assignment]
    try:
        result = render_models(checked.toolset)
    finally:
        datamodel_code_generator.generate = real  # type: ignore[assignment]
    assert len(calls) == 1, f"expected one generate() call, got {len(calls)} ({result.diagnostics})"
    target.write_bytes(pickle.dumps(calls[0]))


def bench_cold(sizes: dict[int, int]) -> list[dict[str, Any]]:
    """Cold generation per toolset size (`{tools: repetitions}`)."""
    rows = []
    bare = WORK / "bare_dmcg.py"
    bare.write_text(BARE, encoding="utf-8")
    for n, reps in sizes.items():
        folder = fresh_dir(WORK / f"gen{n}")
        toolset = write_toolset(folder / "tools.json", n)
        capture_call(toolset, folder / "call.pickle")
        ours, theirs, ratios = [], [], []
        for rep in range(reps + 1):  # the first round warms caches (.pyc, page cache) and is dropped
            fresh_dir(folder / "out")
            out = folder / "out" / f"bench{n}"
            a, _ = timed_run([MCPSTUB, "generate", str(toolset), "--out", str(out)], cwd=folder)
            b, _ = timed_run([PYTHON, str(bare), str(folder / "call.pickle"), str(folder / "bare.py")],
                             env=env())
            if rep:
                ours.append(a)
                theirs.append(b)
                ratios.append(a / b)
        rows.append({"tools": n, "mcpstub": median(ours), "bare": median(theirs), "ratio": median(ratios),
                     "reps": reps})
        print(f"  generate {n}: mcpstub {median(ours):.2f}s, bare dmcg {median(theirs):.2f}s, "
              f"ratio {median(ratios):.2f}", file=sys.stderr)
    return rows


def bench_noop(n: int, reps: int) -> dict[str, Any]:
    """`mcpstub generate` on an up-to-date tree of `n` tools."""
    folder = WORK / f"gen{n}"
    toolset = folder / "tools.json"
    if not toolset.exists():
        folder = fresh_dir(folder)
        write_toolset(toolset, n)
    out = folder / "out" / f"bench{n}"
    if not out.exists():
        timed_run([MCPSTUB, "generate", str(toolset), "--out", str(out)], cwd=folder)
    times, versions = [], []
    for _ in range(reps):
        t, stdout = timed_run([MCPSTUB, "generate", str(toolset), "--out", str(out)], cwd=folder)
        assert "up to date" in stdout or "0 generated files written" in stdout, stdout
        times.append(t)
        # The floor: a fresh interpreter that only prints the version (no generation possible).
        v, _ = timed_run([MCPSTUB, "--version"], cwd=folder)
        versions.append(v)
    print(f"  no-op {n}: {median(times):.2f}s (mcpstub --version: {median(versions):.2f}s)", file=sys.stderr)
    return {"tools": n, "noop": median(times), "version": median(versions), "reps": reps}
