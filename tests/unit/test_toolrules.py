"""Tool rules: portable names, honest task support, annotation extension keys."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mcpstub.pipeline import Checked, check_toolset, generate

HEAD = "mcpstub: 1\nserver: {name: s}\n"


def check(tmp_path: Path, text: str) -> Checked:
    path = tmp_path / "tools.yaml"
    path.write_text(HEAD + textwrap.dedent(text), "utf-8")
    return check_toolset(path, "tools.yaml")


def codes(checked: Checked) -> list[tuple[str, str, int]]:
    return [(d.severity.value, d.code, d.location.line) for d in checked.diagnostics]


@pytest.mark.parametrize(
    ("name", "why"),
    [("a" * 65, "longer than 64"), ("repo.get", "contains '.'"), ("x" * 128, "longer than 64")],
)
def test_names_some_clients_refuse_warn(tmp_path: Path, name: str, why: str) -> None:
    checked = check(tmp_path, f"tools:\n  - name: {name}\n    inputSchema: {{type: object}}\n")
    assert checked.ok
    [d] = checked.diagnostics
    assert (d.severity.value, d.code, d.location.line, d.location.col) == (
        "warning",
        "tool-name-portability",
        4,
        11,
    )
    assert why in d.message and d.hint is not None and "^[a-zA-Z0-9_-]{1,64}$" in d.hint


@pytest.mark.parametrize("name", ["a" * 64, "get-user_v2", "A1"])
def test_portable_names_do_not_warn(tmp_path: Path, name: str) -> None:
    checked = check(tmp_path, f"tools:\n  - name: {name}\n    inputSchema: {{type: object}}\n")
    assert checked.ok and checked.diagnostics == []


def test_names_mcp_refuses_stay_errors_without_a_second_warning(tmp_path: Path) -> None:
    checked = check(tmp_path, f"tools:\n  - name: {'a' * 129}\n    inputSchema: {{type: object}}\n")
    assert codes(checked) == [("error", "invalid-tool-name", 4)]


@pytest.mark.parametrize("support", ["required", "optional"])
def test_task_support_the_server_cannot_serve_is_refused(tmp_path: Path, support: str) -> None:
    checked = check(
        tmp_path,
        f"""\
        tools:
          - name: a
            inputSchema: {{type: object}}
            execution: {{taskSupport: {support}}}
        """,
    )
    assert not checked.ok
    [d] = checked.diagnostics
    assert (d.code, d.location.line, d.location.col) == ("task-support", 6, 30)
    assert "no task machinery" in d.message and d.hint is not None and "forbidden" in d.hint


def test_task_support_forbidden_is_advertised(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            execution: {taskSupport: forbidden}
        """,
    )
    assert checked.ok and checked.toolset is not None
    assert checked.toolset.tools[0].advertised["execution"] == {"taskSupport": "forbidden"}


def test_annotation_extension_keys_are_kept_with_a_warning(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            annotations: {readOnlyHint: true, category: repos, rank: {a: [1, 2]}, destructive: false}
        """,
    )
    assert checked.ok and checked.toolset is not None
    assert codes(checked) == [("warning", "annotation-extension", 6)] * 3
    hints = [d.hint for d in checked.diagnostics]
    assert hints == [
        "it is advertised as written; clients may ignore it",
        "it is advertised as written; clients may ignore it",
        "did you mean 'destructiveHint'?",
    ]
    assert checked.toolset.tools[0].advertised["annotations"] == {
        "readOnlyHint": True,
        "category": "repos",
        "rank": {"a": [1, 2]},
        "destructive": False,
    }


def test_a_tool_key_indented_under_annotations_is_told_where_it_belongs(tmp_path: Path) -> None:
    # `elicitations` one level too deep would be advertised as an annotation and ask nothing.
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            annotations:
              readOnlyHint: true
              elicitations:
                confirm: {type: object, properties: {ok: {type: boolean}}}
        """,
    )
    hint = "'elicitations' is a key of the tool: indent it 4 spaces, as 'annotations'"
    said = [(d.code, d.location.line, d.hint) for d in checked.diagnostics]
    assert said == [("annotation-extension", 8, hint)]


