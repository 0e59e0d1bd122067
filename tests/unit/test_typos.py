"""`validate` catches what a user types wrong: required names, references, defaults in definitions;
one run says every problem, each where it is written."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from mcpstub.pipeline import Checked, check_toolset

HEAD = "mcpstub: 1\nserver: {name: s}\n"


def check(tmp_path: Path, text: str) -> Checked:
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + textwrap.dedent(text), "utf-8")
    return check_toolset(path, "tools.yaml")


def said(checked: Checked, code: str) -> list[tuple[int, str | None]]:
    return [(d.location.line, d.hint) for d in checked.diagnostics if d.code == code]


ADD = "add it under `properties`, or take it out of `required`"


def one_tool(schema: str) -> str:
    return "tools:\n  - name: t\n    inputSchema: " + schema + "\n"


@pytest.mark.parametrize(
    ("schema", "hint"),
    [
        ("{type: object, properties: {limit: {}}, required: [limt]}", "did you mean 'limit'?"),
        ("{type: object, properties: {Limit: {}}, required: [limit]}", "did you mean 'Limit'?"),
        ("{type: object, properties: {a: {}}, required: [zzz]}", ADD),
        ("{type: object, properties: {}, required: [a]}", ADD),
        # a branch that applies to the same value requires what its object has
        ("{type: object, properties: {after: {}}, anyOf: [{required: [afterr]}]}", "did you mean 'after'?"),
        ("{type: object, properties: {a: {}, beta: {}}, if: {required: [a]}, then: {required: [betta]}}",
         "did you mean 'beta'?"),
        # nested objects are checked against their own properties, not their parent's
        ("{type: object, properties: {n: {type: object, properties: {x: {}}, required: [limit]}, limit: {}}}",
         ADD),
    ],
)  # fmt: skip
def test_a_required_name_no_property_has_is_a_warning_where_it_is_written(
    tmp_path: Path, schema: str, hint: str
) -> None:
    checked = check(tmp_path, one_tool(schema))
    assert checked.ok  # a warning: the toolset is generated
    assert said(checked, "required-not-a-property") == [(5, hint)]
    assert [d.code for d in checked.diagnostics] == ["required-not-a-property"]


@pytest.mark.parametrize(
    ("schema", "closed"),
    [
        ("{type: object, additionalProperties: false, properties: {isbn: {}}, required: [isbn, shop]}",
         "additionalProperties"),
        ("{type: object, unevaluatedProperties: false, properties: {isbn: {}}, required: [shop]}",
         "unevaluatedProperties"),
        ("{type: object, additionalProperties: {}, properties: {isbn: {}}, required: [shop]}", None),
        # (the object holding `required` is not the closed one: another branch may take the call)
        ("{type: object, additionalProperties: false, properties: {a: {}}, anyOf: [{required: [shop]}, {}]}",
         None),
        # (a value of another type passes: no type, or a type besides object)
        ("{additionalProperties: false, properties: {a: {}}, required: [shop]}", None),
        ("{type: [object, 'null'], additionalProperties: false, properties: {a: {}}, required: [shop]}",
         None),
        # (what is beside unevaluatedProperties may evaluate the name)
        ("{type: object, unevaluatedProperties: false, properties: {a: {}}, required: [shop],"
         " allOf: [{additionalProperties: true}]}", None),
        ("{$schema: 'http://json-schema.org/draft-07/schema#', type: object, unevaluatedProperties: false,"
         " properties: {a: {}}, required: [shop]}", None),
    ],
)  # fmt: skip
def test_a_required_name_a_closed_object_refuses_says_that_it_accepts_nothing(
    tmp_path: Path, schema: str, closed: str | None
) -> None:
    # No call could be made: without `shop` it is refused as missing, with it as not allowed.
    checked = check(tmp_path, one_tool(f"{{type: object, properties: {{v: {schema}}}}}"))
    (message,) = [d.message for d in checked.diagnostics if d.code == "required-not-a-property"]
    refused = f": {closed} is false, so it accepts no value" if closed else ""
    assert message.endswith(f"which is not one of its properties{refused}"), message


@pytest.mark.parametrize(
    "schema",
    [
        "{type: object, properties: {a: {}}, required: [a]}",
        "{type: object, required: [anything]}",  # no properties to compare with
        "{type: object, properties: {a: {}}, patternProperties: {'^x': {}}, required: [x1]}",
        '{type: object, properties: {a: {}}, allOf: [{$ref: "#/$defs/B"}], required: [b], $defs: {B: {}}}',
        "{type: object, properties: {a: {}}, allOf: [{properties: {b: {}}}], required: [a, b]}",
        "{type: object, properties: {a: {}}, oneOf: [{properties: {b: {}}, required: [b]}, {required: [a]}]}",
        "{type: object, properties: {a: {}}, dependentSchemas: {a: {properties: {b: {}}}}, required: [b]}",
        "{type: object, properties: {a: {}}, not: {required: [legacy]}}",  # what must be absent
        "{type: object, properties: {required: {type: array}}}",  # a property named `required`
    ],
)
def test_required_names_that_may_well_exist_are_not_warned_about(tmp_path: Path, schema: str) -> None:
    checked = check(tmp_path, one_tool(schema))
    assert checked.ok and checked.diagnostics == [], [d.format() for d in checked.diagnostics]


def test_an_unresolved_reference_names_the_close_one_in_each_place_it_may_point(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("$defs:\n  User: {type: string}\n  Team: {type: string}\n")
    checked = check(
        tmp_path,
        """\
        $defs:
          Status: {enum: [open, closed]}
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/Stauts"}
                b: {$ref: "#/$defs/status"}
                c: {$ref: "#/$defs/Own2"}
                d: {$ref: "common.yaml#/$defs/Usr"}
                e: {$ref: "#/properties/aa"}
                f: {$ref: "#/$defs/Nothing/like/it"}
                g: {$ref: "#/$defs/Status/enum/9"}
              $defs:
                Own1: {type: string}
        """,
    )
    assert not checked.ok
    assert said(checked, "unresolved-ref") == [
        (10, "did you mean '#/$defs/Status'?"),
        (11, "did you mean '#/$defs/Status'?"),
        (12, "did you mean '#/$defs/Own1'?"),  # the tool schema's own definitions count too
        (13, "did you mean 'common.yaml#/$defs/User'?"),
        (14, "did you mean '#/properties/a'?"),
        (15, "there is no #/$defs/Nothing/like: check the name and path"),
        (16, "#/$defs/Status/enum is a list of 2, numbered from 0"),
    ]


def test_a_close_name_is_told_only_where_it_resolves(tmp_path: Path) -> None:
    # A schema whose root is the reference: its one key `$ref` is close to `$defs`, and a hint of
    # `#/$ref/Book` would name nothing.
    (tmp_path / "common.yaml").write_text('$defs:\n  Book: {type: object}\n  "pct%": {type: string}\n')
    checked = check(
        tmp_path,
        """\
        $defs:
          Book: {type: object, properties: {a: {type: string}}, required: [a]}
        tools:
          - name: t
            inputSchema: {$ref: "#/$defs/Bok"}
            outputSchema: {$ref: "common.yaml#/$defs/Bokk"}
          - name: u
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defz/Bok"}
                b: {$ref: "#/$defs/Book/typ"}
                x: {$ref: "#/propertes/x"}
                y: {$ref: "common.yaml#/$defs/pct%25x"}
        """,
    )
    assert said(checked, "unresolved-ref") == [
        (7, "did you mean '#/$defs/Book'?"),
        (8, "did you mean 'common.yaml#/$defs/Book'?"),
        (13, "there is no #/$defz: check the name and path"),
        (14, "#/$defs/Book holds properties, required, type"),  # `type` is no schema
        (15, "there is no #/propertes: check the name and path"),  # `properties/x` is this one
        (16, "did you mean 'common.yaml#/$defs/pct%25'?"),  # as a reference writes `%`
    ]


def test_one_run_says_every_problem_of_a_schema(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        $defs:
          Status: {enum: [open, closed]}
          Issue:
            type: object
            properties:
              n: {type: integer, default: ten}
              s: {$ref: "#/$defs/Statsu"}
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                limit: {type: integer, minimum: 1, default: 0}
                status: {$ref: "#/$defs/Stauts"}
              required: [limt]
        """,
    )
    found = [(d.code, d.location.line) for d in checked.diagnostics]
    assert found == [
        ("invalid-default", 8),
        ("unresolved-ref", 9),
        ("invalid-default", 15),
        ("unresolved-ref", 16),
        ("required-not-a-property", 17),
    ]
    # A keyword written wrong (`required` not a list, an unknown type) hides no default's mismatch;
    # a default whose own schema is wrong is left unjudged.
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                n: {type: integer, default: ten}
                k: {type: interger, default: 3}
              required: n
          - name: u
            inputSchema: {type: object}
            outputSchema:
              type: object
              properties: {n: {type: integer, default: ten}}
              required: n
        """,
    )
    found = [(d.code, d.location.line) for d in checked.diagnostics]
    assert found == [
        ("invalid-default", 8),
        ("unknown-type", 9),
        ("invalid-schema", 10),
        ("invalid-default", 15),
        ("invalid-schema", 16),
    ]


def test_a_default_at_the_root_of_a_definition_is_said_once_wherever_it_is_written(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("$defs:\n  Login: {type: string, default: nobody}\n")
    checked = check(
        tmp_path,
        """\
        $defs:
          Priority: {enum: [low, medium, high], default: medium}
          Box: {type: object, properties: {p: {enum: [a, b], default: a}}}
          Nest: {$defs: {Inner: {type: integer, default: 1}}}
        tools:
          - name: one
            inputSchema:
              type: object
              properties:
                p: {$ref: "#/$defs/Priority"}
                q: {$ref: "#/$defs/Priority", default: low}
                who: {$ref: "common.yaml#/$defs/Login"}
                $defs: {type: object, properties: {x: {type: string, default: a}}}
                s: {$ref: "#/$defs/Size"}
              $defs:
                Size: {type: integer, default: 1}
          - name: two
            inputSchema:
              type: object
              properties: {p: {$ref: "#/$defs/Priority"}, w: {$ref: "common.yaml#/$defs/Login"}}
        """,
    )
    assert checked.ok
    where = [(d.location.file, d.location.line) for d in checked.diagnostics]
    assert where == [("common.yaml", 2), ("tools.yaml", 4), ("tools.yaml", 6), ("tools.yaml", 18)]
    assert {d.code for d in checked.diagnostics} == {"definition-default"}
    first = checked.diagnostics[1]
    assert "'Priority' fills no field" in first.message
    assert first.hint is not None and '{$ref: ..., default: "medium"}' in first.hint


def test_an_unresolved_reference_with_no_close_name_says_where_the_name_is_or_what_is_there(
    tmp_path: Path,
) -> None:
    """A name defined in another file the toolset reads is pointed at there; else the hint says
    what the place the reference names holds."""
    (tmp_path / "common.yaml").write_text("$defs:\n  Status: {type: string}\n  Other: {type: integer}\n")
    checked = check(
        tmp_path,
        """\
        $defs:
          Local: {type: string}
          Remote: {$ref: "common.yaml#/$defs/Other"}
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/Status"}
                b: {$ref: "#/$defs/Zzzzzz"}
                c: {$ref: "common.yaml#/definitions/X"}
        """,
    )
    assert said(checked, "unresolved-ref") == [
        (11, "it is defined in another file: write 'common.yaml#/$defs/Status'"),
        (12, "#/$defs holds Local, Remote"),
        (13, "there is no common.yaml#/definitions: check the name and path"),
    ]


def test_a_name_defined_in_another_file_is_pointed_at_as_a_reference_may_name_it(tmp_path: Path) -> None:
    (tmp_path / "50% off.yaml").write_text("$defs:\n  A: {type: string}\n  Zebra: {type: integer}\n")
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "50%25%20off.yaml#/$defs/A"}
                z: {$ref: "#/$defs/Zebra"}
        """,
    )
    assert said(checked, "unresolved-ref") == [
        (9, "it is defined in another file: write '50%25%20off.yaml#/$defs/Zebra'")
    ]


