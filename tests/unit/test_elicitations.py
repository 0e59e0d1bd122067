"""A tool's `elicitations`: MCP's flat requested schemas checked at build time, typed as models,
frozen in surface.json and compared by `diff`."""

from __future__ import annotations

import json
import re
import textwrap
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema_rs import validator_for
from mcp_types._v2025_11_25 import PrimitiveSchemaDefinition, RequestedSchema
from pydantic import TypeAdapter, ValidationError

from mcpstub.cli import main
from mcpstub.pipeline import Checked, check_toolset
from mcpstub_runtime.interactive import Elicitation
from tests.functional.helpers import imported, write_package

HEAD = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: deploy\n    inputSchema: {type: object}\n"
# Each form MCP allows for a property of a requested schema.
ALLOWED: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "title": "Why", "description": "d", "minLength": 1, "maxLength": 9, "default": "ok"},
    {"type": "string", "format": "email"},
    {"type": "string", "format": "uri"},
    {"type": "string", "format": "date"},
    {"type": "string", "format": "date-time"},
    {"type": "number", "minimum": 0.5, "maximum": 2, "default": 1.5},
    {"type": "integer", "minimum": 1, "maximum": 9, "default": 3},
    {"type": "boolean", "default": False, "title": "Sure?"},
    {"type": "string", "enum": ["eu", "us"], "default": "us"},
    {"type": "string", "enum": ["eu", "us"], "enumNames": ["Europe", "America"]},
    {
        "type": "string",
        "oneOf": [{"const": "s", "title": "Small"}, {"const": "m", "title": "Medium"}],
        "default": "m",
    },
    {
        "type": "array",
        "items": {"type": "string", "enum": ["a", "b"]},
        "minItems": 1,
        "maxItems": 2,
        "default": ["a"],
    },
    {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}, "default": []},
    {"type": "string", "format": "email", "default": "a@example.com"},
    {"type": "string", "format": "date-time", "default": "2026-01-02T03:04:05Z"},
]
# Forms MCP refuses (or that no answer could match), with the column-free place of the error.
REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"type": "object", "properties": {}}, "type"),
    ({"type": "array", "items": {"type": "string"}}, "items"),
    ({"type": ["string", "null"]}, "type"),
    ({"type": "null"}, "type"),
    ({"enum": ["a"]}, "no type"),
    ({"type": "string", "format": "hostname"}, "format"),
    ({"type": "string", "pattern": "^a"}, "pattern"),
    ({"type": "integer", "enum": [1, 2]}, "enum"),
    ({"type": "string", "enum": []}, "enum"),
    ({"type": "string", "enum": ["a", "a"]}, "enum"),
    ({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}, "enumNames"),
    ({"type": "string", "oneOf": [{"const": "a"}]}, "oneOf"),
    ({"type": "string", "default": 3}, "default"),
    ({"type": "integer", "default": 2.5}, "default"),
    ({"type": "integer", "minimum": 3, "default": 2}, "default"),
    ({"type": "number", "minimum": 3, "maximum": 2}, "minimum"),
    ({"type": "string", "minLength": -1}, "minLength"),
    ({"type": "string", "enum": ["a"], "default": "b"}, "default"),
    ({"type": "array", "items": {"type": "string", "enum": ["a"]}, "default": ["b"]}, "default"),
    ({"type": "boolean", "default": "yes"}, "default"),
    ({"type": "string", "format": "date", "default": "not-a-date"}, "default"),
    ({"type": "string", "format": "email", "default": "nobody"}, "default"),
    ({"type": "string", "format": "uri", "default": "no uri"}, "default"),
    ({"type": "string", "format": "date-time", "default": "yesterday"}, "default"),
    ({"type": "string", "maxLength": 2, "default": "abc"}, "default"),
    (
        {"type": "array", "items": {"type": "string", "enum": ["a"]}, "minItems": 2, "default": ["a"]},
        "default",
    ),
]


def check(tmp_path: Path, elicitations: str) -> Checked:
    path = tmp_path / "tools.yaml"
    path.write_text(
        HEAD + "    elicitations:\n" + textwrap.indent(textwrap.dedent(elicitations), "      "), "utf-8"
    )
    return check_toolset(path, "tools.yaml")


def codes(checked: Checked) -> list[tuple[str, int]]:
    return [(d.code, d.location.line) for d in checked.diagnostics]


