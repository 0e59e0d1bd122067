"""References: local pointers, shared $defs, relative files, and what is refused."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from mcpstub.pipeline import Checked, check_toolset

HEAD = "mcpstub: 1\nserver: {name: s}\n"


def check(tmp_path: Path, body: str, **files: str) -> Checked:
    for key, text in files.items():  # common__types_yaml -> common/types.yaml
        stem, _, ext = key.replace("__", "/").rpartition("_")
        target = tmp_path / f"{stem}.{ext}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), "utf-8")
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + textwrap.dedent(body), "utf-8")
    return check_toolset(path, "tools.yaml")


def found(checked: Checked) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.location.file, d.location.line, d.location.col) for d in checked.diagnostics]


def tool_schema(body: str) -> str:
    """A toolset with one tool whose inputSchema properties are `body`."""
    return "tools:\n  - name: t\n    inputSchema:\n      type: object\n      properties:\n" + textwrap.indent(
        textwrap.dedent(body), "        "
    )


def test_local_pointer_stays_as_written(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              $defs: {Id: {type: string}}
              properties:
                a: {$ref: "#/$defs/Id"}
                b: {$ref: "#/properties/a"}
        """,
    )
    assert found(checked) == []
    assert checked.toolset is not None
    schema = checked.toolset.tools[0].input_schema
    assert schema["properties"] == {"a": {"$ref": "#/$defs/Id"}, "b": {"$ref": "#/properties/a"}}
    assert schema["$defs"] == {"Id": {"type": "string"}}
    assert checked.toolset.tools[0].shared_def_names == frozenset()


def test_shared_defs_are_bundled_into_each_schema(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          City: {type: string, minLength: 1}
          Place: {type: object, properties: {city: {$ref: "#/$defs/City"}}}
          Unused: {type: integer}
        tools:
          - name: t
            inputSchema: {type: object, properties: {p: {$ref: "#/$defs/Place"}}}
            outputSchema: {type: object, properties: {c: {$ref: "#/$defs/City"}}}
        """,
    )
    assert found(checked) == []
    assert checked.toolset is not None
    tool = checked.toolset.tools[0]
    assert tool.input_schema["$defs"] == {
        "Place": {"type": "object", "properties": {"city": {"$ref": "#/$defs/City"}}},
        "City": {"type": "string", "minLength": 1},
    }
    assert tool.output_schema == {
        "type": "object",
        "properties": {"c": {"$ref": "#/$defs/City"}},
        "$defs": {"City": {"type": "string", "minLength": 1}},
    }
    assert tool.shared_def_names == {"Place", "City"}
    # the advertised Tool carries the bundled, self-contained schemas
    assert tool.advertised["inputSchema"] == tool.input_schema
    assert "Unused" not in json.dumps(tool.advertised)


def test_bundled_name_taken_by_own_def_is_renamed(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              $defs: {Id: {type: string}}
              properties:
                own: {$ref: "#/$defs/Id"}
                other: {$ref: "ids.yaml#/$defs/Id"}
        """,
        ids_yaml="$defs:\n  Id: {type: integer}\n",
    )
    assert found(checked) == []
    assert checked.toolset is not None
    schema = checked.toolset.tools[0].input_schema
    assert schema["$defs"] == {"Id": {"type": "string"}, "Id2": {"type": "integer"}}
    assert schema["properties"] == {"own": {"$ref": "#/$defs/Id"}, "other": {"$ref": "#/$defs/Id2"}}