def test_a_name_defined_in_a_file_beside_that_no_reference_reads_yet_is_pointed_at(tmp_path: Path) -> None:
    # The first reference into a file of shared definitions, written as if they were the toolset's.
    (tmp_path / "common.yaml").write_text("$defs:\n  Status: {type: string}\n")
    (tmp_path / "broken.yaml").write_text("$defs: [unclosed\n")  # looked into, and passed over
    (tmp_path / "notes.json").write_text('{"$defs": {"Other": {}}}')
    checked = check(
        tmp_path,
        """\
        tools:
          - name: t
            inputSchema:
              type: object
              properties:
                a: {$ref: "#/$defs/Status"}
                b: {$ref: "#/$defs/Nowhere"}
        """,
    )
    assert said(checked, "unresolved-ref") == [
        (8, "it is defined in another file: write 'common.yaml#/$defs/Status'"),
        (9, "there is no #/$defs: check the name and path"),
    ]
    assert checked.sources == [tmp_path / "tools.yaml"]  # what a run reads, and --watch watches


def test_the_hint_of_a_file_beside_never_names_the_toolset_nor_a_link_nor_an_odd_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The toolset named by a relative path is the toolset still; a link may lead out of the folder
    # (a reference there would be refused); a name that is no text cannot be written in a reference.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ext.yaml").write_text("$defs:\n  Linked: {type: string}\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "linked.yaml").symlink_to(outside / "ext.yaml")
    (project / os.fsdecode(b"caf\xe9.yaml")).write_text("$defs:\n  Odd: {type: string}\n")
    (project / "tools.yaml").write_text(
        HEAD
        + textwrap.dedent(
            """\
            tools:
              - name: t
                inputSchema:
                  type: object
                  properties:
                    x: {type: string}
                    a: {$ref: "#/$defs/Linked"}
                    b: {$ref: "#/$defs/Odd"}
              - name: u
                inputSchema:
                  type: object
                  properties:
                    y: {$ref: "#/tools/0/inputSchema/properties/x"}
                    z: {$ref: "#/tools/0/inputSchema/properties/w"}
            """
        ),
        "utf-8",
    )
    monkeypatch.chdir(project)
    checked = check_toolset(Path("tools.yaml"), "tools.yaml")
    hints = [hint for _, hint in said(checked, "unresolved-ref")]
    assert len(hints) == 4 and not any("another file" in (hint or "") for hint in hints), hints


