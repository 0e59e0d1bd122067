"""Cached equals cold: over random edit sequences of a toolset made of two files, a run that reuses
the cache writes exactly what a cold `--no-cache` run writes into a fresh folder.

The toolset is tools.yaml, whose shared definitions and tools refer into common.yaml, and a
pyproject.toml holding the project's options. After each edit (a bound, a property, an enum value or
a description changed in either file; a definition renamed or moved between the files, references
updated; a tool added, removed, given or losing an output schema; an option changed):
`generate --check` sees the package as stale, the cached run writes the cold run's bytes, and
`--check` then passes. MCPSTUB_CACHE_EXAMPLES and MCPSTUB_CACHE_STEPS raise the budget;
MCPSTUB_CACHE_PROCESSES=1 runs each generation in a process of its own;
MCPSTUB_CACHE_TOOLS=N starts from N more tools.
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from mcpstub.cli import main
from mcpstub.layout import STAMP_FILE
from mcpstub.write import is_generated

DEF_NAMES = ["City", "Town", "Street", "Country", "Mode", "Zone", "Region", "Label", "Kind", "Area"]
PROPERTY_NAMES = ["name", "size", "code", "level", "note", "where"]
TOOL_NAMES = ["get_city", "list_towns", "find_zone", "set_mode", "label_it", "count_areas"]
FILES = ("tools", "common")
VENDOR = "x-note"

# A definition: {"file": "tools"|"common", "schema": ...}; references inside schemas are written
# {"$ref": ["def", NAME]} and spelled for the file they stand in when the files are written.


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": ["def", name]}


def _refs_in(node: Any) -> set[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        found = {ref[1]} if isinstance(ref, list) else set()
        for value in node.values():
            found |= _refs_in(value)
        return found
    if isinstance(node, list):
        return set().union(*(_refs_in(v) for v in node)) if node else set()
    return set()


def _spelled(node: Any, here: str, defs: dict[str, dict[str, Any]]) -> Any:
    """A schema with each reference written as the file `here` reaches its target."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, list):
            there = defs[ref[1]]["file"]
            prefix = "" if there == here else f"{there}.yaml"
            return {"$ref": f"{prefix}#/$defs/{ref[1]}"}
        return {k: _spelled(v, here, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_spelled(v, here, defs) for v in node]
    return node


def _renamed(node: Any, old: str, new: str) -> Any:
    if isinstance(node, dict):
        if node.get("$ref") == ["def", old]:
            return _ref(new)
        return {k: _renamed(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [_renamed(v, old, new) for v in node]
    return node


def run(*args: str) -> tuple[int, str]:
    if os.environ.get("MCPSTUB_CACHE_PROCESSES"):  # each run a process of its own: the disk cache alone
        done = subprocess.run(
            [sys.executable, "-m", "mcpstub", *args], capture_output=True, text=True, check=False
        )
        return done.returncode, done.stdout + done.stderr
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def files_of(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def assert_same_package(cached: dict[str, bytes], cold: dict[str, bytes]) -> None:
    """Every file mcpstub owns is byte for byte the cold run's; the user's stubs are the user's (a
    stub written before an edit is kept as it was, and one for a removed tool stays)."""

    def ours(files: dict[str, bytes]) -> dict[str, bytes]:
        return {k: v for k, v in files.items() if is_generated(v.decode("utf-8", "replace"))}

    mine, theirs = ours(cached), ours(cold)
    differ = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
    assert not differ, f"the cached run differs from the cold run in {differ}"
    assert set(cold) <= set(cached), f"missing after the cached run: {sorted(set(cold) - set(cached))}"


class CachedEqualsCold(RuleBasedStateMachine):
    """Edits of a two-file toolset, each followed by check, cached run, cold run and check."""

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="mcpstub-cached-"))
        self.saved_env = os.environ.get("MCPSTUB_CACHE_DIR")
        self.saved_cwd = os.getcwd()
        os.environ["MCPSTUB_CACHE_DIR"] = str(self.dir / "cache")
        os.chdir(self.dir)
        self.defs: dict[str, dict[str, Any]] = {
            "City": {
                "file": "common",
                "schema": {
                    "type": "object",
                    "description": "A city.",
                    "properties": {"name": {"type": "string", "minLength": 1}, "size": {"type": "integer"}},
                    "required": ["name"],
                },
            },
            "Mode": {"file": "common", "schema": {"type": "string", "enum": ["fast", "slow"]}},
            "Zone": {
                "file": "tools",
                "schema": {"type": "object", "properties": {"city": _ref("City"), "mode": _ref("Mode")}},
            },
        }
        self.tools: list[dict[str, Any]] = [
            {
                "name": "get_city",
                "description": "Get a city.",
                "inputSchema": {"type": "object", "properties": {"city": _ref("City"), "zone": _ref("Zone")}},
                "outputSchema": {"type": "object", "properties": {"found": _ref("City")}},
            },
            {
                "name": "set_mode",
                "description": "Set the mode.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"mode": _ref("Mode"), "level": {"type": "integer", "maximum": 5}},
                    "required": ["mode"],
                },
            },
        ]
        for i in range(int(os.environ.get("MCPSTUB_CACHE_TOOLS", "0"))):  # more tools: more model groups
            target = ("City", "Zone", "Mode")[i % 3]
            properties = {"item": _ref(target), "count": {"type": "integer", "maximum": i}}
            self.tools.append(
                {"name": f"extra_{i}", "inputSchema": {"type": "object", "properties": properties}}
            )
        self.options: dict[str, Any] = {"emit_tests": False, "vendor_keywords": []}
        self.written: dict[str, str] = {}

    def teardown(self) -> None:
        os.chdir(self.saved_cwd)
        if self.saved_env is None:
            os.environ.pop("MCPSTUB_CACHE_DIR", None)
        else:
            os.environ["MCPSTUB_CACHE_DIR"] = self.saved_env
        shutil.rmtree(self.dir, ignore_errors=True)

    # Writing the files and checking the promise

    def texts(self) -> dict[str, str]:
        def defs_of(file: str) -> dict[str, Any]:
            return {
                n: _spelled(d["schema"], file, self.defs) for n, d in self.defs.items() if d["file"] == file
            }

        tools = [_spelled(t, "tools", self.defs) for t in self.tools]
        toolset: dict[str, Any] = {"mcpstub": 1, "server": {"name": "cities", "version": "1.0.0"}}
        if defs_of("tools"):
            toolset["$defs"] = defs_of("tools")
        toolset["tools"] = tools
        options = ['toolset = "tools.yaml"', 'out = "pkg"']
        options.append(f"emit_tests = {'true' if self.options['emit_tests'] else 'false'}")
        options.append(
            "vendor_keywords = [" + ", ".join(f'"{v}"' for v in self.options["vendor_keywords"]) + "]"
        )
        return {
            "tools.yaml": yaml.safe_dump(toolset, sort_keys=False),
            "common.yaml": yaml.safe_dump({"$defs": defs_of("common")}, sort_keys=False),
            "pyproject.toml": "[tool.mcpstub]\n" + "\n".join(options) + "\n",
        }

    def write(self) -> bool:
        """Write the files; False when the edit changed none of them."""
        texts = self.texts()
        if texts == self.written:
            return False
        for name, text in texts.items():
            if self.written.get(name) != text:
                (self.dir / name).write_text(text)
        self.written = texts
        return True

    def verify(self, first: bool = False) -> None:
        if not self.write():
            return
        shutil.rmtree(self.dir / "cold", ignore_errors=True)
        code, said = run("generate", "--out", "cold", "--no-cache")
        assert code == 0, said
        cold = files_of(self.dir / "cold")
        if not first:
            # Stale exactly when a file would change (the stamp, which records how the files
            # were made, is no reason on its own).
            before = {k: v for k, v in files_of(self.dir / "pkg").items() if k != STAMP_FILE}
            stale = any(
                before.get(k) != v for k, v in cold.items() if k != STAMP_FILE and is_generated(v.decode())
            ) or any(k not in cold for k, v in before.items() if is_generated(v.decode()))
            code, said = run("generate", "--check")
            assert code == int(stale), (
                f"--check said {code} where the files are {'not ' * (not stale)}stale:\n{said}"
            )
        code, said = run("generate")
        assert code == 0, said
        assert_same_package(files_of(self.dir / "pkg"), cold)
        code, said = run("generate", "--check")
        assert code == 0, f"--check after a run:\n{said}"

    @initialize()
    def start(self) -> None:
        self.verify(first=True)

    # Edits

    def _schemas(self) -> list[dict[str, Any]]:
        """Every object schema whose properties an edit may change: definitions' and tools'."""
        found = [d["schema"] for d in self.defs.values() if "properties" in d["schema"]]
        for tool in self.tools:
            found.append(tool["inputSchema"])
            if "outputSchema" in tool:
                found.append(tool["outputSchema"])
        return found

    @rule(data=st.data())
    def change_bound(self, data: st.DataObject) -> None:
        schema = data.draw(st.sampled_from(self._schemas()))
        name = data.draw(st.sampled_from(PROPERTY_NAMES))
        bound = data.draw(st.sampled_from(["minLength", "maxLength", "minimum", "maximum"]))
        value = data.draw(st.integers(0, 9))
        kind = "string" if bound.endswith("Length") else "integer"
        schema["properties"][name] = {"type": kind, bound: value}
        self.verify()

    @rule(data=st.data())
    def change_property(self, data: st.DataObject) -> None:
        schema = data.draw(st.sampled_from(self._schemas()))
        props = schema["properties"]
        if props and data.draw(st.booleans()):
            gone = data.draw(st.sampled_from(sorted(props)))
            del props[gone]
            if gone in schema.get("required", []):
                schema["required"].remove(gone)
                if not schema["required"]:
                    del schema["required"]
        else:
            owner = next((n for n, d in self.defs.items() if d["schema"] is schema), None)
            allowed = [n for n in self.defs if owner is None or owner not in self._reaches(n)]
            target = data.draw(st.sampled_from(allowed)) if allowed and data.draw(st.booleans()) else None
            name = data.draw(st.sampled_from(PROPERTY_NAMES))
            props[name] = _ref(target) if target is not None else {"type": "boolean"}
            if data.draw(st.booleans()) and name not in schema.get("required", []):
                schema.setdefault("required", []).append(name)
        self.verify()

    @rule(data=st.data())
    def change_enum(self, data: st.DataObject) -> None:
        enums = [d["schema"] for d in self.defs.values() if "enum" in d["schema"]]
        if not enums:
            self.defs[self._free_name(data)] = {
                "file": data.draw(st.sampled_from(FILES)),
                "schema": {"type": "string", "enum": ["on", "off"]},
            }
        else:
            values = data.draw(st.sampled_from(enums))["enum"]
            word = data.draw(st.sampled_from(["fast", "slow", "eco", "turbo", "off", "on"]))
            if word in values and len(values) > 1:
                values.remove(word)
            elif word not in values:
                values.append(word)
        self.verify()

    @rule(data=st.data())
    def change_description(self, data: st.DataObject) -> None:
        text = data.draw(st.sampled_from(["A place.", "Where it is.", "Named so.", ""]))
        owners = [d["schema"] for d in self.defs.values()] + self.tools
        owner = data.draw(st.sampled_from(owners))
        if text:
            owner["description"] = text
        else:
            owner.pop("description", None)
        if data.draw(st.booleans()):  # a vendor keyword beside it, for the option to judge
            owner_schema = owner.get("inputSchema", owner)
            owner_schema[VENDOR] = text or "none"
        self.verify()

    @rule(data=st.data())
    def rename_definition(self, data: st.DataObject) -> None:
        old = data.draw(st.sampled_from(sorted(self.defs)))
        new = self._free_name(data)
        self.defs = {(new if n == old else n): d for n, d in self.defs.items()}
        for d in self.defs.values():
            d["schema"] = _renamed(d["schema"], old, new)
        self.tools = [_renamed(t, old, new) for t in self.tools]
        self.verify()

    @rule(data=st.data())
    def move_definition(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.defs)))
        definition = self.defs[name]
        definition["file"] = "tools" if definition["file"] == "common" else "common"
        self.verify()

    @precondition(lambda self: len(self.tools) < len(TOOL_NAMES))
    @rule(data=st.data())
    def add_tool(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from([n for n in TOOL_NAMES if n not in {t["name"] for t in self.tools}]))
        target = data.draw(st.sampled_from(sorted(self.defs)))
        tool = {"name": name, "inputSchema": {"type": "object", "properties": {"item": _ref(target)}}}
        self.tools.insert(data.draw(st.integers(0, len(self.tools))), tool)
        self.verify()

    @precondition(lambda self: len(self.tools) > 1)
    @rule(data=st.data())
    def remove_tool(self, data: st.DataObject) -> None:
        self.tools.pop(data.draw(st.integers(0, len(self.tools) - 1)))
        self.verify()

    @rule(data=st.data())
    def toggle_output(self, data: st.DataObject) -> None:
        tool = data.draw(st.sampled_from(self.tools))
        if "outputSchema" in tool:
            del tool["outputSchema"]
        else:
            target = data.draw(st.sampled_from(sorted(self.defs)))
            tool["outputSchema"] = {"type": "object", "properties": {"result": _ref(target)}}
        self.verify()

    @rule(option=st.sampled_from(["emit_tests", "vendor_keywords"]))
    def change_option(self, option: str) -> None:
        if option == "emit_tests":
            self.options["emit_tests"] = not self.options["emit_tests"]
        else:
            self.options["vendor_keywords"] = [] if self.options["vendor_keywords"] else [VENDOR]
        self.verify()

    # Helpers

    def _free_name(self, data: st.DataObject) -> str:
        free = [n for n in DEF_NAMES if n not in self.defs]
        return data.draw(st.sampled_from(free)) if free else f"Def{len(self.defs)}"

    def _reaches(self, name: str, seen: set[str] | None = None) -> set[str]:
        """The definitions `name` refers to, directly or not, itself included."""
        seen = set() if seen is None else seen
        if name in seen or name not in self.defs:
            return seen
        seen.add(name)
        for target in _refs_in(self.defs[name]["schema"]):
            self._reaches(target, seen)
        return seen