def test_shared_pointer_missing_in_schema_means_the_toolset_defs(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Id: {type: integer}
        tools:
          - name: t
            inputSchema:
              type: object
              $defs: {Id: {type: string}}
              properties:
                shared: {$ref: "#/$defs/Id2"}
        """,
    )
    assert [f[:3] for f in found(checked)] == [("unresolved-ref", "tools.yaml", 11)]


def test_relative_yaml_and_json_files(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        tool_schema('addr: {$ref: "common/types.yaml#/$defs/Address"}\n'),
        common__types_yaml="""\
        $defs:
          Address:
            type: object
            properties:
              zip: {$ref: "zip.json#/$defs/Zip"}
        """,
        common__zip_json='{"$defs": {"Zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}',
    )
    assert found(checked) == []
    assert checked.toolset is not None
    schema = checked.toolset.tools[0].input_schema
    assert schema["properties"]["addr"] == {"$ref": "#/$defs/Address"}
    assert schema["$defs"]["Address"]["properties"]["zip"] == {"$ref": "#/$defs/Zip"}
    assert schema["$defs"]["Zip"] == {"type": "string", "pattern": "^[0-9]{5}$"}
    assert {p.name for p in checked.sources} == {"tools.yaml", "types.yaml", "zip.json"}


def test_errors_in_referenced_files_carry_their_own_locations(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        tool_schema('a: {$ref: "types.yaml#/$defs/A"}\nz: {$ref: "zip.json#/$defs/Zip"}\n'),
        types_yaml="""\
        $defs:
          A:
            type: object
            properties:
              bad: {type: strin}
              missing: {$ref: "#/$defs/Nope"}
        """,
        zip_json='{"$defs": {\n  "Zip": {"type": "string",\n    "minLength": -1}}}\n',
    )
    assert found(checked) == [
        ("unknown-type", "types.yaml", 5, 19),
        ("unresolved-ref", "types.yaml", 6, 23),
        ("invalid-schema", "zip.json", 3, 18),
    ]


def test_missing_file_is_reported_at_the_reference(tmp_path: Path) -> None:
    checked = check(tmp_path, tool_schema('a: {$ref: "nowhere.yaml#/$defs/A"}\n'))
    assert found(checked) == [("ref-file", "tools.yaml", 8, 19)]
    assert "nowhere.yaml" in checked.diagnostics[0].message


def test_a_missing_file_referred_to_from_another_folder_says_where_it_was_looked_for(tmp_path: Path) -> None:
    # A path is taken from the folder of the file that holds the reference, not from where the
    # command runs: the message says the path it took.
    (tmp_path / "spec").mkdir()
    toolset = tmp_path / "spec" / "tools.yaml"
    body = textwrap.dedent(tool_schema('a: {$ref: "common/x.yaml#/$defs/A"}\n'))
    toolset.write_text(HEAD + body, "utf-8")
    shown = os.path.join("spec", "tools.yaml")
    [said] = check_toolset(toolset, shown).diagnostics
    assert said.message == (
        f"referenced file 'common/x.yaml' does not exist as {os.path.join('spec', 'common', 'x.yaml')}"
        " (a path is taken from the folder of the file it is in)"
    )
    # A `..` after a linked folder is not taken away: the file is looked for where the link leads.
    (tmp_path / "spec" / "other" / "deep").mkdir(parents=True)
    (tmp_path / "spec" / "sub").symlink_to(tmp_path / "spec" / "other" / "deep")
    (tmp_path / "spec" / "c.yaml").write_text("A: {type: string}\n", "utf-8")
    toolset.write_text(HEAD + textwrap.dedent(tool_schema('a: {$ref: "sub/../c.yaml#/A"}\n')), "utf-8")
    [said] = check_toolset(toolset, shown).diagnostics
    assert f"does not exist as {os.path.join('spec', 'sub', '..', 'c.yaml')} (" in said.message, said


@pytest.mark.parametrize(
    ("kind", "said"),
    [("folder", "is a folder"), ("fifo", "is not a regular file"), ("none", "does not exist"),
     ("loop", "is a symbolic link that leads back to itself"),
     ("loop of two", "is a symbolic link that leads back to itself"),
     ("loop in a folder", "is a symbolic link that leads back to itself"),
     ("link to nothing", "is a symbolic link to gone.yaml, which does not exist"),
     ("chain to nothing", "is a symbolic link to gone.yaml (through mid.yaml), which does not exist")],
)  # fmt: skip
def test_a_reference_to_what_is_not_a_file_says_what_it_is(tmp_path: Path, kind: str, said: str) -> None:
    if kind == "folder":
        (tmp_path / "there.yaml").mkdir()
    elif kind == "fifo":
        os.mkfifo(tmp_path / "there.yaml")  # never opened: a read would wait for a writer
    elif kind == "loop":  # (a traceback: Python 3.11 says a loop as RuntimeError)
        (tmp_path / "there.yaml").symlink_to("there.yaml")
    elif kind == "loop of two":
        (tmp_path / "there.yaml").symlink_to("back.yaml")
        (tmp_path / "back.yaml").symlink_to("there.yaml")
    elif kind == "link to nothing":  # (it said "does not exist" of the name the toolset holds)
        (tmp_path / "there.yaml").symlink_to("gone.yaml")
    elif kind == "chain to nothing":
        (tmp_path / "there.yaml").symlink_to("mid.yaml")
        (tmp_path / "mid.yaml").symlink_to("gone.yaml")
    elif kind == "loop in a folder":
        (tmp_path / "sub").symlink_to("sub")
        checked = check(tmp_path, tool_schema('a: {$ref: "sub/there.yaml#/$defs/A"}\n'))
        assert found(checked) == [("ref-file", "tools.yaml", 8, 19)]
        assert checked.diagnostics[0].message == f"referenced file 'sub/there.yaml' {said}"
        return
    checked = check(tmp_path, tool_schema('a: {$ref: "there.yaml#/$defs/A"}\n'))
    assert found(checked) == [("ref-file", "tools.yaml", 8, 19)]
    assert checked.diagnostics[0].message == f"referenced file 'there.yaml' {said}"


def test_referenced_file_with_bad_yaml(tmp_path: Path) -> None:
    checked = check(
        tmp_path, tool_schema('a: {$ref: "t.yaml#/$defs/A"}\n'), t_yaml="$defs:\n  A: {type: [string\n"
    )
    assert [(f[0], f[1]) for f in found(checked)] == [("yaml-syntax", "t.yaml")]


def test_remote_refs_are_refused(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        tool_schema(
            """\
            a: {$ref: "http://example.com/s.json"}
            b: {$ref: "https://example.com/s.json#/$defs/X"}
            c: {$ref: "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"}
            d: {$ref: "file:///etc/passwd"}
            """
        ),
    )
    assert found(checked) == [("remote-ref", "tools.yaml", 8 + i, 19) for i in range(4)]
    assert "never touches the network" in (checked.diagnostics[0].hint or "")


def test_unresolved_refs(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs: {A: {type: string}}
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/B"}
                b: {$ref: "#/properties/nope"}
                c: {$ref: "#/$defs/A/properties/x"}
                d: {$ref: "#anchor"}
        """,
    )
    assert [(f[0], f[2]) for f in found(checked)] == [
        ("unresolved-ref", 9),
        ("unresolved-ref", 10),
        ("unresolved-ref", 11),
        ("unsupported-ref", 12),
    ]


