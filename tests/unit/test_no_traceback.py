"""No traceback for any input: odd tool names, deep nesting, odd numbers and text, fuzzed toolsets.

Every toolset gives a clean success or located diagnostics, never an exception or "mcpstub bug".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpstub.load import MAX_DEPTH
from mcpstub.pipeline import check_toolset, generate

HEAD = "mcpstub: 1\nserver: {name: s}\n"

# Python keywords, soft keywords, builtins, dunders and the package's own module names.
ODD_NAMES = [
    "None", "True", "False", "match", "case", "type", "_", "print", "class", "__init__", "__class__",
    "self", "async", "await", "str", "object", "list", "dict", "Tool", "TOOLS", "models", "server",
    "tools", "handlers", "results", "testing", "__main__", "__", "0", "9lives", "-", ".", "_.-",
    "ToolError", "BaseModel", "Field", "Any", "annotations", "mcp", "pydantic", "typing",
]  # fmt: skip


def test_odd_names_generate_a_package_that_imports(tmp_path: Path) -> None:
    schema = '{type: object, properties: {"None": {type: object, properties: {"class": {type: string}}}}}'
    tools = "".join(
        f"  - name: {json.dumps(n)}\n    inputSchema: {schema}\n    outputSchema: {schema}\n"
        for n in ODD_NAMES
    )
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + "tools:\n" + tools, "utf-8")
    generated = generate(path, "tools.yaml")
    # every name either works or is refused for a reason (two names mapping to one Python name)
    refused = {d.message for d in generated.diagnostics}
    assert all(d.code == "name-collision" for d in generated.diagnostics), refused
    if generated.diagnostics:
        return
    pkg = tmp_path / "pkg"
    for rel, text in {**generated.ours, **generated.yours}.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text, "utf-8")
    code = f"import pkg.tools as t, pkg.models; print(sorted(t.TOOLS) == sorted({ODD_NAMES!r}))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.stdout.strip() == "True", run.stderr


def test_keyword_tool_names_get_valid_classes(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    names = ("None", "True", "False")
    entries = "".join(f"  - {{name: '{n}', inputSchema: {{type: object}}}}\n" for n in names)
    path.write_text(HEAD + "tools:\n" + entries, "utf-8")
    checked = check_toolset(path, "tools.yaml")
    assert checked.ok, [d.format() for d in checked.diagnostics]
    assert checked.toolset is not None
    assert [t.input_class for t in checked.toolset.tools] == [
        "NoneToolInput", "TrueToolInput", "FalseToolInput"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "names",
    [("get_user", "Get_User"), ("get-user", "get.user"), ("a.b", "a_b"), ("getUser", "get_user")],
)
def test_names_differing_in_case_or_separators_are_located_errors(
    tmp_path: Path, names: tuple[str, str]
) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        HEAD + "tools:\n" + "".join(f"  - {{name: {n}, inputSchema: {{type: object}}}}\n" for n in names),
        "utf-8",
    )
    checked = check_toolset(path, "tools.yaml")
    assert [(d.code, d.location.line) for d in checked.diagnostics if d.is_error] == [("name-collision", 5)]


def _nest(kind: str, levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        if kind == "properties":
            schema = {"type": "object", "properties": {"a": schema}}
        elif kind == "items":
            schema = {"type": "array", "items": schema}
        else:
            schema = {"not": schema}
    return schema


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _deepest_toolset(kind: str) -> dict[str, Any]:
    """A toolset exactly MAX_DEPTH deep: a shared definition, input, output and an example."""
    per = 2 if kind == "properties" else 1
    levels = (MAX_DEPTH - 4) // per
    doc: dict[str, Any] = {}
    while True:
        instance: Any = "x"
        for _ in range(MAX_DEPTH - 5):
            instance = {"a": instance}
        doc = {
            "mcpstub": 1,
            "server": {"name": "s"},
            "$defs": {"Deep": {"type": "object", "properties": {"v": _nest(kind, levels)}}},
            "tools": [
                {
                    "name": "deep",
                    "inputSchema": {"type": "object", "properties": {"d": {"$ref": "#/$defs/Deep"}}},
                    "outputSchema": {"type": "object", "properties": {"r": _nest(kind, levels)}},
                },
                {"name": "free", "inputSchema": {"type": "object"}, "examples": [{"input": instance}]},
            ],
        }
        if _depth(doc) <= MAX_DEPTH:
            return doc
        levels -= 1


@pytest.mark.parametrize("kind", ["properties", "items", "not"])
def test_the_deepest_accepted_toolset_generates_and_imports(tmp_path: Path, kind: str) -> None:
    doc = _deepest_toolset(kind)
    assert _depth(doc) == MAX_DEPTH
    (tmp_path / "tools.yaml").write_text(json.dumps(doc), "utf-8")
    env_cmd = [sys.executable, "-m", "mcpstub", "generate", "tools.yaml", "--out", "pkg", "--emit-tests"]
    result = subprocess.run(env_cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    code = "import pkg.tools, pkg.models, pkg.server, pkg.test_contract"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr


def test_one_level_deeper_is_a_located_error(tmp_path: Path) -> None:
    doc = _deepest_toolset("properties")
    doc["tools"][1]["examples"][0]["input"] = {"wrap": doc["tools"][1]["examples"][0]["input"]}
    (tmp_path / "tools.yaml").write_text(json.dumps(doc, indent=1), "utf-8")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    [d] = checked.diagnostics
    assert d.code == "yaml-too-deep" and d.location.line > 1
    assert f"deeper than {MAX_DEPTH} levels" in d.message


# --- fuzzing: toolsets written as JSON text (JSON is YAML) with raw number tokens -----------------


class Raw(str):
    """A token written into the text as is (a number JSON cannot spell, such as 1e400)."""


NUMBERS = ["1e400", "-1e400", "-0.0", "-0", "1e-400", "9" * 400, "0x1F", "0o17", ".nan", ".inf", "-.inf",
           "1.0", "1_000", "+5", "0.1e1", "NaN"]  # fmt: skip
TEXT = st.text(
    st.characters(
        blacklist_categories=["Cs"], blacklist_characters="\x00"
    ),  # lone surrogates cannot be written as UTF-8
    max_size=12,
)
NAME = st.one_of(st.sampled_from(ODD_NAMES), TEXT, st.from_regex(r"[A-Za-z0-9_.\-]{1,130}", fullmatch=True))
SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(), TEXT, st.sampled_from(NUMBERS).map(Raw),
    st.floats(allow_nan=False, allow_infinity=False),
)  # fmt: skip
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null", "interger"])


def _schemas() -> st.SearchStrategy[Any]:
    leaf = st.one_of(
        st.booleans(),
        st.fixed_dictionaries({"type": TYPES}),
        st.fixed_dictionaries({"enum": st.lists(SCALAR, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"const": SCALAR}),
        st.fixed_dictionaries({"type": st.just("integer"), "minimum": SCALAR, "default": SCALAR}),
        st.fixed_dictionaries({"type": st.just("string"), "pattern": st.sampled_from(["^a", "(", "\\p{L}"])}),
        st.dictionaries(TEXT, SCALAR, max_size=2),  # unknown keywords, odd text
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.fixed_dictionaries(
                {"type": st.just("object"), "properties": st.dictionaries(NAME, inner, max_size=3)},
                optional={"required": st.lists(NAME, max_size=2), "additionalProperties": inner},
            ),
            st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
            st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
            st.fixed_dictionaries({"not": inner}),
            st.fixed_dictionaries({"$ref": st.sampled_from(["#/$defs/D", "#/$defs/None", "#", "#/x"])}),
        ),
        max_leaves=12,
    )


def _root(schema: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"p": schema}}


TOOL = st.fixed_dictionaries(
    {"name": NAME, "inputSchema": _schemas().map(_root)},
    optional={
        "outputSchema": _schemas().map(_root),
        "description": TEXT,
        "annotations": st.dictionaries(st.sampled_from(["readOnlyHint", "category", "title"]), SCALAR),
        "examples": st.lists(st.fixed_dictionaries({"input": st.dictionaries(NAME, SCALAR)}), max_size=2),
    },
)
TOOLSET = st.fixed_dictionaries(
    {
        "mcpstub": st.just(1),
        "server": st.fixed_dictionaries({"name": st.one_of(TEXT, st.just("s"))}),
        "tools": st.lists(TOOL, max_size=4),
    },
    optional={"$defs": st.dictionaries(st.sampled_from(["D", "None", "Tool", "x y"]), _schemas())},
)


def _write(value: Any) -> str:
    """JSON text, except that Raw tokens are written as they are."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {_write(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_write(v) for v in value) + "]"
    return json.dumps(value)


