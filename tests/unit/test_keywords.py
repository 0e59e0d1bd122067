"""Keyword lint: typos inside schemas are located warnings with hints; a bad `type` is an error."""

from __future__ import annotations

import socket
import textwrap
from fractions import Fraction
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

from mcpstub.cli import main
from mcpstub.pipeline import Checked, check_toolset, generate
from mcpstub.policy import Policy

HEAD = "mcpstub: 1\nserver: {name: s}\n"


def check(tmp_path: Path, text: str, policy: Policy | None = None) -> Checked:
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + textwrap.dedent(text), "utf-8")
    return check_toolset(path, "tools.yaml", policy)


def seen(checked: Checked) -> list[tuple[str, str, int, int, str | None]]:
    return [(d.severity.value, d.code, d.location.line, d.location.col, d.hint) for d in checked.diagnostics]


def test_a_misspelt_constraint_is_an_error_and_a_misspelt_annotation_a_warning(tmp_path: Path) -> None:
    """Spelled so, `minLength` and `required` are not applied: the schema checks less than it
    says. A misspelt description changes nothing that is checked."""
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                path: {type: string, minLenght: 1, descripton: x}
              requried: [path]
        """,
    )
    assert not checked.ok
    mend = "; a keyword of your own starts with 'x-' (or is listed in vendor_keywords)"
    assert seen(checked) == [
        ("error", "misspelled-keyword", 8, 30, "write 'minLength'" + mend),
        ("warning", "unknown-keyword", 8, 44, "did you mean 'description'?"),
        ("error", "misspelled-keyword", 9, 7, "write 'required'" + mend),
    ]
    assert "'requried' in tools[0].inputSchema is not a 2020-12 keyword" in checked.diagnostics[2].message


@pytest.mark.parametrize(
    ("written", "code"),
    [
        ("minLenght: 1", "misspelled-keyword"),
        ("minLenght: x", "unknown-keyword"),  # not a value minLength takes
        ("min: 1", "unknown-keyword"),  # another word for it, perhaps an annotation of the schema's own
        ("choices: [a]", "unknown-keyword"),
        ("additionalItems: false", "unknown-keyword"),  # the other dialect's: said as such
        ("x-minLenght: 1", None),
        ("itmes: {type: string}", "misspelled-keyword"),  # two letters swapped
        ("MaxLength: 3", "misspelled-keyword"),  # case
        # Plural, singular, the last letter left out: however short the keyword.
        ("properties: {p: {typ: string}}", "misspelled-keyword"),
        ("properties: {p: {types: [string, integer]}}", "misspelled-keyword"),
        ("enums: [a]", "misspelled-keyword"), ("additionalProperty: false", "misspelled-keyword"),
        ("patternProperty: {x: {type: string}}", "misspelled-keyword"),
        ("requireds: [a]", "misspelled-keyword"),
        ("the: {minProperties: 3}", "unknown-keyword"),  # no `if`: spelled right, it would check nothing
        ("if: {minProperties: 1}, the: {minProperties: 3}", "misspelled-keyword"),
        ("properties: {p: {types: 3}}", "unknown-keyword"), ("no: true", "unknown-keyword"),  # (`not`: short)
        # Other words, close but no slip of the keyboard: a schema's own annotations.
        *((f"{word}: {value}", "unknown-keyword") for word, value in [
            ("formula", "x"), ("count", 3), ("constant", 2), ("uniqueness", "true"), ("href", "'#/x'"),
            ("when", "{type: string}"), ("constraints", "{type: string}"), ("enun", "[a]"),
        ]),
        ("typeof: string", "unknown-keyword"),  # `type` is there, and applied
    ],
)
def test_only_a_misspelling_with_a_value_the_constraint_takes_is_an_error(
    tmp_path: Path, written: str, code: str | None
) -> None:
    checked = check(tmp_path, f"tools:\n  - name: a\n    inputSchema: {{type: object, {written}}}\n")
    said = [d.format() for d in checked.diagnostics]
    assert [d.code for d in checked.diagnostics] == ([code] if code else []), said


def test_property_indented_too_shallow(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                path: {type: string}
              recursive: {type: boolean}
              required_by: {type: string}
        """,
    )
    hints = [(d.location.line, d.hint) for d in checked.diagnostics]
    assert len(hints) == 2
    assert all(h is not None and "indented one level too shallow" in h for _, h in hints)
    assert [line for line, _ in hints] == [9, 10]


def test_flow_mapping_comma_trap(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                mode: {type: string, description: Octal mode, e.g. 644}
        """,
    )
    [d] = checked.diagnostics
    assert (d.severity.value, d.location.line, d.location.col) == ("warning", 8, 55)
    assert "'e.g. 644'" in d.message
    assert d.hint is not None and 'description: "Octal mode, e.g. 644"' in d.hint


@pytest.mark.parametrize(
    ("written", "hint"),
    [
        ("interger", "did you mean 'integer'?"),
        ("int", "did you mean 'integer'?"),
        ("String", "did you mean 'string'?"),
        ("[string, nul]", "did you mean 'null'?"),
        ("bogus", "JSON Schema types: string, number, integer, boolean, object, array, null"),
    ],
)
def test_unknown_type_is_an_error_with_a_hint(tmp_path: Path, written: str, hint: str) -> None:
    checked = check(
        tmp_path,
        f"""\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                n: {{type: {written}}}
        """,
    )
    assert not checked.ok
    # one diagnostic, not the lint plus the meta-schema's "is not valid under any of the given schemas"
    assert [(s, c, line, h) for s, c, line, _, h in seen(checked)] == [("error", "unknown-type", 8, hint)]


def test_no_warnings_in_name_and_value_positions(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          requried: {type: string, x-ui: {widget: big}}
        tools:
          - name: a
            inputSchema:
              type: object
              x-vendor: {anything: [1]}
              properties:
                requried: {$ref: "#/$defs/requried"}
                minLenght: {const: {requried: 1}, enum: [{minLenght: 2}]}
                typo: {default: {tpye: 1}, examples: [{tpye: 1}], description: "a, b"}
              patternProperties:
                "^tpye$": {type: string}
              $defs:
                propertes: {type: object}
              dependentSchemas:
                requried: {properties: {x: {type: string}}}
        """,
    )
    assert checked.ok
    assert seen(checked) == []


def test_schema_positions_are_all_walked(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Shared: {type: string, minLenght: 1}
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                l: {type: array, items: {type: string, maxLenght: 2}}
                u: {anyOf: [{type: string, patern: x}, {type: "null"}]}
                o: {type: object, additionalProperties: {type: string, fromat: date}}
                n: {not: {type: string, constt: 1}}
            outputSchema:
              type: object
              properties: {r: {type: string, minLenght: 1}}
        """,
    )
    assert [(d.location.line, d.code, (d.hint or "").split(";")[0]) for d in checked.diagnostics] == [
        (4, "misspelled-keyword", "write 'minLength'"),
        (10, "misspelled-keyword", "write 'maxLength'"),
        (11, "misspelled-keyword", "write 'pattern'"),
        (12, "misspelled-keyword", "write 'format'"),
        (13, "misspelled-keyword", "write 'const'"),
        (16, "misspelled-keyword", "write 'minLength'"),
    ]


def test_dialect_decides_what_is_known(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: old
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties: {t: {type: array, items: [{type: string}], additionalItems: false}}
              definitions: {A: {type: string}}
              dependentRequired: {a: [b]}
          - name: new
            inputSchema:
              type: object
              properties: {t: {type: array, prefixItems: [{type: string}], unevaluatedItems: false}}
              dependentRequired: {a: [b]}
              additionalItems: false
        """,
    )
    flagged = [(d.location.line, d.message) for d in checked.diagnostics]
    assert flagged == [
        (10, "unknown draft-07 keyword 'dependentRequired' in tools[0].inputSchema"),
        (16, "unknown 2020-12 keyword 'additionalItems' in tools[1].inputSchema"),
    ]