def test_cycle_of_bare_refs_is_refused(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          A: {$ref: "#/$defs/B"}
          B: {$ref: "#/$defs/A"}
          Self: {$ref: "#/$defs/Self", description: only annotations beside it}
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/A"}
                x: {$ref: "#/properties/y"}
                y: {$ref: "#/properties/x"}
        """,
    )
    assert [(f[0], f[2]) for f in found(checked)] == [
        ("ref-cycle", 4),
        ("ref-cycle", 5),
        ("ref-cycle", 6),
        ("ref-cycle", 12),
        ("ref-cycle", 13),
        ("ref-cycle", 14),
    ]


def test_cycle_across_files_is_refused(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        tool_schema('a: {$ref: "a.yaml#/$defs/A"}\n'),
        a_yaml='$defs:\n  A: {$ref: "b.yaml#/$defs/B"}\n',
        b_yaml='$defs:\n  B: {$ref: "a.yaml#/$defs/A"}\n',
    )
    assert "ref-cycle" in {f[0] for f in found(checked)}
    assert checked.toolset is None


def test_recursive_schemas_are_accepted(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Node:
            type: object
            properties:
              name: {type: string}
              children: {type: array, items: {$ref: "#/$defs/Node"}}
        tools:
          - name: tree
            inputSchema:
              type: object
              properties:
                root: {$ref: "#/$defs/Node"}
                own: {$ref: "#/$defs/Own"}
              $defs:
                Own:
                  type: object
                  properties:
                    next: {$ref: "#/$defs/Own"}
            examples:
              - input: {root: {name: a, children: [{name: b, children: [{name: c}]}]}}
        """,
    )
    assert found(checked) == []
    assert checked.toolset is not None
    schema = checked.toolset.tools[0].input_schema
    assert schema["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_whole_document_recursion_is_accepted(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                sub: {$ref: "#"}
        """,
    )
    assert found(checked) == []


def test_draft07_schema_bundles_into_definitions(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Shared: {type: string}
        tools:
          - name: d7
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              definitions:
                X: {type: string}
              properties:
                a: {$ref: "#/definitions/X"}
                b: {$ref: "#/$defs/Shared"}
                c: {$ref: "c.json#/definitions/C"}
              additionalProperties: false
        """,
        c_json='{"definitions": {"C": {"type": "integer"}}}',
    )
    assert found(checked) == []
    assert checked.toolset is not None
    tool = checked.toolset.tools[0]
    assert tool.dialect == "draft-07"
    assert tool.input_schema["definitions"] == {
        "X": {"type": "string"},
        "Shared": {"type": "string"},
        "C": {"type": "integer"},
    }
    assert tool.input_schema["properties"]["b"] == {"$ref": "#/definitions/Shared"}
    assert tool.input_schema["properties"]["c"] == {"$ref": "#/definitions/C"}
    assert "$defs" not in tool.input_schema