def test_a_tool_key_inside_annotations_braces_is_told_to_move_out(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            annotations: {readOnlyHint: true, description: what it does}
        """,
    )
    hint = "'description' is a key of the tool: write it beside 'annotations', not in its braces"
    assert [(d.code, d.hint) for d in checked.diagnostics] == [("annotation-extension", hint)]


@pytest.mark.parametrize("key", ["timeout", "examples", "_meta", "icons", "execution", "outputSchema"])
def test_every_key_of_a_tool_under_annotations_is_told_where_it_belongs(tmp_path: Path, key: str) -> None:
    # Generator-only keys and MCP's own alike; an annotation named like one (`title`) is no mistake.
    checked = check(
        tmp_path,
        f"tools:\n  - name: a\n    inputSchema: {{type: object}}\n    annotations:\n      {key}: 1\n",
    )
    hint = f"{key!r} is a key of the tool: indent it 4 spaces, as 'annotations'"
    assert [(d.code, d.hint) for d in checked.diagnostics] == [("annotation-extension", hint)]
    titled = check(
        tmp_path, "tools:\n  - name: a\n    inputSchema: {type: object}\n    annotations: {title: A}\n"
    )
    assert checked.diagnostics and not titled.diagnostics


def test_standard_annotations_keep_their_types(tmp_path: Path) -> None:
    checked = check(
        tmp_path,
        """\
        tools:
          - name: a
            inputSchema: {type: object}
            annotations: {readOnlyHint: "yes"}
        """,
    )
    assert codes(checked) == [("error", "wrong-type", 6)]


def test_annotation_extension_keys_generate(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        HEAD + "tools:\n  - name: a\n    inputSchema: {type: object}\n    annotations: {category: x}\n",
        "utf-8",
    )
    generated = generate(path, "tools.yaml")
    assert generated.ok, [d.format() for d in generated.diagnostics]
    assert "'category': 'x'" in generated.ours["tools.py"] or '"category": "x"' in generated.ours["tools.py"]


@pytest.mark.parametrize("key", ["annotations", "timeout", "elicitations", "execution", "icons", "_meta"])
@pytest.mark.parametrize("schema", ["inputSchema", "outputSchema"])
def test_a_key_of_the_tool_indented_into_its_schema_is_told_where_it_belongs(
    tmp_path: Path, key: str, schema: str
) -> None:
    # One level too deep it is no keyword of the schema, and the tool loses the setting: an error.
    block = check(tmp_path, f"tools:\n  - name: a\n    {schema}:\n      type: object\n      {key}: {{}}\n")
    hints = [(d.is_error, d.location.line, d.hint) for d in block.diagnostics if "tool-key" in d.code]
    assert hints == [(True, 7, f"{key!r} is a key of the tool: indent it 4 spaces, as {schema!r}")]
    flow = check(tmp_path, f"tools:\n  - name: a\n    {schema}: {{type: object, {key}: 1}}\n")
    said = f"{key!r} is a key of the tool: write it beside {schema!r}, not in its braces"
    assert [d.hint for d in flow.diagnostics if d.code == "tool-key-in-schema"] == [said]


@pytest.mark.parametrize(
    "key",
    ["readonlyHint", "ReadOnlyHint", "read_only_hint", "read-only-hint", "raedOnlyHint", "readOnlyHints",
     "readOnyHint"],
)  # fmt: skip
def test_a_hint_of_mcp_s_in_another_spelling_is_an_error(tmp_path: Path, key: str) -> None:
    # A client reads the hint by its exact name: `readonlyHint` is no extension, and the tool is
    # taken for one that writes (the contract tests call read-only tools only).
    tool = "tools:\n  - name: a\n    inputSchema: {type: object}\n    annotations: "
    checked = check(tmp_path, tool + f"{{{key}: true}}\n")
    said = [(d.code, d.is_error, d.hint) for d in checked.diagnostics]
    assert said == [("annotation-misspelled", True, "write 'readOnlyHint'")], said
    close = check(tmp_path, tool + "{readOnly: true}\n")
    assert [(d.code, d.is_error) for d in close.diagnostics] == [("annotation-extension", False)]
    # One a slip away that takes what the hint does not is an extension of its own.
    own = check(tmp_path, tool + "{titles: {en: Hello}, tile: 3}\n")
    assert [(d.code, d.is_error) for d in own.diagnostics] == [("annotation-extension", False)] * 2
    cased = check(tmp_path, tool + '{readonlyHint: "true"}\n')  # (another case: a slip, whatever it holds)
    assert [d.code for d in cased.diagnostics] == ["annotation-misspelled"]


def test_a_key_of_the_tool_it_has_already_is_not_told_to_move(tmp_path: Path) -> None:
    # Indented as the hint says, it would be written twice.
    text = "tools:\n  - name: a\n    timeout: 5\n    inputSchema:\n      type: object\n      timeout: 9\n"
    hints = [d.hint for d in check(tmp_path, text).diagnostics if d.code == "unknown-keyword"]
    assert hints == ["'timeout' is a key of the tool, which has one already: nothing reads this one"]
