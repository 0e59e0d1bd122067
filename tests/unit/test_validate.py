"""Validator: the format, names, schemas and examples, reported at the right line."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpstub.pipeline import Checked, check_toolset
from mcpstub.validate import all_finite

HEAD = "mcpstub: 1\nserver: {name: s}\n"


def check(tmp_path: Path, text: str, head: str = HEAD) -> Checked:
    path = tmp_path / "tools.yaml"
    path.write_text(head + textwrap.dedent(text), "utf-8")
    return check_toolset(path, "tools.yaml")


def found(checked: Checked) -> list[tuple[str, int, int]]:
    return [(d.code, d.location.line, d.location.col) for d in checked.diagnostics]


def tools(*names: str) -> str:
    return "tools:\n" + "".join(f"  - name: {n!r}\n    inputSchema: {{type: object}}\n" for n in names)


def test_minimal_toolset_builds_the_ir(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: get-user.v2
            title: Get user
            description: Look up a user.
            inputSchema: {type: object, properties: {id: {type: string}}, required: [id]}
            outputSchema: {type: object, properties: {name: {type: string}}}
            annotations: {readOnlyHint: true}
            _meta: {x: 1}
        """,
        head="mcpstub: 1\nserver: {name: s, version: 1.0.0, instructions: Hi.}\n",
    )
    assert checked.ok, found(checked)
    toolset = checked.toolset
    assert toolset is not None
    assert (toolset.server_name, toolset.server_version, toolset.instructions) == ("s", "1.0.0", "Hi.")
    tool = toolset.tools[0]
    assert tool.identifier == "get_user_v2"
    assert (tool.input_class, tool.output_class, tool.result_class) == (
        "GetUserV2Input",
        "GetUserV2Output",
        "GetUserV2Result",
    )
    assert tool.title == "Get user"
    assert list(tool.advertised) == [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "_meta",
    ]


def test_shipped_examples_validate() -> None:
    root = Path(__file__).resolve().parents[2] / "schemas" / "examples"
    for name in ("minimal.yaml", "full.yaml", "starter.yaml"):
        checked = check_toolset(root / name, name)
        assert checked.ok, [d.format() for d in checked.diagnostics]


def test_missing_version_and_server_name(tmp_path: Path) -> None:
    checked = check(tmp_path, "server: {}\n" + tools("a"), head="")
    assert [d.code for d in checked.diagnostics] == ["missing-version", "missing-key"]
    assert "server" in checked.diagnostics[1].message and "'name'" in checked.diagnostics[1].message


@pytest.mark.parametrize("version", ["2", "'1'", "1.5", "0"])
def test_unsupported_version(tmp_path: Path, version: str) -> None:
    checked = check(tmp_path, f"mcpstub: {version}\nserver: {{name: s}}\n" + tools("a"), head="")
    assert found(checked)[0][:2] == ("unsupported-version", 1)


def test_top_level_not_a_mapping(tmp_path: Path) -> None:
    checked = check(tmp_path, "- name: a\n", head="")
    assert found(checked) == [("not-a-mapping", 1, 1)]
    assert checked.diagnostics[0].hint


def test_unknown_keys_get_did_you_mean(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        sever: {}
        tools:
          - name: a
            inputschema: {type: object}
            descripton: x
            annotations: {readOnlyHnt: true}
            totally_unrelated: 1
        """,
    )
    by_code = [(d.code, d.location.line, d.hint) for d in checked.diagnostics]
    assert ("unknown-key", 3, "did you mean 'server'?") in by_code
    assert ("unknown-key", 6, "did you mean 'inputSchema'?") in by_code
    assert ("unknown-key", 7, "did you mean 'description'?") in by_code
    assert ("annotation-misspelled", 8, "write 'readOnlyHint'") in by_code
    unrelated = next(d for d in checked.diagnostics if "totally_unrelated" in d.message)
    assert unrelated.hint is not None and unrelated.hint.startswith("allowed keys:")
    assert (unrelated.location.line, unrelated.location.col) == (9, 5)


@pytest.mark.parametrize(("written", "meant"), [("readOnlyHint: true", "readOnlyHint: true"),
                                               ("destructivehint: false", "destructiveHint: false"),
                                               ("openWorldHint: yes", "openWorldHint: true or false")])
def test_an_annotation_written_beside_the_tool_s_name_is_told_where_it_goes(
    tmp_path: Path, written: str, meant: str
) -> None:
    checked = check(tmp_path, f"tools:\n  - name: a\n    {written}\n    inputSchema: {{type: object}}\n")
    [said] = checked.diagnostics
    assert (said.code, said.location.line, said.location.col) == ("unknown-key", 5, 5)
    key = meant.partition(":")[0]
    shown = f"`annotations: {{{meant}}}`"
    assert said.hint == f"{key!r} is a tool annotation: write it under annotations: {shown}"
    text = f"tools:\n  - name: a\n    annotations: {{title: T}}\n    {written}\n"
    text += "    inputSchema: {type: object}\n"
    [said] = check(tmp_path, text).diagnostics  # (one there already: no second `annotations:`)
    assert said.hint == f"{key!r} is a tool annotation: write it in the tool's `annotations`"


def test_unknown_keywords_inside_schemas_only_warn(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object, x-vendor: 1, propertyOrder: [a], properties: {a: {x-ui: 2}}}
        """,
    )
    assert checked.ok, found(checked)
    assert [(d.severity.value, d.code) for d in checked.diagnostics] == [("warning", "unknown-keyword")]


@pytest.mark.parametrize("name", ["", "has space", "ünicode", "a/b", "x" * 129, "semi;colon"])
def test_invalid_tool_names(tmp_path: Path, name: str) -> None:
    checked = check(tmp_path, tools(name))
    assert found(checked) == [("invalid-tool-name", 4, 11)]


@pytest.mark.parametrize("name", ["a", "A.b-c_d", "x" * 128, "123", "get.user-v2"])
def test_valid_tool_names(tmp_path: Path, name: str) -> None:
    assert check(tmp_path, tools(name)).ok


def test_duplicate_tool_names(tmp_path: Path) -> None:
    checked = check(tmp_path, tools("a", "b", "a"))
    assert found(checked) == [("duplicate-tool", 8, 11)]
    assert "first at line 4" in checked.diagnostics[0].message


def test_python_identifier_collision(tmp_path: Path) -> None:
    checked = check(tmp_path, tools("get-user", "get_user", "get.user"))
    assert found(checked) == [("name-collision", 6, 11), ("name-collision", 8, 11)]
    message = checked.diagnostics[0].message
    assert "'get-user' and 'get_user' both map to the Python name 'get_user'" in message


def test_class_name_collision_between_tools(tmp_path: Path) -> None:
    # different identifiers (getUser -> get_user... and GetUser) but camelCase humps agree
    checked = check(tmp_path, tools("get_user", "getUser"))
    assert [d.code for d in checked.diagnostics] == ["name-collision"]


def test_class_name_collision_with_shared_def(tmp_path: Path) -> None:
    checked = check(tmp_path, "$defs:\n  GreetInput: {type: string}\n" + tools("greet"))
    assert found(checked) == [("name-collision", 6, 11)]
    assert "shared definition 'GreetInput'" in checked.diagnostics[0].message


def test_keywords_get_a_suffix(tmp_path: Path) -> None:
    checked = check(tmp_path, tools("class", "import", "match", "tools", "9lives"))
    assert checked.ok, found(checked)
    assert checked.toolset is not None
    idents = [t.identifier for t in checked.toolset.tools]
    assert idents == ["class_", "import_", "match_", "tools_", "tool_9lives"]
    assert all(i.isidentifier() for i in idents)


def test_keyword_suffix_can_collide(tmp_path: Path) -> None:
    checked = check(tmp_path, tools("class", "class_"))
    assert [d.code for d in checked.diagnostics] == ["name-collision"]


def test_input_root_type_must_be_object_output_root_may_be_any(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: string}
            outputSchema: {type: array}
          - name: b
            inputSchema: {properties: {}}
            outputSchema: {type: [object, "null"]}
          - name: c
            inputSchema: {type: object}
            outputSchema: {anyOf: [{type: string}, {type: "null"}]}
        """,
    )
    assert [(c, line) for c, line, _ in found(checked)] == [
        ("root-not-object", 5),
        ("root-not-object", 8),
    ]


def test_input_schema_is_required(tmp_path: Path) -> None:
    checked = check(tmp_path, "tools:\n  - name: a\n")
    assert [d.code for d in checked.diagnostics] == ["missing-key"]
    assert "inputSchema" in checked.diagnostics[0].message


def test_invalid_schema_points_at_the_keyword(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                n: {type: integer, minimum: "3"}
                s: {type: strng}
              required: name
        """,
    )
    assert found(checked) == [
        ("invalid-schema", 8, 37),
        ("unknown-type", 9, 19),
        ("invalid-schema", 10, 17),
    ]