def test_unused_shared_def_with_a_bad_ref_is_reported(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Lonely: {type: object, properties: {x: {$ref: "#/$defs/Gone"}}}
        tools:
          - name: t
            inputSchema: {type: object}
        """,
    )
    assert found(checked) == [("unresolved-ref", "tools.yaml", 4, 49)]


def test_reference_to_something_that_is_not_a_schema(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        tool_schema('a: {$ref: "#/properties/b/type"}\nb: {type: string}\nc: {$ref: "v.yaml#/list"}\n'),
        v_yaml="list: [1, 2]\n",
    )
    assert found(checked) == [
        ("ref-not-schema", "tools.yaml", 8, 19),
        ("ref-not-schema", "tools.yaml", 10, 19),
    ]
    assert "points at a string" in checked.diagnostics[0].message


@pytest.mark.parametrize(
    ("ref", "hint"),
    [
        ("common.yaml#/$defs", "'common.yaml#/$defs/A' (it holds 'A', 'B')"),
        ("common.yaml#/definitions", "'common.yaml#/definitions/D' (it holds 'D')"),
        ("#/$defs", "'#/$defs/Shared' (it holds 'Shared', 'properties')"),
        ("#/properties/b/$defs", "'#/properties/b/$defs/a~1b%20c' (it holds 'a/b c')"),  # (as a pointer)
        ("common.yaml#/$defs/A/properties", "'common.yaml#/$defs/A/properties/k' (it holds 'k')"),
        ("#/properties", "'#/properties/b' (it holds 'b')"),  # (not `a`, where it is written)
        ("#/$defs/properties/properties", "'#/$defs/properties/properties/z' (it holds 'z')"),
        ("common.yaml#/dependencies", "'common.yaml#/dependencies/s' (it holds 's')"),  # (a schema)
    ],
)
def test_a_reference_to_a_mapping_of_schemas_itself_is_refused_naming_one(
    tmp_path: Path, ref: str, hint: str
) -> None:
    # Read as a schema, a `$defs` mapping accepts anything (its names are unknown keywords), and a
    # file's would be advertised with its references unbundled: never what the author meant.
    checked = check(
        tmp_path,
        "$defs: {Shared: {type: string}, properties: {properties: {z: {}}}}\n"
        + tool_schema(f'a: {{$ref: "{ref}"}}\nb: {{type: object, $defs: {{"a/b c": {{type: string}}}}}}\n'),
        common_yaml="$defs:\n  A: {properties: {k: {$ref: 'other.yaml#/$defs/K'}}}\n  B: {}\n"
        "definitions: {D: {}}\ndependencies: {a: [b], s: {required: [c]}}\n",
        other_yaml="$defs: {K: {type: string}}\n",
    )
    assert found(checked) == [("ref-not-schema", "tools.yaml", 9, 19)], found(checked)
    assert checked.diagnostics[0].hint == f"name the schema meant: {hint}"
    # A property named `$defs` is a schema: referring to it is no mistake; a mapping that is not
    # there does not resolve, said so.
    properties = "b: {type: object, properties: {$defs: {type: string}}}\n"
    checked = check(tmp_path, tool_schema(properties + 'c: {$ref: "#/properties/b/properties/$defs"}\n'))
    assert found(checked) == []
    for missing in ("#/$defs", "#/properties/nope/properties"):
        checked = check(tmp_path, tool_schema(f'c: {{$ref: "{missing}"}}\n'))
        assert [d.code for d in checked.diagnostics] == ["unresolved-ref"], checked.diagnostics


@pytest.mark.parametrize(
    ("body", "hint"),
    [
        # written deep inside `a`: `b`, beside it at the root, is the schema to name
        ('a: {type: object, properties: {b: {$ref: "#/properties"}}}\nb: {}\n', "'#/properties/b'"),
        # another file's mapping: its `A` is not where the reference is written
        ('a: {$ref: "c.yaml#/$defs"}\n', "'c.yaml#/$defs/A'"),
    ],
)
def test_the_hint_of_a_reference_to_a_mapping_names_a_schema_it_is_not_written_in(
    tmp_path: Path, body: str, hint: str
) -> None:
    checked = check(tmp_path, tool_schema(body), c_yaml="$defs: {A: {type: string}}\n")
    [found] = checked.diagnostics
    name = hint.rsplit("/", 1)[1].rstrip("'")
    assert (found.code, found.hint) == ("ref-not-schema", f"name the schema meant: {hint} (it holds {name!r})")  # noqa: E501


def test_a_reference_to_a_mapping_through_a_draft_07_list_of_items_is_refused(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                t: {items: [{type: string}, {type: object, properties: {x: {}}}]}
                v: {$ref: "#/properties/t/items/1/properties"}
        """,
    )
    assert [(d.code, d.hint) for d in checked.diagnostics] == [
        ("ref-not-schema", "name the schema meant: '#/properties/t/items/1/properties/x' (it holds 'x')")
    ]


