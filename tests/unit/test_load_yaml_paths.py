"""The YAML path reads every text as the loader always has: the same data, the same diagnostics at the
same places, the same position for every value and key. `load_reference` is the loader as it was
(libyaml's composer after a separate depth pass, the alias walk always); the texts are the goldens,
the examples, generated documents with anchors, aliases, tags and merge keys, and token soup."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.toolset import build_shaped
from mcpstub.diagnostics import Location
from mcpstub.document import yaml_lines
from mcpstub.load import MAX_DEPTH, parse_document
from tests.unit import load_reference

REPO = Path(__file__).resolve().parents[2]
YAML_FILES = sorted(
    p
    for folder in ("tests/golden", "examples", "tests/data")
    for p in (REPO / folder).rglob("*.yaml")
    if "expected" not in p.parts
)


def _exact(value: Any) -> Any:
    if isinstance(value, dict):
        return ("dict", [(k, _exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_exact(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def _paths(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
        yield (*path, "no such key")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def same_as_before(raw: bytes, *, positions: bool = True) -> list[str]:
    """Assert the loader reads `raw` as the reference does; the diagnostic codes."""
    new, new_diagnostics = parse_document("t.yaml", Path("t.yaml"), raw, fast=False)
    old, old_diagnostics = load_reference.parse_document("t.yaml", Path("t.yaml"), raw)
    # The reference counts lines as the YAML reader does; the loader, as an editor does.
    lines = yaml_lines(new.text) or []

    def shown(loc: Location) -> Location:
        line, offset = lines[loc.line - 1] if 0 < loc.line <= len(lines) else (loc.line, 0)
        return Location(loc.file, line, loc.col + offset)

    if lines:  # (a message may name a line too, and a hint say why they differ)
        assert [(d.code, d.location) for d in new_diagnostics] == [
            (d.code, shown(d.location)) for d in old_diagnostics
        ]
    else:
        assert new_diagnostics == old_diagnostics
    assert _exact(new.data) == _exact(old.data)
    if positions and old.data is not None:
        for path in _paths(old.data):
            assert new.loc(path) == shown(old.loc(path)), path
            assert new.key_loc(path) == shown(old.key_loc(path)), path
    return [d.code for d in new_diagnostics]


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_repository_yaml_reads_as_before(path: Path) -> None:
    same_as_before(path.read_bytes())


@pytest.mark.parametrize("shape", ["mixed", "shared", "draft07"])
def test_benchmark_toolsets_in_block_style_read_as_before(shape: str) -> None:
    data = build_shaped(shape, 15)
    same_as_before(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode())
    same_as_before(yaml.safe_dump(data, default_flow_style=True, width=60).encode())


CASES = [
    "a: &x 1\nb: &x 2\nc: *x\n",  # a duplicate anchor
    "a: *y\n",  # an undefined alias
    "a: *y\nb: [\n",  # a syntax error after it wins
    "a: *y\nb: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",  # so does deep nesting
    "a: &x 1\nb: &x [\nc",
    "a: 1\n---\nb: 2\n",
    "--- 1\n--- *x\n",
    "--- &a 1\n--- *a\n",
    "a: 1\n--- [\n",
    "a: 1\n...\n",
    "&a [*a]",
    "a: &a {b: *a}\n",
    "a: &a {? *a : 1}\n",
    "! 5",
    "!!str 5",
    "!foo 5",
    "- !!map {}\n- !!seq []\n- !!int '5'\n- ! [1]\n- !!python/tuple [1]\n",
    "---\n",
    "--- !!str\n",
    "a: &x\n  b: 1\nc: *x\nd: *x\ne: {<<: *x}\n",
    "base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n  '<<': 3\n  ? [k]\n  : v\n  x: 1\n  x: 2\n",
    "a: &b !!binary aGk=\nb: *b\n",
    "a: &l " + "x" * 200 + "\nb: [" + ", ".join(["*l"] * 40) + "]\n",
    "a: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n",
    "a: &d " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 45 + "*d" + "]" * 45 + "\n",
    "a: &d " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 35 + "*d" + "]" * 35 + "\n",
    "- " * (MAX_DEPTH + 1) + "x\n",
    "a:\n\tb: 1\n",
    "a: 1\n\t\n",
    "a: [1, 2\n",
    "a: {b: 1, b: 2}\n? a\n: 3\n",
    "x: " + "9" * 5000 + "\ny: &n " + "9" * 5000 + "\nz: *n\n",
    "k: [.inf, -.Inf, .NaN, 0o17, 0x1F, 1e3, +1, -0, 1_0, 0b1, yes, ~, '', \"\", null, Null]\n",
    "k: [TRUE, True, FALSE, NULL, .NAN, .INF, +.inf, 0o7, 0xfF, 1., .5, +.5e-3, 1E3, é, _x, Nope, trueish]\n",
    "a: |\n  text\n   more\nb: >-\n  folded\n  text\n",
    "? |\n  block key\n: v\n",
    "%YAML 1.2\n---\na: 1\n",
    "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
    "a: !<tag:yaml.org,2002:str> 5\nb: !<tag:yaml.org,2002:int> 5\n",
    "&a a: *a\n",
    "[*a, &a 1]",
    "{&a a: 1, *a : 2}",
]


@pytest.mark.parametrize("text", CASES, ids=range(len(CASES)))
def test_awkward_yaml_reads_as_before(text: str) -> None:
    same_as_before(text.encode())


def test_alias_bombs_and_recursion_are_still_refused() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefghi", "bcdefghij", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    assert same_as_before("\n".join(lines).encode() + b"\n") == ["yaml-alias-bomb"]
    assert same_as_before(b"a: &a [*a]\n") == ["yaml-recursive-alias"]


# --- generated documents -----------------------------------------------------------------------

_WORDS = st.sampled_from(
    ["a", "b", "name", "type", "no", "yes", "1", "1e3", "0x1F", "-0", ".inf", ".nan", "~", "null", "true",
     "<<", "'q'", '"d\\u00e9"', "''", "!!str 5", "!!int x", "!t v", "|\n  lit", "x: y", "- z", "9" * 30]
)  # fmt: skip


@st.composite
def _documents(draw: st.DrawFn) -> str:
    """A YAML document in block style with flow parts, anchors, aliases, tags and odd keys."""
    anchors: list[str] = []
    lines: list[str] = []

    def node(depth: int) -> str:
        choice = draw(st.integers(0, 9 if depth < 4 else 3))
        prefix = ""
        if draw(st.integers(0, 5)) == 0:
            name = f"n{len(anchors)}"
            prefix = f"&{name} "
            anchors.append(name)
        if choice <= 2:
            return prefix + draw(_WORDS)
        if choice == 3 and anchors:
            return "*" + draw(st.sampled_from(anchors))
        if choice <= 5:
            items = [node(depth + 1) for _ in range(draw(st.integers(0, 3)))]
            return prefix + "[" + ", ".join(i for i in items if "\n" not in i) + "]"
        if choice <= 7:
            keys = draw(st.lists(_WORDS, max_size=3))
            pairs = [f"{k}: {node(depth + 1)}" for k in keys]
            return prefix + "{" + ", ".join(p for p in pairs if "\n" not in p) + "}"
        return prefix + (draw(_WORDS) if depth else "x")

    for key in draw(st.lists(_WORDS, min_size=1, max_size=6)):
        lines.append(f"{key}: {node(0)}")
        if draw(st.booleans()):
            lines.append(f"  {draw(_WORDS)}: {node(1)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_documents())
def test_generated_documents_read_as_before(text: str) -> None:
    same_as_before(text.encode())


_TOKENS = st.sampled_from(
    ["a", "b", ":", ": ", "- ", "  ", "\n", "\t", "[", "]", "{", "}", ",", "&a ", "&b ", "*a", "*b", "!!str ",
     "!x ", "! ", "<<", "? ", "'", '"', "#c", "---\n", "...\n", "|", ">", "1", "-0", ".inf", "%YAML 1.2\n",
     "\u2028", "\x85", "\ufeff", "é"]
)  # fmt: skip


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tokens=st.lists(_TOKENS, min_size=1, max_size=30))
def test_token_soup_reads_as_before(tokens: list[str]) -> None:
    same_as_before("".join(tokens).encode())


def test_json_through_the_yaml_path_reads_as_before() -> None:
    same_as_before(json.dumps(build_shaped("deep", 5), indent=2).encode())
