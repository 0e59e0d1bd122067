"""JSON pointers: RFC 6901 tokens, `$ref` fragments percent-decoded first, as validators read them."""

from __future__ import annotations

from pathlib import Path

import jsonschema_rs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from mcpstub.pipeline import Checked
from mcpstub.pointers import (
    escape,
    percent_decoded,
    ref_file,
    resolve,
    split,
    split_fragment,
    to_fragment,
    to_pointer,
)
from tests.unit.test_bundle import check

# Keys made of what pointers and fragments treat specially, and what they do not.
KEYS = st.text(alphabet=st.sampled_from([*"~/%012Fa é☃#$"]), max_size=6)


@pytest.mark.parametrize(
    ("pointer", "tokens"),
    [
        ("", ()),
        ("/", ("",)),
        ("//", ("", "")),
        ("/a~1b", ("a/b",)),
        ("/~01", ("~1",)),  # `~0` first would make `~1`, then `/`: not so
        ("/~10", ("/0",)),
        ("/a~0~1", ("a~/",)),
        ("/%25", ("%25",)),  # a pointer is not a URI: `%` is a character like any other
        ("/é/0", ("é", "0")),
    ],
)
def test_split_reads_rfc_6901(pointer: str, tokens: tuple[str, ...]) -> None:
    assert split(pointer) == tokens


@pytest.mark.parametrize("pointer", ["a", "#/a", "/a~", "/a~2", "/~~0"])
def test_what_is_not_a_pointer_is_none(pointer: str) -> None:
    assert split(pointer) is None


@pytest.mark.parametrize(
    ("fragment", "tokens"),
    [
        ("/$defs/a%25b", ("$defs", "a%b")),
        ("/%24defs/X", ("$defs", "X")),
        ("/$defs/a%2Fb", ("$defs", "a", "b")),  # decoded whole, then split: two tokens
        ("/$defs/a~1b", ("$defs", "a/b")),
        ("/$defs/%7E01", ("$defs", "~1")),
        ("/$defs/%C3%A9", ("$defs", "é")),
        ("/$defs/é", ("$defs", "é")),
        ("", ()),
    ],
)
def test_a_fragment_is_percent_decoded_before_it_is_split(fragment: str, tokens: tuple[str, ...]) -> None:
    assert split_fragment(fragment) == tokens


@pytest.mark.parametrize("fragment", ["/a%", "/a%2", "/a%zz", "/a%FF", "/a%C3", "name", "/a%7E2"])
def test_a_malformed_fragment_is_none(fragment: str) -> None:
    assert split_fragment(fragment) is None


@given(st.lists(KEYS, max_size=4))
def test_written_pointers_and_fragments_read_back(path: list[str]) -> None:
    assert split(to_pointer(path)) == tuple(path)
    fragment = to_fragment(path)
    assert fragment.isascii() and " " not in fragment
    assert split_fragment(fragment[1:]) == tuple(path)
    assert percent_decoded(fragment[1:]) == to_pointer(path)


@given(st.lists(KEYS, min_size=1, max_size=3))
def test_fragments_resolve_where_referencing_and_jsonschema_rs_resolve_them(path: list[str]) -> None:
    """Each key leads to a schema of its own; the reference written by `to_fragment` must reach the
    same one for `resolve`, for `referencing` and for the validator the generated server builds."""
    document: dict[str, object] = {"type": "integer"}
    for key in reversed(path):
        document = {key: document, f"{key}x": {"type": "string"}}
    fragment = to_fragment(path)
    found, value, walked = resolve(document, split_fragment(fragment[1:]) or ())
    assert found and value == {"type": "integer"} and walked == tuple(path)
    resource = Resource(contents=document, specification=DRAFT202012)
    resolver = Registry().with_resource("urn:doc", resource).resolver(base_uri="urn:doc")
    assert resolver.lookup(fragment).contents == value
    validator = jsonschema_rs.validator_for({"$defs": {"d": document}, "$ref": f"#/$defs/d{fragment[1:]}"})
    assert validator.is_valid(1) and not validator.is_valid("s")


@pytest.mark.parametrize("token", ["01", "-1", "²", "1.0", " 1", "5"])
def test_list_indexes_are_plain_decimal_and_never_raise(token: str) -> None:
    assert resolve([["a", "b"]], ["0", token]) == (False, None, (0,))


def test_resolve_walks_dicts_and_lists() -> None:
    assert resolve({"a": [{"b/c": 1}]}, split("/a/0/b~1c") or ()) == (True, 1, ("a", 0, "b/c"))
    assert escape(3) == "3" and to_pointer(["a", 3]) == "/a/3"


