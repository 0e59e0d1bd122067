"""Attacks on the promise that a run reusing cached work writes what a cold run writes.

Each test edits a toolset (or the cache, or the run) in a way reuse could get wrong, then compares
the cached run with a cold one: same files byte for byte, same diagnostics, same success.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpstub import bundle
from mcpstub.cli import main
from mcpstub.engine import pieces as memo_module
from mcpstub.engine import stamp
from mcpstub.engine.session import Session, running
from mcpstub.pipeline import generate


def _write(folder: Path, doc: dict[str, Any], name: str = "tools.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def _formatted(result: Any) -> list[str]:
    return [d.format() for d in result.diagnostics]


def _same_as_cold(path: Path, cache: Path, **options: Any) -> Any:
    """The cached run, after asserting it equals a cold run (files, diagnostics, outcome)."""
    warm = generate(path, path.name, cache_dir=cache, **options)
    cold = generate(path, path.name, **options)
    assert _formatted(warm) == _formatted(cold)
    assert warm.ok == cold.ok
    assert warm.ours == cold.ours
    assert warm.yours == cold.yours
    return warm


def test_reused_checks_that_cross_the_expansion_bound_are_refused_as_cold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bound is crossed while adding up tools whose checks are reused: the cold run refuses
    # the toolset there, so must the cached one.
    monkeypatch.setattr(bundle, "MAX_COPIED_BYTES", 20_000)
    big = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(60)}}
    ref = {"type": "object", "properties": {"x": {"$ref": "#/$defs/Big"}}}
    doc: dict[str, Any] = {"mcpstub": 1, "server": {"name": "s"}, "$defs": {"Big": big}}
    doc["tools"] = [{"name": f"t{i}", "inputSchema": ref} for i in range(8)]
    path = _write(tmp_path, doc)
    kept = Session()  # a `--watch` session, then a new process
    with running(kept):
        assert _same_as_cold(path, tmp_path / "cache").ok  # 8 copies fit, and their checks are kept
    doc["tools"] = [{"name": f"n{i}", "inputSchema": ref} for i in range(6)] + doc["tools"]
    _write(tmp_path, doc)
    for fresh_process in (False, True):
        with running(None if fresh_process else kept):
            warm = _same_as_cold(path, tmp_path / "cache")
        assert [d.code for d in warm.diagnostics] == ["expansion-too-large"]


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


# The CLI on a slow disk: each staged file takes a while, so two runs' writes overlap.
_SLOW_CLI = (
    "import sys, time; from mcpstub import write; stage = write._stage; "
    "write._stage = lambda *a: (time.sleep(0.03), stage(*a))[1]; "
    "from mcpstub.cli import main; sys.argv[0] = 'mcpstub'; sys.exit(main())"
)


def _cli(*args: str, cache: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "MCPSTUB_CACHE_DIR": str(cache)}
    return subprocess.Popen(
        [sys.executable, "-c", _SLOW_CLI, *args],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def test_concurrent_runs_into_one_folder_both_succeed_with_the_cold_files(tmp_path: Path) -> None:
    # Each run must not take the other's staged files for those of a killed run.
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [
            {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}}
            for i in range(20)
        ],
    }
    path = _write(tmp_path, doc)
    cold = _cli("generate", str(path), "--out", str(tmp_path / "cold"), "--no-cache", cache=tmp_path / "c0")
    assert cold.wait() == 0, cold.communicate()[0]
    for attempt in range(3):
        out = tmp_path / f"pkg{attempt}"
        runs = [
            _cli("generate", str(path), "--out", str(out), "--force", cache=tmp_path / "cache")
            for _ in range(2)
        ]
        for run in runs:
            text = run.communicate()[0]
            assert run.returncode == 0, text
            assert "Traceback" not in text
        assert _tree(out) == _tree(tmp_path / "cold")


@pytest.mark.parametrize("where", ["env", "config"])
def test_a_cache_folder_inside_the_package_is_refused(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The cache is not generated code: a run would put it in the package a cold run writes.
    monkeypatch.chdir(tmp_path)
    doc = {"mcpstub": 1, "server": {"name": "s"}, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    _write(tmp_path, doc)
    if where == "env":
        monkeypatch.setenv("MCPSTUB_CACHE_DIR", "pkg/handlers")
    else:
        monkeypatch.delenv("MCPSTUB_CACHE_DIR", raising=False)
        (tmp_path / "pyproject.toml").write_text('[tool.mcpstub]\ncache_dir = "pkg"\n', encoding="utf-8")
    assert main(["generate", "tools.json", "--out", "pkg"]) == 2
    err = capsys.readouterr().err
    assert "cache folder" in err and "inside the output folder pkg" in err and "Traceback" not in err
    assert not (tmp_path / "pkg").exists()
    assert main(["generate", "tools.json", "--out", "pkg", "--no-cache"]) == 0
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["generate", "tools.json", "--out", "pkg", "--force"]) == 0
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir() if p.is_dir()) == ["handlers"]


def test_work_cached_under_another_environment_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Line widths come from black's width table (or the interpreter's Unicode data): a cache
    # shared by environments with another black or Python must not hand one's text to the other,
    # nor a check another jsonschema-rs passed.
    from mcpstub.engine import model_groups  # noqa: PLC0415
    from mcpstub.engine import run as engine_run  # noqa: PLC0415

    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [
            {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}}
            for i in range(3)
        ],
    }
    path = _write(tmp_path, doc)
    assert _same_as_cold(path, tmp_path / "cache").ok
    found: list[bool] = []
    memos: list[memo_module.ToolMemo] = []
    real_get, real_memo = model_groups.ModelCache.get, memo_module.ToolMemo
    monkeypatch.setattr(
        model_groups.ModelCache, "get", lambda self, k: found.append(real_get(self, k) is not None) or None
    )
    monkeypatch.setattr(engine_run, "ToolMemo", lambda *args: memos.append(real_memo(*args)) or memos[-1])

    def reused() -> tuple[int, int]:
        found.clear()
        memos.clear()
        generate(path, path.name, cache_dir=tmp_path / "cache")
        return memos[0].hits, sum(found)

    assert reused() == (3, len(found))  # the same environment reuses every tool's pieces and models
    real_installed = stamp.installed
    for name in ("black", "pydantic", "jsonschema_rs"):
        monkeypatch.setattr(
            stamp, "installed", lambda n, name=name: "0.0" if n == name else real_installed(n)
        )
        _forget_environment()
        try:
            assert reused() == (0, 0)
        finally:
            monkeypatch.setattr(stamp, "installed", real_installed)
            _forget_environment()


@pytest.mark.parametrize("change", ["upgraded", "installed", "removed"])
def test_any_library_installed_upgraded_or_removed_is_another_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    # The model generator runs on libraries mcpstub never names (inflect names the class of an
    # array's items, isort orders imports): an upgrade of any may change the output, so no cached
    # work and no stamp made before it is taken after it.
    site = tmp_path / "site"
    (site / "inflect-7.5.0.dist-info").mkdir(parents=True)
    monkeypatch.syspath_prepend(str(site))
    _forget_environment()
    try:
        before = stamp.generator_fingerprint()
        if change == "upgraded":
            (site / "inflect-7.5.0.dist-info").rename(site / "inflect-7.6.0.dist-info")
        elif change == "installed":
            (site / "isort-6.0.1.dist-info").mkdir()
        else:
            (site / "inflect-7.5.0.dist-info").rmdir()
        _forget_environment()
        assert stamp.generator_fingerprint() != before
    finally:
        monkeypatch.undo()
        _forget_environment()


def _distribution(site: Path, folder: str, *requires: str) -> None:
    (site / folder).mkdir(parents=True)
    headers = [f"Name: {folder.split('-', maxsplit=1)[0]}", *(f"Requires-Dist: {r}" for r in requires)]
    (site / folder / "METADATA").write_text("\n".join(["Metadata-Version: 2.1", *headers, "", "text"]))


@pytest.mark.parametrize("change", ["unrelated", "unrelated-upgraded", "extra-only"])
def test_a_library_mcpstub_does_not_run_on_leaves_the_environment_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    # A stamp committed with the package must not change because a project installed something
    # mcpstub never imports (a web framework, a linter): `generate && git diff --exit-code` churned.
    site = tmp_path / "site"
    _distribution(site, "requests-2.31.0.dist-info", "urllib3>=1")
    monkeypatch.syspath_prepend(str(site))
    _forget_environment()
    try:
        before = stamp.generator_fingerprint()
        if change == "unrelated":
            _distribution(site, "urllib3-2.0.0.dist-info")
            _distribution(site, "My_Tool-1.0.egg-info")
        elif change == "unrelated-upgraded":
            (site / "requests-2.31.0.dist-info").rename(site / "requests-2.32.0.dist-info")
        else:  # what only an extra of a required distribution asks for (datamodel-code-generator[http])
            _distribution(site, "certifi-2026.10.19.dist-info")
        _forget_environment()
        assert stamp.generator_fingerprint() == before
    finally:
        monkeypatch.undo()
        _forget_environment()


def test_a_library_a_required_one_requires_is_part_of_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Followed transitively, whatever the spelling of its name, its markers or its metadata kind.
    site = tmp_path / "site"
    monkeypatch.syspath_prepend(str(site))
    requires = ("Some.Lib (>=1) ; python_version >= '3'", "x; extra == 'y'")
    _distribution(site, "mcpstub-9.0.0.dist-info", *requires)
    (site / "some_lib-1.0-py3.11.egg-info").mkdir()
    requires = "deeper_dep>=2\n\n[extra]\nx\n\n[:python_version >= '3.8']\nconditional\n"
    requires += "\n[other:sys_platform == 'win32']\nx\n"  # (an extra's, under a condition)
    (site / "some_lib-1.0-py3.11.egg-info" / "requires.txt").write_text(requires)
    _distribution(site, "conditional-1.0.dist-info")
    _distribution(site, "deeper_dep-2.0.dist-info")
    _distribution(site, "x-1.0.dist-info")
    _forget_environment()
    try:
        found = stamp.required_distributions()
        assert found == [
            "conditional-1.0.dist-info", "deeper_dep-2.0.dist-info", "mcpstub-9.0.0.dist-info",
            "some_lib-1.0-py3.11.egg-info",
        ]  # fmt: skip
        (site / "deeper_dep-2.0.dist-info").rename(site / "deeper_dep-2.1.dist-info")
        assert "deeper_dep-2.1.dist-info" in stamp.required_distributions()
        # An editable install's egg-info names no version: its PKG-INFO does.
        (site / "some_lib-1.0-py3.11.egg-info").rename(site / "some_lib.egg-info")
        info = "Metadata-Version: 2.1\nName: some_lib\nVersion: 1.1\n"
        (site / "some_lib.egg-info" / "PKG-INFO").write_text(info)
        assert "some_lib.egg-info 1.1" in stamp.required_distributions()
    finally:
        monkeypatch.undo()
        _forget_environment()


def test_identical_installs_in_other_places_are_one_environment() -> None:
    # A stamp committed with the package must not change on every machine that runs generate: the
    # key names versions and contents, not where the environment is or when it was installed.
    _forget_environment()
    key = stamp.environment_key()
    assert sys.prefix not in key and sys.base_prefix not in key and os.sep + "site-packages" not in key
    assert all(len(line) < 200 for line in key.splitlines()), key
    found = [line for line in key.splitlines() if line.startswith("datamodel_code_generator ")]
    assert len(found) == 1 and found[0] != "datamodel_code_generator absent"


def _forget_environment() -> None:
    stamp.environment_key.cache_clear()
    stamp.generator_fingerprint.cache_clear()


@pytest.mark.parametrize(
    "changed",
    ["validate.py", "engine/memory.py", "diff/compare.py", "__init__.py", "templates/tools.py.jinja"],
)
def test_a_change_to_any_module_or_template_changes_the_generator_fingerprint(
    monkeypatch: pytest.MonkeyPatch, changed: str
) -> None:
    """Every cache key and the stamp hold the generator's fingerprint: a stage, the engine, a
    subpackage or a template edited (an upgrade, a local patch) must make every key new."""
    package = Path(stamp.__file__).resolve().parents[1]
    target = (package.parents[1] if changed.startswith("templates/") else package) / changed
    assert target.is_file()
    before = stamp.generator_fingerprint()
    real = Path.read_bytes

    def read_bytes(path: Path) -> bytes:
        data = real(path)
        return data + b"\n# edited\n" if path.resolve() == target.resolve() else data

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    _forget_environment()
    try:
        assert stamp.generator_fingerprint() != before
    finally:
        monkeypatch.undo()
        _forget_environment()
    assert stamp.generator_fingerprint() == before


def test_another_environment_is_no_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A package made with another model generator or formatter is made again, not found current.
    toolset, out = (
        _write(
            tmp_path,
            {
                "mcpstub": 1,
                "server": {"name": "s"},
                "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
            },
        ),
        tmp_path / "pkg",
    )
    assert main(["generate", str(toolset), "--out", str(out)]) == 0
    assert stamp.is_current(toolset, out) is not None
    real_installed = stamp.installed
    monkeypatch.setattr(
        stamp, "installed", lambda n: "0.0" if n == "datamodel_code_generator" else real_installed(n)
    )
    _forget_environment()
    try:
        assert stamp.is_current(toolset, out) is None
    finally:
        monkeypatch.setattr(stamp, "installed", real_installed)
        _forget_environment()


def _edits() -> list[tuple[str, Callable[[dict[str, Any]], None]]]:
    """Edits a cache keyed loosely would mistake for no change, each applied to the last."""

    def props(doc: dict[str, Any], index: int = 0) -> dict[str, Any]:
        result: dict[str, Any] = doc["tools"][index]["inputSchema"]["properties"]
        return result

    def reorder(doc: dict[str, Any]) -> None:
        tool = doc["tools"][0]
        tool["inputSchema"]["properties"] = dict(reversed(list(props(doc).items())))
        doc["tools"][0] = dict(reversed(list(tool.items())))

    def value(number: object, zero: object) -> Callable[[dict[str, Any]], None]:
        def change(doc: dict[str, Any]) -> None:
            props(doc)["a"]["default"] = number
            props(doc, 1)["c"]["minimum"] = zero
            doc["$defs"]["P"]["properties"]["x"]["default"] = number

        return change

    def swap_names(doc: dict[str, Any]) -> None:
        doc["tools"][0]["name"], doc["tools"][1]["name"] = doc["tools"][1]["name"], doc["tools"][0]["name"]

    def definition_inward(doc: dict[str, Any]) -> None:
        shared = doc.pop("$defs")
        for tool in doc["tools"]:
            if "p" in tool["inputSchema"]["properties"]:
                tool["inputSchema"]["$defs"] = shared

    def definition_outward(doc: dict[str, Any]) -> None:
        for tool in doc["tools"]:
            if "$defs" in tool["inputSchema"]:
                doc["$defs"] = tool["inputSchema"].pop("$defs")

    def misspell(on: bool) -> Callable[[dict[str, Any]], None]:
        def change(doc: dict[str, Any]) -> None:
            if on:
                props(doc)["a"]["descripton"] = "x"  # a misspelled annotation: a warning
            else:
                props(doc)["a"].pop("descripton", None)

        return change

    return [
        ("key order", reorder),
        ("1.0 and -0.0", value(1.0, -0.0)),
        ("1 and 0.0", value(1, 0.0)),
        ("swapped names", swap_names),
        ("definition into the tool", definition_inward),
        ("definition back", definition_outward),
        ("a warning", misspell(True)),
        ("fixed", misspell(False)),
        ("the warning again", misspell(True)),
    ]


def test_edits_that_look_alike_give_a_cold_runs_files(tmp_path: Path) -> None:
    doc: dict[str, Any] = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number", "default": 1}}}},
        "tools": [
            {
                "name": "alpha",
                "description": "caf\u00e9",
                "inputSchema": {
                    "type": "object",
                    "properties": {"a": {"type": "number", "default": 1}, "p": {"$ref": "#/$defs/P"}},
                },
                "outputSchema": {"type": "object", "properties": {"r": {"type": "number"}}},
            },
            {"name": "beta", "inputSchema": {"type": "object", "properties": {"c": {"type": "number"}}}},
        ],
    }
    path = _write(tmp_path, doc)
    kept = Session()  # a `--watch` session: what was reused is in memory too
    with running(kept):
        _same_as_cold(path, tmp_path / "cache")
    for step, (what, edit) in enumerate(_edits()):
        edit(doc)
        _write(tmp_path, doc)
        if step % 2:
            kept = Session()  # a new process: what is reused comes from the files
        with running(kept):
            assert _same_as_cold(path, tmp_path / "cache").ok, what


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file() and p.name != ".pruned")


def test_entries_replaced_by_a_fifo_a_device_or_a_link_are_misses_not_hangs(tmp_path: Path) -> None:
    # Whatever sits at an entry's path, the run neither blocks on it nor reads without end: it is
    # a miss, and the files are a cold run's.
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(20)],
    }
    path = _write(tmp_path, doc)
    cache = tmp_path / "cache"
    assert generate(path, path.name, cache_dir=cache).ok
    entries = _entries(cache)
    assert {e.parent.parent.name for e in entries} >= {"models-v2"} and any(
        e.suffix == ".bin" for e in entries
    )
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"not an entry")
    for i, entry in enumerate(entries):
        entry.unlink()
        if i % 3 == 0:
            os.mkfifo(entry)
        elif i % 3 == 1:
            entry.symlink_to("/dev/zero")
        else:
            entry.symlink_to(outside)
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(_same_as_cold(path, cache)), daemon=True)
    worker.start()
    worker.join(120)
    assert not worker.is_alive(), "a planted entry made the run hang"
    assert done and done[0].ok


def test_unused_entries_are_pruned_by_age_and_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpstub.engine import store  # noqa: PLC0415

    tools = [
        {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"p": {"type": "integer"}}}}
        for i in range(30)
    ]
    path = _write(tmp_path, {"mcpstub": 1, "server": {"name": "s"}, "tools": tools})
    cache = tmp_path / "cache"
    assert generate(path, path.name, cache_dir=cache).ok
    live = _entries(cache)
    # Entries of a toolset gone for two months, and a leftover temporary file.
    stale = [cache / "models-v2" / "ab" / f"ab{i}.json" for i in range(3)] + [cache / "render-v2" / ".tmp-x"]
    for entry in stale:
        entry.parent.mkdir(parents=True, exist_ok=True)
        entry.write_bytes(b"old")
        os.utime(entry, (1, 1))
    # Pruning runs at most once a day: the first run stamped the folder, so nothing goes yet.
    assert generate(path, path.name, cache_dir=cache).ok
    assert all(e.exists() for e in stale)
    os.utime(cache / ".pruned", (1, 1))
    warm = _same_as_cold(path, cache)
    assert warm.ok
    assert not any(e.exists() for e in stale)
    assert _entries(cache) == live  # what the toolset uses stays
    # Past the size limit, the entries used longest ago go first, until the rest fits.
    ages = {e: 1_000_000 + i for i, e in enumerate(live)}
    for entry, when in ages.items():
        os.utime(entry, (when, when))
    sizes = sorted(e.stat().st_size for e in live)
    monkeypatch.setattr(store, "MAX_AGE", 10**12)
    monkeypatch.setattr(store, "MAX_BYTES", sum(sizes) - 1)
    assert store.prune(cache, now=2_000_000_000) == 1
    assert _entries(cache) == live[:0] + [e for e in live if e != min(ages, key=ages.__getitem__)]
    # A used entry is touched, so it counts as recent.
    old = min(_entries(cache), key=lambda e: e.stat().st_mtime)
    assert store._read_file(old) is not None
    assert old.stat().st_mtime > 1_500_000_000


_LINKED_TOOLSET = """\
mcpstub: 1
server: {name: linked, version: 1.0.0}
tools:
  - name: find
    inputSchema:
      type: object
      properties:
        city: {$ref: "REF#/$defs/City"}