def test_schema_that_is_its_own_branch_is_refused_at_the_reference(tmp_path: Path) -> None:
    """A schema reached again, through references and keywords that apply to the same value
    (allOf, anyOf, oneOf, not, if/then/else, dependentSchemas, a `$ref` with siblings), before
    any property or item: its validation never ends and no type alias can express it."""
    checked = check(
        tmp_path,
        """\
        $defs:
          Any1: {anyOf: [{$ref: "#/$defs/Any1"}, {type: string}]}
          One: {oneOf: [{type: string}, {$ref: "#/$defs/One"}]}
          Nested: {anyOf: [{anyOf: [{type: integer}, {$ref: "#/$defs/Nested"}]}, {type: string}]}
          Alias: {anyOf: [{$ref: "#/$defs/Alias2"}, {type: string}]}
          Alias2: {$ref: "#/$defs/Alias"}
          OrSelf: {anyOf: [{type: array, items: {$ref: "#/$defs/OrSelf"}}, {$ref: "#/$defs/OrSelf"}]}
          Sibling: {$ref: "#/$defs/Sibling", type: string}
          Not: {not: {$ref: "#/$defs/Not"}}
          Then: {if: {type: string}, then: {allOf: [{$ref: "#/$defs/Then"}]}}
          Ping: {oneOf: [{$ref: "#/$defs/Pong"}, {type: integer}]}
          Pong: {allOf: [{$ref: "#/$defs/Ping"}], description: d}
          File: {anyOf: [{$ref: "other.yaml#/$defs/Back"}, {type: string}]}
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/Any1"}
                own: {$ref: "#/$defs/Own"}
              $defs:
                Own: {oneOf: [{type: "null"}, {$ref: "#/$defs/Own"}]}
        """,
        other_yaml='$defs:\n  Back: {allOf: [{$ref: "tools.yaml#/$defs/File"}]}\n',
    )
    assert checked.toolset is None
    cycles = {(f[1], f[2], f[3]) for f in found(checked) if f[0] == "ref-cycle"}
    text = (tmp_path / "tools.yaml").read_text("utf-8").splitlines()
    expected = set()
    for line_no, line in enumerate(text, 1):
        for name in ("Any1", "One", "Nested", "Alias2", "Alias", "OrSelf", "Sibling", "Not",
                     "Then", "Pong", "Ping", "Own"):  # fmt: skip
            if line.lstrip().startswith(("a:", "own:")):
                continue  # a reference into the loop from outside is not the culprit
            needle = f'{{$ref: "#/$defs/{name}"'
            if needle in line:  # located at the reference itself
                expected.add(("tools.yaml", line_no, line.rindex(needle) + len("{$ref: ") + 1))
    items = text[8].index('"#/$defs/OrSelf"') + 1
    assert ("tools.yaml", 9, items) not in cycles  # OrSelf's items: a part of the value, no loop
    assert cycles - {("other.yaml", 2, 25)} == expected | {("tools.yaml", 15, 25)}  # through a file
    message = next(d for d in checked.diagnostics if d.code == "ref-cycle" and d.location.line == 4)
    assert "never ends" in message.message and message.hint and "items" in message.hint


