"""A `default` fills a field only where it is written on that property: never one that merely
refers to a definition holding a default, wherever that definition is written."""

from __future__ import annotations

import itertools
import sys
import types
from pathlib import Path

import pytest
from pydantic import MISSING

from mcpstub.models import render_models
from mcpstub.pipeline import Checked, check_toolset

_counter = itertools.count()

TOOLSET = """\
mcpstub: 1
server: {name: d}
$defs:
  Priority: {enum: [low, medium, high], default: medium}
  Labels: {type: array, items: {type: string}, default: [x]}
  Point: {type: object, properties: {x: {type: number}}, default: {x: 1}}
  Issue:
    type: object
    properties:
      title: {type: string}
      priority: {$ref: "#/$defs/Priority"}
      severity: {$ref: "#/$defs/Priority", default: high}
tools:
  - name: patch
    inputSchema:
      type: object
      properties:
        priority: {$ref: "#/$defs/Priority"}
        urgency: {$ref: "#/$defs/Priority", default: low}
        either: {anyOf: [{$ref: "#/$defs/Priority"}, {type: "null"}]}
        all: {allOf: [{$ref: "#/$defs/Priority"}]}
        labels: {$ref: "#/$defs/Labels"}
        point: {$ref: "#/$defs/Point"}
        login: {$ref: "common.yaml#/$defs/Login"}
        size: {$ref: "#/$defs/Size"}
        page: {type: integer, default: 3}
        same_page: {$ref: "#/properties/page"}
        low: {type: integer, minimum: 5, default: 3}
        same_low: {$ref: "#/properties/low"}
        issue: {$ref: "#/$defs/Issue"}
      $defs:
        Size: {type: integer, default: 1}
  - name: old
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties:
        priority: {$ref: "#/definitions/P", default: high}
        kept: {$ref: "#/definitions/P"}
      definitions:
        P: {enum: [low, high], default: low}
"""


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> types.ModuleType:
    root = tmp_path_factory.mktemp("defaults")
    (root / "common.yaml").write_text("$defs:\n  Login: {type: string, default: nobody}\n", "utf-8")
    (root / "tools.yaml").write_text(TOOLSET, "utf-8")
    checked = check_toolset(root / "tools.yaml", "tools.yaml")
    assert checked.toolset is not None, [d.format() for d in checked.diagnostics]
    result = render_models(checked.toolset)
    assert not [d for d in result.diagnostics if d.is_error]
    name = f"_mcpstub_defaults_{next(_counter)}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(result.source, name, "exec"), module.__dict__)
    return module


def test_a_field_that_merely_refers_to_a_definition_gets_none_of_its_default(
    models: types.ModuleType,
) -> None:
    args = models.PatchInput()
    for field in ("priority", "either", "all", "labels", "point", "login", "size", "same_page", "same_low"):
        assert getattr(args, field) is MISSING, field
    assert args.model_fields_set == set()
    assert args.model_dump() == {"urgency": "low", "page": 3}  # what is written on the property


def test_a_default_written_on_the_property_fills_it(models: types.ModuleType) -> None:
    args = models.PatchInput()
    assert (args.urgency, args.page) == ("low", 3)
    # a default the property's own schema refuses is never filled in (the build warns)
    assert args.low is MISSING


def test_a_shared_class_fills_only_its_own_property_defaults(models: types.ModuleType) -> None:
    issue = models.PatchInput.model_validate({"issue": {"title": "t"}}).issue
    assert issue.priority is MISSING and issue.severity == "high"
    assert issue.model_dump() == {"title": "t", "severity": "high"}


def test_draft07_ignores_a_default_beside_a_reference_and_fills_none_from_the_definition(
    models: types.ModuleType,
) -> None:
    args = models.OldInput()
    assert args.priority is MISSING and args.kept is MISSING  # draft-07: `$ref` siblings are ignored