"""


def _generate_says(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["generate", *argv])
    said = capsys.readouterr()
    return code, said.out + said.err


def _cold_tree(toolset: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, bytes]:
    code, said = _generate_says(capsys, str(toolset), "--out", str(out), "--no-cache")
    assert code == 0, said
    return _tree(out)


def _stale_then_cold(capsys: pytest.CaptureFixture[str], toolset: Path, out: Path, cold: Path) -> None:
    """`--check` finds the package stale, and a run writes the files a cold one writes."""
    assert _generate_says(capsys, str(toolset), "--out", str(out), "--check")[0] == 1
    code, said = _generate_says(capsys, str(toolset), "--out", str(out))
    assert code == 0 and "up to date" not in said, said
    assert _tree(out) == _cold_tree(toolset, cold, capsys) | {
        rel: data for rel, data in _tree(out).items() if rel.startswith("handlers/")
    }


@pytest.mark.parametrize("linked", ["folder", "file", "second-level"])
def test_a_symlink_pointed_elsewhere_is_a_change_though_no_file_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, linked: str
) -> None:
    # No file's bytes change: a link the references go through is pointed at another file. The
    # next run reads that file, so the package is stale, whichever link it is.
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    for version, kind in (("v1", "string"), ("v2", "integer")):
        (project / version).mkdir(parents=True)
        if linked == "second-level":  # common.yaml is the same; what it refers to differs
            (project / version / "common.yaml").write_text('$defs: {City: {$ref: "city.yaml#/$defs/City"}}\n')
            (project / version / "city.yaml").write_text(f"$defs: {{City: {{type: {kind}}}}}\n")
        else:
            (project / version / "common.yaml").write_text(f"$defs: {{City: {{type: {kind}}}}}\n")
    ref = "common.yaml" if linked == "file" else "schemas/common.yaml"
    toolset = project / "tools.yaml"
    toolset.write_text(_LINKED_TOOLSET.replace("REF", ref))
    link = project / ("common.yaml" if linked == "file" else "schemas")
    link.symlink_to("v1/common.yaml" if linked == "file" else "v1")
    out = project / "out" / "pkg"
    assert _generate_says(capsys, str(toolset), "--out", str(out))[0] == 0
    link.unlink()
    link.symlink_to("v2/common.yaml" if linked == "file" else "v2")
    _stale_then_cold(capsys, toolset, out, tmp_path / "cold" / "pkg")
    assert _generate_says(capsys, str(toolset), "--out", str(out), "--check")[0] == 0


@pytest.mark.parametrize("linked", ["file", "folder", "file in a referenced file"])
def test_a_link_to_the_toolset_itself_made_another_file_is_a_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, linked: str
) -> None:
    # A reference through a link to the toolset names its own definition; the link made a file of
    # its own, the reference names that file's: `--check` passed and every run, --force too, kept
    # the definition of the toolset (the tool's check was reused, the route never recorded).
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    project.mkdir()
    ref = {"file": "alias.yaml", "folder": "v/tools.yaml", "file in a referenced file": "mid.yaml"}[linked]
    toolset = project / "tools.yaml"
    toolset.write_text("$defs: {City: {type: string}}\n" + _LINKED_TOOLSET.replace("REF", ref))
    (project / "mid.yaml").write_text('$defs: {City: {$ref: "alias.yaml#/$defs/City"}}\n')
    link = project / ("v" if linked == "folder" else "alias.yaml")
    link.symlink_to("." if linked == "folder" else "tools.yaml")
    out = project / "out" / "pkg"
    assert _generate_says(capsys, str(toolset), "--out", str(out))[0] == 0
    assert "city: City | " in (out / "models.py").read_text()
    link.unlink()
    other = project / "other"
    other.mkdir()
    (other / "tools.yaml").write_text("$defs: {City: {type: integer}}\n")
    link.symlink_to("other" if linked == "folder" else "other/tools.yaml")
    _stale_then_cold(capsys, toolset, out, tmp_path / "cold" / "pkg")
    assert "city: City | " not in (out / "models.py").read_text()
    assert _generate_says(capsys, str(toolset), "--out", str(out), "--check")[0] == 0


def test_a_symlink_pointed_out_of_the_project_is_refused_not_up_to_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same bytes, found outside the toolset's folder now: a full run refuses the reference.
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    text = "$defs: {City: {type: string}}\n"
    (project / "real.yaml").write_text(text)
    (outside / "common.yaml").write_text(text)
    (project / "common.yaml").symlink_to("real.yaml")
    toolset = project / "tools.yaml"
    toolset.write_text(_LINKED_TOOLSET.replace("REF", "common.yaml"))
    out = project / "out" / "pkg"
    assert _generate_says(capsys, str(toolset), "--out", str(out))[0] == 0
    (project / "common.yaml").unlink()
    (project / "common.yaml").symlink_to(outside / "common.yaml")
    code, said = _generate_says(capsys, str(toolset), "--out", str(out))
    assert code == 1 and "ref-outside" in said, said


def test_a_toolset_behind_a_symlink_is_up_to_date_by_the_files_its_references_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # tools.yaml links to real/tools.yaml; its references are read beside the link, and so is the
    # stamp: an edit of ./common.yaml is seen, a common.yaml one folder up is not taken for it.
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    (project / "real").mkdir(parents=True)
    (project / "real" / "tools.yaml").write_text(_LINKED_TOOLSET.replace("REF", "common.yaml"))
    (project / "tools.yaml").symlink_to("real/tools.yaml")
    (project / "common.yaml").write_text("$defs: {City: {type: string}}\n")
    (tmp_path / "common.yaml").write_text("$defs: {City: {type: string}}\n")  # one folder up
    toolset, out = project / "tools.yaml", project / "out" / "pkg"
    assert _generate_says(capsys, str(toolset), "--out", str(out))[0] == 0
    assert json.loads((out / "_mcpstub.json").read_text())["sources"] == ["common.yaml"]
    code, said = _generate_says(capsys, str(toolset), "--out", str(out))
    assert code == 0 and "up to date" in said, said  # nothing changed: the shortcut holds
    (project / "common.yaml").write_text("$defs: {City: {type: integer}}\n")
    code, said = _generate_says(capsys, str(toolset), "--out", str(out))
    assert code == 0 and "up to date" not in said, said
    assert _tree(out) == _cold_tree(toolset, tmp_path / "cold" / "pkg", capsys) | {
        rel: data for rel, data in _tree(out).items() if rel.startswith("handlers/")
    }


def test_the_stamp_names_each_referenced_file_as_the_references_reach_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `./` and doubled slashes say nothing of where a path leads; `..` after a folder does (the
    # folder may be a symlink), so it is kept. No absolute path: the project may move.
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "common.yaml").write_text('$defs: {City: {$ref: "../city.yaml#/$defs/City"}}\n')
    (tmp_path / "city.yaml").write_text("$defs: {City: {type: string}}\n")
    toolset = tmp_path / "tools.yaml"
    toolset.write_text(_LINKED_TOOLSET.replace("REF", "./sub//common.yaml"))
    out = tmp_path / "pkg"
    assert _generate_says(capsys, str(toolset), "--out", str(out))[0] == 0
    stamp_data = json.loads((out / "_mcpstub.json").read_text())
    assert stamp_data["sources"] == ["sub/common.yaml", "sub/../city.yaml"]
    moved = tmp_path.parent / f"{tmp_path.name}-moved"
    tmp_path.rename(moved)
    try:
        code, said = _generate_says(capsys, str(moved / "tools.yaml"), "--out", str(moved / "pkg"))
        assert code == 0 and "up to date" in said, said
    finally:
        moved.rename(tmp_path)


def test_a_file_a_symlinked_file_refers_to_is_named_where_it_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # schemas/common.yaml links to other/common.yaml, whose `sub.yaml` is other/sub.yaml (read
    # from the folder the file is in): the stamp names that, the shortcut holds, an edit is seen.
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "other").mkdir()
    (tmp_path / "schemas").mkdir()
    (tmp_path / "other" / "common.yaml").write_text('$defs: {City: {$ref: "sub.yaml#/$defs/Name"}}\n')
    (tmp_path / "other" / "sub.yaml").write_text("$defs: {Name: {type: string, minLength: 1}}\n")
    (tmp_path / "schemas" / "common.yaml").symlink_to("../other/common.yaml")
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    toolset.write_text(_LINKED_TOOLSET.replace("REF", "schemas/common.yaml"))
    assert _generate_says(capsys, str(toolset), "--out", str(out))[0] == 0
    sources = json.loads((out / "_mcpstub.json").read_text())["sources"]
    assert sources == ["schemas/common.yaml", "other/sub.yaml"]
    assert "up to date" in _generate_says(capsys, str(toolset), "--out", str(out))[1]
    (tmp_path / "other" / "sub.yaml").write_text("$defs: {Name: {type: string, minLength: 5}}\n")
    code, said = _generate_says(capsys, str(toolset), "--out", str(out))
    assert code == 0 and "up to date" not in said, said
    assert "min_length=5" in (out / "models.py").read_text()


def test_a_referenced_file_become_a_fifo_is_a_full_run_not_a_hang(tmp_path: Path) -> None:
    # The shortcut hashes the referenced files; a FIFO would block the read for ever. The full run
    # says what is wrong.
    common = tmp_path / "common.yaml"
    common.write_text("$defs: {City: {type: string}}\n")
    (tmp_path / "tools.yaml").write_text(_LINKED_TOOLSET.replace("REF", "common.yaml"))
    command = [sys.executable, "-m", "mcpstub", "generate", "tools.yaml", "--out", "pkg"]
    env = {**os.environ, "MCPSTUB_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=120, check=False)
    assert first.returncode == 0
    common.unlink()
    os.mkfifo(common)
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1 and "not a regular file" in done.stderr, done.stderr


def test_a_project_s_own_metadata_in_the_current_folder_is_not_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m mcpstub` imports from the current folder first; an `x.egg-info` there (an editable
    # install of the project) must not make runs from the project and from a subfolder differ.
    (tmp_path / "project.egg-info").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "project" not in stamp.installed_distributions()
    monkeypatch.chdir(tmp_path.parent)
    assert "project" in stamp.installed_distributions()  # a folder imported from otherwise


def test_installing_an_unrelated_package_leaves_the_committed_stamp_and_the_check_as_they_were(
    tmp_path: Path,
) -> None:
    # `generate && git diff --exit-code` in CI: a project that also installs a web framework or a
    # linter must not see `_mcpstub.json` change; an upgrade of what the models are made with does.
    common = tmp_path / "common.yaml"
    common.write_text("$defs: {City: {type: string}}\n")
    (tmp_path / "tools.yaml").write_text(_LINKED_TOOLSET.replace("REF", "common.yaml"))
    site = tmp_path / "site"
    env = {**os.environ, "MCPSTUB_CACHE_DIR": str(tmp_path / "cache")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH", "")]))

    def generate(*more: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "mcpstub", "generate", "tools.yaml", "--out", "pkg", *more]
        return subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
        )

    assert generate().returncode == 0
    stamp_file = tmp_path / "pkg" / "_mcpstub.json"
    before = stamp_file.read_bytes()
    _distribution(site, "flask-3.1.0.dist-info", "werkzeug>=3")
    _distribution(site, "werkzeug-3.1.0.dist-info")
    assert generate("--check").returncode == 0
    assert generate().returncode == 0 and stamp_file.read_bytes() == before
    _distribution(site, "inflect-99.0.0.dist-info")  # ahead of the installed one: what is imported
    assert generate().returncode == 0 and stamp_file.read_bytes() != before


def test_a_reference_naming_the_toolset_s_own_file_is_cached_as_cold(tmp_path: Path) -> None:
    # `tools.json#/$defs/...` is the toolset's own definition; `tools.json#/tools/1/...` reaches into
    # another tool's entry, which a tool's cached check does not cover: each edit of that tool must
    # be seen (a renamed target an error, a field added in the model), as a cold run sees it.
    target = {"type": "object", "properties": {"k": {"type": "string"}}}
    doc: dict[str, Any] = {"mcpstub": 1, "server": {"name": "s"}, "$defs": {"Point": {"type": "number"}}}
    doc["tools"] = [
        {"name": "a", "inputSchema": {"type": "object", "properties": {
            "z": {"$ref": "tools.json#/tools/1/inputSchema/properties/w"},
            "p": {"$ref": "tools.json#/$defs/Point"}}}},
        {"name": "b", "inputSchema": {"type": "object", "properties": {"w": target}}},
    ]  # fmt: skip
    cache = tmp_path / "cache"
    _same_as_cold(_write(tmp_path, doc), cache)
    target["properties"]["k2"] = {"type": "integer"}  # a field added where tool a's z points
    assert "k2" in _same_as_cold(_write(tmp_path, doc), cache).ours["models.py"]
    doc["tools"][1]["inputSchema"]["properties"] = {"ww": target}  # the target renamed away
    refused = _same_as_cold(_write(tmp_path, doc), cache)
    assert not refused.ok and "does not resolve" in "\n".join(_formatted(refused))
    doc["tools"][1]["inputSchema"]["properties"] = {"w": target}
    doc["tools"][0]["inputSchema"]["properties"].pop("z")  # only the toolset's definition named
    for name in ("x", "y"):  # another tool edited: the stamp's sources as a cold run's
        doc["tools"][1]["description"] = name
        path = _write(tmp_path, doc)
        assert main(["generate", str(path), "--out", str(tmp_path / "pkg")]) == 0
        warm = (tmp_path / "pkg" / "_mcpstub.json").read_text()
        assert main(["generate", str(path), "--out", str(tmp_path / "pkg"), "--no-cache", "--force"]) == 0
        assert (tmp_path / "pkg" / "_mcpstub.json").read_text() == warm