def test_recursion_below_a_property_or_item_is_not_a_loop(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Json: {anyOf: [{type: array, items: {$ref: "#/$defs/Json"}}, {type: string}]}
          Typed: {type: [array, string], items: {$ref: "#/$defs/Typed"}}
          Via: {anyOf: [{$ref: "#/$defs/Arr"}, {type: string}]}
          Arr: {type: array, items: {$ref: "#/$defs/Via"}}
          Map: {oneOf: [{type: object, additionalProperties: {$ref: "#/$defs/Map"}}, {type: integer}]}
          Cond: {if: {properties: {a: {$ref: "#/$defs/Cond"}}}, then: {required: [a]}}
          Node:
            type: object
            properties: {next: {anyOf: [{$ref: "#/$defs/Node"}, {type: "null"}]}}
            allOf: [{properties: {kids: {type: array, items: {$ref: "#/$defs/Node"}}}}]
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                json: {$ref: "#/$defs/Json"}
                node: {$ref: "#/$defs/Node"}
                via: {$ref: "#/$defs/Via"}
        """,
    )
    assert found(checked) == []
    assert checked.toolset is not None


_SHARING = {
    "mcpstub": 1,
    "server": {"name": "s"},
    "$defs": {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "n": {"type": "integer"}}},
        "B": {"type": "string", "enum": ["x", "y"]},
    },
    "tools": [
        {"name": "plain", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}},
        {
            "name": "older",
            "inputSchema": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"a": {"$ref": "#/definitions/A"}},
            },
        },
        {
            "name": "own_b",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}},
                "$defs": {"B": {"type": "integer"}},
            },
        },
        {"name": "again", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}},
    ],
}


def test_a_definition_taken_as_it_is_is_one_object_and_one_rewritten_is_a_copy(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(_SHARING), "utf-8")
    checked = check_toolset(path, "tools.json")
    assert checked.ok, found(checked)
    assert checked.toolset is not None
    shared = checked.toolset.shared_defs
    plain, older, own_b, again = (t.input_schema for t in checked.toolset.tools)
    # Taken as written: the very object, in every tool that takes it.
    assert plain["$defs"]["A"] is shared["A"] and again["$defs"]["A"] is shared["A"]
    # draft-07 keeps definitions under `definitions`, and own_b's own B renames the shared one:
    # both rewrite A's reference, each in a copy of its own.
    assert older["definitions"]["A"]["properties"]["b"] == {"$ref": "#/definitions/B"}
    assert own_b["$defs"]["A"]["properties"]["b"] == {"$ref": "#/$defs/B2"}
    assert older["definitions"]["A"] is not shared["A"] and own_b["$defs"]["A"] is not shared["A"]
    # Nothing written anew reaches what was read, nor another tool.
    assert shared == _SHARING["$defs"]
    assert plain["$defs"]["A"]["properties"]["b"] == {"$ref": "#/$defs/B"}


def test_generating_changes_no_schema_it_was_given(tmp_path: Path) -> None:
    from mcpstub.pipeline import render  # noqa: PLC0415 - the heavy half, only here

    path = tmp_path / "tools.json"
    path.write_text(json.dumps(_SHARING), "utf-8")
    checked = check_toolset(path, "tools.json")
    assert checked.toolset is not None
    before = json.dumps([checked.toolset.shared_defs, [t.advertised for t in checked.toolset.tools]])
    first = render(checked.toolset)
    assert json.dumps([checked.toolset.shared_defs, [t.advertised for t in checked.toolset.tools]]) == before
    again = render(checked.toolset)
    assert (first.ours, first.yours) == (again.ours, again.yours)


def test_a_misspelled_file_or_an_anchor_in_another_file_gets_the_reference_to_write(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        tool_schema(
            """\
            a: {$ref: "schemas/comon.yaml#/$defs/Note"}
            b: {$ref: "schemas/common.yaml#Note"}
            c: {$ref: "schemas/nothing-like-it.yaml#/$defs/Note"}
            """
        ),
        schemas__common_yaml="$defs: {Note: {type: string}}\n",
    )
    said = [(d.code, d.hint) for d in checked.diagnostics]
    assert said == [
        ("ref-file", "did you mean 'schemas/common.yaml'?"),
        ("unsupported-ref", "anchors are not supported; use schemas/common.yaml#/$defs/NAME"),
        ("ref-file", None),
    ]


@pytest.mark.parametrize(
    ("ref", "code", "hint"),
    [
        ("#/defs/PersonName", "unresolved-ref", "did you mean '#/$defs/PersonName'?"),
        ("#/$def/PersonName", "unresolved-ref", "did you mean '#/$defs/PersonName'?"),
        ("$defs/PersonName", "ref-file",
         "did you mean '#/$defs/PersonName'? A reference into this file starts with '#'"),
    ],
)  # fmt: skip
def test_a_reference_to_a_shared_definition_written_wrong_is_told_the_right_one(
    tmp_path: Path, ref: str, code: str, hint: str
) -> None:
    (tmp_path / "tools.yaml").write_text(
        "mcpstub: 1\nserver: {name: s}\n$defs:\n  PersonName: {type: string}\ntools:\n  - name: a\n"
        f'    inputSchema: {{type: object, properties: {{name: {{$ref: "{ref}"}}}}}}\n',
        "utf-8",
    )
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert [(d.code, d.location.line, d.hint) for d in checked.diagnostics] == [(code, 7, hint)]
