"""Loading and checking a toolset: `load_document` and `check_document` on 500-tool toolsets.

For each shape, the toolset is written as JSON (indented, as tools export it) and as YAML in block
style (as users write it); each is loaded and checked in this process `--runs` times. Prints the
median and min-max of each stage, in milliseconds.

    .venv/bin/python -m benchmarks.bench_load [--tools 500] [--runs 5] [--shapes mixed,deep] [--formats json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from benchmarks.toolset import build_shaped
from mcpstub.diagnostics import has_errors
from mcpstub.load import load_document
from mcpstub.validate import check_document

SHAPES = ("mixed", "deep", "shared", "enums", "draft07", "corpus")


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.0f} ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def bench(path: Path, runs: int) -> tuple[list[float], list[float]]:
    """Load and check times (s) of `runs` rounds, after one warm-up round."""
    loads, checks = [], []
    for i in range(runs + 1):
        start = time.perf_counter()
        doc, diagnostics = load_document(path)
        loaded = time.perf_counter()
        _, more, _ = check_document(doc, None)
        checked = time.perf_counter()
        if has_errors([*diagnostics, *more]):
            raise SystemExit(f"{path}: the benchmark toolset has errors: {[*diagnostics, *more][:3]}")
        if i:
            loads.append(loaded - start)
            checks.append(checked - loaded)
    return loads, checks


def main() -> None:
    """Print the load and check times of each shape, as JSON and as YAML."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--formats", default="json,yaml")
    args = parser.parse_args()
    print(f"{args.tools} tools, {args.runs} runs; ms: median (min-max)")
    print(f"{'shape':10} {'format':6} {'MB':>5} {'load':>18} {'check':>18} {'total':>18}")
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes.split(","):
            data = json.loads(json.dumps(build_shaped(shape, args.tools)))  # shares nothing: no YAML aliases
            texts = {
                "json": json.dumps(data, indent=1) + "\n",
                "yaml": yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
            }
            for kind, text in texts.items():
                if kind not in args.formats.split(","):
                    continue
                path = Path(tmp) / f"{shape}.{kind}"
                path.write_text(text, encoding="utf-8")
                loads, checks = bench(path, args.runs)
                totals = [a + b for a, b in zip(loads, checks, strict=True)]
                size = len(text.encode()) / 1e6
                print(f"{shape:10} {kind:6} {size:5.1f} {_ms(loads):>18} {_ms(checks):>18} {_ms(totals):>18}")


if __name__ == "__main__":
    main()