def test_x_prefix_and_vendor_keywords_are_allowed(tmp_path: Path) -> None:
    text = """\
        tools:
          - name: a
            inputSchema: {type: object, x-order: [a], propertyOrder: [a], nullable: true}
        """
    plain = check(tmp_path, text)
    assert [d.message.split("'")[1] for d in plain.diagnostics] == ["propertyOrder", "nullable"]
    nullable = plain.diagnostics[1].hint
    assert nullable is not None and "type: [T, 'null']" in nullable
    configured = check(tmp_path, text, Policy(vendor_keywords=frozenset({"propertyOrder", "nullable"})))
    assert configured.diagnostics == []


def test_vendor_keywords_from_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.yaml").write_text(
        HEAD + "tools:\n  - name: a\n    inputSchema: {type: object, propertyOrder: [a]}\n", "utf-8"
    )
    assert main(["validate"]) == 0
    assert "unknown 2020-12 keyword 'propertyOrder'" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text('[tool.mcpstub]\nvendor_keywords = ["propertyOrder"]\n')
    assert main(["validate"]) == 0
    assert capsys.readouterr().err == ""
    (tmp_path / "pyproject.toml").write_text('[tool.mcpstub]\nvendor_keywords = "propertyOrder"\n')
    assert main(["validate"]) == 2
    assert "vendor_keywords must be a list of strings" in capsys.readouterr().err