def test_a_reference_into_a_file_with_encoded_keys_is_advertised_so_the_server_resolves_it(
    tmp_path: Path,
) -> None:
    """A shared file's property named `50% off` (a `%` and a space), reached through its
    percent-encoded `$ref`: the advertised schema's own reference must lead a validator there."""
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                price: {$ref: "common.yaml#/$defs/Offer/properties/50%25%20off"}
                plain: {$ref: "common.yaml#/%24defs/Offer/properties/a~1b"}
        """,
        common_yaml="""\
        $defs:
          Offer:
            type: object
            properties:
              "50% off": {type: integer}
              "a/b": {type: string}
        """,
    )
    assert [d.code for d in checked.diagnostics] == []
    assert checked.toolset is not None
    schema = checked.toolset.tools[0].input_schema
    validator = jsonschema_rs.validator_for(schema)
    assert validator.is_valid({"price": 3, "plain": "x"})
    assert not validator.is_valid({"price": "3"})
    assert not validator.is_valid({"plain": 3})


def _file_ref(tmp_path: Path, written: str) -> Checked:
    """A toolset whose one property refers to definition `N` (an integer of at least 3) in the
    file named by `written`, a `$ref` file part as written."""
    return check(
        tmp_path,
        f"""\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                n: {{$ref: "{written}#/$defs/N"}}
        """,
    )


@pytest.mark.parametrize(
    ("written", "stored"),
    [
        ("50%25.yaml", "50%.yaml"),
        ("a%20b.yaml", "a b.yaml"),
        ("sub%2Fcommon.yaml", "sub/common.yaml"),  # a file name holds no `/`: a folder, as a path reads it
        ("caf%C3%A9.yaml", "café.yaml"),
        ("%73ub/x.yaml", "sub/x.yaml"),
    ],
)
def test_a_file_part_is_percent_decoded_into_the_path_it_names(
    tmp_path: Path, written: str, stored: str
) -> None:
    (tmp_path / stored).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / stored).write_text("$defs: {N: {type: integer, minimum: 3}}\n", "utf-8")
    checked = _file_ref(tmp_path, written)
    assert [d.code for d in checked.diagnostics] == []
    assert checked.toolset is not None
    validator = jsonschema_rs.validator_for(checked.toolset.tools[0].input_schema)
    assert validator.is_valid({"n": 3}) and not validator.is_valid({"n": 2})


@pytest.mark.parametrize("written", ["a%zz.yaml", "a%2.yaml", "a%FF.yaml", "a%.yaml"])
def test_a_file_part_with_a_malformed_escape_is_refused_at_the_reference(
    tmp_path: Path, written: str
) -> None:
    """RFC 3986 (and jsonschema-rs) refuse such a reference; a file of that very name is not read
    in its place, as the fragment of such a reference is not read as written either."""
    (tmp_path / written).write_text("$defs: {N: {type: integer}}\n", "utf-8")
    checked = _file_ref(tmp_path, written)
    assert [(d.code, d.location.file, d.location.line, d.location.col) for d in checked.diagnostics] == [
        ("unsupported-ref", "tools.yaml", 8, 19)
    ]
    assert repr(written) in checked.diagnostics[0].message
    assert checked.toolset is None


@pytest.mark.parametrize(
    ("part", "decoded"),
    [("a%2Fb", "a/b"), ("%25", "%"), ("a+b", "a+b"), ("%7e", "~"), ("é", "é"), ("a%zz", None), ("%C3", None)],
)
def test_percent_decoding_is_rfc_3986s(part: str, decoded: str | None, tmp_path: Path) -> None:
    assert percent_decoded(part) == decoded
    assert ref_file(tmp_path, part) == (None if decoded is None else (tmp_path / decoded).resolve())


@pytest.mark.parametrize(
    ("fragment", "said", "hint"),
    [
        ("/$defs/N~2", "has a `~` that escapes nothing", "in a JSON pointer `~` is written ~0, `/` ~1"),
        ("/$defs/%zz", "has a malformed percent-escape", "write a `%` of the name as %25"),
        ("N", "is not a JSON pointer", "anchors are not supported"),
    ],
)
def test_a_fragment_that_is_no_pointer_is_said_for_what_is_wrong_with_it(
    tmp_path: Path, fragment: str, said: str, hint: str
) -> None:
    (tmp_path / "a.yaml").write_text("$defs: {N: {type: integer}}\n", "utf-8")
    schema = f'type: object\n      properties: {{n: {{$ref: "a.yaml#{fragment}"}}}}'
    checked = check(tmp_path, f"tools:\n  - name: t\n    inputSchema:\n      {schema}\n")
    (problem,) = checked.diagnostics
    assert problem.code == "unsupported-ref" and problem.location.line == 7
    assert problem.message == f"reference 'a.yaml#{fragment}' {said}" and hint in (problem.hint or "")
