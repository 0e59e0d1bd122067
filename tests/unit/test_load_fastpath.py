"""The JSON fast path reads exactly what the YAML path reads: the same data, the same diagnostics at
the same places, and the same position for every value and key, only without composing YAML until a
position is asked for."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.toolset import build_shaped
from mcpstub import load
from mcpstub.load import MAX_DEPTH, Document, JsonPath, parse_document
from mcpstub.pipeline import check_toolset
from tests.conformance.fidelity import build_tools, load_groups

REPO = Path(__file__).resolve().parents[2]
GOLDEN_ERRORS = sorted(p for p in (REPO / "tests/golden/errors").iterdir() if p.is_dir())
GOLDEN_TREES = sorted(p for p in (REPO / "tests/golden/trees").iterdir() if p.is_dir())


def _exact(value: Any) -> Any:
    """The value with every type made visible: 1, 1.0 and True differ, as do 0.0 and -0.0."""
    if isinstance(value, dict):
        return ("dict", [(k, _exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_exact(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def _paths(value: Any, path: JsonPath = ()) -> Iterator[JsonPath]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
        yield (*path, "no such key")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))
        yield (*path, len(value))


def _takes_fast_path(raw: bytes) -> bool:
    try:
        text = raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return bool(text.strip()) and load._json_data(text) is not None


def both(raw: bytes, *, positions: bool = True) -> tuple[Document, bool]:
    """Parse `raw` both ways, assert they agree; the fast document and whether it took the fast path."""
    fast, fast_diagnostics = parse_document("t.json", Path("t.json"), raw)
    took_fast = _takes_fast_path(raw)
    slow, slow_diagnostics = parse_document("t.json", Path("t.json"), raw, fast=False)
    assert fast_diagnostics == slow_diagnostics
    assert _exact(fast.data) == _exact(slow.data)
    if took_fast:
        assert fast_diagnostics == []
    if positions:
        for path in _paths(slow.data):
            assert fast.loc(path) == slow.loc(path), path
            assert fast.key_loc(path) == slow.key_loc(path), path
    return fast, took_fast


def _styles(data: Any) -> Iterator[str]:
    """The ways tools write JSON: indented or not, escaped or raw non-ASCII, and CRLF lines."""
    yield json.dumps(data, indent=2)
    yield json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    yield json.dumps(data, indent="\n", ensure_ascii=False)  # content at column 0
    yield json.dumps(data, indent=1).replace("\n", "\r\n") + "\r\n"


# --- what the fast path must refuse (or read the same) ------------------------------------------

HOSTILE = [
    '{"a": 1, "a": 2}',  # duplicate keys: the YAML path reports them
    '{"a": {"b": 1, "c": 2, "b": 3}}',
    '{"a": NaN}',
    '{"a": -Infinity, "b": Infinity}',
    '{"a": 1e400, "b": -1e400, "c": -0, "d": -0.0, "e": 1E+2, "f": 0.5e-3}',
    '{"a": ' + "9" * 5000 + "}",  # beyond Python's digit limit: a diagnostic, not a crash
    '{"a": ' + "9" * 4000 + "}",
    '{"a": "\\ud83d\\ude00", "b": 1}',  # a surrogate pair: rewritten as YAML escapes it
    '{"a": "\\ud800"}',  # a lone surrogate
    '{"a": "\\udc00x"}',
    '{"a": "x\\/y\\b\\f\\n\\r\\t\\"\\\\\\u0000\\u001f\\u007f\\u0085\\u2028\\ufeff\\uffff"}',
    '{"a":\t1}',
    '{"a": "\u2028"}',  # raw line separators: line breaks to YAML
    '{"a": "\u2029"}',
    '{"a": "\x85"}',
    '{"a": "\x7f"}',
    '{"a": "\x9f"}',
    '{"a": "\ufeff"}',
    '\ufeff{"a": 1}',  # a second byte order mark
    '{"a": "\ufffe"}',
    '{"a": "\uffff"}',
    '{"a"\n: 1}',
    '{"a"\r: 1}',
    '{"a"  : 1}',
    '{"a" : 1, "b"\n  : 2}',
    '{"a" : 1}',
    '{"' + "k" * 1100 + '": 1}',  # a key too long for YAML
    '{"' + "k" * 160 + '": 1}',
    '{"' + "\\u00e9" * 171 + '": 1}',
    '{"' + "\U0001f600" * 300 + '": 1}',
    '{"a": "' + "v" * 3000 + '"}',
    "[" * MAX_DEPTH + "]" * MAX_DEPTH,
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    '{"a":' * (MAX_DEPTH + 1) + "1" + "}" * (MAX_DEPTH + 1),
    "[" * 5000 + "]" * 5000,
    '{"a": 1}\n{"b": 2}',
    '{"a": 1} # comment',
    '{"a": 1,}',
    "[1, 2, ]",
    "{}",
    "[]",
    '{"": {"": [[], {}]}}',
    '{"<<": {"a": 1}, "b": "*x", "c": "&y", "d": "!tag", "e": "#x", "f": "- 1", "g": "---"}',
    '{"a": "\'single\' and \\"double\\""}',
    '{"a": true, "b": false, "c": null, "d": "true", "e": "null", "f": "0x1F", "g": "1_000"}',
    '  \n {"a": 1}  \n\n',
    '{"a": [1,\n2,\n3\n],\n"b":\n{\n}\n}',
    "\r\n[\r\n1\r\n]\r\n",
    '{"a": "caf\u00e9 \u4e2d \U0001f600"}',
]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_json_reads_as_yaml_reads_it(text: str) -> None:
    both(text.encode("utf-8", "surrogatepass"))


def test_json_the_yaml_path_reports_never_takes_the_fast_path() -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": NaN}', "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)):
        _, took_fast = both(text.encode())
        assert not took_fast, text
    doc, diagnostics = parse_document("t.json", Path("t.json"), b'{"a": 1, "a": 2}')
    assert [d.code for d in diagnostics] == ["duplicate-key"]
    assert doc.data == {"a": 1}


def test_plain_json_takes_the_fast_path_and_composes_nothing_until_asked() -> None:
    raw = json.dumps({"mcpstub": 1, "tools": [{"name": "x", "n": 1e2}]}, indent=2).encode()
    doc, diagnostics = parse_document("t.json", Path("t.json"), raw)
    assert diagnostics == []
    assert doc._lazy and doc._root is None
    assert doc.loc(("tools", 0, "n")).line == 6
    assert not doc._lazy and doc._root is not None


# --- generated JSON ------------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["", " ", "no", "1e3", "0x1F", "~", "null", "#", ": x", "- a", "\u2028", "\x85"])
)
_KEYS = st.text(max_size=8) | st.sampled_from(["<<", "?", "-", "a b", "k:", "&a", "*a", "!t"])
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_JSON, style=st.integers(0, 3))
def test_generated_json_reads_the_same(data: Any, style: int) -> None:
    text = list(_STYLE_FUNCS)[style](data)
    both(text.encode("utf-8", "surrogatepass"))


_STYLE_FUNCS = (
    lambda d: json.dumps(d, indent=2),
    lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False),
    lambda d: json.dumps(d, indent="\n", ensure_ascii=False),
    lambda d: json.dumps(d, indent=1).replace("\n", "\r\n"),
)

_TOKENS = st.sampled_from(
    ['{"a": ', '{"a":', '{"a" : ', '{"a"\n: ', '"b": ', '"a": ', "[", "]", "{", "}", ",", " ", "\n", "\t",
     "\r\n", "1", "-0", "1e400", "NaN", "true", "null", '"s"', '"\\u00e9"', '"\\ud83d\\ude00"',
     '"\u2028"', '"\x85"', "\ufeff", "#", "&a ", "*a", "!x ", "-", ": "]
)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=st.lists(_TOKENS, min_size=1, max_size=24))
def test_json_like_token_soup_reads_the_same(tokens: list[str]) -> None:
    both("".join(tokens).encode("utf-8", "surrogatepass"))


# --- corpora -------------------------------------------------------------------------------------


def _jsts_files() -> list[Path]:
    return sorted((REPO / "tests/data/jsts").rglob("*.json"))


def test_json_schema_test_suite_files_read_the_same() -> None:
    files = _jsts_files()
    assert len(files) > 50
    fast = 0
    for path in files:
        _, took_fast = both(path.read_bytes(), positions=False)
        fast += took_fast
    assert fast > len(files) // 2  # most of the suite is plain JSON


def test_corpus_and_benchmark_toolsets_take_the_fast_path() -> None:
    texts = [p.read_bytes() for p in sorted((REPO / "tests/data/corpus").glob("*.json"))]
    texts += [json.dumps(build_shaped(shape, 20), indent=1).encode() for shape in ("mixed", "deep", "enums")]
    for raw in texts:
        _, took_fast = both(raw)
        assert took_fast


def _yaml_data(path: Path) -> Any:
    doc, diagnostics = parse_document(path.name, path, path.read_bytes())
    return (
        None
        if any(d.code.startswith(("yaml", "duplicate", "empty", "invalid-utf8")) for d in diagnostics)
        else doc.data
    )


def _fields(value: Any) -> Any:
    """A dataclass (the IR compares by identity) as its fields, recursively, types made visible."""
    if dataclasses.is_dataclass(value):
        return [(f.name, _fields(getattr(value, f.name))) for f in dataclasses.fields(value)]
    if isinstance(value, tuple | frozenset):
        return [_fields(v) for v in (sorted(value) if isinstance(value, frozenset) else value)]
    return _exact(value)


def _check_both_ways(toolset: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], bool]:
    """check_toolset with the fast path and without; assert the same diagnostics, toolset and hash."""
    taken: list[bool] = []
    real = load._json_data

    def spy(text: str, spans: list[tuple[int, int]] | None = None) -> tuple[Any, bool] | None:
        found = real(text, spans)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(load, "_json_data", spy)
    fast = check_toolset(toolset, toolset.name)
    monkeypatch.setattr(load, "_json_data", lambda _text, _spans=None: None)
    slow = check_toolset(toolset, toolset.name)
    monkeypatch.setattr(load, "_json_data", real)
    assert fast.diagnostics == slow.diagnostics
    assert _fields(fast.toolset) == _fields(slow.toolset)
    return fast.diagnostics, bool(taken) and taken[0]


# The goldens whose YAML holds data JSON can write (the others are YAML syntax or tag cases).
AS_JSON = [c for c in GOLDEN_ERRORS + GOLDEN_TREES if _yaml_data(c / "tools.yaml") is not None]


def test_most_goldens_can_be_written_as_json() -> None:
    assert len(AS_JSON) >= len(GOLDEN_ERRORS + GOLDEN_TREES) - 12, "the JSON comparison lost its cases"


@pytest.mark.parametrize("case", AS_JSON, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_golden_toolsets_as_json_check_the_same(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _yaml_data(case / "tools.yaml")
    assert data is not None
    for other in case.iterdir():
        if other.is_file() and other.name != "tools.yaml":
            shutil.copy(other, tmp_path / other.name)
    for text in _styles(data):
        try:
            (tmp_path / "tools.json").write_text(text, "utf-8", newline="")
        except UnicodeEncodeError:
            pytest.skip("holds a lone surrogate")
        _check_both_ways(tmp_path / "tools.json", monkeypatch)


@pytest.mark.parametrize("draft", ["draft2020-12", "draft7"])
def test_json_schema_test_suite_toolsets_check_the_same(
    draft: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    groups = load_groups(draft)
    dialect = "draft-07" if draft == "draft7" else "2020-12"
    tools = []
    for group in groups:
        build_tools(group, dialect)
        tools.extend(group.tools.values())
    data = {"mcpstub": 1, "server": {"name": "jsts"}, "tools": tools}
    for i, text in enumerate(list(_styles(data))[:2]):
        path = tmp_path / f"jsts{i}.json"
        path.write_text(text, "utf-8")
        diagnostics, took_fast = _check_both_ways(path, monkeypatch)
        assert diagnostics  # the suite holds schemas the format refuses: their places are compared
        assert took_fast


def test_yaml_block_style_is_unchanged(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    data = build_shaped("mixed", 5)
    path = tmp_path / "tools.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    _, took_fast = _check_both_ways(path, monkeypatch)
    assert not took_fast


@pytest.mark.parametrize("kind", ["json", "yaml"])
@pytest.mark.parametrize("shape", ["mixed", "shared", "draft07", "corpus"])
def test_checking_a_clean_toolset_composes_no_yaml(shape: str, kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"tools.{kind}"
    data = json.loads(json.dumps(build_shaped(shape, 30)))  # no shared objects: PyYAML writes no aliases
    text = json.dumps(data, indent=1) if kind == "json" else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, "utf-8")
    checked = check_toolset(path)
    assert checked.ok, checked.diagnostics
    assert checked.document is not None
    assert checked.document._lazy, "a position was looked up although nothing was reported"


_NUMBER_TEXT = st.one_of(
    st.integers().map(str),
    st.integers(min_value=10**290, max_value=10**330).map(str),  # around a double's range
    st.integers(min_value=10**290, max_value=10**330).map(lambda n: f"-{n}"),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.tuples(st.integers(1, 9), st.integers(-400, 400)).map(lambda p: f"{p[0]}e{p[1]}"),
    st.tuples(st.integers(1, 9), st.integers(0, 400)).map(lambda p: f"{p[0]}.5E+{p[1]:04d}"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_NUMBER_TEXT, min_size=0, max_size=6))
def test_a_file_the_reader_calls_finite_holds_only_numbers_json_can_hold(numbers: list[str]) -> None:
    """The reader's `finite` lets the check skip its walk over every number, so it must never be
    True for a file holding inf or an integer beyond a double; for everyday numbers it is True."""
    from mcpstub.validate import all_finite  # noqa: PLC0415 - the check's own judgement

    text = '{"a": [' + ", ".join(numbers) + '], "b": {"c": ' + (numbers[0] if numbers else "1") + "}}\n"
    doc, diagnostics = parse_document("t.json", Path("t.json"), text.encode())
    assert not diagnostics
    if doc.finite:
        assert all_finite(doc.data), text
    if all(len(n) < 30 and "e" not in n.lower() for n in numbers):
        assert doc.finite, text  # no number near a double's limits: the walk is skipped


def test_a_toolset_with_an_infinite_number_is_still_reported_when_read_as_json(tmp_path: Path) -> None:
    toolset = tmp_path / "tools.json"
    document = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"n": {"maximum": 0}}}}],
    }
    for number in ("1e400", "-1E+309", "1" * 320):
        toolset.write_text(json.dumps(document).replace('"maximum": 0', f'"maximum": {number}'))
        checked = check_toolset(toolset)
        assert [d.code for d in checked.diagnostics if d.is_error] == ["not-json"], number