def _assert_clean(diagnostics: list[Any]) -> None:
    for d in diagnostics:
        assert d.location.line >= 1 and d.location.col >= 1, d.format()
        assert "mcpstub bug" not in d.message and "internal error" not in d.message, d.format()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(TOOLSET)
def test_fuzzed_toolsets_check_cleanly(tmp_path_factory: pytest.TempPathFactory, doc: Any) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "tools.yaml").write_text(_write(doc), "utf-8")
    checked = check_toolset(folder / "tools.yaml", "tools.yaml")  # raises on a bug
    _assert_clean(checked.diagnostics)


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(TOOLSET)
def test_fuzzed_toolsets_generate_cleanly(tmp_path_factory: pytest.TempPathFactory, doc: Any) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "tools.yaml").write_text(_write(doc), "utf-8")
    generated = generate(folder / "tools.yaml", "tools.yaml")  # GeneratedCodeError = an mcpstub bug
    _assert_clean(generated.diagnostics)


def test_the_fuzzer_writes_numbers_json_cannot(tmp_path: Path) -> None:
    assert _write({"a": [Raw("1e400"), Raw("-0.0")]}) == '{"a": [1e400, -0.0]}'
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + "tools: [{name: a, inputSchema: {type: object, minimum: 1e400}}]\n", "utf-8")
    checked = check_toolset(path, "tools.yaml")
    assert [(d.code, d.location.line) for d in checked.diagnostics] == [("not-json", 3)]