def test_regex_is_checked_as_ecma_262(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        r"""
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                letters: {type: string, pattern: '^\p{L}+$'}
                year: {type: string, pattern: '^(?<year>\d{4})$'}
              patternProperties:
                '^x-': {}
          - name: b
            inputSchema: {type: object, properties: {bad: {type: string, pattern: '['}}}
        """,
    )
    assert found(checked) == [("invalid-schema", 14, 75)]
    assert "is not a regular expression" in checked.diagnostics[0].message


def test_draft07_is_accepted_other_dialects_are_not(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties: {x: {type: string}}
              additionalProperties: false
          - name: b
            inputSchema: {$schema: "https://json-schema.org/draft/2020-12/schema", type: object}
          - name: c
            inputSchema: {$schema: "http://json-schema.org/draft-04/schema#", type: object}
        """,
    )
    assert found(checked) == [("unsupported-dialect", 13, 28)]


def test_draft07_keywords_are_checked_against_draft07(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties: {x: {type: string, maxLength: -1}}
        """,
    )
    assert [(c, line) for c, line, _ in found(checked)] == [("invalid-schema", 8)]
    assert "draft-07" in checked.diagnostics[0].message


def test_examples_are_validated_with_formats(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                day: {type: string, format: date}
                mail: {type: string, format: email}
                n: {type: integer, minimum: 1}
              required: [n]
              additionalProperties: false
            outputSchema: {type: object, properties: {ok: {type: boolean}}, required: [ok]}
            examples:
              - input: {n: 1, day: 2026-01-01, mail: a@example.com}
                output: {ok: true}
              - input: {n: 0, day: 2026-02-30, mail: nope}
              - input: {day: "2026-01-01", extra: 1}
                output: {ok: "yes"}
        """,
    )
    assert found(checked) == [
        ("example-invalid", 17, 20),
        ("example-invalid", 17, 28),
        ("example-invalid", 17, 46),
        ("example-invalid", 18, 16),
        ("example-invalid", 18, 16),
        ("example-invalid", 19, 22),
    ]
    messages = "\n".join(d.message for d in checked.diagnostics)
    assert '"2026-02-30" is not a "date"' in messages
    assert "example output does not match the output schema at /ok" in messages


def test_example_output_without_output_schema(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            examples:
              - input: {}
                output: {x: 1}
        """,
    )
    assert found(checked) == [("example-output", 8, 9)]


def test_examples_can_use_shared_defs_and_files(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text('{"$defs": {"Zip": {"type": "string", "pattern": "^[0-9]{5}$"}}}')
    checked = check(
        tmp_path,
        """\
        $defs:
          City: {type: string, minLength: 2}
        tools:
          - name: a
            inputSchema:
              type: object
              properties: {city: {$ref: "#/$defs/City"}, zip: {$ref: "c.json#/$defs/Zip"}}
            examples:
              - input: {city: Paris, zip: "75001"}
              - input: {city: P, zip: "7500"}
        """,
    )
    assert found(checked) == [("example-invalid", 12, 23), ("example-invalid", 12, 31)]


def test_non_json_numbers_are_refused(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object, properties: {x: {type: number, maximum: .inf}}}
        """,
    )
    assert [d.code for d in checked.diagnostics] == ["not-json"]


def test_every_problem_at_once_sorted_by_position(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: "bad name"
            inputSchema: {type: string}
          - name: ok
            inputSchema: {type: object, properties: {r: {$ref: "#/$defs/Nope"}}}
            extra: 1
          - name: ok
            inputSchema: {type: object}
        """,
        head="server: {name: s}\n",
    )
    codes = [d.code for d in checked.diagnostics]
    assert codes == [
        "missing-version",
        "invalid-tool-name",
        "root-not-object",
        "unresolved-ref",
        "unknown-key",
        "duplicate-tool",
    ]
    positions = [(d.location.line, d.location.col) for d in checked.diagnostics]
    assert positions == sorted(positions)
    assert checked.toolset is None


def test_diagnostic_format(tmp_path: Path) -> None:
    checked = check(tmp_path, tools("a b"))
    assert checked.diagnostics[0].format() == (
        "tools.yaml:4:11: error: tool name 'a b' is not valid [invalid-tool-name]\n"
        "  hint: MCP tool names are 1-128 characters of A-Z a-z 0-9 _ - ."
    )


def test_wrong_types_in_the_format(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            annotations: {readOnlyHint: "yes"}
            examples: {input: {}}
          - 7
        """,
    )
    assert [(c, line) for c, line, _ in found(checked)] == [
        ("wrong-type", 6),
        ("wrong-type", 7),
        ("wrong-type", 8),
    ]


def test_500_tools_validate_in_seconds(tmp_path: Path) -> None:
    many = [
        {
            "name": f"tool_{i}",
            "description": "A tool.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "day": {"type": "string", "format": "date"},
                    "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                    "opts": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}},
                },
                "required": ["day"],
            },
            "outputSchema": {"type": "object", "properties": {"r": {"type": "string"}}},
            "examples": [{"input": {"day": "2026-01-01"}, "output": {"r": "x"}}],
        }
        for i in range(500)
    ]
    doc = {
        "mcpstub": 1,
        "server": {"name": "big"},
        "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "number"}}}},
        "tools": many,
    }
    path = tmp_path / "tools.yaml"
    path.write_text(json.dumps(doc, indent=1), "utf-8")
    start = time.perf_counter()
    checked = check_toolset(path, "tools.yaml")
    elapsed = time.perf_counter() - start
    assert checked.ok
    assert len(checked.toolset.tools) == 500  # type: ignore[union-attr]
    assert elapsed < 8.0, f"validating 500 tools took {elapsed:.1f}s"


def test_malformed_examples_and_defs_are_reported_once(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs: {X: 5}
        tools:
          - name: a
            inputSchema: {type: object}
            examples: [5, {input: 3}, {output: {}}]
        """,
    )
    assert [(c, line) for c, line, _ in found(checked)] == [
        ("wrong-type", 3),
        ("wrong-type", 7),
        ("wrong-type", 7),
        ("missing-key", 7),
        ("example-output", 7),
    ]


def test_a_refused_definition_name_is_located_at_its_key(tmp_path: Path) -> None:
    """Each refused `$defs` name (fullwidth letters, an escape, a digit first, a space, empty,
    a dot, a clash) is reported at the key that spells it, whatever the style of the key."""
    checked = check(
        tmp_path,
        textwrap.dedent("""\
        $defs:
          Fine: {type: string}
          \uff21\uff4e\uff59: {type: string}
          "\\uff21b":
            type: string
          1x: {}
          'c d': {}
          "": {}
          a.b: {}
          ? long key
          : {}
          fine: {}
          3: {}
        """)
        + tools("t"),
    )
    assert found(checked) == [
        ("invalid-name", 5, 3),
        ("invalid-name", 6, 3),
        ("invalid-name", 8, 3),
        ("invalid-name", 9, 3),
        ("invalid-name", 10, 3),
        ("invalid-def-name", 11, 3),
        ("invalid-name", 12, 5),
        ("name-collision", 14, 3),
        ("invalid-name", 15, 3),
    ]
    fullwidth = checked.diagnostics[0]
    assert "'\uff21\uff4e\uff59' is not a valid name" in fullwidth.message
    assert fullwidth.hint is not None and "ASCII letter" in fullwidth.hint


class _Float(float):
    """A float of another type, as a loader may make to keep a number's text."""


_VALUES = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.text(max_size=3),
        st.floats(), st.floats().map(_Float), st.sampled_from([10**400, -(10**309), 2**1023, -0.0]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=2), inner, max_size=4)
    ),
    max_leaves=30,
)  # fmt: skip


