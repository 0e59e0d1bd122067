"""`oneOf`/`anyOf` branches told apart by a constant are classes named after it (`TargetFile`,
`TargetUrl`), not numbered (`Target`, `Target1`); names stay unique and deterministic."""

from __future__ import annotations

import ast
import itertools
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from mcpstub.classnames import branch_tags
from mcpstub.models import render_models
from mcpstub.pipeline import check_toolset

_counter = itertools.count()


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


@pytest.mark.parametrize(
    ("branches", "tags"),
    [
        ([obj(kind={"const": "file"}), obj(kind={"const": "url"})], ["File", "Url"]),
        ([obj(kind={"enum": ["a-b"]}), obj(kind={"const": "c d"})], ["AB", "CD"]),
        ([obj(v={"const": 1}), obj(v={"const": 2})], ["V1", "V2"]),
        ([obj(on={"const": True}), obj(on={"const": False})], ["OnTrue", "OnFalse"]),
        # the first property that tells every object branch apart names them
        ([obj(x={}, t={"const": "a"}), obj(t={"const": "b"})], ["A", "B"]),
        # a branch that is no object is left as it is
        ([obj(k={"const": "a"}), {"type": "string"}, obj(k={"const": "b"})], ["A", "", "B"]),
    ],
)
def test_branches_are_named_after_the_constant_that_tells_them_apart(
    branches: list[Any], tags: list[str]
) -> None:
    assert branch_tags(branches) == tags


@pytest.mark.parametrize(
    "branches",
    [
        [obj(kind={"const": "file"})],  # one object branch: nothing to tell apart
        [obj(kind={"const": "a"}), obj(kind={"type": "string"})],  # not fixed in every branch
        [obj(kind={"const": "a"}), obj(kind={"const": "A"})],  # the same name once spelled
        [obj(kind={"enum": ["a", "b"]}), obj(kind={"const": "c"})],  # an enum of two fixes nothing
        [obj(kind={"const": "a"}), obj(other={"const": "b"})],
        [obj(kind={"const": None}), obj(kind={"const": "b"})],
        [obj(kind={"const": "ü"}), obj(kind={"const": "b"})],  # no ASCII name part
    ],
)
def test_branches_without_such_a_constant_keep_the_generators_names(branches: list[Any]) -> None:
    assert branch_tags(branches) is None


TOOLSET = """\
mcpstub: 1
server: {name: o}
$defs:
  Target:
    oneOf:
      - {type: object, properties: {kind: {const: file}, path: {type: string}}, required: [kind, path]}
      - {type: object, properties: {kind: {const: url}, url: {type: string}}, required: [kind, url]}
tools:
  - name: fetch
    inputSchema:
      type: object
      properties:
        target:
          oneOf:
            - {type: object, properties: {kind: {const: file}, path: {type: string}}, required: [kind]}
            - {type: object, properties: {kind: {const: url}, url: {type: string}}, required: [kind]}
        shared: {$ref: "#/$defs/Target"}
        many:
          type: array
          items:
            anyOf:
              - {type: object, properties: {op: {const: add}, n: {type: integer}}}
              - {type: object, properties: {op: {const: del}, n: {type: integer}}}
              - {type: string}
        target_file: {type: object, properties: {x: {type: string}}}
      required: [target]
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, types.ModuleType]:
    root = tmp_path_factory.mktemp("branches")
    (root / "tools.yaml").write_text(TOOLSET, "utf-8")
    checked = check_toolset(root / "tools.yaml", "tools.yaml")
    assert checked.toolset is not None, [d.format() for d in checked.diagnostics]
    result = render_models(checked.toolset)
    assert not result.diagnostics
    name = f"_mcpstub_branches_{next(_counter)}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(result.source, name, "exec"), module.__dict__)
    return result.source, module


def test_generated_branches_are_named_after_their_constant(generated: tuple[str, types.ModuleType]) -> None:
    source, models = generated
    classes = {n.name for n in ast.parse(source).body if isinstance(n, ast.ClassDef)}
    assert {"TargetFile", "TargetUrl", "FetchInputTargetFile", "FetchInputTargetUrl"} <= classes
    assert {"FetchInputManyItemAdd", "FetchInputManyItemDel"} <= classes
    assert not {"Target1", "TargetTarget", "FetchInputTarget1"} & classes
    # a property whose own class would take a branch's name gets a name of its own
    assert len(classes) == len(set(classes))
    field = models.FetchInput.model_fields["target_file"].annotation
    assert models.FetchInputTargetFile not in getattr(field, "__args__", (field,))
    sent = {"target": {"kind": "url", "url": "u"}, "shared": {"kind": "file", "path": "p"}}
    args = models.FetchInput.model_validate({**sent, "many": [{"op": "del"}, "s"]})
    assert type(args.target) is models.FetchInputTargetUrl and type(args.shared) is models.TargetFile
    assert type(args.many[0]) is models.FetchInputManyItemDel and args.many[1] == "s"


def test_names_are_the_same_on_every_run(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(textwrap.dedent(TOOLSET), "utf-8")
    texts = set()
    for _ in range(2):
        checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
        assert checked.toolset is not None
        texts.add(render_models(checked.toolset).source)
    assert len(texts) == 1
