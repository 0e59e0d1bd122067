"""Per-tool render pieces reused across runs: the files are those of a cold run, always."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpstub.engine import pieces as memo_module
from mcpstub.engine.memory import Memory
from mcpstub.engine.pieces import TOOL_KEY, ToolMemo
from mcpstub.engine.run import generating
from mcpstub.engine.session import Session, running
from mcpstub.pipeline import check_toolset, generate
from mcpstub.render import render_package
from mcpstub.surface import _doubles, canonical_json, render_surface, surface
from tests.unit.test_modelcache import SHARED, edit, tools

ROOT = Path(__file__).resolve().parents[2]


def _write(folder: Path, doc: dict[str, Any]) -> Path:
    path = folder / "tools.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_pieces_reused_over_random_edit_sequences_give_a_cold_runs_files(
    tmp_path_factory: Any, data: Any
) -> None:
    folder = tmp_path_factory.mktemp("memo")
    kept = Session()  # a `--watch` session: the last run's pieces in memory
    doc: dict[str, Any] = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": copy.deepcopy(SHARED),
        "tools": data.draw(st.lists(tools, min_size=1, max_size=6, unique_by=lambda t: t["name"])),
    }
    for step in range(data.draw(st.integers(1, 4))):
        path = _write(folder, doc)
        cold = generate(path, "tools.json")
        if step % 2:
            kept = Session()  # a new process: pieces come from the file
        with running(kept):
            warm = generate(path, "tools.json", cache_dir=folder / "cache")
        assert cold.ok, [d.format() for d in cold.diagnostics]
        assert warm.ours == cold.ours
        assert warm.yours == cold.yours
        doc = data.draw(edit(doc))


def _toolset(folder: Path, count: int = 4) -> Any:
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [
            {
                "name": f"t{n}",
                "description": f"tool {n}",
                "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
            }
            for n in range(count)
        ],
    }
    checked = check_toolset(_write(folder, doc))
    assert checked.toolset is not None
    return doc, checked.toolset


def test_only_changed_tools_are_rendered_again(tmp_path: Path) -> None:
    doc, toolset = _toolset(tmp_path)
    path = tmp_path / "tools.json"
    first = ToolMemo(tmp_path / "cache", path)
    expected = render_package(toolset, "", memo=first)
    first.save()
    assert first.hits == 0
    second = ToolMemo(tmp_path / "cache", path)
    assert render_package(toolset, "", memo=second) == expected
    assert second.hits == 4
    doc["tools"][2]["description"] = "changed"
    changed = check_toolset(_write(tmp_path, doc)).toolset
    third = ToolMemo(tmp_path / "cache", path)
    package = render_package(changed, "", memo=third)
    assert third.hits == 3
    assert package == render_package(changed, "")
    assert "changed" in package.ours["tools.py"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-1] + bytes([b[-1] ^ 1]),  # a flipped bit
        lambda b: b[: len(b) // 2],  # a torn write
        lambda b: b"",  # an empty file
        lambda b: b.replace(b"tool 1", b"tool 9"),  # edited content, stale hash
        lambda b: memo_module._MAGIC + b" " + b"0" * 64 + b"\n\x00garbage",  # a wrong hash
    ],
)
def test_a_damaged_memo_file_is_ignored_and_rewritten(tmp_path: Path, damage: Any) -> None:
    _, toolset = _toolset(tmp_path)
    path = tmp_path / "tools.json"
    memo = ToolMemo(tmp_path / "cache", path)
    expected = render_package(toolset, "", memo=memo)
    memo.save()
    [stored] = (tmp_path / "cache").rglob("*.bin")
    stored.write_bytes(damage(stored.read_bytes()))
    again = ToolMemo(tmp_path / "cache", path)
    assert render_package(toolset, "", memo=again) == expected
    assert again.hits == 0
    again.save()
    third = ToolMemo(tmp_path / "cache", path)
    render_package(toolset, "", memo=third)
    assert third.hits == 4, "the damaged file was not rewritten"


def test_an_unwritable_memo_folder_costs_nothing_but_time(tmp_path: Path) -> None:
    (tmp_path / "cache").write_text("a file where the folder would be")
    _, toolset = _toolset(tmp_path)
    memo = ToolMemo(tmp_path / "cache", tmp_path / "tools.json")
    assert render_package(toolset, "", memo=memo) == render_package(toolset, "")
    memo.save()  # no exception


def test_no_cache_reuses_nothing_even_in_this_process(tmp_path: Path) -> None:
    _, toolset = _toolset(tmp_path)
    for _ in range(2):
        memo = ToolMemo(None, tmp_path / "tools.json")
        render_package(toolset, "", memo=memo)
        memo.save()
        assert memo.hits == 0


# --- canonical JSON: the fast writer spells exactly what RFC 8785's does ----------------------------

KEYS = st.text(st.characters(blacklist_categories=["Cs"]), max_size=4) | st.sampled_from(
    ["a", "b", "\U0001f600", "\ue000", "\uffff", "A", "é", "\x7f", "\x1f", ""]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.sampled_from([0, -1, 2**53 - 1, 2**53, 2**53 + 1, 10**15, 10**16, -(10**16)])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1.0, 1e21, 1e-7, 5e-324, 0.1, 123456789.0])
    | st.text(st.characters(blacklist_categories=["Cs"]), max_size=8)
    | st.sampled_from(["\x00", "\b\t\n\f\r", "\u2028", '"\\', "\U0001f600", "e", "1.5", "true"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(VALUES)
def test_canonical_json_is_rfc_8785(value: Any) -> None:
    assert canonical_json(value) == bytes(rfc8785.dumps(_doubles(value)))


def test_canonical_json_spells_the_rfc_examples() -> None:
    value = {"b": [1.0, 1e21, 1e-7, -0.0], "\U0001f600": 1, "\ue000": 2, "a": 2**53 + 1}
    assert canonical_json(value) == bytes(rfc8785.dumps(_doubles(value)))
    assert canonical_json({"z": 1, "a": [True, None, "é\n"]}) == '{"a":[true,null,"é\\n"],"z":1}'.encode()


# --- surface.json assembled from per-tool texts ------------------------------------------------------


@pytest.mark.parametrize(
    "odd",
    ["\x000:0", "\\u00000:0", '"\x000:1",', "\n", "\U0001f600", "  \x001:0"],
)
def test_surface_from_pieces_is_the_whole_dump_even_with_text_that_looks_like_a_place(
    tmp_path: Path, odd: str
) -> None:
    doc = {
        "mcpstub": 1,
        "server": {"name": "s" + odd, "version": odd, "instructions": odd},
        "tools": [
            {
                "name": "a",
                "description": odd,
                "inputSchema": {"type": "object", "properties": {odd: {"const": odd}}},
            },
            {
                "name": "b",
                "title": odd,
                "inputSchema": {"type": "object", "enum": [{odd: [odd]}], "default": {}},
            },
        ],
    }
    checked = check_toolset(_write(tmp_path, doc))
    toolset = checked.toolset
    assert toolset is not None, [d.format() for d in checked.diagnostics]
    whole = json.dumps(surface(toolset), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert render_surface(toolset) == whole
    assert render_package(toolset, "").ours["surface.json"] == whole


def test_a_text_is_compiled_once_and_a_broken_one_is_still_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpstub import compilecheck as pytext  # noqa: PLC0415

    compiled: list[str] = []
    real = pytext.compile_check
    monkeypatch.setattr(pytext, "compile_check", lambda path, text: (compiled.append(path), real(path, text)))
    first = ToolMemo(tmp_path / "cache", tmp_path / "tools.json")
    first.compile_check("a.py", "x = 1\n")
    first.save()
    second = ToolMemo(tmp_path / "cache", tmp_path / "tools.json")
    second.compile_check("a.py", "x = 1\n")
    assert compiled == ["a.py"]
    with pytest.raises(pytext.GeneratedCodeError):
        second.compile_check("b.py", "x = (\n")
    assert compiled == ["a.py", "b.py"]


# --- checks reused from the memo ------------------------------------------------------------------


def _big(properties: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": "d" * 80} for i in range(properties)},
    }


def test_reused_checks_still_count_toward_the_expansion_bound(tmp_path: Path) -> None:
    ref = {"type": "object", "properties": {"x": {"$ref": "#/$defs/Big"}}}
    doc: dict[str, Any] = {"mcpstub": 1, "server": {"name": "s"}, "$defs": {"Big": _big(2000)}}
    doc["tools"] = [{"name": f"t{i}", "inputSchema": ref} for i in range(20)]
    path = _write(tmp_path, doc)
    assert generate(path, "tools.json", cache_dir=tmp_path / "cache").ok  # 20 tools fit, and are remembered
    doc["tools"] = [{"name": f"t{i}", "inputSchema": ref} for i in range(400)]
    _write(tmp_path, doc)
    warm = generate(path, "tools.json", cache_dir=tmp_path / "cache")
    cold = generate(path, "tools.json")
    assert not cold.ok
    assert [d.format() for d in warm.diagnostics] == [d.format() for d in cold.diagnostics]
    assert any(d.code == "expansion-too-large" for d in warm.diagnostics)


def test_a_tool_with_a_warning_warns_on_every_run(tmp_path: Path) -> None:
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [
            {
                "name": "a",
                "inputSchema": {"type": "object", "properties": {"p": {"type": "string", "descripton": "x"}}},
            },
            {"name": "b", "inputSchema": {"type": "object"}},
        ],
    }
    path = _write(tmp_path, doc)
    for _ in range(3):
        result = generate(path, "tools.json", cache_dir=tmp_path / "cache")
        assert result.ok
        assert [d.code for d in result.diagnostics] == ["unknown-keyword"], [
            d.format() for d in result.diagnostics
        ]


def test_a_changed_referenced_file_is_seen_although_the_tool_entry_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "point.json").write_text(
        json.dumps({"type": "object", "properties": {"x": {"type": "integer"}}})
    )
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [
            {"name": "a", "inputSchema": {"type": "object", "properties": {"p": {"$ref": "point.json"}}}}
        ],
    }
    path = _write(tmp_path, doc)
    first = generate(path, "tools.json", cache_dir=tmp_path / "cache")
    assert first.ok, [d.format() for d in first.diagnostics]
    (tmp_path / "point.json").write_text(
        json.dumps({"type": "object", "properties": {"y": {"type": "string"}}})
    )
    again = generate(path, "tools.json", cache_dir=tmp_path / "cache")
    assert again.ok
    assert again.ours == generate(path, "tools.json").ours
    assert "'y'" in again.ours["tools.py"] or '"y"' in again.ours["tools.py"]


def test_clean_checks_are_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpstub import validate  # noqa: PLC0415

    _, _ = _toolset(tmp_path, 6)
    path = tmp_path / "tools.json"
    expected = generate(path, "tools.json")
    assert generate(path, "tools.json", cache_dir=tmp_path / "cache").ours == expected.ours
    checked: list[str] = []
    real = validate._Checker._tool
    monkeypatch.setattr(
        validate._Checker,
        "_tool",
        lambda self, path, raw, *rest: (checked.append(raw["name"]), real(self, path, raw, *rest))[1],
    )
    again = generate(path, "tools.json", cache_dir=tmp_path / "cache")
    assert again.ours == expected.ours
    assert checked == []


def test_a_tool_taken_from_the_memo_is_not_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its key and the hash its models are made from are kept with it: a new process hashes
    # only the tool an edit changed, and the files are still a cold run's.
    from mcpstub.engine import model_groups  # noqa: PLC0415

    doc, _ = _toolset(tmp_path, 6)
    path = tmp_path / "tools.json"
    cache = tmp_path / "cache"
    generate(path, "tools.json", cache_dir=cache)
    doc["tools"][3]["inputSchema"]["properties"]["added"] = {"type": "integer"}
    _write(tmp_path, doc)
    hashed: list[str] = []
    real_key, real_marshal = memo_module._tool_key, model_groups._marshal
    monkeypatch.setattr(memo_module, "_tool_key", lambda t: (hashed.append(t.name), real_key(t))[1])
    monkeypatch.setattr(
        model_groups,
        "_marshal",
        lambda v: (hashed.append(v.name) if isinstance(v, memo_module.Tool) else None, real_marshal(v))[1],
    )
    again = generate(path, "tools.json", cache_dir=cache)
    assert sorted(hashed) == [doc["tools"][3]["name"]] * 2
    assert again.ours == generate(path, "tools.json").ours


def test_what_a_memory_keeps_stays_within_its_budget() -> None:
    # A long --watch session sees definition after definition: what is kept stays bounded, and
    # what is found is what was put, by key or by object.
    kept = Memory(budget=2_000)
    objects = [[i] for i in range(500)]
    for i, obj in enumerate(objects):
        key = f"definition {i}".encode()
        assert kept.keyed("text", key, lambda i=i: "x" * (i % 50)) == "x" * (i % 50)
        assert kept.keyed("text", key, lambda: "made again") == "x" * (i % 50)
        assert kept.of("list", obj, lambda o: o[0] * 2) == i * 2
        assert kept.known("list", obj) == i * 2
        assert kept._spent <= 2_000
    assert len(kept._keyed) + len(kept._objects) < 40  # it started over, more than once
    assert kept.keyed("text", b"never put", lambda: None) is None
    assert kept.known("list", [0]) is None  # an equal object is another object


def test_a_session_lets_go_of_what_it_made_of_objects_it_no_longer_holds(tmp_path: Path) -> None:
    """A `--watch` session's memory would otherwise keep every earlier read's schemas alive (its
    entries hold their objects); what it made of the tools it still holds stays."""
    _toolset(tmp_path)
    path = tmp_path / "tools.json"
    kept = Session()
    with running(kept):
        generate(path, "tools.json", cache_dir=tmp_path / "cache")
    tools = list(kept.tools.values())
    assert tools and all(kept.memory.known(TOOL_KEY, tool) is not None for tool in tools)
    schemas = [tool.input_schema for tool in tools]
    assert any(kept.memory.known("condensed", schema) is not None for schema in schemas)
    with running(kept):
        assert all(kept.memory.known(TOOL_KEY, tool) is not None for tool in tools)
        assert all(kept.memory.known("condensed", schema) is None for schema in schemas)
    spent = kept.memory._spent
    kept.memory.forget_objects()
    assert not kept.memory._objects and kept.memory._spent < spent


def test_what_only_serves_the_next_run_is_left_until_the_files_are_written(tmp_path: Path) -> None:
    _, toolset = _toolset(tmp_path)
    path = tmp_path / "tools.json"
    cache = tmp_path / "cache"
    with generating(cache, path):  # as the command line runs it, the package written within
        assert generate(path).ok
        assert not list((cache / memo_module.RENDER_FOLDER).glob("*.bin"))
    again = ToolMemo(cache, path)
    render_package(toolset, "", memo=again)
    assert again.hits == 4, "the pieces were not stored"
    # In a run of its own, generate stores its pieces itself.
    assert generate(path, cache_dir=tmp_path / "other").ok
    assert list((tmp_path / "other" / memo_module.RENDER_FOLDER).glob("*.bin"))
    # A run that renders nothing (an invalid toolset) keeps the pieces stored before.
    stored = {p: p.read_bytes() for p in (cache / memo_module.RENDER_FOLDER).glob("*.bin")}
    path.write_text("{")
    with generating(cache, path):
        assert not generate(path).ok
    assert {p: p.read_bytes() for p in (cache / memo_module.RENDER_FOLDER).glob("*.bin")} == stored


def test_a_session_writes_its_memo_once_as_it_ends_and_a_later_run_reuses_it(tmp_path: Path) -> None:
    """`--watch` keeps the pieces in memory; the cache file is written as the session ends, with
    what its last run made (not each save's 23 MB at 500 tools), and a run after reuses it."""
    doc, _ = _toolset(tmp_path)
    path = tmp_path / "tools.json"
    cache = tmp_path / "cache"
    kept = Session()
    for description in ("first", "second"):
        doc["tools"][0]["description"] = description
        _write(tmp_path, doc)
        with running(kept), generating(cache, path):
            assert generate(path).ok
        assert not list((cache / memo_module.RENDER_FOLDER).glob("*.bin"))
    kept.close()
    again = ToolMemo(cache, path)
    checked = check_toolset(path).toolset
    assert checked is not None
    render_package(checked, "", memo=again)
    assert again.hits == 4, "the session's last pieces were not written as it ended"
    kept.close()  # (a second close writes nothing again)


def test_a_tool_key_tells_definitions_apart_by_value_not_by_object() -> None:
    from dataclasses import replace  # noqa: PLC0415

    from mcpstub.engine.fingerprints import fingerprint  # noqa: PLC0415
    from mcpstub.engine.pieces import tool_key  # noqa: PLC0415
    from mcpstub.ir import Tool  # noqa: PLC0415

    def tool(defs: dict[str, Any]) -> Tool:
        schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": defs}
        base = Tool(
            name="t", identifier="t", class_prefix="T", input_class="TInput", output_class=None,
            result_class="TResult", dialect="2020-12", input_schema=schema, output_schema=None,
            advertised={"name": "t", "inputSchema": schema},
        )  # fmt: skip
        return replace(base)

    a = {"type": "object", "properties": {"n": {"type": "integer"}}}
    same = tool({"A": a})
    # Equal values in other objects: the same key. A value that differs anywhere in a
    # definition (a type, a key's order, 1 against 1.0 or True): another key.
    assert tool_key(same) == tool_key(tool({"A": copy.deepcopy(a)}))
    others = [
        {"A": {"type": "object", "properties": {"n": {"type": "number"}}}},
        {"A": {"properties": {"n": {"type": "integer"}}, "type": "object"}},
        {"A": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}},
        {"A": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1.0}}}},
        {"A": {"type": "object", "properties": {"n": {"type": "integer", "minimum": True}}}},
        {"A": a, "B": {}},
        {"B": a},
        # A definition written as the very text of another's fingerprint is not that definition.
        {"A": fingerprint(a).hex()},
    ]
    keys = {tool_key(tool(defs)) for defs in others}
    assert len(keys) == len(others) and tool_key(same) not in keys