def _doubles_hold(value: object) -> bool:
    """The reference: JSON's writer takes it, and every integer converts to a double."""
    if isinstance(value, dict):
        return all(_doubles_hold(v) for v in value.values())
    if isinstance(value, list):
        return all(_doubles_hold(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            return False
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


@given(_VALUES)
def test_a_number_json_cannot_hold_is_found_anywhere_in_the_data(value: object) -> None:
    assert all_finite(value) is _doubles_hold(value)


@pytest.mark.parametrize("number", ["1" + "0" * 400, "-" + "9" * 309, "1e400", "-.inf", ".nan"])
def test_a_number_no_client_can_read_is_a_located_error(tmp_path: Path, number: str) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
        f"      properties:\n        n: {{type: integer, maximum: {number}}}\n",
        "utf-8",
    )
    checked = check_toolset(path)
    assert [(d.code, d.location.line, d.location.col) for d in checked.diagnostics] == [("not-json", 8, 37)]
    assert "maximum" in checked.diagnostics[0].message


@pytest.mark.parametrize("number", ["1" + "0" * 400, "1e400"])
def test_a_number_no_client_can_read_in_a_referenced_file_is_a_located_error(
    tmp_path: Path, number: str
) -> None:
    (tmp_path / "defs.yaml").write_text(f"$defs:\n  N: {{type: integer, maximum: {number}}}\n", "utf-8")
    path = tmp_path / "tools.yaml"
    path.write_text(
        "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
        '      properties:\n        n: {$ref: "defs.yaml#/$defs/N"}\n',
        "utf-8",
    )
    checked = check_toolset(path)
    assert not checked.ok  # never a toolset that checks clean with the tool left out
    found = [
        (d.code, Path(d.location.file).name, d.location.line, d.location.col) for d in checked.diagnostics
    ]
    assert found == [("not-json", "defs.yaml", 2, 31)]


def test_a_number_no_client_can_read_in_an_example_is_reported_once(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: t\n"
        "    inputSchema: {type: object, properties: {x: {type: number}}}\n"
        "    outputSchema: {type: object, properties: {y: {type: number}}}\n"
        "    examples:\n      - input: {x: 1e400}\n        output: {y: .inf}\n      - input: {x: s}\n",
        "utf-8",
    )
    found = [(d.code, d.location.line) for d in check_toolset(path).diagnostics]
    assert found == [("not-json", 8), ("not-json", 9), ("example-invalid", 10)]  # the others still checked


def test_a_default_its_own_schema_rejects_is_a_warning_where_it_is_written(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Size: {type: integer, minimum: 0, default: -1}
          Box:
            type: object
            properties:
              size: {$ref: "#/$defs/Size", default: big}
        tools:
          - name: pick
            inputSchema:
              type: object
              properties:
                n: {type: integer, default: ten}
                fine: {type: number, default: 1}
                box: {$ref: "#/$defs/Box", default: {size: 3}}
                bad box: {$ref: "#/$defs/Box", default: {size: x}}
                "a/~ b": {type: boolean, default: 0}
                day: {type: string, format: date, default: yesterday}
                list: {type: array, items: {type: integer, default: 1.5}, default: [1, 2]}
                same: {$ref: "#/properties/fine", default: 2.5}
              $defs:
                Own: {type: string, default: 3}
            outputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                r: {$ref: "#/definitions/R", default: 7}
                ignored: {$ref: "#/definitions/R", type: integer, default: text}
              definitions:
                R: {type: string}
        """,
    )
    assert checked.ok  # warnings: the toolset is generated
    # Size's and Own's defaults fill no field as well (each said once, at the default).
    beside = [(d.code, d.location.line) for d in checked.diagnostics if d.code != "invalid-default"]
    # draft-07's `ignored` has a `type` beside its $ref, which validators ignore: said.
    assert beside == [("definition-default", 4), ("definition-default", 23), ("ignored-beside-ref", 29)]
    invalid = [d for d in checked.diagnostics if d.code == "invalid-default"]
    warned = [(d.line, d.col) for d in (x.location for x in invalid)]
    assert warned == sorted(warned)
    lines = [line for line, _ in warned]
    # Size (-1 < 0), Box.size ("big"), n, bad box ("x" for size), a/~ b, day, items (1.5), Own, r.
    # `fine`, `box`, `list`, `same` and draft-07's `ignored` ($ref siblings ignored) are sound.
    assert lines == [4, 8, 14, 17, 18, 19, 20, 23, 28]
    said = {d.location.line: d.message for d in invalid}
    assert "'ten'" in said[14] or '"ten"' in said[14]
    assert "properties.a/~ b.default" in said[18]
    assert all(d.location.col > 1 for d in checked.diagnostics)


def test_an_unused_shared_definition_and_nested_defaults_are_checked_once(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Unused: {type: object, properties: {a: {enum: [1, 2], default: 3}}}
          Used: {type: string, default: 1}
        tools:
          - name: one
            inputSchema: {type: object, properties: {u: {$ref: "#/$defs/Used"}}}
          - name: two
            inputSchema: {type: object, properties: {u: {$ref: "#/$defs/Used"}}}
        """,
    )
    assert checked.ok
    assert found(checked) == [
        ("invalid-default", 4, 66),
        ("definition-default", 5, 33),
        ("invalid-default", 5, 33),
    ]


@given(
    st.sampled_from(["integer", "number", "string", "boolean", "null", "array", "object"]),
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
    st.sampled_from([{}, {"minimum": 0}, {"maxLength": 2}, {"minItems": 1}, {"required": ["k"]}]),
)
def test_defaults_are_judged_as_the_run_time_validator_judges_them(
    tmp_path_factory: pytest.TempPathFactory, kind: str, default: object, extra: dict[str, object]
) -> None:
    schema = {"type": kind, **extra, "default": default}
    body = {"type": "object", "properties": {"x": schema}}
    text = json.dumps({"mcpstub": 1, "server": {"name": "s"}, "tools": [{"name": "t", "inputSchema": body}]})
    path = tmp_path_factory.mktemp("d") / "tools.json"
    path.write_text(text, "utf-8")
    checked = check_toolset(path, "tools.json")
    assert checked.ok, found(checked)
    judge = jsonschema.Draft202012Validator({k: v for k, v in schema.items() if k != "default"})
    expected = not judge.is_valid(default)
    assert [d.code for d in checked.diagnostics] == (["invalid-default"] if expected else [])


def test_a_draft_07_default_is_judged_by_draft_07(tmp_path: Path) -> None:
    # Tuple `items` is draft-07's; 2020-12 would read it as invalid, or `prefixItems` ignored.
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                pair: {type: array, items: [{type: integer}], default: [x]}
                fine: {type: array, items: [{type: integer}], default: [1, x]}
                loose: {type: array, prefixItems: [{type: integer}], default: [x]}
        """,
    )
    assert [(code, line) for code, line, _ in found(checked) if code == "invalid-default"] == [
        ("invalid-default", 9)
    ]


def test_a_long_value_is_not_echoed_in_full(tmp_path: Path) -> None:
    huge, long = "1" + "0" * 400, "n" * 300
    checked = check(
        tmp_path,
        f"""\
        $defs: {{{"x" * 300}!: {{type: string}}}}
        tools:
          - name: {long}.!
            timeout: {huge}
            annotations: {{readOnlyHint: true}}
            inputSchema: {{type: object}}
        """,
        head=f"mcpstub: {huge}\nserver: {{name: s}}\n",
    )
    messages = [d.message for d in checked.diagnostics]
    codes = {d.code for d in checked.diagnostics}
    assert codes >= {"unsupported-version", "invalid-name", "invalid-tool-name"}
    assert "tools[0].timeout: an integer of 401 digits is greater than the maximum of 86400" in messages
    assert all(len(m) < 250 for m in messages), messages
    assert all("0" * 100 not in m and "n" * 100 not in m and "x" * 100 not in m for m in messages)


def test_a_long_name_or_value_in_any_message_is_shown_by_its_ends(tmp_path: Path) -> None:
    long = "a" * 500
    checked = check(
        tmp_path,
        f"""\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                "{long}": {{type: "{long}", default: 1}}
                p: {{type: string, pattern: "{long}("}}
                r: {{$ref: "#/$defs/{long}x"}}
        """,
    )
    shown = [d.format() for d in checked.diagnostics]
    assert {d.code for d in checked.diagnostics} >= {"unknown-type", "invalid-schema", "unresolved-ref"}
    assert all("a" * 161 not in line for text in shown for line in text.split("\n")), shown
    assert all(d.location.line > 2 and d.location.col > 1 for d in checked.diagnostics)


def test_a_long_default_keeps_the_reason_it_is_rejected(tmp_path: Path) -> None:
    long, nines = "a" * 500, "9" * 300
    checked = check(
        tmp_path,
        f"""\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                s: {{type: string, maxLength: 3, default: "{long}"}}
                n: {{type: integer, maximum: 1, default: {nines}}}
        """,
    )
    said = {d.location.line: d.message for d in checked.diagnostics if d.code == "invalid-default"}
    assert "is longer than 3 characters" in said[8] and "a" * 100 not in said[8]
    assert "an integer of 300 digits is greater than the maximum of 1" in said[9]


_DRAFT7_NL = "http://json-schema.org/draft-07/schema#\\n"
_DRAFT2020_NL = "https://json-schema.org/draft/2020-12/schema\\n"


@pytest.mark.parametrize(
    ("tools", "code"),
    [
        ('  - name: "get_forecast\\n"\n    inputSchema: {type: object}\n', "invalid-tool-name"),
        ('  - name: "a\\n"\n    inputSchema: {type: object}\n', "invalid-tool-name"),
        (f'  - name: b\n    inputSchema: {{$schema: "{_DRAFT7_NL}", type: object}}\n', "unsupported-dialect"),
        (f'  - name: b\n    inputSchema: {{$schema: "{_DRAFT2020_NL}"}}\n', "unsupported-dialect"),
    ],
)
def test_a_trailing_line_break_is_part_of_the_value(tmp_path: Path, tools: str, code: str) -> None:
    """A name or `$schema` that matches but for a final line break (`$` in a Python pattern also
    matches before one) is what it is: refused."""
    checked = check(tmp_path, "tools:\n" + tools)
    assert not checked.ok and code in {d.code for d in checked.diagnostics}, checked.diagnostics


@pytest.mark.parametrize(
    ("written", "meant"), [("no", "false"), ("Off", "false"), ("yes", "true"), ("Y", "true")]
)
@pytest.mark.parametrize(
    "place",
    [
        "    annotations: {{readOnlyHint: {0}}}\n    inputSchema: {{type: object}}\n",
        "    inputSchema:\n      type: object\n      properties: {{a: {{type: boolean, default: {0}}}}}\n",
        "    inputSchema: {{type: object}}\n    elicitations:\n      ok:\n        type: object\n"
        "        properties: {{sure: {{type: boolean, default: {0}}}}}\n",
    ],
    ids=["annotation", "schema-default", "elicitation-default"],
)
def test_yaml_1_1_boolean_text_where_a_boolean_belongs_is_told_what_to_write(
    tmp_path: Path, place: str, written: str, meant: str
) -> None:
    checked = check(tmp_path, "tools:\n  - name: t\n" + place.format(written))
    hints = [d.hint for d in checked.diagnostics if d.hint and "YAML 1.2 reads" in d.hint]
    assert hints == [f"YAML 1.2 reads {written} as the text {written!r}, not a boolean: write {meant}"], [
        d.format() for d in checked.diagnostics
    ]


def test_quoted_text_is_not_said_to_be_read_as_text_by_yaml(tmp_path: Path) -> None:
    text = 'tools:\n  - name: t\n    annotations: {readOnlyHint: "no"}\n    inputSchema: {type: object}\n'
    checked = check(tmp_path, text)
    [found] = [d for d in checked.diagnostics if d.code == "wrong-type"]
    assert not (found.hint and "YAML 1.2 reads" in found.hint), found


def test_a_mistake_is_said_once_where_it_is_written(tmp_path: Path) -> None:
    """A misspelled required key is the unknown key, not also the missing one; a misspelled root
    type is the unknown type, not also a root that is not an object. The same keys really missing,
    or a root of another real type, are still said."""
    checked = check(
        tmp_path,
        "tools:\n"
        "  - name: a\n    inputschema: {type: object}\n"
        "  - name: b\n    description: none at all\n"
        "  - name: c\n    inputSchema: {type: objet}\n"
        "  - name: d\n    inputSchema: {type: string}\n",
    )
    said = [(d.code, d.location.line) for d in checked.diagnostics]
    expected = [("unknown-key", 5), ("missing-key", 6), ("unknown-type", 9), ("root-not-object", 11)]
    assert said == expected, [d.format() for d in checked.diagnostics]


@pytest.mark.parametrize(
    ("written", "meant"),
    [("date", "date"), ("date-time", "date-time"), ("email", "email"), ("uuid", "uuid"), ("URI", "uri"),
     ("datetime", "date-time"), ("Timestamp", "date-time"), ("url", "uri")],
)  # fmt: skip
def test_a_format_written_as_a_type_is_told_to_be_a_string_format(
    tmp_path: Path, written: str, meant: str
) -> None:
    schema = f"{{type: object, properties: {{d: {{type: {written}}}}}}}"
    checked = check(tmp_path, f"tools:\n  - name: t\n    inputSchema: {schema}\n")
    [found] = [d for d in checked.diagnostics if d.code == "unknown-type"]
    assert found.hint == f"{meant!r} is a format of strings: write type: string, format: {meant}"


@pytest.mark.parametrize(("written", "defined"), [("uuid", False), ("duration", False), ("date", True)])
def test_a_draft_07_schema_is_pointed_only_at_the_formats_draft_07_defines(
    tmp_path: Path, written: str, defined: bool
) -> None:
    schema = (
        "{$schema: 'http://json-schema.org/draft-07/schema#', type: object,"
        f" properties: {{d: {{type: {written}}}}}}}"
    )
    checked = check(tmp_path, f"tools:\n  - name: t\n    inputSchema: {schema}\n")
    [found] = [d for d in checked.diagnostics if d.code == "unknown-type"]
    assert ("is a format of strings" in (found.hint or "")) is defined, found.format()


def test_a_missing_key_cut_off_by_a_flow_comma_is_still_said(tmp_path: Path) -> None:
    """`inputschema` here is text a comma cut, with no "did you mean": the missing key is said."""
    checked = check(tmp_path, "tools: [{name: t, description: Gets the weather, inputschema}]\n")
    assert "missing-key" in [d.code for d in checked.diagnostics], [d.format() for d in checked.diagnostics]


@pytest.mark.parametrize("declared", ["[objet]", "[objet, strin]"])
def test_a_misspelled_root_type_in_a_list_is_said_once(tmp_path: Path, declared: str) -> None:
    checked = check(tmp_path, f"tools:\n  - name: t\n    inputSchema: {{type: {declared}}}\n")
    assert "root-not-object" not in [d.code for d in checked.diagnostics]
    assert "unknown-type" in [d.code for d in checked.diagnostics]


def test_a_property_with_nothing_under_it_is_told_where_its_lines_went(tmp_path: Path) -> None:
    """`a:` with its keywords at its own indentation: `a` has no value and `type` became a
    property; each is said as such, with the mend. `b:` before a sibling gets no such hint."""
    checked = check(
        tmp_path,
        "tools:\n  - name: t\n    inputSchema:\n      type: object\n      properties:\n"
        "        a:\n        type: string\n        b:\n        c: {type: integer}\n",
    )
    said = [(d.location.line, d.message.split(": ", 1)[1], d.hint) for d in checked.diagnostics]
    assert said == [
        (8, "it has no value (null), where a schema (a mapping, or true or false) belongs",
         "nothing is indented under 'a': indent the lines below it 2 more spaces to make them its schema"),
        (9, "'string' is not of type 'object', 'boolean'",
         "here 'type' names a property, not a keyword: if it belongs to the property above it, indent it"
         " under that property"),
        (10, "it has no value (null), where a schema (a mapping, or true or false) belongs",
         "write its schema after it (`{type: string}`, say), or {} for any value"),
    ], [d.format() for d in checked.diagnostics]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("tools:\n  - name: t\n    inputSchema: {type: object, properties: {a: {}}, required: a}\n",
         'required takes a list: write required: ["a"]'),
        ("tools:\n  - name: t\n    inputSchema: {type: object, properties: {a: {enum: x}}}\n",
         'enum takes a list: write enum: ["x"]'),
        ("tools:\n  - name: t\n    inputSchema: {type: object, properties: {a: {enum: '#fff'}}}\n",
         'enum takes a list: write enum: ["#fff"]'),
        ("tools:\n  - name: t\n    inputSchema: {type: object, properties: {a: {enum: '1'}}}\n",
         'enum takes a list: write enum: ["1"]'),
        ("tools:\n  name: t\n  inputSchema: {type: object}\n",
         "tools is a list: start each tool with '- ' (  - name: ..., its keys indented under it)"),
    ],
)  # fmt: skip
def test_a_list_written_as_one_value_is_told_how_to_write_the_list(
    tmp_path: Path, text: str, hint: str
) -> None:
    checked = check(tmp_path, text)
    assert [d.hint for d in checked.diagnostics] == [hint], [d.format() for d in checked.diagnostics]


def test_in_a_json_file_a_list_is_told_in_json(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        '{"mcpstub": 1, "server": {"name": "s"}, "tools": [{"name": "t", "inputSchema":'
        ' {"type": "object", "properties": {"a": {}}, "required": "a"}}]}',
        "utf-8",
    )
    [found] = check_toolset(path, "tools.json").diagnostics
    assert found.hint == 'required takes a list: write "required": ["a"]'
    path.write_text('{"mcpstub": 1, "server": {"name": "s"}, "tools": {"name": "t"}}', "utf-8")
    [found] = check_toolset(path, "tools.json").diagnostics
    assert found.hint == 'tools is a list: "tools": [{"name": ...}, ...]'


@pytest.mark.parametrize(
    ("written", "wanted"),
    [("$ref: #/$defs/P", "string"), ("description: # a note", "string"), ("pattern: #[0-9]+", "string")],
)
def test_a_value_yaml_takes_for_a_comment_is_told_to_be_quoted(
    tmp_path: Path, written: str, wanted: str
) -> None:
    # `#` after a space starts a comment: a block value so written is no value at all.
    key, _, value = written.partition(": ")
    text = "$defs: {P: {type: string}}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
    text += f"      properties:\n        a:\n          type: string\n          {written}\n"
    checked = check(tmp_path, text)
    said = [(d.location.line, d.message.split(": ", 1)[1], d.hint) for d in checked.diagnostics]
    hint = f"'#' after a space starts a comment in YAML, so this has no value: quote it, {key}: \"{value}\""
    assert said == [(11, f"it has no value (null), where a {wanted} belongs", hint)], said


def test_a_flow_value_yaml_takes_for_a_comment_is_told_to_be_quoted(tmp_path: Path) -> None:
    # In `{...}` the comment takes the closing brace too: the YAML error says why, where the `#` is.
    text = "$defs: {P: {type: string}}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
    text += "      properties:\n        a: {$ref: #/$defs/P}\n        b: {type: string}\n"
    checked = check(tmp_path, text)
    said = [(d.code, d.location.line, d.location.col, d.message, d.hint) for d in checked.diagnostics]
    assert said == [
        ("yaml-syntax", 9, 19, "invalid YAML: '#' after a space starts a comment in YAML: the rest of"
         " line 9 is not read", 'quote the value: $ref: "#/$defs/P"'),
    ], said  # fmt: skip


@pytest.mark.parametrize(
    ("written", "hint"),
    [
        ("5m", "timeout is in seconds, a number: timeout: 300"),
        ("30 s", "timeout is in seconds, a number: timeout: 30"),
        ("1.5h", "timeout is in seconds, a number: timeout: 5400"),
        ("soon", "timeout is in seconds, a number"),
    ],
)
def test_a_timeout_written_with_a_unit_is_told_in_seconds(tmp_path: Path, written: str, hint: str) -> None:
    text = f"tools:\n  - name: t\n    inputSchema: {{type: object}}\n    timeout: {written}\n"
    checked = check(tmp_path, text)
    assert [(d.code, d.hint) for d in checked.diagnostics] == [("wrong-type", hint)]


def test_a_hash_inside_quoted_flow_text_is_no_comment(tmp_path: Path) -> None:
    # The real mistake is the missing comma: the '#' in the quoted description starts nothing.
    schema = "{type: object, properties: {a: {description: 'e.g.: #fff'} b: 1}}"
    text = f"tools:\n  - name: t\n    inputSchema: {schema}\n"
    (problem,) = check(tmp_path, text).diagnostics
    assert problem.code == "yaml-syntax" and "comment" not in problem.message, problem
    assert problem.hint == "separate the entries with ', ' and close the '{' with '}'"


def test_a_tool_key_whose_value_yaml_takes_for_a_comment_is_told_to_be_quoted(tmp_path: Path) -> None:
    text = "tools:\n  - name: t\n    description: #1 tool\n    inputSchema: {type: object}\n"
    said = [(d.code, d.hint) for d in check(tmp_path, text).diagnostics]
    hint = "'#' after a space starts a comment in YAML, so this has no value: quote it, description: "
    hint += '"#1 tool"'
    assert said == [("wrong-type", hint)], said


@pytest.mark.parametrize(
    ("written", "line", "col", "hint"),
    [
        (  # the flow collection is the file's last
            "tools: [{name: t, inputSchema: {type: object}, description: #1 tool}]\n",
            3, 61, 'quote the value: description: "#1 tool"',
        ),
        (  # a tool entry written as one flow mapping
            "tools:\n  - {name: t, description: #1 tool, inputSchema: {type: object}}\n",
            4, 28, 'quote the value: description: "#1 tool"',
        ),
        (  # the next line less indented than the collection
            "$defs: {P: {type: string}}\ntools:\n  - name: t\n"
            "    inputSchema: {type: object, properties: {a: {$ref: #/$defs/P}}}\n"
            "  - name: u\n    inputSchema: {type: object}\n",
            6, 56, 'quote the value: $ref: "#/$defs/P"',
        ),
    ],
    ids=["last-in-the-file", "tool-entry", "dedented-next"],
)
def test_a_flow_value_taken_for_a_comment_is_said_wherever_the_collection_ends(
    tmp_path: Path, written: str, line: int, col: int, hint: str
) -> None:
    (problem,) = check(tmp_path, written).diagnostics
    assert (problem.location.line, problem.location.col, problem.hint) == (line, col, hint), problem.format()
    assert "starts a comment in YAML" in problem.message


def test_a_comment_meant_as_one_in_a_flow_mapping_is_not_taken_for_a_value(tmp_path: Path) -> None:
    # `see: #12` is inside a comment after an entry: the mistake is the missing comma on the next line.
    schema = "{\n      type: object,  # closed, see: #12\n      properties: {a: {type: string}}\n"
    text = f"tools:\n  - name: t\n    inputSchema: {schema}      required: [a]\n    }}\n"
    (problem,) = check(tmp_path, text).diagnostics
    assert "comment" not in problem.message and problem.hint is not None and "#12" not in problem.hint


def test_a_comment_after_a_value_taken_for_a_comment_stays_out_of_the_quoted_value(tmp_path: Path) -> None:
    text = "$defs: {P: {type: string}}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
    text += "      properties:\n        a:\n          $ref: #/$defs/P   # the person\n"
    (problem,) = check(tmp_path, text).diagnostics
    assert problem.hint is not None and problem.hint.endswith('quote it, $ref: "#/$defs/P"'), problem.hint


def test_a_line_break_only_yaml_counts_moves_no_hint(tmp_path: Path) -> None:
    # U+2028 in a quoted value earlier: YAML counts a line there, an editor (and a location) does not.
    text = 'server: {name: s, instructions: "a\u2028b"}\ntools:\n  - name: t\n    description: #1 tool\n'
    text += "    inputSchema: {type: object}\n"
    path = tmp_path / "tools.yaml"
    path.write_text("mcpstub: 1\n" + text, "utf-8")
    (problem,) = check_toolset(path, "tools.yaml").diagnostics
    assert problem.hint is not None and problem.hint.endswith('description: "#1 tool"'), problem.format()


@pytest.mark.parametrize(
    ("schema", "hint"),
    [
        ("{type: string, enum: [red, #fff]}", 'quote the value: "#fff"'),
        ("{type: string, enum: [a, #b, c]}", 'quote the value: "#b"'),
        ("{type: string, enum: [a,#b]}", 'quote the value: "#b"'),
        ("{type: string, enum: [#a, b]}", 'quote the value: "#a"'),
    ],
    ids=["last-item", "middle-item", "no-space", "first-item"],
)
def test_a_list_item_taken_for_a_comment_is_told_to_be_quoted(tmp_path: Path, schema: str, hint: str) -> None:
    line = f"    inputSchema: {{type: object, properties: {{a: {schema}}}}}"
    (problem,) = check(tmp_path, f"tools:\n  - name: t\n{line}\n").diagnostics
    where = (problem.location.line, problem.location.col, problem.hint)
    assert where == (5, line.index("#") + 1, hint), problem.format()


MISSING_COMMA = "separate the entries with ', ' and close the '{' with '}'"


@pytest.mark.parametrize(
    "schema",
    [
        "{\n      type: object,\n      properties: {a: {type: string}}  # see a, b: #2\n"
        "      required: [a]\n    }",
        "{type: object, properties:   # the fields\n      {a: {type: string}}\n      required: [a]}",
    ],
    ids=["after-a-value", "after-a-key-whose-value-follows"],
)
def test_a_comment_meant_as_one_is_not_taken_for_a_value(tmp_path: Path, schema: str) -> None:
    # The mistake is the missing comma before `required`: the comments are what they look like.
    (problem,) = check(tmp_path, f"tools:\n  - name: t\n    inputSchema: {schema}\n").diagnostics
    assert "comment" not in problem.message and problem.hint == MISSING_COMMA, problem.format()


@pytest.mark.parametrize(
    ("written", "said", "hint"),
    [
        ("required:", "where an array belongs", "list the names it requires: `required: [name]`"),
        ("enum:", "where an array belongs", "list its values: `enum: [a, b]`"),
        ("type:", "it has no value (null)", "name the type: `type: string`"),
        ("maxItems:", "where an integer belongs", "write the number after it: `maxItems: 1`"),
        ("minimum:", "where a number belongs", "write the number after it: `minimum: 1`"),
        ("patternProperties:", "where an object belongs",
         "write its entries under it, indented 2 more spaces, or `patternProperties: {}` for none"),
        ("not:", "where a schema (a mapping, or true or false) belongs",
         "write its schema after it (`{type: string}`, say), or {} for any value"),
        ("dependentRequired:", "where an object belongs",
         "map each name to the names it requires: `dependentRequired: {a: [b]}`"),
        ("pattern:", "where a string belongs", "write the pattern after it, quoted: `pattern: '^[a-z]+$'`"),
        ("format:", "where a string belongs", "name the format: `format: date-time`"),
        ("$ref:", "where a string belongs", "write the reference after it, quoted: `$ref: '#/$defs/Name'`"),
        ("anyOf:", "where an array belongs", "list its schemas: `anyOf: [{type: string}, {type: integer}]`"),
        ("uniqueItems:", "where a boolean belongs", "write true or false after it"),
        ("title:", "where a string belongs", "write its text after it, or leave it out"),
        ("contentMediaType:", "where a string belongs", "write its value after it, or leave the keyword out"),
    ],
)
def test_a_keyword_with_nothing_after_it_is_told_what_it_takes(
    tmp_path: Path, written: str, said: str, hint: str
) -> None:
    # Followed by a keyword at its own indentation, as a slip leaves it: what is below is no schema of
    # a keyword that takes names, values or a number, so it is not told to indent them.
    text = "tools:\n  - name: t\n    inputSchema:\n      type: object\n      properties:\n"
    text += f"        a:\n          {written}\n"
    below = "          description: x\n"
    [diagnostic] = check(tmp_path, text + below).diagnostics
    if written == "not:":  # (a schema's keyword below may be meant under it; a mapping's, not)
        assert diagnostic.hint is not None and diagnostic.hint.startswith("nothing is indented under")
        [diagnostic] = check(tmp_path, text).diagnostics
    assert (diagnostic.location.line, diagnostic.hint) == (9, hint), diagnostic
    assert diagnostic.message.endswith(said) and " a integer" not in diagnostic.message, diagnostic.message


def test_a_null_in_a_json_toolset_is_told_in_json(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    schema = {"type": "object", "properties": {"a": {"not": None}, "b": {"type": "string", "pattern": None}}}
    tool = {"name": "t", "inputSchema": schema}
    path.write_text(json.dumps({"mcpstub": 1, "server": {"name": "s"}, "tools": [tool]}))
    hints = [d.hint for d in check_toolset(path, "tools.json").diagnostics]
    assert hints == [
        'write its schema instead of null ({"type": "string"}, say), or {} for any value',
        "write the pattern after it, quoted: `pattern: '^[a-z]+$'`",
    ]


def test_a_property_named_like_a_keyword_with_nothing_after_it_wants_a_schema(tmp_path: Path) -> None:
    text = "tools:\n  - name: t\n    inputSchema:\n      type: object\n      properties:\n"
    text += "        required:\n        b: {type: string}\n"
    [diagnostic] = check(tmp_path, text).diagnostics
    assert diagnostic.hint == "write its schema after it (`{type: string}`, say), or {} for any value"
    # The keyword of a property named like the mapping it is in is a keyword all the same.
    text = "tools:\n  - name: t\n    inputSchema:\n      type: object\n      properties:\n"
    text += "        properties:\n          type: object\n          required:\n"
    [diagnostic] = check(tmp_path, text).diagnostics
    assert diagnostic.hint == "list the names it requires: `required: [name]`"


def test_a_broken_shared_definition_is_said_once_where_it_is_written(tmp_path: Path) -> None:
    # Not again at each tool that refers to it, as a schema that cannot be compiled.
    text = "$defs:\n  Name: {type: string, minLength: '1'}\ntools:\n"
    for tool in ("a", "b"):
        text += f"  - name: {tool}\n    inputSchema:\n      type: object\n"
        text += "      properties: {n: {$ref: '#/$defs/Name'}, m: {type: string, minLength: '2'}}\n"
    said = [(d.location.line, d.message) for d in check(tmp_path, text).diagnostics]
    invalid = "is not a valid 2020-12 schema"
    assert said == [
        (4, f"$defs.Name.minLength {invalid}: '1' is not of type 'integer'"),
        (9, f"tools[0].inputSchema.properties.m.minLength {invalid}: '2' is not of type 'integer'"),
        (13, f"tools[1].inputSchema.properties.m.minLength {invalid}: '2' is not of type 'integer'"),
    ], said


@pytest.mark.parametrize(
    ("typed", "meant"), [("qyt", "qty"), ("nmae", "name"), ("ab", "ba"), ("colour", "color")]
)
def test_a_required_name_misspelled_is_told_the_property_meant(
    tmp_path: Path, typed: str, meant: str
) -> None:
    text = "tools:\n  - name: t\n    inputSchema:\n      type: object\n"
    text += f"      properties: {{{meant}: {{type: string}}, other: {{type: string}}}}\n"
    text += f"      required: [{typed}]\n"
    [diagnostic] = check(tmp_path, text).diagnostics
    assert diagnostic.hint == f"did you mean {meant!r}?", diagnostic


@pytest.mark.parametrize(
    ("schema", "at", "said"),
    [
        ("{type: array, items: [{type: string}, {minLength: }]}", "properties.p.items[1].minLength",
         "it has no value (null), where an integer belongs"),
        ("{type: array, items: [{type: string}, {maxItems: -1}]}", "properties.p.items[1].maxItems",
         "-1 is less than the minimum of 0"),
        ("{type: object, dependencies: {a: [b, 3]}}", "properties.p.dependencies.a[1]",
         "3 is not of type 'string'"),
        ("{type: object, dependencies: {a: {minProperties: x}}}", "properties.p.dependencies.a.minProperties",
         "'x' is not of type 'integer'"),
    ],
)  # fmt: skip
def test_a_bad_schema_inside_a_choice_of_forms_is_said_where_it_is(
    tmp_path: Path, schema: str, at: str, said: str
) -> None:
    # A draft-07 `items` list or `dependencies` entry takes a schema or a list: the mistake is said in
    # the form written, at the keyword, not as the whole value "not valid under any of the given schemas".
    text = "tools:\n  - name: t\n    inputSchema:\n      $schema: http://json-schema.org/draft-07/schema#\n"
    text += f"      type: object\n      properties:\n        p: {schema}\n"
    messages = [d.message for d in check(tmp_path, text).diagnostics]
    assert messages == [f"tools[0].inputSchema.{at} is not a valid draft-07 schema: {said}"], messages


def test_a_constraint_beside_a_draft_07_ref_is_a_warning_at_it(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: one
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                a: {$ref: "#/definitions/S", minLength: 3, maxLength: 9}
                b: {$ref: "#/definitions/S", description: kept, title: kept, default: x}
                c: {allOf: [{$ref: "#/definitions/S"}, {minLength: 3}]}
              definitions:
                S: {type: string}
          - name: two
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/S", minLength: 3}
              $defs:
                S: {type: string}
          - name: three  # (a root's `type: object` beside $ref is what MCP asks for: not said)
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              $ref: "#/definitions/O"
              definitions:
                O: {type: object, properties: {a: {type: string}}}
        """,
    )
    assert checked.ok
    found = [(d.code, d.location.line, d.location.col, d.message) for d in checked.diagnostics]
    assert found == [
        (
            "ignored-beside-ref",
            9,  # (below the two lines `check` puts first)
            38,
            "'minLength', 'maxLength' beside $ref in tools[0].inputSchema.properties.a are ignored: in"
            " draft-07 a $ref replaces every keyword beside it, so the schema checks less than it says",
        )
    ]


