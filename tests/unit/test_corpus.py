"""Real tool schemas validate clean: the GitHub server's 117 tools, and three toolsets in the
shapes public servers advertise (zod draft-07, pydantic 2020-12, OpenAPI-derived)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpstub.pipeline import check_toolset

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus" / "github.json"
DATA = ROOT / "tests" / "data"


def test_github_corpus_validates_clean(tmp_path: Path) -> None:
    tools = json.loads(CORPUS.read_text("utf-8"))
    assert len(tools) == 117
    toolset = {"mcpstub": 1, "server": {"name": "github"}, "tools": tools}
    path = tmp_path / "tools.yaml"
    path.write_text(json.dumps(toolset, indent=2, ensure_ascii=False), "utf-8")  # JSON is YAML
    checked = check_toolset(path, "tools.yaml")
    assert [d.format() for d in checked.diagnostics] == []
    assert checked.toolset is not None
    assert [t.name for t in checked.toolset.tools] == [t["name"] for t in tools]
    # advertised as written: the corpus had no shared refs, so each schema is unchanged
    for tool, raw in zip(checked.toolset.tools, tools, strict=True):
        assert tool.input_schema == raw["inputSchema"]


@pytest.mark.parametrize("name", ["zod_draft07.yaml", "pydantic_2020_12.yaml", "openapi_derived.yaml"])
def test_realistic_toolsets_validate_clean(name: str) -> None:
    checked = check_toolset(DATA / name, name)
    assert [d.format() for d in checked.diagnostics] == []
    assert checked.toolset is not None
    assert any(t.examples for t in checked.toolset.tools)


def test_zod_toolset_keeps_draft07() -> None:
    checked = check_toolset(DATA / "zod_draft07.yaml")
    assert checked.toolset is not None
    assert {t.dialect for t in checked.toolset.tools} == {"draft-07"}


def test_realistic_examples_are_really_checked(tmp_path: Path) -> None:
    text = (DATA / "pydantic_2020_12.yaml").read_text("utf-8")
    broken = text.replace('id: "0b9d6a56-5a8e-4a53-9a0c-2f8e6b1d2c3e"', 'id: "not-a-uuid"')
    assert broken != text
    path = tmp_path / "tools.yaml"
    path.write_text(broken, "utf-8")
    checked = check_toolset(path, "tools.yaml")
    assert [d.code for d in checked.diagnostics] == ["example-invalid"]
    assert '"not-a-uuid" is not a "uuid"' in checked.diagnostics[0].message


def test_openapi_shared_defs_are_bundled() -> None:
    checked = check_toolset(DATA / "openapi_derived.yaml")
    assert checked.toolset is not None
    add_pet = checked.toolset.tools[0]
    assert set(add_pet.input_schema["$defs"]) == {"Pet", "Category", "Tag"}
    assert add_pet.shared_def_names == {"Pet", "Category", "Tag"}