def test_referenced_files_are_linted_in_their_own_file(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("$defs:\n  A: {type: string, descripton: x}\n", "utf-8")
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object, properties: {a: {$ref: "common.yaml#/$defs/A"}}}
        """,
    )
    [d] = checked.diagnostics
    assert (d.location.file, d.location.line, d.code) == ("common.yaml", 2, "unknown-keyword")
    assert checked.toolset is not None and [t.name for t in checked.toolset.tools] == ["a"]  # kept


def test_what_a_reference_reaches_in_another_file_is_linted_in_the_dialect_it_is_read_in(
    tmp_path: Path,
) -> None:
    """`definitions`, any pointer, a whole file: linted as the schema reaching it reads it (draft-07's
    `dependencies` there, 2020-12's `prefixItems` here), each mistake said once however many
    schemas, in either dialect, reach it."""
    (tmp_path / "common.yaml").write_text(
        "definitions:\n"
        "  City: {type: string, minLenght: 2}\n"
        "  Old: {type: object, dependencies: {a: [b]},\n"
        "        properties: {l: {items: [true], additionalItems: false}}}\n"
        "components:\n"
        "  New: {type: array, prefixItems: [{type: string}], unevaluatedItems: false}\n",
        "utf-8",
    )
    (tmp_path / "whole.yaml").write_text("type: integer\nminimum: 1.2\nmaximum: 1.8\n", "utf-8")
    checked = check(
        tmp_path,
        """\
        $defs:
          Place: {$ref: "common.yaml#/definitions/City"}
        tools:
          - name: a
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                city: {$ref: "common.yaml#/definitions/City"}
                old: {$ref: "common.yaml#/definitions/Old"}
          - name: b
            inputSchema:
              type: object
              properties:
                city: {$ref: "common.yaml#/definitions/City"}
                new: {$ref: "common.yaml#/components/New"}
                whole: {$ref: whole.yaml}
        """,
    )
    said = [(d.location.file, d.location.line, d.code, d.message) for d in checked.diagnostics]
    assert said == [
        ("common.yaml", 2, "misspelled-keyword", "'minLenght' in definitions.City is not a draft-07 keyword:"
         " the 'minLength' it misspells is not applied, so the schema checks less than it says"),
        ("whole.yaml", 2, "accepts-nothing", "whole.yaml accepts no integer: its minimum 1.2 and its maximum"
         " 1.8 leave no whole number between them"),
    ], said


def test_what_a_reference_reaches_by_an_index_or_with_a_dialect_of_its_own_is_read_so(tmp_path: Path) -> None:
    """A pointer through a list; a unit with a `$schema` of its own (read as the schema reaching it
    reads it, as a validator does, which is said), one naming no dialect mcpstub knows (refused
    where written, nothing fetched); a mistake reached from both dialects, said once; a whole
    file's keyword named `toolset`."""
    (tmp_path / "any.yaml").write_text("anyOf: [{type: string}, {type: integer, maximun: 3}]\n", "utf-8")
    (tmp_path / "own.yaml").write_text(
        "definitions:\n"
        "  Old: {$schema: 'http://json-schema.org/draft-07/schema#', dependencies: {a: [b]}}\n"
        "  Odd: {$schema: 'https://example.invalid/s#', type: string}\n"
        "  Both: {type: string, maxLenght: 3}\n",
        "utf-8",
    )
    (tmp_path / "named.yaml").write_text("type: object\ntoolset: 1\n", "utf-8")
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                n: {$ref: "any.yaml#/anyOf/1"}
                old: {$ref: "own.yaml#/definitions/Old"}
                odd: {$ref: "own.yaml#/definitions/Odd"}
                both: {$ref: "own.yaml#/definitions/Both"}
                named: {$ref: named.yaml}
          - name: b
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                both: {$ref: "own.yaml#/definitions/Both"}
        """,
    )
    found = checked.diagnostics
    said = sorted((d.location.file, d.location.line, d.code, d.message.split(":")[0]) for d in found)
    assert said == [
        ("any.yaml", 1, "misspelled-keyword", "'maximun' in anyOf[1] is not a 2020-12 keyword"),
        ("named.yaml", 2, "unknown-keyword", "unknown 2020-12 keyword 'toolset' in named.yaml"),
        ("own.yaml", 2, "unread-schema-dialect", "definitions.Old says it is draft-07 by its $schema,"
         " but it is read as 2020-12"),
        ("own.yaml", 3, "unsupported-dialect", "definitions.Odd declares an unsupported $schema 'https"),
        ("own.yaml", 4, "misspelled-keyword", "'maxLenght' in definitions.Both is not a 2020-12 keyword"),
    ], said


@pytest.mark.parametrize("first", ["draft-07", "2020-12"])
def test_a_mistake_reached_from_both_dialects_is_said_as_the_gravest_reading_whatever_comes_first(
    tmp_path: Path, first: str
) -> None:
    """`prefixItem` is a misspelling in 2020-12 (an error) and an unknown keyword in draft-07 (a
    warning); draft-07 reads a whole file's `additionalItems: 5` as invalid, 2020-12 as unknown. A
    file named with a backslash is named as it is."""
    (tmp_path / "c.yaml").write_text("definitions:\n  L: {type: array, prefixItem: [{}]}\n", "utf-8")
    (tmp_path / "a\\1.yaml").write_text("type: array\nadditionalItems: 5\nminItems: 3\nmaxItems: 1\n")
    tools = {
        "draft-07": "  - name: old\n    inputSchema:\n      $schema: http://json-schema.org/draft-07/schema#\n"
        "      type: object\n      properties: {l: {$ref: 'c.yaml#/definitions/L'}, a: {$ref: a%5C1.yaml}}\n",
        "2020-12": "  - name: new\n    inputSchema:\n      type: object\n"
        "      properties: {l: {$ref: 'c.yaml#/definitions/L'}}\n",
    }
    second = "2020-12" if first == "draft-07" else "draft-07"
    checked = check(tmp_path, "tools:\n" + tools[first] + tools[second])
    said = sorted((d.location.file, d.code, d.message.split(":")[0]) for d in checked.diagnostics)
    assert said == [
        ("a\\1.yaml", "accepts-nothing", "a\\1.yaml accepts no array"),
        ("a\\1.yaml", "invalid-schema", "additionalItems is not a valid draft-07 schema"),
        ("c.yaml", "misspelled-keyword", "'prefixItem' in definitions.L is not a 2020-12 keyword"),
    ], said


def test_a_unit_is_read_in_the_dialect_of_the_schema_it_is_copied_into(tmp_path: Path) -> None:
    """As a validator reads it (its own `$schema` below a root is not read: said), a file's `$defs`
    too; two problems at one place are both said."""
    (tmp_path / "h.yaml").write_text(
        "definitions:\n"
        "  P: {$schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{type: string}]}\n"
        "  Q: {$schema: 'http://json-schema.org/draft-07/schema#', items: [{type: string}]}\n"
        "  D: {$id: 'http://x.test/a#frag', properties: {a: {$ref: '#/definitions/P'}}}\n"
        "$defs:\n"
        "  E: {type: array, prefixItems: [{type: string}]}\n",
        "utf-8",
    )
    checked = check(
        tmp_path,
        """\
        tools:
          - name: old
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties: {p: {$ref: "h.yaml#/definitions/P"}, e: {$ref: "h.yaml#/$defs/E"}}
          - name: new
            inputSchema:
              type: object
              properties: {q: {$ref: "h.yaml#/definitions/Q"}, d: {$ref: "h.yaml#/definitions/D"}}
        """,
    )
    said = sorted((d.location.line, d.code, d.message.split(":")[0]) for d in checked.diagnostics)
    read, below = "but it is read as", "is below the $id"
    assert said == [
        (2, "unknown-keyword", "unknown draft-07 keyword 'prefixItems' in definitions.P"),
        (2, "unread-schema-dialect", f"definitions.P says it is 2020-12 by its $schema, {read} draft-07"),
        (3, "invalid-schema", "definitions.Q.items is not a valid 2020-12 schema"),
        (3, "unread-schema-dialect", f"definitions.Q says it is draft-07 by its $schema, {read} 2020-12"),
        (4, "invalid-schema", "definitions.D.$id is not a valid 2020-12 schema"),
        (4, "ref-in-resource", f"the $ref '#/definitions/P' at definitions.D.properties.a {below} 'http"),
        (6, "unknown-keyword", "unknown draft-07 keyword 'prefixItems' in $defs.E"),
    ], said


def test_a_schema_dialect_is_read_in_place_but_not_where_a_ref_leads_as_the_server_reads_it(
    tmp_path: Path,
) -> None:
    """The server's validator reads a `$schema` written in place below a root (that schema and those
    in it are of its dialect: its keywords, its formats, its defaults), not one where a `$ref`
    leads (read in the dialect of the schema reaching it: said); one naming no dialect is refused
    wherever it is."""
    d7, d2020 = "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"
    text = f"""\
        $defs:
          Old: {{$schema: "{d7}", type: array, items: [{{type: string}}]}}
          New: {{type: array, prefixItems: [{{type: string}}], minLenght: 2}}
          Deep: {{type: object, properties: {{x: {{$schema: "http://example.com/nope", type: string}}}}}}
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                a: {{$schema: "http://example.com/nope", type: string}}
                b: {{$schema: "{d7}", type: object, dependentRequired: {{a: [b]}}}}
                c: {{$schema: "{d7}", type: string, format: uuid, default: nope}}
                d: {{$id: "http://x.test/d", $schema: "{d7}"}}
                e: {{$ref: "#/$defs/Old"}}
                f: {{$ref: "#/$defs/New"}}
          - name: b
            inputSchema:
              $schema: {d7}
              type: object
              properties:
                f: {{$ref: "#/$defs/New"}}
                g: {{$ref: "#/$defs/Deep"}}
                h: {{$schema: "{d2020}", type: object, dependentRequired: {{a: [b]}}}}
                i: {{$schema: "{d2020}", type: string, format: uuid, default: nope}}
        """
    checked = check(tmp_path, text)
    said = sorted((d.location.line, d.code, d.message.split(":")[0]) for d in checked.diagnostics)
    unread = "says it is draft-07 by its $schema, but it is read as 2020-12"
    unknown = "an unsupported $schema"
    prop = "tools[0].inputSchema.properties"
    assert said == [
        (4, "invalid-schema", "$defs.Old.items is not a valid 2020-12 schema"),
        (4, "unread-schema-dialect", f"$defs.Old {unread}"),
        (5, "misspelled-keyword", "'minLenght' in $defs.New is not a 2020-12 keyword"),
        (5, "unknown-keyword", "unknown draft-07 keyword 'prefixItems' in $defs.New"),
        (6, "unsupported-dialect", f"$defs.Deep.properties.x declares {unknown} 'http"),
        (12, "unsupported-dialect", f"tools[0].inputSchema.properties.a declares {unknown} 'http"),
        (13, "unknown-keyword", f"unknown draft-07 keyword 'dependentRequired' in {prop}.b"),
        (26, "invalid-default", "tools[1].inputSchema.properties.i.default does not match its own schema"),
    ], said
    # (said where it is written, not again as a tool that cannot be compiled)
    assert not any("compiled" in d.message for d in checked.diagnostics)
    # What the server's validator does with each: it reads the dialects so.
    tools = yaml.safe_load(textwrap.dedent(text))["tools"]
    kept = ({"b", "c"}, {"h", "i"})
    new, old = (
        jsonschema_rs.validator_for(
            {**schema, "properties": {k: v for k, v in schema["properties"].items() if k in names}},
            validate_formats=True,
        )
        for schema, names in zip((t["inputSchema"] for t in tools), kept, strict=True)
    )
    assert new.is_valid({"b": {"a": 1}, "c": "nope"})  # (draft-07 in place: no dependentRequired, uuid)
    assert not old.is_valid({"h": {"a": 1}}) and not old.is_valid({"i": "nope"})


def test_a_tool_s_own_definition_is_read_in_the_tool_s_dialect_and_a_default_beside_a_ref_in_its_own(
    tmp_path: Path,
) -> None:
    """A definition in a tool's schema is reached by a `$ref`: its `$schema` is not read (said), and
    its defaults are judged in the tool's dialect; a default beside a `$ref` in a schema with a
    `$schema` of its own is judged in that one (draft-07: the keywords beside the `$ref` ignored)."""
    d7, d2020 = "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"
    text = f"""\
        $defs: {{D: {{type: string}}}}
        tools:
          - name: t
            inputSchema:
              type: object
              $defs: {{X: {{$schema: "{d7}", properties: {{b: {{format: duration, default: zz}}}}}}}}
              properties:
                c: {{$ref: "#/$defs/X"}}
                a: {{$schema: "{d7}", $ref: "#/$defs/D", maxLength: 1, default: zz}}
          - name: u
            inputSchema:
              $schema: "{d7}"
              type: object
              properties:
                a: {{$schema: "{d2020}", $ref: "#/$defs/D", maxLength: 1, default: zz}}
        """
    checked = check(tmp_path, text)
    said = [(d.location.line, d.code, d.message.split(":")[0]) for d in checked.diagnostics]
    unread = "says it is draft-07 by its $schema, but it is read as 2020-12"
    rejected = "does not match its own schema"
    assert sorted(said) == [
        (8, "invalid-default", f"tools[0].inputSchema.$defs.X.properties.b.default {rejected}"),
        (8, "unread-schema-dialect", f"tools[0].inputSchema.$defs.X {unread}"),
        (11, "ignored-beside-ref", "'maxLength' beside $ref in tools[0].inputSchema.properties.a is ignored"),
        (17, "invalid-default", f"tools[1].inputSchema.properties.a.default {rejected}"),
    ], said
    # As the server's validator reads them (the shared D bundled in):
    definitions = {"$defs": {"D": {"type": "string"}}}
    read = ((0, {"c": {"b": "zz"}}, False), (0, {"a": "zz"}, True), (1, {"a": "zz"}, False))
    for tool, instance, taken in read:
        schema = yaml.safe_load(textwrap.dedent(text))["tools"][tool]["inputSchema"]
        schema = {**schema, "$defs": {**schema.get("$defs", {}), **definitions["$defs"]}}
        assert jsonschema_rs.validator_for(schema, validate_formats=True).is_valid(instance) is taken


def test_a_shared_definition_is_read_in_the_dialect_of_each_tool_schema_reaching_it(tmp_path: Path) -> None:
    """A draft-07 toolset's shared definitions are draft-07 (a tuple `items`, `additionalItems`, an
    unasserted `duration`) without a `$schema` of their own, also through another definition; one
    reached from both dialects is read in both, each problem said once; one nothing reaches is read
    as it declares (2020-12 where it declares nothing)."""
    d7 = "http://json-schema.org/draft-07/schema#"
    checked = check(
        tmp_path,
        f"""\
        $defs:
          Pair: {{type: array, items: [{{type: string}}, {{type: integer}}], additionalItems: false}}
          Wrap: {{properties: {{p: {{$ref: "#/$defs/Pair"}}, d: {{format: duration, default: zz}}}}}}
          Both: {{type: object, properties: {{n: {{type: integer, maximum: 1, default: 5}}}}, descripton: x}}
          Alone: {{type: array, items: [{{type: string}}]}}
        tools:
          - name: old
            inputSchema:
              $schema: "{d7}"
              type: object
              properties: {{w: {{$ref: "#/$defs/Wrap"}}, b: {{$ref: "#/$defs/Both"}}}}
          - name: new
            inputSchema: {{type: object, properties: {{b: {{$ref: "#/$defs/Both"}}}}}}
        """,
    )
    said = sorted((d.location.line, d.code, d.message.split(":")[0]) for d in checked.diagnostics)
    assert said == [
        (6, "invalid-default", "$defs.Both.properties.n.default does not match its own schema"),
        (6, "unknown-keyword", "unknown 2020-12 keyword 'descripton' in $defs.Both"),
        (7, "invalid-schema", "$defs.Alone.items is not a valid 2020-12 schema"),
    ], said


@pytest.mark.parametrize(
    "ref",
    ["#/$defs/Pair", "#/%24defs/Pair", "#/definitions/Pair", "tools.yaml#/$defs/Pair",
     "./tools.yaml#/%24defs/Pair", "back.yaml#/$defs/Back"],
)  # fmt: skip
def test_a_shared_definition_is_read_as_bundling_reaches_it_however_the_reference_is_spelled(
    tmp_path: Path, ref: str
) -> None:
    """In the draft-07 tool that reaches it, through another file too; a 2020-12 tool whose own
    `$defs` has the name reaches its own, not the shared one."""
    d7 = "http://json-schema.org/draft-07/schema#"
    (tmp_path / "back.yaml").write_text("$defs:\n  Back: {$ref: 'tools.yaml#/$defs/Pair'}\n", "utf-8")
    checked = check(
        tmp_path,
        f"""\
        $defs:
          Pair: {{type: array, items: [{{type: string}}, {{type: integer}}], additionalItems: false}}
        tools:
          - name: old
            inputSchema: {{$schema: "{d7}", type: object, properties: {{p: {{$ref: "{ref}"}}}}}}
          - name: new
            inputSchema:
              type: object
              $defs: {{Pair: {{type: string}}}}
              properties: {{p: {{$ref: "#/$defs/Pair"}}}}
        """,
    )
    assert checked.ok and not checked.diagnostics, checked.diagnostics


_D7 = "http://json-schema.org/draft-07/schema#"


@pytest.mark.parametrize(
    "tool",
    [
        f'{{$schema: "{_D7}", type: object, properties: {{p: {{$ref: "#/$defs/Pair"}}}}}}',
        # (its input's own `Pair` is not the shared one its draft-07 output reaches)
        "{type: object, $defs: {Pair: {type: string}}, properties: {p: {$ref: '#/$defs/Pair'}}}\n"
        f'    outputSchema: {{$schema: "{_D7}", type: object, properties: {{q: {{$ref: "#/$defs/Pair"}}}}}}',
        # (the shared one is copied under another name beside its own)
        f'{{$schema: "{_D7}", type: object, definitions: {{Pair: {{type: string}}}},'
        ' properties: {p: {$ref: "tools.yaml#/$defs/Pair"}}}',
    ],
)
def test_a_shared_definition_reached_by_a_tool_checked_in_an_earlier_run_is_read_as_a_cold_run_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool: str
) -> None:
    # (a tool that checked clean before is taken as it was, without bundling it again)
    head = HEAD + f"""$defs:
  Pair: {{type: array, items: [{{type: string}}], additionalItems: false, prefixItems: [{{type: string}}]}}