def test_a_draft_07_input_whose_ref_names_no_object_is_refused_whatever_type_stands_beside(
    tmp_path: Path,
) -> None:
    # (validate passed it, and every call was answered that {} is not an array)
    checked = check(
        tmp_path,
        """\
        tools:
          - name: items
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              $ref: "#/definitions/L"
              definitions:
                L: {type: array}
        """,
    )
    assert not checked.ok
    found = [(d.code, d.location.line, d.location.col) for d in checked.diagnostics]
    assert found == [("root-not-object", 8, 13)]
    assert "in draft-07 the `type: object` beside $ref is ignored" in checked.diagnostics[0].message


def test_a_draft_07_input_whose_ref_names_a_ref_beside_type_object_is_what_that_names(tmp_path: Path) -> None:
    # (the chain was followed past its first link only where no `type` stood: W was taken for an
    # object, and every call was answered that {} is not an array)
    checked = check(
        tmp_path,
        """\
        tools:
          - name: w
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              $ref: "#/definitions/W"
              definitions:
                W: {type: object, $ref: "#/definitions/L"}
                L: {type: array}
        """,
    )
    assert not checked.ok
    assert [d.code for d in checked.diagnostics if d.is_error] == ["root-not-object"]


@pytest.mark.parametrize(
    ("content", "code", "said"),
    [
        ("1e400\n", "not-json", "num.yaml: a number beyond what a JSON number can hold"),
        ("$schema: http://json-schema.org/draft-07/schema#\ntype: string\n", "unread-schema-dialect",
         "num.yaml says it is draft-07 by its $schema"),
        ("$schema: http://example.com/nope\ntype: string\n", "unsupported-dialect",
         "num.yaml declares an unsupported $schema"),
    ],
)  # fmt: skip
def test_a_message_about_a_whole_referenced_file_names_the_file(
    tmp_path: Path, content: str, code: str, said: str
) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "num.yaml").write_text(content, "utf-8")
    schema = "{type: object, properties: {a: {$ref: parts/num.yaml}}}"
    checked = check(tmp_path, f"tools:\n  - name: t\n    inputSchema: {schema}\n")
    (diagnostic,) = [d for d in checked.diagnostics if d.code == code]
    assert diagnostic.location.file == "parts/num.yaml" and diagnostic.message.startswith(said), diagnostic
    assert "toolset" not in diagnostic.message


