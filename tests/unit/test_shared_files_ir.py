"""The checked toolset holds the definitions of other files as shared definitions: each named once
for the whole toolset, every reference among shared definitions written `#/$defs/NAME`."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from mcpstub.pipeline import check_toolset

COMMON = """\
$defs:
  User: {type: object, properties: {home: {$ref: "#/$defs/Address"}, login: {type: string}}}
  Address: {type: object, properties: {city: {type: string}}}
  Status: {enum: [a, b]}
  odd.name: {type: object, properties: {n: {type: integer}}}
"""


def checked_toolset(tmp_path: Path, text: str) -> dict[str, object]:
    (tmp_path / "common.yaml").write_text(COMMON, "utf-8")
    (tmp_path / "other.yaml").write_text('$defs:\n  User: {type: object, properties: {x: {type: string}}}\n')
    (tmp_path / "tools.yaml").write_text("mcpstub: 1\nserver: {name: s}\n" + textwrap.dedent(text), "utf-8")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert checked.toolset is not None, [d.format() for d in checked.diagnostics]
    return {"shared": checked.toolset.shared_defs, "tools": {t.name: t for t in checked.toolset.tools}}


def test_definitions_of_other_files_are_shared_definitions_named_once(tmp_path: Path) -> None:
    found = checked_toolset(
        tmp_path,
        """\
        $defs:
          Status: {enum: [x]}
          Issue:
            type: object
            properties:
              by: {$ref: "common.yaml#/$defs/User"}
              other: {$ref: "other.yaml#/$defs/User"}
              s: {$ref: "common.yaml#/$defs/Status"}
              odd: {$ref: "common.yaml#/$defs/odd.name"}
        tools:
          - name: a
            inputSchema: {type: object, properties: {i: {$ref: "#/$defs/Issue"}}}
          - name: b
            inputSchema: {type: object, properties: {u: {$ref: "common.yaml#/$defs/User"}}}
        """,
    )
    shared = found["shared"]
    assert isinstance(shared, dict)
    # the toolset's first, then the files' in the order first met; a taken name is numbered
    assert list(shared) == ["Status", "Issue", "User", "User2", "Status2", "odd_name", "Address"]
    assert shared["Issue"]["properties"] == {
        "by": {"$ref": "#/$defs/User"},
        "other": {"$ref": "#/$defs/User2"},
        "s": {"$ref": "#/$defs/Status2"},
        "odd": {"$ref": "#/$defs/odd_name"},
    }
    assert shared["User"]["properties"]["home"] == {"$ref": "#/$defs/Address"}
    assert "yaml" not in json.dumps(shared)  # the model generator never reads a file itself
    tools = found["tools"]
    assert isinstance(tools, dict)
    assert tools["a"].shared_def_names >= {"Issue", "User", "Address"}
    assert tools["b"].shared_def_names == {"User", "Address"}


def test_a_toolset_without_file_references_keeps_its_definitions_as_written(tmp_path: Path) -> None:
    found = checked_toolset(
        tmp_path,
        """\
        $defs:
          A: {type: object, properties: {b: {$ref: "#/$defs/B"}}}
          B: {type: string}
        tools:
          - name: a
            inputSchema: {type: object, properties: {a: {$ref: "#/$defs/A"}}}
        """,
    )
    a_def = {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}
    assert found["shared"] == {"A": a_def, "B": {"type": "string"}}


def test_checked_toolsets_compare_by_value(tmp_path: Path) -> None:
    """Two checks of the same files give equal toolsets (no identity in the IR); a change to what
    a tool is made of, in the other file, makes that tool differ and leaves the rest equal."""
    tools = """\
    tools:
      - {name: who, inputSchema: {type: object, properties: {u: {$ref: "common.yaml#/$defs/User"}}}}
      - {name: what, inputSchema: {type: object, properties: {s: {$ref: "common.yaml#/$defs/Status"}}}}
    """
    checked = [checked_toolset(tmp_path, tools) for _ in range(2)]
    assert checked[0]["tools"]["who"] is not checked[1]["tools"]["who"]
    assert checked[0] == checked[1]
    (tmp_path / "common.yaml").write_text(COMMON.replace("city: {type: string}", "city: {type: number}"))
    (tmp_path / "tools.yaml").write_text("mcpstub: 1\nserver: {name: s}\n" + textwrap.dedent(tools), "utf-8")
    edited = check_toolset(tmp_path / "tools.yaml", "tools.yaml").toolset
    assert edited is not None
    by_name = {t.name: t for t in edited.tools}
    assert by_name["who"] != checked[0]["tools"]["who"] and by_name["what"] == checked[0]["tools"]["what"]


def test_definitions_of_other_files_are_named_as_the_toolset_s_definitions_reach_them_first(
    tmp_path: Path,
) -> None:
    # (before the tools: the classes a toolset's models have keep their names from run to run)
    (tmp_path / "common.yaml").write_text("$defs:\n  Item: {type: object, properties: {c: {type: string}}}\n")
    (tmp_path / "other.yaml").write_text("$defs:\n  Item: {type: object, properties: {o: {type: integer}}}\n")
    (tmp_path / "tools.yaml").write_text(
        "mcpstub: 1\nserver: {name: s}\n"
        "$defs:\n  Wrap: {type: object, properties: {item: {$ref: 'common.yaml#/$defs/Item'}}}\n"
        "tools:\n  - name: t\n"
        "    inputSchema: {type: object, properties: {a: {$ref: 'other.yaml#/$defs/Item'}}}\n"
    )
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert checked.toolset is not None, checked.diagnostics
    shared = checked.toolset.shared_defs
    assert list(shared["Item"]["properties"]) == ["c"], shared
    assert list(shared["Item2"]["properties"]) == ["o"], shared
