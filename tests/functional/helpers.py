"""Generate a package from an inline toolset into a folder and make it importable."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from mcpstub.format import compile_package
from mcpstub.ir import Toolset
from mcpstub.pipeline import generate
from mcpstub.render import RenderedPackage


def write_package(root: Path, package: str, toolset_yaml: str) -> tuple[Path, Toolset]:
    """Generate `package` under `root` from the toolset text; return its folder and IR."""
    source = root / "tools.yaml"
    source.write_text(textwrap.dedent(toolset_yaml), encoding="utf-8")
    generated = generate(source)
    assert generated.ok, generated.diagnostics
    assert generated.toolset is not None
    formatted = compile_package(RenderedPackage(generated.ours, generated.yours))
    folder = root / package
    for relative, text in {**formatted.ours, **formatted.yours}.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder, generated.toolset


@contextmanager
def imported(root: Path, package: str) -> Iterator[ModuleType]:
    """Import the package generated under `root`; forget it afterwards."""
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(package)
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
