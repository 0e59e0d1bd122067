"""The hatch build hook: generate the package as the packaging system's own build step.

A project configures it in its pyproject.toml, and `pip install .`, `python -m build` or `uv build`
run `mcpstub generate` before packaging, so wheels and sdists hold the generated package:

    [build-system]
    requires = ["hatchling", "mcpstub"]
    build-backend = "hatchling.build"

    [tool.hatch.build.hooks.mcpstub]
    toolset = "tools.yaml"          # paths from the project root (else [tool.mcpstub]'s)
    out = "src/weather_tools"

A toolset with errors fails the build with its located diagnostics. The generated files are
packaged even when git ignores them (a project may commit only its toolset and handlers).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, NoReturn

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.plugin import hookimpl

# What hatch itself reads of every build hook's table.
_HATCH_KEYS = (
    "dependencies", "enable-by-default", "require-runtime-dependencies", "require-runtime-features"
)  # fmt: skip


class McpstubBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """`[tool.hatch.build.hooks.mcpstub]`: `toolset` and `out`, from the project root (each, where
    not given there, from `[tool.mcpstub]`)."""

    PLUGIN_NAME = "mcpstub"

    def _fail(self, message: str) -> NoReturn:
        """End the build with `message` alone (an exception would bury it in the backend's traceback)."""
        self.app.abort(f"error: {message}")
        raise SystemExit(1)  # (abort exits; this is for a frontend whose app does not)

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Generate `out` from `toolset`; fail the build with the diagnostics if it is invalid."""
        root = Path(self.root)
        unknown = sorted(set(self.config) - {"toolset", "out", *_HATCH_KEYS})
        if unknown:
            from mcpstub.errortext import unknown_keys  # noqa: PLC0415

            said = unknown_keys(unknown, ["toolset", "out", *_HATCH_KEYS])
            self._fail(f"unknown key(s) in [tool.hatch.build.hooks.mcpstub]: {said}")
        project = _project_settings(root)  # ([tool.mcpstub]: written once, for the hook and the command)
        settings = {key: self.config.get(key, project.get(key)) for key in ("toolset", "out")}
        for key, value in settings.items():
            if value is not None and not isinstance(value, str):
                table = "[tool.hatch.build.hooks.mcpstub]" if key in self.config else "[tool.mcpstub]"
                self._fail(f"{table} {key} must be a string (a path from the project root)")
        missing = [key for key, value in settings.items() if not value]
        if missing:
            self._fail(
                "[tool.hatch.build.hooks.mcpstub] (or [tool.mcpstub]) needs "
                + " and ".join(f'{key} = "..."' for key in missing)
                + " (paths from the project root)"
            )
        toolset, out = str(settings["toolset"]), str(settings["out"])
        out = self._from_root(out)
        sdist = (root / "PKG-INFO").is_file()  # (a project's own tree has none)
        if sdist and not (root / toolset).is_file() and (root / out / "_mcpstub.json").is_file():
            # An sdist made by this hook holds the generated package: nothing to make again. Anywhere
            # else a toolset missing (misspelled, renamed) is said, not built from what is there.
            self._include(out, build_data)
            return
        command = [sys.executable, "-m", "mcpstub", "generate", toolset, "--out", out]
        done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
        if done.stdout:
            self.app.display_info(done.stdout.rstrip())
        if done.returncode != 0:
            # The diagnostics name file, line and column; they are the whole message.
            self._fail(f"mcpstub generate failed:\n{done.stderr.rstrip()}")
        if done.stderr:
            self.app.display_warning(done.stderr.rstrip())
        self._include(out, build_data)

    def _from_root(self, out: str) -> str:
        """`out` as a path from the project root (`./src/pkg`, an absolute one, through a link to
        the project): what the wheel's pattern names. The folder it leads to, links followed,
        must be inside the project and not its root."""
        root = Path(self.root)
        try:
            base, target = root.resolve(), (root / out).resolve()
            # (as written where it is relative: the wheel's pattern matches the tree as hatch walks it)
            relative = os.path.relpath(*((target, base) if os.path.isabs(out) else (root / out, root)))
        except (OSError, RuntimeError, ValueError):  # (a loop of links; another drive)
            self._fail(f"out = {out!r} cannot be followed (a loop of symbolic links, another drive)")
        if target == base or not target.is_relative_to(base):
            where = "the project root itself" if target == base else "outside the project"
            self._fail(f"out = {out!r} is {where}: name the package's own folder in it")
        return Path(relative).as_posix()

    def _include(self, out: str, build_data: dict[str, Any]) -> None:
        # Packaged even where git ignores the generated files.
        build_data["artifacts"].append(f"/{out.strip('/')}/**")


def _project_settings(root: Path) -> dict[str, Any]:
    """`[tool.mcpstub]` of the project's pyproject.toml (empty where there is none to read: the
    command the hook runs says what is wrong with it)."""
    import tomllib  # noqa: PLC0415

    try:
        with (root / "pyproject.toml").open("rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("mcpstub", {})
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    return table if isinstance(table, dict) else {}


@hookimpl
def hatch_register_build_hook() -> type[McpstubBuildHook]:
    """Hatch's plugin entry point (the `hatch` entry-point group names this module)."""
    return McpstubBuildHook
