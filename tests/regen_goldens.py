"""Rewrite every golden: error cases' expected stderr, generated trees, the example's package.

Run as `make goldens` (or `python -m tests.regen_goldens`) from the project root, then review the
diff like code.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from mcpstub import cli
from mcpstub.pipeline import Generated, generate
from tests import regen_golden_errors

ROOT = Path(__file__).resolve().parents[1]
TREES = ROOT / "tests" / "golden" / "trees"
COMMAND = "make goldens"


def tree_cases() -> list[Path]:
    """Every golden tree case folder, in name order."""
    return sorted(p for p in TREES.iterdir() if (p / "tools.yaml").is_file())


def generate_case(case: Path) -> Generated:
    """Generate a case's package in memory, named as a user in that folder would see it."""
    return generate(case / "tools.yaml", "tools.yaml")


def expected_files(case: Generated) -> dict[str, str]:
    """Every file a fresh generation writes: ours and the handler stubs."""
    return {**case.ours, **case.yours}


def main() -> int:
    """Regenerate all goldens and the bundled example's package; report what changed."""
    code = regen_golden_errors.main()
    example = ROOT / "examples" / "weather"
    out = str(example / "weather_tools")
    code |= cli.main(["generate", str(example / "tools.yaml"), "--out", out, "--force"])
    for case in tree_cases():
        generated = generate_case(case)
        if not generated.ok:
            print(f"{case.name}: generation failed", file=sys.stderr)
            return 1
        target = case / "expected"
        if target.exists():
            shutil.rmtree(target)
        for rel, text in sorted(expected_files(generated).items()):
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8", newline="\n")
        print(f"wrote {target.relative_to(ROOT)}")
    return code


if __name__ == "__main__":
    sys.exit(main())