@pytest.mark.parametrize("where", ["toolset", "common.yaml"])
def test_a_definition_only_the_server_s_validator_refuses_is_said_once_where_it_is_written(
    tmp_path: Path, where: str
) -> None:
    # The meta-schema takes an `$id` that is no URI reference; the server's validator does not
    # compile it. Said at the definition, once, not at each tool using it; a definition that
    # refers to it, or into another definition's inside, is not blamed.
    definitions = (
        "  Bad: {$id: 'http://x y', type: string}\n"
        "  Next: {$ref: '#/$defs/Bad'}\n"
        "  Point: {type: object, properties: {x: {type: integer}}}\n"
        "  X: {$ref: '#/$defs/Point/properties/x'}\n"
    )
    prefix = "" if where == "toolset" else "common.yaml"
    if where != "toolset":
        (tmp_path / "common.yaml").write_text("$defs:\n" + definitions, "utf-8")
    uses = ", ".join(f"{n.lower()}: {{$ref: '{prefix}#/$defs/{n}'}}" for n in ("Bad", "Next", "X"))
    uses = "{" + uses + "}"
    text = "$defs:\n" + definitions if where == "toolset" else ""
    text += "".join(f"  - name: {n}\n    inputSchema: {{type: object, properties: {uses}}}\n" for n in "tuv")
    checked = check(tmp_path, text.replace("  - name: t", "tools:\n  - name: t", 1))
    file = "tools.yaml" if where == "toolset" else "common.yaml"
    line = 4 if where == "toolset" else 2
    assert [(d.location.file, d.location.line, d.code) for d in checked.diagnostics] == [
        (file, line, "invalid-schema")
    ], [d.format() for d in checked.diagnostics]
    assert checked.diagnostics[0].message.startswith("$defs.Bad cannot be compiled: Invalid URI reference")