class WatchedEqualsCold(CachedEqualsCold):
    """The same edits saved under `generate --watch`: each save's run, which reuses what the session
    keeps in memory, writes what a cold run writes."""

    def __init__(self) -> None:
        super().__init__()
        self.watcher: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str] = queue.Queue()

    def teardown(self) -> None:
        if self.watcher is not None:
            self.watcher.send_signal(signal.SIGINT)
            try:
                self.watcher.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.watcher.kill()
                self.watcher.wait()
        super().teardown()

    def _runs(self, wait: float) -> list[str]:
        """The summary lines of the watcher's runs that end within `wait` seconds of each other."""
        said: list[str] = []
        with contextlib.suppress(queue.Empty):
            while True:
                said.append(self.lines.get(timeout=wait))
                wait = 1.0  # a save of two files may start two runs: the last one counts
        return said

    def verify(self, first: bool = False) -> None:
        if not self.write():
            return
        if self.watcher is None:
            self.watcher = subprocess.Popen(
                [sys.executable, "-m", "mcpstub", "generate", "--watch"],
                cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            stream = self.watcher.stdout
            assert stream is not None
            threading.Thread(target=lambda: [self.lines.put(line) for line in stream], daemon=True).start()
        said = self._runs(120)
        assert any("generated file" in line for line in said), f"no run of the watcher: {said}"
        shutil.rmtree(self.dir / "cold", ignore_errors=True)
        code, text = run("generate", "--out", "cold", "--no-cache")
        assert code == 0, text
        assert_same_package(files_of(self.dir / "pkg"), files_of(self.dir / "cold"))
        code, text = run("generate", "--check")
        assert code == 0, f"--check after the watcher's run:\n{text}"


CachedEqualsCold.TestCase.settings = settings(
    max_examples=int(os.environ.get("MCPSTUB_CACHE_EXAMPLES", "3")),
    stateful_step_count=int(os.environ.get("MCPSTUB_CACHE_STEPS", "6")),
    deadline=None,
    # Each step generates four times: shrinking a failure would take minutes (the steps printed
    # read well as they are); MCPSTUB_CACHE_SHRINK=1 turns it on.
    phases=[
        Phase.explicit,
        Phase.reuse,
        Phase.generate,
        *([Phase.shrink] if os.environ.get("MCPSTUB_CACHE_SHRINK") else []),
    ],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestCachedEqualsCold = CachedEqualsCold.TestCase
WatchedEqualsCold.TestCase.settings = settings(
    CachedEqualsCold.TestCase.settings,
    max_examples=int(os.environ.get("MCPSTUB_CACHE_EXAMPLES", "2")),
)
TestWatchedEqualsCold = WatchedEqualsCold.TestCase


def test_the_two_cases_of_a_shared_file() -> None:
    """A definition of common.yaml renamed (references updated), then its bound changed: each
    cached run writes what a cold run writes."""
    machine = CachedEqualsCold()
    try:
        machine.start()
        machine.defs = {("Town" if n == "City" else n): d for n, d in machine.defs.items()}
        for d in machine.defs.values():
            d["schema"] = _renamed(d["schema"], "City", "Town")
        machine.tools = [_renamed(t, "City", "Town") for t in machine.tools]
        machine.verify()
        machine.defs["Town"]["schema"]["properties"]["name"]["minLength"] = 4
        machine.verify()
        models = (machine.dir / "pkg" / "models.py").read_text()
        assert "min_length=4" in models and re.search(r"\bCity\b", models) is None
    finally:
        machine.teardown()


def test_validate_counts_the_shared_definitions_written() -> None:
    """The toolset's own definitions and those its references reach in common.yaml, each once (a
    definition moved from one file to the other leaves the count as it was)."""
    machine = CachedEqualsCold()
    try:
        machine.write()
        code, said = run("validate")
        assert code == 0, said
        assert "2 tools (1 with an output schema), 3 shared definitions (2 from other files)\n" in said
    finally:
        machine.teardown()