@pytest.mark.parametrize("prop", ALLOWED, ids=[json.dumps(p)[:60] for p in ALLOWED])
def test_every_form_mcp_allows_is_accepted_and_the_sdk_agrees(tmp_path: Path, prop: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"answer": prop}, "required": ["answer"]}
    checked = check(tmp_path, f"confirm: {json.dumps(schema)}\n")
    assert checked.ok, codes(checked)
    assert checked.toolset is not None
    assert checked.toolset.tools[0].elicitations == {"confirm": schema}
    RequestedSchema.model_validate(schema)
    TypeAdapter(PrimitiveSchemaDefinition).validate_python(prop)
    if "default" in prop:  # an answer that keeps the default is one the server takes
        assert Elicitation.of("confirm", schema).validator.is_valid({"answer": prop["default"]})


def test_every_refused_default_is_one_the_server_would_refuse_as_an_answer() -> None:
    for prop, where in REFUSED:
        if where == "default":
            schema = {"type": "object", "properties": {"answer": prop}}
            assert not Elicitation.of("confirm", schema).validator.is_valid({"answer": prop["default"]})


@pytest.mark.parametrize(("prop", "where"), REFUSED, ids=[json.dumps(p)[:60] for p, _ in REFUSED])
def test_a_form_mcp_refuses_is_a_located_error(tmp_path: Path, prop: dict[str, Any], where: str) -> None:
    schema = {"type": "object", "properties": {"answer": prop}}
    checked = check(tmp_path, f"confirm:\n  type: object\n  properties:\n    answer: {json.dumps(prop)}\n")
    assert not checked.ok
    problems = [d for d in checked.diagnostics if d.is_error]
    assert problems, schema
    assert all(d.code == "elicitation-schema" for d in problems)
    assert all(d.location.file == "tools.yaml" and d.location.line == 10 for d in problems), problems
    assert any(where in d.message or (where == "no type" and "no type" in d.message) for d in problems)


@pytest.mark.parametrize(
    ("written", "hint"),
    [("date", "write type: string, format: date"), ("DateTime", "write type: string, format: date-time"),
     ("url", "write type: string, format: uri"),
     ("uuid", "'uuid' is a format of strings, and MCP elicitation allows only email, uri, date, date-time")],
)  # fmt: skip
def test_a_format_written_as_a_type_in_a_requested_schema_is_told_what_to_write(
    tmp_path: Path, written: str, hint: str
) -> None:
    checked = check(tmp_path, f"ask:\n  type: object\n  properties:\n    d: {{type: {written}}}\n")
    [found] = checked.diagnostics
    assert found.code == "elicitation-schema", found.format()
    assert (found.hint or "").endswith(hint), found.format()


