"""A package and its runtime: what a run does to a package an earlier mcpstub wrote (its
framework files go, each named; "yours" files stay), and the import-time check of the runtime's
version."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

import mcpstub_runtime.version
from mcpstub.cli import main
from mcpstub.layout import HEADER_PREFIX, RUNTIME_RANGE
from tests.functional.helpers import imported

TOOLSET = """\
mcpstub: 1
server: {name: fit}
tools:
  - name: ping
    inputSchema: {type: object}
"""

OLD_APP = f'{HEADER_PREFIX} from tools.yaml. DO NOT EDIT: it is rewritten on every run.\n"""app."""\n'


def _generate(folder: Path, out: str = "fit_pkg") -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["generate", str(folder / "tools.yaml"), "--out", str(folder / out)])
    return code, stdout.getvalue() + stderr.getvalue()


def test_regenerating_an_earlier_package_removes_its_framework_files_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLSET)
    assert _generate(tmp_path)[0] == 0
    package = tmp_path / "fit_pkg"
    (package / "app.py").write_text(OLD_APP)  # as the previous version wrote it
    handler = package / "handlers" / "ping.py"
    handler.write_text(handler.read_text() + "# mine\n")
    code, output = _generate(tmp_path)
    assert code == 0, output
    assert "app.py: removed (no longer generated)" in output
    assert not (package / "app.py").exists()
    assert handler.read_text().endswith("# mine\n")
    assert _generate(tmp_path) == (0, f"{package}: up to date (toolset unchanged since the last run)\n")


def test_a_file_of_that_name_without_the_generated_header_is_the_users_and_stays(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLSET)
    (tmp_path / "fit_pkg").mkdir()
    (tmp_path / "fit_pkg" / "app.py").write_text("# my own ASGI app\n")
    code, output = _generate(tmp_path)
    assert code == 0 and "removed" not in output
    assert (tmp_path / "fit_pkg" / "app.py").read_text() == "# my own ASGI app\n"


def test_import_against_a_runtime_outside_the_range_fails_naming_both_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLSET)
    assert _generate(tmp_path, "fit_pkg_versions")[0] == 0
    with imported(tmp_path, "fit_pkg_versions") as package:
        assert package.create_server() is not None  # the installed runtime fits
    monkeypatch.setattr(mcpstub_runtime.version, "__version__", "0.2.0")
    with pytest.raises(ImportError) as caught, imported(tmp_path, "fit_pkg_versions"):
        pass
    assert str(caught.value) == (
        f"fit_pkg_versions was generated for mcpstub-runtime {RUNTIME_RANGE}, but mcpstub-runtime "
        f"0.2.0 is installed; run: pip install 'mcpstub-runtime{RUNTIME_RANGE}' (or regenerate the "
        "package with an mcpstub that matches the installed runtime)"
    )


def test_the_runtime_version_lies_in_the_range_the_generator_writes_for() -> None:
    assert mcpstub_runtime.version.fits(mcpstub_runtime.__version__, RUNTIME_RANGE)
    pyproject = (Path(__file__).resolve().parents[2] / "runtime" / "pyproject.toml").read_text()
    assert f'version = "{mcpstub_runtime.__version__}"' in pyproject