@pytest.mark.parametrize("broken", ["{$id: 'http://x y', type: string}", "{type: string, minLength: many}"])
def test_a_tool_s_own_mistake_is_said_beside_a_broken_definition_it_takes(
    tmp_path: Path, broken: str
) -> None:
    # The definition's mistake is said where it is written; the tool that takes it is said not to
    # compile only for a mistake of its own (its reason, not the definition's), so one run says both.
    text = f"""\
        $defs:
          Bad: {broken}
        tools:
          - name: own
            inputSchema:
              {{type: object, properties: {{a: {{$ref: "#/$defs/Bad"}}, b: {{$dynamicRef: "#nope"}}}}}}
          - name: fine
            inputSchema: {{type: object, properties: {{a: {{$ref: "#/$defs/Bad"}}}}}}
        """
    checked = check(tmp_path, text)
    said = [(d.location.line, d.code, d.message) for d in checked.diagnostics]
    assert [(line, code) for line, code, _ in said] == [(4, "invalid-schema"), (7, "invalid-schema")], said
    assert said[1][2] == "tools[0].inputSchema cannot be compiled: Anchor 'nope' does not exist", said


@pytest.mark.parametrize("reaching", ["draft-07", "2020-12", "both"])
def test_another_file_s_definitions_are_read_in_the_dialects_reaching_them_and_the_rest_as_declared(
    tmp_path: Path, reaching: str
) -> None:
    # A draft-07 tuple `items` in another file is right for a draft-07 tool and wrong for a
    # 2020-12 one, as the server reads it; a definition nothing reaches is read as it declares; an
    # aliased schema is one place, each of its problems said once.
    (tmp_path / "common.yaml").write_text(
        "$defs:\n"
        "  Pair: {type: array, items: [{type: string}, {type: integer}]}\n"
        "  Unused: {type: strin}\n"
        "  Aliased:\n"
        "    {type: object, properties: {x: &X {type: string, enum: []}}, allOf: [{properties: {y: *X}}]}\n",
        "utf-8",
    )
    d7 = "$schema: 'http://json-schema.org/draft-07/schema#', "
    props = "{p: {$ref: 'common.yaml#/$defs/Pair'}, a: {$ref: 'common.yaml#/$defs/Aliased'}}"
    heads = {"draft-07": [d7], "2020-12": [""], "both": [d7, ""]}[reaching]
    text = "tools:\n" + "".join(
        f"  - name: t{i}\n    inputSchema: {{{head}type: object, properties: {props}}}\n"
        for i, head in enumerate(heads)
    )
    checked = check(tmp_path, text)
    said = sorted((d.location.line, d.location.col, d.code) for d in checked.diagnostics)
    items = [(2, 30, "invalid-schema")] if reaching != "draft-07" else []
    assert said == sorted([*items, (3, 18, "unknown-type"), (5, 60, "accepts-nothing")]), [
        d.format() for d in checked.diagnostics
    ]