def test_root_shape_keys_and_class_names_are_checked_all_at_once(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        a: {type: string}
        b: {type: object, properties: {x: {type: string}}, required: [y], additionalProperties: false}
        output: {type: object, properties: {}}
        c-d: {type: object, properties: {}}
        C_d: {type: object, properties: {}}
        "no way": {type: object, properties: {}}
        """,
    )
    assert sorted(codes(checked)) == [
        ("elicitation-schema", 7),  # a: no properties
        ("elicitation-schema", 7),  # a: not an object
        ("elicitation-schema", 8),  # b: required names y
        ("elicitation-schema", 8),  # b: additionalProperties
        ("invalid-name", 12),
        ("name-collision", 9),  # DeployOutput is the tool's
        ("name-collision", 11),  # C_d and c-d are both DeployCD
        ("same-form", 12),  # "no way" requests what c-d does
    ]


def test_a_requested_schema_naming_no_dialect_is_refused_where_its_schema_is_written(tmp_path: Path) -> None:
    # (it is sent to the client as written; one naming 2020-12 or draft-07 is taken)
    d7, d2020 = "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema"
    checked = check(
        tmp_path,
        f"""\
        a: {{$schema: "http://example.com/nope", type: object, properties: {{x: {{type: string}}}}}}
        b: {{$schema: "{d7}", type: object, properties: {{y: {{type: string}}}}}}
        c: {{$schema: "{d2020}", type: object, properties: {{z: {{type: string}}}}}}
        """,
    )
    assert [(d.code, d.location.line, d.location.col) for d in checked.diagnostics] == [
        ("unsupported-dialect", 7, 20)
    ], checked.diagnostics


def test_a_form_s_required_left_empty_is_refused_saying_so(tmp_path: Path) -> None:
    # (it was taken, and advertised in surface.json as `"required": null`)
    checked = check(tmp_path, "ask:\n  type: object\n  properties:\n    ok: {type: boolean}\n  required:\n")
    [found] = checked.diagnostics
    assert (found.code, found.location.line) == ("elicitation-schema", 11), found.format()
    assert found.message.endswith("required must be a list of property names (it has no value)")
    assert found.hint == "list the names the user must give: `required: [name]`, or leave it out"


def test_a_form_property_s_format_or_title_left_empty_is_said_so(tmp_path: Path) -> None:
    checked = check(tmp_path, "ask:\n  type: object\n  properties:\n    a: {type: string, format: }\n"
                    "    b: {type: string, title: }\n")  # fmt: skip
    assert [(d.message.rsplit(": ", 1)[1], d.hint) for d in checked.diagnostics] == [
        ("format has no value", "use one of email, uri, date, date-time, or leave format out"),
        ("title must be a string (it has no value)", "write its text after it, or leave it out"),
    ]


def test_an_elicitation_class_may_not_take_another_tools_class(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        HEAD
        + "    elicitations: {confirm_input: {type: object, properties: {}}}\n"
        + "  - name: deploy_confirm\n    inputSchema: {type: object}\n",
        "utf-8",
    )
    checked = check_toolset(path, "tools.yaml")
    assert [(d.code, "DeployConfirmInput" in d.message) for d in checked.diagnostics] == [
        ("name-collision", True)
    ]


@pytest.mark.parametrize(
    ("key", "asks"),
    [("sampling", "ctx.sample()"), ("roots", "ctx.list_roots()"), ("url", "ctx.elicit_url()")],
)
def test_a_form_may_not_take_a_key_the_runtime_asks_under(tmp_path: Path, key: str, asks: str) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + f"    elicitations: {{{key}: {{type: object, properties: {{}}}}}}\n", "utf-8")
    checked = check_toolset(path, "tools.yaml")
    assert [(d.code, d.message) for d in checked.diagnostics] == [
        (
            "name-collision",
            f"elicitation {key!r} of tool 'deploy' takes the key {asks} asks under by default: a "
            "handler asking both would fail",
        )
    ]


def test_two_forms_of_a_tool_requesting_the_same_schema_are_warned_of(tmp_path: Path) -> None:
    # A client sees the requested schema, not the form's name: the two cannot be told apart.
    path = tmp_path / "tools.yaml"
    form = "{type: object, properties: {n: {type: integer}}}"
    titled = "{type: object, properties: {n: {type: integer, title: How many}}}"
    path.write_text(HEAD + f"    elicitations: {{pick: {form}, other: {form}, third: {titled}}}\n", "utf-8")
    checked = check_toolset(path, "tools.yaml")
    assert [(d.code, d.message, d.location.line) for d in checked.diagnostics] == [
        (
            "same-form",
            "elicitations 'pick' and 'other' of tool 'deploy' request the same schema: a client cannot "
            "tell which is asked (the typed client's on_elicit is given DeployPick for both)",
            6,
        )
    ]
    assert checked.toolset is not None  # a warning: it generates


def test_each_requested_schema_is_a_model_that_accepts_what_it_allows(tmp_path: Path) -> None:
    folder, _ = write_package(
        tmp_path,
        "asking",
        HEAD
        + textwrap.indent(
            textwrap.dedent(
                """\
                elicitations:
                  confirm:
                    type: object
                    properties:
                      ok: {type: boolean}
                      region: {type: string, oneOf: [{const: eu, title: Europe}, {const: us, title: US}]}
                      tags: {type: array, items: {type: string, enum: [a, b]}, default: [a]}
                      count: {type: integer, minimum: 1, default: 2}
                    required: [ok, region]
                """
            ),
            "    ",
        ),
    )
    with imported(tmp_path, "asking") as package:
        models = import_module("asking.models")
        answer = models.DeployConfirm.model_validate({"ok": True, "region": "eu"})
        assert (answer.ok, answer.region, answer.tags, answer.count) == (True, "eu", ["a"], 2)
        for wrong in ({"ok": True}, {"ok": "yes", "region": "eu"}, {"ok": True, "region": "asia"}):
            with pytest.raises(ValidationError):
                models.DeployConfirm.model_validate(wrong)
        assert package is not None
    surface = json.loads((folder / "surface.json").read_text("utf-8"))
    entry = surface["elicitations"]["deploy"]["confirm"]
    assert entry["requestedSchema"]["required"] == ["ok", "region"]
    assert len(entry["sha256"]) == 64


def test_no_elicitations_no_surface_section(tmp_path: Path) -> None:
    folder, _ = write_package(tmp_path, "quiet", HEAD)
    assert "elicitations" not in json.loads((folder / "surface.json").read_text("utf-8"))


def test_diff_reports_a_requested_schema_added_changed_or_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    old = HEAD + "    elicitations:\n      confirm: {type: object, properties: {ok: {type: boolean}}}\n"
    old += "      gone: {type: object, properties: {}}\n"
    new = HEAD + "    elicitations:\n      confirm: {type: object, properties: {ok: {type: string}}}\n"
    new += "      more: {type: object, properties: {why: {type: string}}}\n"
    Path("old.yaml").write_text(old)
    Path("new.yaml").write_text(new)
    assert main(["diff", "old.yaml", "new.yaml", "--format", "json", "--no-version-check"]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert [(f["rule"], f["severity"], f["path"], f["location"]["line"]) for f in findings] == [
        ("elicitation-removed", "info", "/elicitations/gone", 4),  # (at its tool: NEW has it not)
        ("elicitation-narrowed", "breaking", "/elicitations/confirm/properties/ok/type", 7),
        ("elicitation-added", "warning", "/elicitations/more", 8),
    ]
    assert findings[1]["counterexample"] == {"ok": False}, findings[1]  # an answer the old form took
    assert main(["diff", "old.yaml", "old.yaml"]) == 0
    assert "no differences" in capsys.readouterr().out.lower()


FORM = """\
    elicitations:
      details:
        type: object
        properties:
          name: {type: string, title: Your name}
          size: {type: integer, minimum: 1, maximum: 12, default: 2}
        required: [name, size]
"""


@pytest.mark.parametrize(
    ("edit", "rule", "severity", "path"),
    [
        (("Your name}", "Your full name, description: on the card}"), "elicitation-rewritten", "info", ""),
        (("default: 2", "default: 4"), "elicitation-rewritten", "info", ""),
        (("maximum: 12", "maximum: 20"), "elicitation-changed", "warning", ""),
        (("required: [name, size]", "required: [name]"), "elicitation-changed", "warning", ""),
        (("maximum: 12", "maximum: 8"), "elicitation-narrowed", "breaking", "/properties/size/maximum"),
        (("title: Your name", "minLength: 2"), "elicitation-narrowed", "breaking", "/properties/name/minLength"),  # noqa: E501
        (("    required:", "      more: {type: boolean}\n        required:"), "elicitation-changed", "warning", "/properties/more"),  # noqa: E501
    ],
    ids=["title", "default", "relaxed", "optional", "tightened", "min-length", "property-added"],
)
def test_a_changed_form_is_judged_as_its_answers_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    edit: tuple[str, str], rule: str, severity: str, path: str,
) -> None:  # fmt: skip
    # An answer of the old form the new one refuses breaks a client that answers by program; any other
    # change of what judges an answer leaves a typed client generated before without its model of the
    # form; titles, descriptions and defaults judge no answer.
    monkeypatch.chdir(tmp_path)
    Path("old.yaml").write_text(HEAD + FORM)
    Path("new.yaml").write_text(HEAD + FORM.replace(*edit))
    code = main(["diff", "old.yaml", "new.yaml", "--format", "json", "--no-version-check"])
    findings = json.loads(capsys.readouterr().out)
    assert [(f["rule"], f["severity"], f["path"]) for f in findings] == [
        (rule, severity, "/elicitations/details" + path)
    ], findings
    assert code == (1 if severity == "breaking" else 0)
    assert "close the object" not in findings[0]["message"]  # (a form cannot be closed)
    if path == "/properties/more":  # an old answer that held it with another value is refused
        assert findings[0]["counterexample"]["more"] is None, findings[0]
    if severity == "breaking":
        answer = findings[0]["counterexample"]
        old = yaml.safe_load(HEAD + FORM)["tools"][0]["elicitations"]["details"]
        new = yaml.safe_load(HEAD + FORM.replace(*edit))["tools"][0]["elicitations"]["details"]
        assert validator_for(old).is_valid(answer) and not validator_for(new).is_valid(answer)


def test_diff_reads_the_requested_schemas_a_surface_snapshot_froze(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old = HEAD + "    elicitations:\n      confirm: {type: object, properties: {ok: {type: boolean}}}\n"
    folder, _ = write_package(tmp_path, "frozen", old)
    monkeypatch.chdir(tmp_path)
    Path("new.yaml").write_text(old.replace("boolean", "string"))
    assert main(["diff", str(folder / "surface.json"), "new.yaml"]) == 1
    assert "[elicitation-narrowed]" in capsys.readouterr().out


def test_a_default_that_is_no_json_number_is_said_once(tmp_path: Path) -> None:
    checked = check(
        tmp_path, "confirm:\n  type: object\n  properties:\n    n: {type: number, default: .nan}\n"
    )
    assert [d.code for d in checked.diagnostics if d.is_error] == ["not-json"], checked.diagnostics


@pytest.mark.parametrize(
    ("form", "said"),
    [
        (
            "ok:\n  type: object\n  properties:\n    a: {type: string, titel: A}\n",
            ["'titel' is not allowed here in a requested schema | did you mean 'title'? (a string property"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n: {type: integer, minimun: 1}\n",
            ["'minimun' is not allowed here in a requested schema | did you mean 'minimum'? (an integer"],
        ),
        (  # a misspelled root key is said once, at itself: not also as the key missing
            "ok:\n  type: object\n  propertes:\n    a: {type: string}\n",
            ["'propertes' is not allowed in a requested schema | did you mean 'properties'?"],
        ),
        (
            "ok:\n  tpye: object\n  properties: {}\n",
            ["'tpye' is not allowed in a requested schema | did you mean 'type'?"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    pick: {enum: [a, b]}\n",
            ["pick has no type | a single-select enum is a string: write type: string beside it"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    pick: {typ: string}\n",
            ["pick has no type | write type, not 'typ'"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    pick: {typ: string, enum: [a]}\n",
            ["pick has no type | write type, not 'typ'"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    pick: {type: string, oneOf: [{const: a, title: A}], x: 1}\n",  # noqa: E501
            ["'x' is not allowed here in a requested schema | a oneOf property takes"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    size: {type: integer}\n  required: [sise]\n",
            ["required names 'sise', which is not among its properties | did you mean 'size'?"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n: {type: interger}\n",
            ["type 'interger' is not a primitive MCP elicitation allows | did you mean 'integer'?"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n: {type: bool}\n",
            ["type 'bool' is not a primitive MCP elicitation allows | did you mean 'boolean'?"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n: {type: array, itmes: {type: string, enum: [x]}}\n",
            ["'itmes' is not allowed here in a requested schema | did you mean 'items'?"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n: {type: array, maxItems: 2}\n",
            ["an array property must have `items` listing the choices | a multi-select is items"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n:\n      type: string\n      title: #1 choice\n",
            ["title must be a string | '#' after a space starts a comment in YAML, so this has no value"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    n:\n      type: string\n      default: #fff\n",
            ["does not match its own property: null is not | '#' after a space starts a comment"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    a: {type: string}\n  size: {type: integer}\n",
            ["'size' is not allowed in a requested schema | a property indented one level too shallow"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    a: {type: array, enum: [x, y]}\n",
            ["'enum' is not allowed here in a requested schema | a multi-select's choices go under items"],
        ),
        (  # a property whose name is close to a root key is still a property
            "ok:\n  type: object\n  properties:\n    a: {type: string}\n  require: {type: boolean}\n",
            ["'require' is not allowed in a requested schema | a property indented one level too shallow"],
        ),
        (
            "ok:\n  type: object\n  properties:\n    a: {type: array, oneOf: [{const: x, title: X}]}\n",
            ["'oneOf' is not allowed here | a multi-select's choices go under items: items: {anyOf: [{const"],
        ),
    ],
    ids=["property-keyword", "integer-keyword", "root-key", "root-type", "enum-no-type", "typ", "typ-enum",
         "one-of", "required", "type-misspelled", "type-named-otherwise", "items-misspelled", "no-items",
         "title-commented", "default-commented", "too-shallow", "array-choices", "too-shallow-named-alike",
         "array-titled-choices"],
)
def test_a_newcomer_s_mistake_in_a_form_is_said_once_with_what_was_meant(
    tmp_path: Path, form: str, said: list[str]
) -> None:
    checked = check(tmp_path, form)
    found = [f"{d.message} | {d.hint}" for d in checked.diagnostics if d.is_error]
    assert len(found) == len(said), found
    for text, expected in zip(found, said, strict=True):
        message, hint = expected.split(" | ")
        assert message in text.split(" | ")[0] and text.split(" | ")[1].startswith(hint), (text, expected)


def test_a_snapshot_s_form_findings_are_placed_in_its_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A snapshot records forms apart from the Tool objects: a finding is placed where the form is.
    old = HEAD + FORM
    folder, _ = write_package(tmp_path, "placed", old)
    other, _ = write_package(tmp_path, "placed2", old.replace("maximum: 12", "maximum: 8"))
    monkeypatch.chdir(tmp_path)
    args = ["diff", str(folder / "surface.json"), str(other / "surface.json"), "--format", "json"]
    assert main([*args, "--no-version-check"]) == 1
    (found,) = json.loads(capsys.readouterr().out)
    line = (other / "surface.json").read_text("utf-8").splitlines()[found["location"]["line"] - 1]
    assert found["rule"] == "elicitation-narrowed", found
    assert line.strip().rstrip(",") == '"maximum": 8', (found, line)


FORM_SCHEMA: dict[str, Any] = yaml.safe_load(HEAD + FORM)["tools"][0]["elicitations"]["details"]


@pytest.mark.parametrize(
    ("new_keys", "expected"),
    [
        # the same form under another key (its required names in another order): one finding, there
        (
            {"approve": FORM_SCHEMA | {"required": ["size", "name"]}},
            [("elicitation-renamed", "info", "/elicitations/approve")],
        ),
        # another form under another key: gone and added, as any other
        (
            {"approve": FORM_SCHEMA | {"required": ["name"]}},
            [("elicitation-removed", "info", "/elicitations/details"),
             ("elicitation-added", "warning", "/elicitations/approve")],
        ),
        # two new keys, one of them the old form: that one is the rename, the other is new
        (
            {"a_other": {"type": "object", "properties": {}}, "b_same": FORM_SCHEMA},
            [("elicitation-added", "warning", "/elicitations/a_other"),
             ("elicitation-renamed", "info", "/elicitations/b_same")],
        ),
    ],
    ids=["same-form", "changed-form", "one-of-two"],
)
def test_a_form_under_another_key_is_a_rename_only_when_it_is_the_same_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    new_keys: dict[str, Any], expected: list[tuple[str, str, str]],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    Path("old.yaml").write_text(HEAD + FORM)
    new = yaml.safe_load(HEAD + FORM)
    new["tools"][0]["elicitations"] = new_keys
    Path("new.json").write_text(json.dumps(new))
    assert main(["diff", "old.yaml", "new.json", "--format", "json", "--no-version-check"]) == 0
    findings = json.loads(capsys.readouterr().out)
    assert [(f["rule"], f["severity"], f["path"]) for f in findings] == expected, findings
    for finding in findings:
        if finding["rule"] == "elicitation-renamed":
            key = finding["path"].rsplit("/", 1)[1]
            assert f"the form 'details' is now called {key!r}" in finding["message"]


@pytest.mark.parametrize(
    ("options", "at"),
    [
        ({"max_tokens": 10**4300}, "/params/maxTokens, an integer of more than 4,300 digits"),
        ({"max_tokens": 5, "temperature": float("nan")}, "/params/temperature, NaN and infinities"),
        ({"max_tokens": 5, "metadata": {"n": [1, -(10**4300)]}}, "/params/metadata/n/1, an integer"),
        ({"max_tokens": 5, "metadata": {"n": float("inf")}}, "/params/metadata/n, NaN and infinities"),
    ],
)
def test_a_question_json_cannot_carry_is_refused_naming_where(options: dict[str, Any], at: str) -> None:
    # A NaN was sent as null; an integer past 4,300 digits made the question's digest raise (an
    # internal error of the tool), and sent, it ended the client's connection.
    from mcpstub_runtime.interactive import Interaction, Sample  # noqa: PLC0415 - (as the module)

    with pytest.raises(ValueError, match=f"^the question 'sampling' cannot be sent: at {re.escape(at)}"):
        Interaction(None, {})._record(Sample("hi", **options))  # type: ignore[arg-type]
    assert Interaction(None, {})._record(Sample("hi", max_tokens=5, temperature=0.5))[1]["params"] == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "temperature": 0.5,
        "maxTokens": 5,
    }