tools:
  - name: old
    inputSchema: {tool}
"""
    toolset, out = tmp_path / "tools.yaml", str(tmp_path / "pkg")
    said = []
    for other, cache in (("a", []), ("b", []), ("b", ["--no-cache"])):
        toolset.write_text(head + f"  - name: {other}\n    inputSchema: {{type: object}}\n", "utf-8")
        assert main(["generate", str(toolset), "--out", out, *cache]) == 0
        said.append([line for line in capsys.readouterr().err.splitlines() if "tools.yaml:" in line])
    assert said[0] == said[1] == said[2], said
    assert len(said[0]) == 1 and "unknown draft-07 keyword 'prefixItems'" in said[0][0], said


def test_where_a_ref_leads_neither_a_schema_s_dialect_nor_its_file_s_is_read_and_each_problem_is_said_once(
    tmp_path: Path,
) -> None:
    """A file's `$schema` and a reached schema's own are said to be unread (the reached schema's
    default is judged in the reaching dialect: uuid asserted); a definition's root default, and a
    whole file's, is said both to fill no field and to be rejected, as in the toolset; a
    definition another one reaches in another dialect is said once, whichever is written first."""
    d7 = "http://json-schema.org/draft-07/schema#"
    (tmp_path / "common.yaml").write_text(
        f"$schema: '{d7}'\n$defs:\n  Small: {{type: integer, maximum: 10, default: 99}}\n", "utf-8"
    )
    whole, nope = "type: string\nformat: uuid\ndefault: nope\n", "$defs:\n  N: {type: string}\n"
    (tmp_path / "whole.yaml").write_text(f"$schema: '{d7}'\n{whole}", "utf-8")
    (tmp_path / "nope.yaml").write_text(f"$schema: 'http://example.com/nope'\n{nope}", "utf-8")
    refs = "{s: {$ref: 'common.yaml#/$defs/Small'}, w: {$ref: whole.yaml}, n: {$ref: 'nope.yaml#/$defs/N'}}"
    said = {}
    for first, second in (("A", "B"), ("B", "A")):
        definitions = {
            "A": "A: {type: object, properties: {b: {$ref: '#/$defs/B'}}}",
            "B": f"B: {{$schema: '{d7}', type: string, minLenght: 3}}",
        }
        text = (
            f"$defs:\n  {definitions[first]}\n  {definitions[second]}\n"
            f"tools:\n  - name: t\n    inputSchema: {{type: object, properties: {refs}}}\n"
            "  - name: u\n    inputSchema: {type: object, properties: {a: {$ref: '#/$defs/A'}}}\n"
        )
        checked = check(tmp_path, text)
        said[first] = sorted((d.location.file, d.code, d.message.split(":")[0]) for d in checked.diagnostics)
    unread = "says it is draft-07 by its $schema, but it is read as 2020-12"
    assert said["A"] == said["B"] == [
        ("common.yaml", "definition-default", "the default of definition 'Small' fills no field"),
        ("common.yaml", "invalid-default", "$defs.Small.default does not match its own schema"),
        ("common.yaml", "unread-schema-dialect", f"common.yaml {unread}"),
        ("nope.yaml", "unsupported-dialect", "nope.yaml declares an unsupported $schema 'http"),
        ("tools.yaml", "misspelled-keyword", "'minLenght' in $defs.B is not a 2020-12 keyword"),
        ("tools.yaml", "unread-schema-dialect", f"$defs.B {unread}"),
        ("whole.yaml", "definition-default", "the default of whole.yaml fills no field"),
        ("whole.yaml", "invalid-default", "the default of whole.yaml does not match its own schema"),
        ("whole.yaml", "unread-schema-dialect", f"whole.yaml {unread}"),
    ], said


def test_a_default_a_reference_reaches_in_another_file_is_judged_as_the_server_reads_it(
    tmp_path: Path,
) -> None:
    """With its references resolved, in the dialect of the schema it is copied into (draft-07 does
    not assert `uuid`), once; a default its schema takes, or one of a unit nothing reaches, is not
    said."""
    (tmp_path / "common.yaml").write_text(
        "$defs:\n"
        "  Small: {type: integer, maximum: 10}\n"
        "  Page:\n"
        "    type: object\n"
        "    properties:\n"
        "      size: {$ref: '#/$defs/Small', default: 99}\n"
        "      fine: {$ref: '#/$defs/Small', default: 3}\n"
        "      id: {type: string, format: uuid, default: nope}\n"
        "  Unused: {type: object, properties: {n: {type: integer, default: x}}}\n",
        "utf-8",
    )
    whole_file = "type: object\nproperties:\n  z: {type: integer, default: x}\n"
    (tmp_path / "whole.yaml").write_text(whole_file, "utf-8")
    old = """\
          - name: old
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties: {p: {$ref: "common.yaml#/$defs/Page"}}
        """
    new = """\
          - name: new
            inputSchema:
              type: object
              properties: {p: {$ref: "common.yaml#/$defs/Page"}, w: {$ref: whole.yaml}}
        """
    size = (6, "common.yaml", "$defs.Page.properties.size.default does not match its own schema: 99 is"
            " greater than the maximum of 10")
    uuid = (8, "common.yaml", '$defs.Page.properties.id.default does not match its own schema: "nope" is'
            ' not a "uuid"')
    whole = (3, "whole.yaml", 'properties.z.default does not match its own schema: "x" is not of type'
             ' "integer"')
    old, new = textwrap.dedent(old), textwrap.dedent(new)
    for text, wanted in ((old, [size]), (old + new, [size, uuid, whole]), (new + old, [size, uuid, whole])):
        checked = check(tmp_path, "tools:\n" + text)
        said = sorted((d.location.line, d.location.file, d.message) for d in checked.diagnostics)
        assert [d.code for d in checked.diagnostics] == ["invalid-default"] * len(wanted), checked.diagnostics
        assert said == sorted(wanted), said


def test_a_schema_naming_a_meta_schema_on_the_network_never_reaches_it(tmp_path: Path) -> None:
    """A build never touches the network: not for a `$schema` no dialect has, at a referenced unit,
    a shared definition, or below a root (what the server's validator, offline, ignores)."""
    with socket.create_server(("127.0.0.1", 0)) as listening:
        listening.settimeout(0.5)
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/meta"
        (tmp_path / "c.yaml").write_text(f"definitions:\n  A: {{$schema: '{url}', type: string}}\n", "utf-8")
        for body in (
            f"$defs:\n  S: {{$schema: '{url}', type: string}}\ntools:\n  - name: a\n    inputSchema:"
            "\n      type: object\n      properties: {s: {$ref: '#/$defs/S'}}\n",
            "tools:\n" + "".join(
                f"  - name: t{i}\n    inputSchema:\n      type: object\n"
                "      properties: {a: {$ref: 'c.yaml#/definitions/A'}}\n" for i in range(2)
            ),
            f"tools:\n  - name: a\n    inputSchema:\n      type: object\n"
            f"      properties: {{a: {{$schema: '{url}', type: string}}}}\n",
        ):
            said = [d.code for d in check(tmp_path, body).diagnostics]
            assert said == ["unsupported-dialect"], said  # (refused where it is written)
            with pytest.raises(TimeoutError):
                listening.accept()
        # A default beside it, behind a reference: refused before the models' check of defaults.
        body = (
            "tools:\n  - name: a\n    inputSchema:\n      type: object\n      properties:\n"
            f"        y: {{$schema: '{url}', type: string, default: q}}\n"
            "        z: {$ref: '#/properties/y'}\n"
        )
        (tmp_path / "tools.yaml").write_text(HEAD + body, "utf-8")
        generated = generate(tmp_path / "tools.yaml")
        assert [d.code for d in generated.diagnostics] == ["unsupported-dialect"]
        with pytest.raises(TimeoutError):
            listening.accept()


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("any_of", "anyOf"),
        ("additional_properties", "additionalProperties"),
        ("Min-Length", "minLength"),
        ("ref", "$ref"),
        ("regex", "pattern"),
        ("min", "minimum"),
        ("max", "maximum"),
        ("desc", "description"),
        ("unique", "uniqueItems"),
        ("choices", "enum"),
        ("itmes", "items"),
        ("defualt", "default"),
    ],
)
def test_other_spellings_of_a_keyword_are_named(tmp_path: Path, written: str, meant: str) -> None:
    checked = check(tmp_path, f"tools:\n  - name: a\n    inputSchema: {{type: object, {written}: 1}}\n")
    [d] = checked.diagnostics
    if d.code == "misspelled-keyword":  # a constraint, given a value it takes: see above
        mend = "; a keyword of your own starts with 'x-' (or is listed in vendor_keywords)"
        assert (written, d.hint) == ("Min-Length", f"write {meant!r}{mend}")
    else:
        assert (d.code, d.hint) == ("unknown-keyword", f"did you mean {meant!r}?")