def test_a_definition_beside_a_broken_one_is_not_blamed_in_either_dialect(tmp_path: Path) -> None:
    # A draft-07 tool's copies go in `definitions`: there too, the definition that only refers to
    # the broken one is not said to fail.
    text = """\
        $defs:
          Bad: {$id: 'http://x y', type: string}
          A: {type: object, properties: {b: {$ref: "#/$defs/Bad"}}}
        tools:
          - name: old
            inputSchema:
              $schema: "http://json-schema.org/draft-07/schema#"
              type: object
              properties: {a: {$ref: "#/$defs/A"}}
          - name: new
            inputSchema: {type: object, properties: {a: {$ref: "#/$defs/A"}}}
        """
    checked = check(tmp_path, text)
    assert [(d.location.line, d.code) for d in checked.diagnostics] == [(4, "invalid-schema")], [
        d.format() for d in checked.diagnostics
    ]


BAD = "{$id: 'http://x y', type: object, properties: {x: {type: string}}}"
# (toolset definitions, common.yaml's definitions, tools) -> what is said: (file, line, start)
COMPILE_CASES = {
    "dynamic anchor in another definition": (
        "A: {type: object, properties: {b: {$dynamicRef: '#node'}}}\n"
        "  B: {$dynamicAnchor: node, type: string}",
        "",
        ["{p: {$ref: '#/$defs/A'}, q: {$ref: '#/$defs/B'}}"],
        [],
    ),
    "dynamic anchor on the tool's root": (
        "A: {type: object, properties: {b: {$dynamicRef: '#meta'}}}",
        "",
        ["{p: {$ref: '#/$defs/A'}}, $dynamicAnchor: meta"],
        [],
    ),
    "dynamic anchor in another file": (
        "",
        "A: {type: object, properties: {b: {$dynamicRef: '#node'}}}\n"
        "  B: {$dynamicAnchor: node, type: string}\n"
        "  C: {type: object, properties: {a: {$ref: '#/$defs/A'}, b: {$ref: '#/$defs/B'}}}",
        ["{p: {$ref: 'common.yaml#/$defs/C'}}"],
        [],
    ),
    "unused definitions the validator refuses": (
        f"Unused: {{type: object, properties: {{z: {{$dynamicRef: '#node'}}}}}}\n"
        f"  Unused2: {BAD}\n  Used: {{type: string}}",
        "",
        ["{p: {$ref: '#/$defs/Used'}}"],
        [],
    ),
    "a tool's own mistake beside another file's broken definition": (
        "",
        f"Bad: {BAD}",
        ["{p: {$ref: 'common.yaml#/$defs/Bad'}}", "{p: {type: string, $dynamicRef: '#nope'}}"],
        [("common.yaml", 2, "$defs.Bad cannot be compiled: Invalid URI"),
         ("tools.yaml", 7, "tools[1].inputSchema cannot be compiled: Anchor 'nope'")],
    ),
    "two broken definitions of one file, each used by a tool": (
        "",
        f"Bad1: {BAD}\n  Bad2: {BAD.replace('x y', 'q r')}",
        ["{p: {$ref: 'common.yaml#/$defs/Bad1'}}", "{p: {$ref: 'common.yaml#/$defs/Bad2'}}"],
        [("common.yaml", 2, "$defs.Bad1 cannot be compiled"),
         ("common.yaml", 3, "$defs.Bad2 cannot be compiled")],
    ),
    "a definition and a tool pointing into a broken definition's inside": (
        f"Bad: {BAD}\n  A: {{$ref: '#/$defs/Bad/properties/x'}}",
        "",
        ["{p: {$ref: '#/$defs/A'}}", "{p: {$ref: '#/$defs/Bad/properties/x'}}"],
        [("tools.yaml", 4, "$defs.Bad cannot be compiled: Invalid URI")],  # (theirs, said there)
    ),
    "a dynamic anchor a broken definition holds": (
        "A: {$dynamicAnchor: foo, type: string, properties: {q: {$id: 'http://x y'}}}\n"
        "  B: {$dynamicRef: '#foo'}",
        "",
        ["{x: {$ref: '#/$defs/B'}, y: {$ref: '#/$defs/A'}}"],
        [("tools.yaml", 4, "$defs.A cannot be compiled: Invalid URI")],
    ),
    "a definition that compiles in one tool and not in another": (
        "B: {$dynamicRef: '#foo'}",
        "",
        ["{x: {$ref: '#/$defs/B'}}, $dynamicAnchor: foo", "{x: {$ref: '#/$defs/B'}}"],
        [("tools.yaml", 9, "tools[1].inputSchema cannot be compiled: Anchor 'foo'")],
    ),
    "a definition a draft-07 tool compiles with and 2020-12 tools do not": (
        "D: {type: string, not: {$dynamicRef: '#nope'}}",
        "",
        ["{d: {$ref: '#/$defs/D'}}, $schema: 'http://json-schema.org/draft-07/schema#'",
         "{d: {$ref: '#/$defs/D'}}", "{d: {$ref: '#/$defs/D'}}"],
        [("tools.yaml", 4, "$defs.D cannot be compiled: Anchor 'nope'"),
         ("tools.yaml", 4, "unknown draft-07 keyword '$dynamicRef'")],  # (draft-07 reads no $dynamicRef)
    ),
    "a definition's own missing anchor": (
        "B: {properties: {q: {type: string}}, not: {$dynamicRef: '#nope'}}",
        "",
        ["{x: {$ref: '#/$defs/B/properties/q'}, y: {$ref: '#/$defs/B'}}"],
        [("tools.yaml", 4, "$defs.B cannot be compiled: Anchor 'nope'")],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", COMPILE_CASES)
def test_a_schema_the_validator_refuses_is_said_where_the_fault_is_and_nothing_else(
    tmp_path: Path, case: str
) -> None:
    # Only a tool that does not compile is looked into: a definition is blamed where it fails
    # alone and makes the difference in the tool; a tool's own mistake is said with its own
    # reason; a toolset the server compiles is not refused.
    own, common, schemas, expected = COMPILE_CASES[case]
    if common:
        (tmp_path / "common.yaml").write_text(f"$defs:\n  {common}\n", "utf-8")
    text = f"$defs:\n  {own}\n" if own else ""
    text += "tools:\n" + "".join(
        f"  - name: t{i}\n    inputSchema: {{type: object, properties: {props}}}\n"
        for i, props in enumerate(schemas)
    )
    checked = check(tmp_path, text)
    said = [(d.location.file, d.location.line, d.message) for d in checked.diagnostics]
    assert [(f, line) for f, line, _ in said] == [(f, line) for f, line, _ in expected], said
    assert all(m.startswith(want) for (_, _, m), (_, _, want) in zip(said, expected, strict=True)), said


def test_a_definition_nothing_reaches_in_a_draft_07_file_is_read_as_draft_07(tmp_path: Path) -> None:
    # Its file declares draft-07 at its root: what nothing reaches is read as its file declares.
    (tmp_path / "common.yaml").write_text(
        "$schema: 'http://json-schema.org/draft-07/schema#'\n$defs:\n  Used: {type: string}\n"
        "  Pair: {type: array, items: [{type: string}, {type: integer}]}\n  Bad: {type: strin}\n",
        "utf-8",
    )
    d7 = "$schema: 'http://json-schema.org/draft-07/schema#', "
    schema = f"{{{d7}type: object, properties: {{p: {{$ref: 'common.yaml#/$defs/Used'}}}}}}"
    checked = check(tmp_path, f"tools:\n  - name: t\n    inputSchema: {schema}\n")
    assert [(d.location.line, d.code) for d in checked.diagnostics] == [(5, "unknown-type")], [
        d.format() for d in checked.diagnostics
    ]


@pytest.mark.parametrize(
    ("common", "reference", "code"),
    [
        ("$defs:\n  Bad: {type: strin}\n", "common.yaml#/$defs/Bad", "unknown-type"),
        ("type: strin\n", "common.yaml", "unknown-type"),
        ("$defs:\n  Bad: {type: object, properties: {x: {$ref: '#/$defs/No'}}}\n", "common.yaml#/$defs/Bad",
         "unresolved-ref"),
        ("$defs:\n  Bad: {$id: 'http://x y', type: string}\n", "common.yaml#/$defs/Bad", "invalid-schema"),
        ("$defs:\n  Bad: {type: string, minLength: -1}\n", "common.yaml#/$defs/Bad", "invalid-schema"),
        ("$schema: 'http://example.com/x'\n$defs:\n  Bad: {type: string}\n", "common.yaml#/$defs/Bad",
         "unsupported-dialect"),
    ],
)
@pytest.mark.parametrize("own", [True, False])
def test_a_tool_s_own_compile_error_is_said_beside_a_mistake_in_what_it_copies_from_another_file(
    tmp_path: Path, common: str, reference: str, code: str, own: bool
) -> None:
    # The file's mistake is said where it is written; the tool's own (a `$dynamicRef` to no
    # anchor) in the same run, and nothing at the tool where it has none of its own.
    (tmp_path / "common.yaml").write_text(common, "utf-8")
    mine = ", q: {type: string, $dynamicRef: '#nope'}" if own else ""
    schema = f"{{type: object, properties: {{p: {{$ref: '{reference}'}}{mine}}}}}"
    checked = check(tmp_path, f"tools:\n  - name: a\n    inputSchema: {schema}\n")
    said = [(d.location.file, d.code, d.message.split(": ")[-1]) for d in checked.diagnostics if d.is_error]
    assert said == [("common.yaml", code, said[0][2])] + [
        ("tools.yaml", "invalid-schema", "Anchor 'nope' does not exist")
    ] * own, said


@pytest.mark.parametrize("first", ["uses the broken file", "has its own mistake"])
def test_a_tool_s_own_compile_error_is_said_whatever_another_file_s_error_and_the_order(
    tmp_path: Path, first: str
) -> None:
    # Another file's mistake explains the failure only of a tool that reaches that file.
    (tmp_path / "common.yaml").write_text("$defs:\n  Bad: {type: strin}\n", "utf-8")
    tools = [
        "  - name: a\n    inputSchema: {type: object, properties: {p: {$ref: 'common.yaml#/$defs/Bad'}}}\n",
        "  - name: b\n    inputSchema:\n"
        "      {type: object, properties: {q: {type: string, $dynamicRef: '#nope'}}}\n",
    ]
    order = tools if first == "uses the broken file" else tools[::-1]
    checked = check(tmp_path, "tools:\n" + "".join(order))
    said = sorted((d.location.file, d.code, d.message.split(":")[0]) for d in checked.diagnostics)
    own = "tools[1].inputSchema cannot be compiled" if first == "uses the broken file" else (
        "tools[0].inputSchema cannot be compiled"
    )
    assert said == [
        ("common.yaml", "unknown-type", "$defs.Bad.type"),
        ("tools.yaml", "invalid-schema", own),
    ], said


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("timeout: 0", "tools[0].timeout: 0 must be greater than 0"),
        ("inputSchema: {type: object, required: true}", "true is not of type 'array'"),
        ("inputSchema: {type: object, properties: {a: {minLength: [1, true]}}}", "[1, true] is not of type"),
        ("inputSchema: {type: object, properties: {a: {maxLength: false}}}", "false is not of type 'int"),
        ("inputSchema: {type: object, properties: {a: {pattern: '^[a-z'}}}",
         "'^[a-z' is not a regular expression: unterminated character set at position 1"),
        ("inputSchema: {type: object, properties: {a: {pattern: 'a{,3}'}}}",
         "'a{,3}' is not a regular expression ["),  # (Python reads it: no reason known)
    ],
)
def test_a_value_the_format_or_the_meta_schema_refuses_is_said_as_the_toolset_writes_it(
    tmp_path: Path, written: str, said: str
) -> None:
    # true, false and null as YAML and JSON write them (not Python's True, False, None); an exclusive
    # bound as what the value must be; why a pattern is no regular expression where that is known.
    text = f"tools:\n  - name: t\n    {written}\n"
    text += "    inputSchema: {type: object}\n" * ("timeout" in written)
    (message,) = [d.format().splitlines()[0] for d in check(tmp_path, text).diagnostics]
    assert said in message, message