@pytest.mark.parametrize("defs", ["[1, 2]", '"x"', "7", "null"])
def test_a_tool_schema_whose_own_defs_is_not_an_object_is_a_located_error(tmp_path: Path, defs: str) -> None:
    # Beside shared definitions the bundler adds to the tool's own `$defs`.
    path = tmp_path / "tools.yaml"
    path.write_text(
        HEAD
        + "$defs:\n  A: {type: string}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
        + f'      properties: {{a: {{$ref: "#/$defs/A"}}}}\n      $defs: {defs}\n',
        "utf-8",
    )
    checked = check_toolset(path, "tools.yaml")
    assert checked.toolset is None
    assert [(d.code, d.location.line) for d in checked.diagnostics] == [("invalid-schema", 10)]


def test_a_toolset_file_name_that_is_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    name = b"u\xff.yaml"
    (tmp_path / name.decode("utf-8", "surrogateescape")).write_text(
        HEAD + "tools:\n  - name: t\n    inputSchema: {type: object}\n", "utf-8"
    )
    done = subprocess.run(
        [sys.executable, "-m", "mcpstub", "generate", name, "--out", "out/pkg"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr and b"bug" not in done.stderr
    assert b"is not UTF-8" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u200f", "\u061c", "\x1b", "\x9b", "\ufeff"])
@pytest.mark.parametrize("command", ["validate", "generate"])
def test_a_toolset_file_name_a_terminal_would_show_reordered_is_refused(
    tmp_path: Path, char: str, command: str
) -> None:
    name = f"tools{char}lmay.yaml"
    (tmp_path / name).write_text(HEAD + "tools:\n  - name: t\n    inputSchema: {type: object}\n", "utf-8")
    out = ["--out", "out/pkg"] if command == "generate" else []
    done = subprocess.run(
        [sys.executable, "-m", "mcpstub", command, name, *out],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "bug" not in done.stderr
    escaped = char.encode("unicode_escape").decode()
    # The location and the message both show the character escaped, never as itself.
    assert f"tools{escaped}lmay.yaml:1:1: error:" in done.stderr, done.stderr
    assert "rename the file" in done.stderr and "[toolset-file-name]" in done.stderr
    assert char not in done.stderr + done.stdout
    assert not (tmp_path / "out").exists()