def test_optional_says_how_properties_become_optional(tmp_path: Path) -> None:
    checked = check(tmp_path, "tools:\n  - name: a\n    inputSchema: {type: object, optional: true}\n")
    [d] = checked.diagnostics
    assert d.hint is not None and "listed in its object's `required`" in d.hint


def test_a_keyword_of_the_other_dialect_says_so(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: old
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              prefixItems: []
          - name: new
            inputSchema: {type: object, additionalItems: false}
        """,
    )
    hints = [d.hint or "" for d in checked.diagnostics]
    assert len(hints) == 2
    assert hints[0].startswith("'prefixItems' is a 2020-12 keyword, and this schema is draft-07")
    assert hints[1].startswith("'additionalItems' is a draft-07 keyword, and this schema is 2020-12")
    assert "`items` is what follows `prefixItems`" in hints[1]


def test_a_comma_that_leaves_default_or_const_without_a_value(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                a: {type: string, description: Name of the file, default}
                b: {description: The one value, const}
                c: {type: [string, "null"], description: Name, default: null}
                d: {type: [string, "null"], description: Name, default: }
                e:
                  description: Name
                  default:
        """,
    )
    assert checked.ok  # a null default is allowed, so this is a warning
    assert [(d.code, d.location.line, d.location.col) for d in checked.diagnostics] == [
        ("missing-value", 8, 58),
        ("missing-value", 9, 41),
    ]
    assert checked.diagnostics[0].hint is not None
    assert 'description: "Name of the file, default"' in checked.diagnostics[0].hint


def test_refused_values_of_older_drafts_and_lost_values_get_hints(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                x: {type: integer, minimum: 0, exclusiveMinimum: true}
                y: {type: string, required: true}
                z: {type: string, description: Old, deprecated}
        """,
    )
    assert not checked.ok
    found = {d.location.line: (d.code, d.hint or "") for d in checked.diagnostics}
    assert found[8][0] == "invalid-schema" and "draft-04" in found[8][1]
    assert found[9][0] == "invalid-schema" and "list the name in its object's `required`" in found[9][1]
    assert found[10][0] == "invalid-schema" and 'description: "Old, deprecated"' in found[10][1]


def test_commas_and_schema_keywords_outside_schemas(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - {name: a, description: Reads a file, then returns it, inputSchema: {type: object}}
          - name: b
            inputSchema:
              type: object
              properties: {path: {type: string}}
            required: [path]
        """,
    )
    hints = [(d.code, d.location.line, d.hint or "") for d in checked.diagnostics]
    assert hints == [
        (
            "unknown-key",
            4,
            "it has no value: a comma ends a value inside {...}; "
            'quote the text: description: "Reads a file, then returns it"',
        ),
        ("unknown-key", 9, "'required' is a schema keyword: indent it under `inputSchema` (or `outputSchema`)"),  # noqa: E501
    ]