def test_a_value_the_format_refuses_is_echoed_as_the_toolset_writes_it(tmp_path: Path) -> None:
    # Not Python's True and None: the words of the toolset's own values.
    text = "tools:\n  - name: t\n    execution: {taskSupport: true}\n    inputSchema: {type: object}\n"
    said = [d.message for d in check(tmp_path, text, head="mcpstub: null\nserver: {name: s}\n").diagnostics]
    assert said == [
        "unsupported format version null",
        "tools[0].execution.taskSupport must be one of 'forbidden', 'optional', 'required', not true",
    ], said


def test_a_newcomer_s_slips_in_a_json_toolset_are_hinted_in_json(tmp_path: Path) -> None:
    # The golden case newcomer_slips has them in YAML; JSON has no `- ` and quotes every name.
    typed = {"type": "object", "properties": {"q": "string"}}
    tool = {"name": "a", "inputSchema": typed, "examples": [{"q": "hi"}]}
    listed = {"name": "b", "inputSchema": {"type": "object", "properties": [{"q": {"type": "string"}}]}}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"mcpstub": 1, "server": {"name": "s"}, "tools": [tool, listed]}), "utf-8")
    diagnostics = check_toolset(path, "tools.json").diagnostics
    said = [d.hint for d in diagnostics if d.code == "invalid-schema"]
    assert said == [
        'a property\'s schema is an object: write `"q": {"type": "string"}`',
        "properties maps each name to its schema: write an object, {...}, not a list",
    ], said
    (unknown,) = [d.hint for d in diagnostics if d.code == "unknown-key"]
    assert unknown is not None and unknown.endswith('`{"input": {"q": ...}}`'), unknown
