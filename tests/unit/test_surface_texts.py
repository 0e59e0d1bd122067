"""A wire tool's texts (its surface.json entry and its digest) are made with each bundled
definition's text made once: they must be exactly the texts made of the whole object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpstub import surface
from mcpstub.engine.jsonread import yaml_alike
from mcpstub.engine.session import Session, running
from mcpstub.surface import tool_digest, wire_chunks
from tests.functional.test_surface import recompute as whole_digest


def whole_text(wire: dict[str, Any]) -> str:
    """The whole object as surface.json writes it: what a YAML reader refuses raw, escaped."""
    return yaml_alike(json.dumps(wire, indent=2, ensure_ascii=False, allow_nan=False))


_KEYS = st.sampled_from(["type", "a", "é", "𝄞", "\x00", "$defs", "definitions", "z", "Z", "\u2028"])
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=25,
)
# Values Python's own writers spell as RFC 8785 does (no doubles, no big integers, no
# characters beyond the BMP): texts made by definition are made so, not made whole.
_BMP = st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"])
_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(_BMP, max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(_BMP, max_size=3), inner, max_size=4),
    max_leaves=25,
)


@st.composite
def wires(draw: st.DrawFn, plain: bool = False) -> dict[str, Any]:
    values, keys, text = (_JSON, _KEYS, st.text(max_size=5))
    if plain:
        values, keys, text = (_PLAIN, st.text(_BMP, max_size=4), st.text(_BMP, max_size=5))
    shared = draw(st.lists(st.dictionaries(keys, values, max_size=4), min_size=1, max_size=3))
    wire: dict[str, Any] = {"name": draw(text), "description": draw(text)}
    for key in draw(st.lists(st.sampled_from(["inputSchema", "outputSchema"]), unique=True, min_size=1)):
        defs_key = draw(st.sampled_from(["$defs", "definitions"]))
        names = draw(st.lists(text, unique=True, max_size=5))
        mapping = {name: draw(st.sampled_from(shared) | values) for name in names}
        wire[key] = {"type": "object", **draw(st.dictionaries(keys, values, max_size=2)), defs_key: mapping}
    return wire


@settings(max_examples=100, deadline=None)
@given(many=st.lists(wires(), min_size=1, max_size=4))
def test_texts_made_by_definition_are_the_whole_objects_texts(many: list[dict[str, Any]]) -> None:
    for wire in [*many, *many]:  # the second time, every definition's text is a reused one
        assert "".join(wire_chunks(wire)) == whole_text(wire)
        assert tool_digest(wire) == whole_digest(wire)


@settings(max_examples=100, deadline=None)
@given(many=st.lists(wires(plain=True), min_size=1, max_size=4))
def test_plain_values_are_written_by_definition_and_as_the_whole_objects(many: list[dict[str, Any]]) -> None:
    for wire in [*many, *many]:
        apart = surface._definitions_apart(wire) is not None
        for layout in (surface._CANONICAL, surface._INDENTED):
            chunks = surface._by_definition(wire, layout)
            assert (chunks is not None) == apart, "made by definition when it has any"
        assert "".join(wire_chunks(wire)) == whole_text(wire)
        assert tool_digest(wire) == whole_digest(wire)


def test_user_text_spelling_a_placeholder_is_not_taken_for_one() -> None:
    # Even text that knows this process's secret is written as it is.
    fake = f"\0{surface._SECRET}:0"
    definition = {"type": "object", "properties": {"p": {"const": fake}}}
    for wire in (
        {"name": fake, "inputSchema": {"$defs": {"A": definition}}},
        {"name": "t", "inputSchema": {"$defs": {"A": definition, fake: {"x": fake}}}},
        {"name": "t", "description": fake, "inputSchema": {"$defs": {"A": definition}}},
    ):
        assert "".join(wire_chunks(wire)) == whole_text(wire)
        assert tool_digest(wire) == whole_digest(wire)


def test_a_lone_surrogate_has_no_digest_and_says_so() -> None:
    # Anywhere in the object, a definition included: a SurfaceError (render reports it), not a
    # UnicodeEncodeError from deep inside.
    definition = {"type": "object", "properties": {"p": {"const": "\ud800"}}}
    for wire in (
        {"name": "a\ud800"},
        {"name": "t", "inputSchema": {"$defs": {"A": definition}}},
        {"name": "t", "inputSchema": {"$defs": {"\udfff": {"type": "string"}}}},
    ):
        with pytest.raises(surface.SurfaceError):
            tool_digest(wire)


def test_a_watch_session_writes_the_surface_a_fresh_run_writes(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpstub.pipeline import generate  # noqa: PLC0415

    shared = {"Item": {"type": "object", "properties": {"id": {"type": "string"}}}}
    tools = [
        {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"item": {"$ref": "#/$defs/Item"}}}}
        for i in range(4)
    ]
    edits = [
        lambda ts: ts[1].update(description="now described"),
        lambda ts: ts[2]["inputSchema"]["properties"].update(n={"type": "integer"}),
        lambda ts: ts.pop(0),
        lambda ts: ts.append({"name": "late", "inputSchema": {"type": "object"}}),
        lambda ts: ts[0].update(description="now described"),  # the same text as another tool's
    ]
    path = tmp_path / "tools.json"
    kept = Session()
    for edit in [lambda ts: None, *edits]:
        edit(tools)
        path.write_text(json.dumps({"mcpstub": 1, "server": {"name": "s"}, "$defs": shared, "tools": tools}))
        with running(kept):
            remembered = generate(path, cache_dir=tmp_path / "cache").ours["surface.json"]
        assert kept.surface_texts, "the session keeps each tool's text"
        assert remembered == generate(path).ours["surface.json"]  # a run outside the session