COMMA = "a comma ends a value inside {...}"
# (where the toolset text goes, the text): every place a hint reads a key written without a value.
_FLOW_CUTS = {
    "space before the brace": ("prop", "{type: string, description: a b, default }", "a b, default"),
    "spaces around": ("prop", "{type: string, description: a b ,   default   }", "a b ,   default"),
    "a comment, a line break": ("prop", "{type: string, description: a b, default # c\n }", "a b, default"),
    "const last": ("prop", "{description: One value, const }", "One value, const"),
    "an unknown keyword": ("prop", "{type: string, description: Reads it, then writes }", "Reads it, then writes"),  # noqa: E501
    "a refused value": ("prop", "{type: string, description: Short, minLength }", "Short, minLength"),
    "a tool key": ("tool", "{name: a, description: Reads it, then writes , inputSchema: {type: object}}",
                   "Reads it, then writes"),
    "a server key": ("server", "{name: s, description: Tools, and more }", "Tools, and more"),
    # the text exactly as written: no space added, every key the commas cut, lines folded
    "no space": ("prop", "{type: string, description: a,b}", "a,b"),
    "two commas": ("prop", "{type: string, description: a, b,c , d}", "a, b,c , d"),
    "a line break": ("prop", "{type: string, description: a b,\n    c}", "a b, c"),
    "a comment between": ("prop", "{type: string, description: a b, # note\n    c}", "a b, c"),
    "quotes, backslashes": ("prop", '{type: string, description: say \\n "hi", then}', 'say \\n "hi", then'),
}  # fmt: skip
_NO_CUTS = {
    "block default": ("prop", "\n  type: string\n  description: a b\n  default:\n"),
    "block unknown key": ("prop", "\n  type: string\n  description: a b\n  writes:\n"),
    "block refused value": ("prop", "\n  type: string\n  description: a b\n  minLength:\n"),
    "block tool key": ("tool", "\n  name: a\n  description: It\n  writes:\n  inputSchema: {type: object}\n"),
    "block server key": ("server", "\n  name: s\n  description: Tools\n  more:\n"),
    "quoted text": ("prop", '{type: string, description: "a b", writes}'),
    "a colon": ("prop", "{type: string, description: a b, minLength: }"),
    "first key": ("prop", "{writes, type: string, description: a b}"),
    "explicit key": ("prop", "{type: string, description: ab, ? e}"),
    "double-quoted key": ("prop", '{type: string, description: ab, "q"}'),
    "single-quoted key": ("prop", "{type: string, description: ab, 'q'}"),
    "tagged key": ("prop", "{type: string, description: ab, !!str e}"),
    "anchored key": ("prop", "{type: string, description: ab, &k e}"),
    "after a quoted key": ("prop", '{type: string, description: ab, "q", e}'),
}  # fmt: skip


def _placed(where: str, text: str) -> str:
    """A toolset with `text` as a property's schema, a tool entry or the server block."""
    indented = text.replace("\n", "\n" + " " * 8)
    prop = indented if where == "prop" else "{type: string}"
    tool = indented.replace(" " * 8, " " * 4) if where == "tool" else None
    server = text if where == "server" else "{name: s}"
    entry = (
        f"  - {tool}\n" if tool is not None and not tool.startswith("\n")
        else f"  -{tool}\n" if tool is not None
        else f"  - name: a\n    inputSchema:\n      type: object\n      properties:\n        p: {prop}\n"
    )  # fmt: skip
    return f"mcpstub: 1\nserver: {server}\ntools:\n{entry}"


@pytest.mark.parametrize("case", list(_FLOW_CUTS))
def test_the_comma_hint_is_given_where_a_flow_mapping_comma_cut_a_text(tmp_path: Path, case: str) -> None:
    where, text, meant = _FLOW_CUTS[case]
    path = tmp_path / "tools.yaml"
    path.write_text(_placed(where, text), "utf-8")
    hints = [d.hint or "" for d in check_toolset(path, "tools.yaml").diagnostics]
    quoted = [h.split("quote the text: ", 1)[1] for h in hints if COMMA in h]
    assert quoted, (path.read_text("utf-8"), hints)
    # what the hint says to write reads back as exactly the text that was written
    assert all(yaml.safe_load(q) == {"description": meant} for q in quoted), (quoted, meant)


@pytest.mark.parametrize("case", list(_NO_CUTS))
def test_no_comma_hint_where_no_comma_cut_anything(tmp_path: Path, case: str) -> None:
    where, text = _NO_CUTS[case]
    path = tmp_path / "tools.yaml"
    path.write_text(_placed(where, text), "utf-8")
    checked = check_toolset(path, "tools.yaml")
    assert checked.diagnostics or case == "block default"  # each (but a block `default:`) is reported
    hints = [d.hint or "" for d in checked.diagnostics]
    assert not any("comma" in h for h in hints), (path.read_text("utf-8"), hints)


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("{type: integer, minimum 1}", "minimum: 1"),
        ("{type integer, minimum: 1}", "type: integer"),
        ("{type: string, maxLength 5}", "maxLength: 5"),
        ("{type: array, uniqueItems true}", "uniqueItems: true"),
        ("{type: number, multipleOf 0.5}", "multipleOf: 0.5"),
        ("{type: string, format date-time}", "format: date-time"),
        ("{type: string, pattern ^a$}", "pattern: ^a$"),
        ("{minLength: 1, description hello}", "description: hello"),
        ("{type: string, const x}", "const: x"),
    ],
)
def test_a_keyword_and_its_value_without_a_colon_is_an_error_saying_what_to_write(
    tmp_path: Path, written: str, meant: str
) -> None:
    """`minimum 1` is one key with no value: the constraint would be lost without a word."""
    path = tmp_path / "tools.yaml"
    path.write_text(_placed("prop", written), "utf-8")
    checked = check_toolset(path, "tools.yaml")
    [found] = [d for d in checked.diagnostics if d.code == "missing-colon"]
    assert found.is_error and found.hint == f"write {meant}", found
    assert not checked.ok


@pytest.mark.parametrize(
    "written",
    [
        "{type: string, description: Reads it, then writes }",
        "{type: string, description: Reads, then writes }",
        "{type: string, title: a b}",
        "{type: object, properties: {minimum 1: {type: string}}}",
        "{type: object, x-note: {minimum 1: 2}}",
    ],
)
def test_text_that_only_starts_with_a_keyword_is_no_missing_colon(tmp_path: Path, written: str) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(_placed("prop", written), "utf-8")
    assert not [d for d in check_toolset(path, "tools.yaml").diagnostics if d.code == "missing-colon"]


def test_a_missing_colon_in_a_requested_schema_is_said_the_same(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: t\n    inputSchema: {type: object}\n"
        "    elicitations:\n      ask:\n        type: object\n        properties:\n"
        "          n: {type: integer, minimum 1}\n",
        "utf-8",
    )
    found = [d for d in check_toolset(path, "tools.yaml").diagnostics if d.code == "missing-colon"]
    assert [(d.location.line, d.hint) for d in found] == [(10, "write minimum: 1")], found