def test_what_the_client_sent_is_told_from_what_was_filled_in(models: types.ModuleType) -> None:
    sent = models.PatchInput.model_validate({"urgency": "low", "priority": "high"})
    assert sent.model_fields_set == {"urgency", "priority"}
    assert "page" not in sent.model_fields_set and sent.page == 3


def test_the_build_says_once_per_definition_that_its_default_fills_nothing(tmp_path: Path) -> None:
    (tmp_path / "common.yaml").write_text("$defs:\n  Login: {type: string, default: nobody}\n", "utf-8")
    (tmp_path / "tools.yaml").write_text(TOOLSET, "utf-8")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    said = [(d.location.file, d.location.line) for d in checked.diagnostics if d.code == "definition-default"]
    assert said == [("common.yaml", 2), ("tools.yaml", 4), ("tools.yaml", 5), ("tools.yaml", 6),
                    ("tools.yaml", 32), ("tools.yaml", 41)]  # fmt: skip


def _models(checked: Checked) -> types.ModuleType:
    name = f"_mcpstub_defaults_{next(_counter)}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(render_models(checked.toolset).source, name, "exec"), module.__dict__)
    return module


ROLE = (
    "type: object\ndefault: {}\nproperties:\n"
    "  kind: {type: string, default: reporter}\n"
    "  tags: {type: array, items: {type: string, default: x}, default: [a]}\n"
)


@pytest.mark.parametrize("ref", ["parts/role.yaml", "./parts/role.yaml#", "parts/../parts/role.yaml"])
def test_a_whole_file_a_reference_reaches_is_a_definition_whose_root_default_fills_nothing(
    tmp_path: Path, ref: str
) -> None:
    # A whole file reached by `$ref` is shared as a definition: the field that refers to it is
    # left unset, and the build says so at the root's default (once). Its root class's properties
    # keep their own defaults, unsaid.
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "role.yaml").write_text(ROLE, "utf-8")
    toolset = "mcpstub: 1\nserver: {name: d}\ntools:\n  - name: pick\n    inputSchema:\n"
    toolset += f"      type: object\n      properties:\n        role: {{$ref: {ref!r}}}\n"
    (tmp_path / "tools.yaml").write_text(toolset, "utf-8")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert checked.toolset is not None, [d.format() for d in checked.diagnostics]
    said = [d for d in checked.diagnostics if d.code == "definition-default"]
    assert [(d.location.file, d.location.line) for d in said] == [("parts/role.yaml", 2)], said
    assert "the default of role.yaml fills no field" in said[0].message
    models = _models(checked)
    assert models.PickInput().role is MISSING
    assert models.PickInput.model_validate({"role": {}}).role.kind == "reporter"


def test_a_default_inside_another_file_is_not_said_to_fill_nothing_where_it_may_fill_a_field(
    tmp_path: Path,
) -> None:
    # `role.yaml#/properties/kind` is a definition to the tool that points into the file, and a
    # property of the root class to the one reaching the whole file: its default fills that field.
    (tmp_path / "role.yaml").write_text(ROLE, "utf-8")
    toolset = "mcpstub: 1\nserver: {name: d}\ntools:\n"
    toolset += "  - name: whole\n    inputSchema: {type: object, properties: {role: {$ref: role.yaml}}}\n"
    toolset += "  - name: inner\n    inputSchema:\n      type: object\n      properties:\n"
    toolset += "        kind: {$ref: 'role.yaml#/properties/kind'}\n"
    toolset += "        tag: {$ref: 'role.yaml#/properties/tags/items'}\n"
    (tmp_path / "tools.yaml").write_text(toolset, "utf-8")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert checked.toolset is not None, [d.format() for d in checked.diagnostics]
    said = [(d.location.line, d.message) for d in checked.diagnostics if d.code == "definition-default"]
    assert said == [(2, said[0][1])] and "of role.yaml fills" in said[0][1], said  # (the root's only)
    models = _models(checked)
    assert models.WholeInput.model_validate({"role": {}}).role.kind == "reporter"
    assert models.InnerInput().kind is MISSING