def test_a_mistake_in_a_referenced_file_is_said_once_where_it_is_written(tmp_path: Path) -> None:
    # Each tool taking the definition would otherwise add "cannot be compiled" in the validator's words.
    book = "$defs:\n  Book:\n    type: object\n    properties:\n      n: {type: interger}\n"
    (tmp_path / "common.yaml").write_text(book)
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            outputSchema: {$ref: "common.yaml#/$defs/Book"}
          - name: b
            inputSchema: {type: object, properties: {x: {$ref: "common.yaml#/$defs/Book"}}}
          - name: c
            inputSchema: {type: object, properties: {x: {$ref: "common.yaml#/$defs/Book"}}}
        """,
    )
    assert [(d.location.file, d.location.line, d.code, d.hint) for d in checked.diagnostics] == [
        ("common.yaml", 5, "unknown-type", "did you mean 'integer'?")
    ]


@pytest.mark.parametrize(
    ("common", "refs", "expected"),
    [
        ("$defs: {Isbn: {type: string}, Email: {type: string}}", ["common.yaml", "common.yaml#"],
         ["did you mean 'common.yaml#/$defs/Isbn'?",
          "name the definition it means, e.g. common.yaml#/$defs/Isbn"]),  # (isbn1: none close)
        ('{"$comment": "shared", "definitions": {"Id": {"type": "integer"}}}', ["common.json"],
         ["name the definition it means, e.g. common.json#/definitions/Id"]),
        # a root that judges values, or holds none: no warning
        ("{type: object, $defs: {Isbn: {type: string}}}", ["common.yaml"], []),
        ("{title: Anything}", ["common.yaml"], []),
    ],
)  # fmt: skip
def test_a_reference_to_the_root_of_a_file_of_definitions_is_a_warning_naming_one(
    tmp_path: Path, common: str, refs: list[str], expected: list[str]
) -> None:
    # `isbn: {$ref: common.yaml}`, the `#/$defs/Isbn` left out: the field took any value, unsaid.
    file = refs[0].partition("#")[0]
    (tmp_path / file).write_text(common + "\n")
    properties = ", ".join(f"isbn{i or ''}: {{$ref: {json.dumps(ref)}}}" for i, ref in enumerate(refs))
    checked = check(tmp_path, one_tool(f"{{type: object, properties: {{{properties}}}}}"))
    assert checked.ok  # a warning: the toolset is generated
    assert [hint for _, hint in said(checked, "ref-definitions-only")] == expected
    assert all(d.code == "ref-definitions-only" for d in checked.diagnostics), checked.diagnostics


HELD = "common.yaml holds its definitions under"


@pytest.mark.parametrize(
    ("common", "hint"),
    [
        ("defs:\n  Book: {type: string}\n", f"{HELD} 'defs': rename that key to $defs"),
        ("$Defs:\n  Book: {type: string}\n", f"{HELD} '$Defs': rename that key to $defs"),
        # (`definitions` is a key as good: the reference is what to change)
        ("definitions:\n  Book: {type: string}\n", "did you mean 'common.yaml#/definitions/Book'?"),
        ("$defs:\n  Bok: {type: string}\n", "did you mean 'common.yaml#/$defs/Bok'?"),
    ],
)  # fmt: skip
def test_a_misspelt_key_of_definitions_in_a_file_is_said_as_the_one_fix(
    tmp_path: Path, common: str, hint: str
) -> None:
    # Each reference was told to follow the misspelling (`common.yaml#/defs/Book`): one fix per reference.
    (tmp_path / "common.yaml").write_text(common)
    refs = '{a: {$ref: "common.yaml#/$defs/Book"}, b: {$ref: "common.yaml#/$defs/Book"}}'
    checked = check(tmp_path, one_tool(f"{{type: object, properties: {refs}}}"))
    assert said(checked, "unresolved-ref") == [(5, hint), (5, hint)]