def test_a_schema_that_accepts_nothing_is_said_to(tmp_path: Path) -> None:
    """An empty enum, or a required property whose schema is false: no value is valid there.
    A property that is false and not required is how a schema forbids it: nothing to say."""
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                emptyenum: {enum: []}
                never: false
                forbidden: false
              required: [never]
        """,
    )
    said = [(d.code, d.location.line) for d in checked.diagnostics]
    assert said == [("accepts-nothing", 8), ("accepts-nothing", 11)]
    assert checked.ok  # warnings


@pytest.mark.parametrize(
    ("draft07", "written", "meant"),
    [(False, "dat", "date"), (False, "datetime", "date-time"), (False, "emial", "email"),
     (False, "URI", "uri"), (False, "uuids", "uuid"), (True, "date_time", "date-time"),
     (True, "hostnme", "hostname"), (True, "uuid", None), (False, "int64", None), (False, "byte", None),
     (False, "password", None), (False, "date", None), (True, "regex", None), (False, "uuid4", None),
     (False, "uuid1", None), (False, "integer: timestamp", None),
     (False, "[string, 'null']: datetime", "date-time"), (False, "[integer, 'null']: datetime", None)],
)  # fmt: skip
def test_a_format_close_to_one_the_dialect_defines_is_a_warning_naming_it(
    tmp_path: Path, draft07: bool, written: str, meant: str | None
) -> None:
    # Nothing checks a format no dialect defines: `dat` is a misspelling; `int64` a format of its own.
    kind, _, format = written.rpartition(": ") if ": " in written else ("string", "", written)
    dialect = "$schema: http://json-schema.org/draft-07/schema#\n" + " " * 14 if draft07 else ""
    checked = check(
        tmp_path,
        f"""\
        tools:
          - name: a
            inputSchema:
              {dialect}type: object
              properties:
                n: {{type: {kind}, format: {format}}}
        """,
    )
    line, column = 9 if draft07 else 8, 35 + len(kind) - len("string")
    hint = f"did you mean {meant!r}?"
    expected = [] if meant is None else [("warning", "unknown-format", line, column, hint)]
    assert seen(checked) == expected
    dialect_name = "draft-07" if draft07 else "JSON Schema 2020-12"
    said = f"format {format!r} is not one {dialect_name} defines: nothing checks it"
    assert all(d.message.endswith(said) for d in checked.diagnostics), checked.diagnostics


@pytest.mark.parametrize(
    ("written", "hint"),
    [("additionalProperties: no", "write false"), ("uniqueItems: yes", "write true"),
     ("items: Off", "write false"), ("properties: {a: N}", "write false"),
     ("additionalProperties: 'no'", None), ("uniqueItems: maybe", None), ("maxLength: no", None),
     ("properties: off", None), ("minimum: yes", None),
     ("required: yes", "list the name in its object's `required`"),
     ("exclusiveMinimum: yes", "write the excluded bound itself, `exclusiveMinimum: N`, without `minimum`")],
)  # fmt: skip
def test_a_yaml_1_1_boolean_word_where_a_boolean_belongs_is_told_to_be_written_as_one(
    tmp_path: Path, written: str, hint: str | None
) -> None:
    # YAML 1.2 reads `no` as text: the meta-schema's refusal ("'no' is not of type 'boolean'")
    # says what is wrong, the hint what to write (not for a word quoted as text on purpose).
    checked = check(
        tmp_path,
        f"""\
        tools:
          - name: a
            inputSchema:
              type: object
              {written}
        """,
    )
    [(severity, code, line, _, said)] = seen(checked)
    assert (severity, code, line) == ("error", "invalid-schema", 7)
    assert (said or "").endswith(hint) if hint else said is None, said


@pytest.mark.parametrize("draft07", [False, True])
def test_a_ref_below_a_nested_id_is_refused_where_the_models_and_validators_would_disagree(
    tmp_path: Path, draft07: bool
) -> None:
    # The model took `#/$defs/X` from the tool's schema (a string); the advertised schema's
    # validators from the `$id`'s (an integer): no argument reached the handler.
    defs = "definitions" if draft07 else "$defs"
    dialect = '"http://json-schema.org/draft-07/schema#"' if draft07 else '"https://json-schema.org/draft/2020-12/schema"'
    checked = check(
        tmp_path,
        f"""\
        $defs:
          Sub: {{$id: "https://e.com/s", properties: {{y: {{$ref: "#/$defs/Sub"}}}}}}
        tools:
          - name: alpha
            inputSchema:
              $schema: {dialect}
              type: object
              $id: "https://e.com/root"
              {defs}: {{X: {{type: string}}}}
              properties:
                a: {{$id: "https://e.com/a", {defs}: {{X: {{type: integer}}}}, $ref: "#/{defs}/X"}}
                b: {{$id: "b.json", properties: {{c: {{$ref: "#/{defs}/X"}}, d: {{$ref: "#/{defs}/X"}}}}}}
                e: {{$id: "https://e.com/e", type: string}}
                f: {{$id: "#f", properties: {{g: {{$ref: "#/{defs}/X"}}}}}}
                h: {{$id: "", properties: {{i: {{$ref: "#/{defs}/X"}}}}}}
        """,
    )
    said = [(line, col) for _, code, line, col, _ in seen(checked) if code == "ref-in-resource"]
    # A shared definition's own $id, each nested one a $ref is below (once); not the tool's own,
    # nor one without a $ref below, nor an anchor; in draft-07 not one beside a $ref either.
    assert said == [(4, 14), *([] if draft07 else [(13, 18)]), (14, 18)]
    hints = {d.hint for d in checked.diagnostics if d.code == "ref-in-resource"}
    hint = "remove this $id (references into its schema name their place: #/{}/NAME)"
    assert hints == {hint.format("$defs"), hint.format(defs)}  # (the shared Sub's, the tool's)
    message = next(d.message for d in checked.diagnostics if d.code == "ref-in-resource")
    assert message == (
        "the $ref '#/$defs/Sub' at $defs.Sub.properties.y is below the $id 'https://e.com/s': a validator"
        " resolves it in the schema that $id names, mcpstub from the tool's"
    )


def test_bounds_that_leave_nothing_between_them_are_said_to(tmp_path: Path) -> None:
    """A lower bound above its upper one: no value of that kind passes (the other kinds still do,
    so the message names the kind). Equal bounds take one value, unless one of them is exclusive."""
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              type: object
              properties:
                n: {type: integer, minimum: 5, maximum: 1}
                x: {exclusiveMinimum: 2, maximum: 2.0}
                one: {minimum: 3, maximum: 3}
                s: {type: string, maxLength: 2, minLength: 3}
                l: {type: array, minItems: 4, maxItems: 1, minContains: 2}
                c: {type: array, contains: {type: string}, minContains: 3, maxContains: 2}
                o: {type: object, minProperties: 2, maxProperties: 1}
                none: {type: array, contains: {type: integer}, maxContains: 0}
                fine: {minimum: 1, exclusiveMaximum: 9, minLength: 0, maxLength: 0}
                whole: {type: integer, minimum: 1.2, maximum: 1.8}
                open: {type: [integer, "null"], exclusiveMinimum: 1, exclusiveMaximum: 2}
                empty: {type: array, contains: {type: string}, maxItems: 0}
                more: {type: array, contains: {}, minContains: 3, maxItems: 2, maxContains: 5}
                whole_fine: {type: integer, minimum: 1.2, maximum: 2}
                open_fine: {type: [integer, number], exclusiveMinimum: 1, exclusiveMaximum: 2}
                no_contains: {type: array, contains: {}, minContains: 0, maxItems: 0}
                past: {type: integer, exclusiveMinimum: 9007199254740992, exclusiveMaximum: 9007199254740993}
                all: {type: array, contains: true, maxContains: 2, minItems: 3}
                some: {type: array, contains: {type: string}, maxContains: 2, minItems: 3}
                block:
                  type: array
                  contains:
                    type: string
                  maxItems: 0
        """,
    )
    said = [(d.code, d.location.line, d.message[d.message.index("accepts"):]) for d in checked.diagnostics]
    between, whole = "leave nothing between them", "leave no whole number between them"
    one = "contains (one item at least)"  # (what `contains` asks where no minContains is written)
    exclusive = "exclusiveMinimum 1 and its exclusiveMaximum 2"
    past = f"exclusiveMinimum {2**53} and its exclusiveMaximum {2**53 + 1}"  # (as doubles: 2**53 both)
    assert said == [
        ("accepts-nothing", 8, f"accepts no number: its minimum 5 and its maximum 1 {between}"),
        ("accepts-nothing", 9, f"accepts no number: its exclusiveMinimum 2 and its maximum 2.0 {between}"),
        ("accepts-nothing", 11, f"accepts no string: its minLength 3 and its maxLength 2 {between}"),
        ("accepts-nothing", 12, f"accepts no array: its minItems 4 and its maxItems 1 {between}"),
        ("accepts-nothing", 13, f"accepts no array: its minContains 3 and its maxContains 2 {between}"),
        ("accepts-nothing", 14, f"accepts no object: its minProperties 2 and its maxProperties 1 {between}"),
        ("accepts-nothing", 15, f"accepts no array: its {one} and its maxContains 0 {between}"),
        ("accepts-nothing", 17, f"accepts no integer: its minimum 1.2 and its maximum 1.8 {whole}"),
        ("accepts-nothing", 18, f"accepts no integer: its {exclusive} {whole}"),
        ("accepts-nothing", 19, f"accepts no array: its {one} and its maxItems 0 {between}"),
        ("accepts-nothing", 20, f"accepts no array: its minContains 3 and its maxItems 2 {between}"),
        ("accepts-nothing", 24, f"accepts no integer: its {past} {whole}"),
        ("accepts-nothing", 25, f"accepts no array: its minItems 3 and its maxContains 2 {between}"),
        ("accepts-nothing", 29, f"accepts no array: its {one} and its maxItems 0 {between}"),
    ], said
    assert checked.ok  # warnings


