"""A non-editable install works: the wheel carries the templates and schemas, and its `mcpstub`
validates the shipped example and writes a starter toolset, far from the source checkout.

The wheel is built the way `pip install .` builds it (hatchling, no build isolation, so no
network), installed with `--no-deps` into a fresh venv, and that venv reaches the already
installed dependencies through a path file, never through the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_wheel_install_works_outside_the_checkout(tmp_path: Path) -> None:
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "work"
    work.mkdir()
    built = _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, ROOT,
        cwd=tmp_path,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("mcpstub-*.whl")

    assert _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path).returncode == 0
    python = venv / "bin" / "python"
    installed = _run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheel, cwd=tmp_path
    )
    assert installed.returncode == 0, installed.stderr

    # dependencies from this environment, as a plain path (its editable-install .pth is not read)
    site = Path(_run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=work)
                .stdout.strip())  # fmt: skip
    parent = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_parent_deps.pth").write_text("\n".join(sorted(parent)) + "\n", "utf-8")

    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    where = _run(python, "-c", "import mcpstub; print(mcpstub.__file__)", cwd=work, env=env)
    assert where.returncode == 0, where.stderr
    package = Path(where.stdout.strip()).parent
    assert package.is_relative_to(venv), f"imported {package}, not the installed wheel"
    assert (package / "schemas" / "toolset.schema.json").is_file()
    assert (package / "schemas" / "examples" / "starter.yaml").is_file()
    assert any((package / "templates").rglob("*.jinja"))
    # the wheel installs one top-level import package, `mcpstub`, and nothing named `generator`
    top_level = {p.name for p in site.iterdir() if not p.name.endswith((".dist-info", ".pth"))}
    assert top_level - {"__pycache__"} == {"mcpstub"}, top_level
    assert _run(python, "-m", "mcpstub", "--version", cwd=work, env=env).returncode == 0

    mcpstub = venv / "bin" / "mcpstub"
    example = work / "full.yaml"
    example.write_bytes((ROOT / "schemas" / "examples" / "full.yaml").read_bytes())
    validated = _run(mcpstub, "validate", "full.yaml", cwd=work, env=env)
    assert validated.returncode == 0, validated.stderr
    assert "full.yaml: ok:" in validated.stdout

    started = _run(mcpstub, "init", cwd=work, env=env)
    assert started.returncode == 0, started.stderr
    assert (work / "tools.yaml").is_file()
    assert _run(mcpstub, "validate", cwd=work, env=env).returncode == 0
    assert _run(mcpstub, "init", cwd=work, env=env).returncode == 2  # never overwrites