@pytest.mark.parametrize(
    ("bounds", "said"),
    [
        ("type: number, minimum: 11, maximum: 14, multipleOf: 5", "multiple of 5: its minimum 11 and its"),
        ("minimum: 1.2, maximum: 1.8, multipleOf: 1", "multiple of 1: its minimum 1.2 and its maximum 1.8"),
        ("exclusiveMinimum: 10, exclusiveMaximum: 15, multipleOf: 5.0", "multiple of 5: its exclusiveM"),
        ("type: integer, minimum: -4, maximum: -1, multipleOf: 5", "multiple of 5: its minimum -4 and its"),
        ("minimum: 10, maximum: 15, multipleOf: 5", None),
        ("exclusiveMinimum: 10, maximum: 15, multipleOf: 5", None),
        ("minimum: 10.5, maximum: 11, multipleOf: 0.5", None),  # (a fraction: not judged)
        ("minimum: 0, maximum: 4, multipleOf: 5", None),  # (0 is one)
        ("minimum: 9007199254740993, maximum: 9007199254740995, multipleOf: 2", None),  # (2**53 + 2)
        ("minimum: 1152921504606846977, maximum: 1152921504606846977.0, multipleOf: 3", None),
    ],
)
def test_bounds_with_no_multiple_of_a_whole_multiple_of_between_them_are_said_to(
    tmp_path: Path, bounds: str, said: str | None
) -> None:
    """As the server's validator judges: what it takes from the bounds is what is said."""
    tools = f"tools:\n  - name: a\n    inputSchema:\n      properties: {{n: {{{bounds}}}}}\n"
    checked = check(tmp_path, tools)
    messages = [d.message for d in checked.diagnostics if d.code == "accepts-nothing"]
    assert [said in m for m in messages] == ([True] if said else []), messages
    schema = yaml.safe_load(f"{{{bounds}}}")
    step = schema["multipleOf"]
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    candidates = [k * step for k in range(int(Fraction(low) // step) - 2, int(Fraction(high) // step) + 3)]
    taken = [n for n in candidates if jsonschema_rs.is_valid(schema, n)]
    assert bool(taken) == (said is None), taken


def test_bounds_the_dialect_ignores_or_the_schema_check_refuses_are_not_said_to_accept_nothing(
    tmp_path: Path,
) -> None:
    checked = check(
        tmp_path,
        """        tools:
          - name: a
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              definitions: {N: {type: number}}
              properties:
                beside: {$ref: '#/definitions/N', minimum: 5, maximum: 1}
                negative: {type: string, minLength: -1, maxLength: -2}
                infinite: {minimum: .inf, maximum: 1}
                huge: {minimum: 1e999999, maximum: HUGE, minLength: HUGE, maxLength: 2}
                contains: {type: array, contains: {type: integer}, minContains: 3, maxContains: 2}
                below: {$ref: '#/definitions/N', items: {minItems: 3, maxItems: 1}}
                refused: {type: array, contains: {}, minContains: -1, maxContains: 0}
                doubles: {minimum: 100000000000000000001, maximum: 1e20}
                past: {minimum: HUGE, maximum: 1}
                int64: {type: integer, minimum: 9223372036854775808, exclusiveMaximum: 9.223372036854776e+18}
        """.replace("HUGE", str(10**400)),
    )
    assert "accepts-nothing" not in [d.code for d in checked.diagnostics], checked.diagnostics
    # A definition is not beside the $ref that reaches it: its bounds count.
    reached = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              $ref: '#/definitions/In'
              definitions:
                In: {type: object, properties: {n: {minimum: 5, maximum: 1}}}
        """,
    )
    assert [(d.code, d.location.line) for d in reached.diagnostics] == [("accepts-nothing", 9)]
    # Draft-07 reads no minContains: its `contains` asks for an item all the same.
    contains = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties:
                n: {contains: {}, minContains: 0, maxItems: 0}
        """,
    )
    warned = [d for d in contains.diagnostics if d.code == "accepts-nothing"]
    said = [(d.location.line, d.location.col, d.message) for d in warned]
    message = "its contains (one item at least) and its maxItems 0 leave nothing between them"
    assert said == [(9, 13, f"tools[0].inputSchema.properties.n accepts no array: {message}")], said


def test_a_default_beside_a_mistake_in_its_definition_is_judged_in_the_same_run(tmp_path: Path) -> None:
    # One run says every problem: a mistake elsewhere in a shared definition (of the toolset or
    # another file) no longer hides a default its own schema refuses; one whose schema is the
    # mistake is not judged.
    note = "{type: object, properties: {a: {type: integr, default: x}, b: {type: string, default: 5}}}"
    common = note.replace("integr", "string, maxLenght: 3")
    (tmp_path / "common.yaml").write_text(f"$defs:\n  Note: {common}\n")
    refs = "{n: {$ref: '#/$defs/Note'}, m: {$ref: 'common.yaml#/$defs/Note'}}"
    text = f"$defs:\n  Note: {note}\ntools:\n  - name: t\n"
    text += f"    inputSchema: {{type: object, properties: {refs}}}\n"
    checked = check(tmp_path, text)
    said = sorted((d.location.file, d.code, d.message.split(" ")[0]) for d in checked.diagnostics)
    assert said == [
        ("common.yaml", "invalid-default", "$defs.Note.properties.b.default"),
        ("common.yaml", "misspelled-keyword", "'maxLenght'"),
        ("tools.yaml", "invalid-default", "$defs.Note.properties.b.default"),
        ("tools.yaml", "unknown-type", "$defs.Note.properties.a.type:"),
    ], said


@pytest.mark.parametrize("broken", ["{type: integr}", "{type: string, minLength: -1}", "{$ref: nofile.yaml}"])
@pytest.mark.parametrize("where", ["toolset", "file"])
def test_a_tool_s_own_defaults_are_judged_beside_a_broken_definition_it_refers_to(
    tmp_path: Path, broken: str, where: str
) -> None:
    # A definition the tool refers to that is wrong (in the toolset or another file) hid the
    # defaults of the tool's other properties, and one beside a `$ref` to a sound definition.
    (tmp_path / "common.yaml").write_text(f"$defs:\n  A: {broken}\n  B: {{type: string}}\n")
    ref = "#/$defs/A" if where == "toolset" else "common.yaml#/$defs/A"
    beside = "s: {type: string, default: 1}, q: {$ref: '#/$defs/B', default: 5}"
    properties = f"{{a: {{$ref: '{ref}'}}, {beside}}}"
    text = f"$defs:\n  A: {broken}\n  B: {{type: string}}\ntools:\n  - name: t\n"
    text += f"    inputSchema: {{type: object, properties: {properties}}}\n"
    checked = check(tmp_path, text)
    judged = [d.message.split(" ")[0] for d in checked.diagnostics if d.code == "invalid-default"]
    # (beside a reference that leads nowhere, the validator resolves no other: `q` is not checked)
    beside_ref = [] if "nofile" in broken else ["tools[0].inputSchema.properties.q.default"]
    assert judged == ["tools[0].inputSchema.properties.s.default", *beside_ref]
    assert any(d.is_error for d in checked.diagnostics)  # (and the definition's mistake)


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        ('{type: object, additionalProperties: false, default: {"ñ": null}}',
         "it holds a property its schema does not declare, where additionalProperties is false"),
        ('{type: object, properties: {n: {type: array, items: false}}, default: {"n": [1]}}',
         "1 is refused by /properties/n/items, which is false (at /n/0)"),
        # (a property named so is no keyword; a keyword false of the names, or of a name present)
        ("{type: object, properties: {additionalProperties: false}, default: {additionalProperties: 1}}",
         "1 is refused by /properties/additionalProperties, which is false (at /additionalProperties)"),
        ("{type: object, properties: {properties: {type: object, additionalProperties: false}},"
         " default: {properties: {z: 1}}}",
         "it holds a property its schema does not declare, where additionalProperties is false"
         " (at /properties)"),
        ("{type: object, propertyNames: false, default: {z: 1}}",
         "it holds a property, where propertyNames is false"),
        ("{type: object, dependentSchemas: {a: false}, default: {a: 1}}",
         '{"a":1} is refused by /dependentSchemas/a, which is false'),
        ('{type: object, properties: {n: {type: integer}}, default: {"n": "x"}}',
         '"x" is not of type "integer" (at /n)'),
        ("{type: object, default: [1, 2]}", '[1,2] is not of type "object"'),
    ],
)  # fmt: skip
def test_a_default_refused_inside_is_said_where_and_in_words(
    tmp_path: Path, schema: str, reason: str
) -> None:
    # The validator's "False schema does not allow null" named neither the place nor the schema.
    tool = f"tools:\n  - name: t\n    inputSchema: {{type: object, properties: {{p: {schema}}}}}\n"
    checked = check(tmp_path, tool)
    said = [d.message for d in checked.diagnostics if d.code == "invalid-default"]
    assert said == [f"tools[0].inputSchema.properties.p.default does not match its own schema: {reason}"]
