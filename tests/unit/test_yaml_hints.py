"""YAML syntax errors are said in the writer's terms, placed where the mistake is, with a fix that works."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcpstub.diagnostics import Diagnostic
from mcpstub.load import parse_document

ROOT = Path(__file__).resolve().parents[2]
TOOLSETS = [ROOT / "examples/weather/tools.yaml", *sorted((ROOT / "tests/data").glob("*.yaml"))]

HEAD = "mcpstub: 1\nserver: {name: demo}\ntools:\n  - name: get_forecast\n"


def syntax_errors(text: str) -> list[Diagnostic]:
    _, diagnostics = parse_document("tools.yaml", Path("tools.yaml"), text.encode())
    return [d for d in diagnostics if d.code in ("yaml-syntax", "yaml-tab")]


CASES = [
    (  # a key one space short of its neighbours
        "    inputSchema:\n      type: object\n      properties:\n        city:\n          type: string\n"
        "       days:\n          type: integer\n",
        (10, 8),
        "indented 7 spaces, which lines up with no key",
        "indent it 8 spaces, as 'city' on line 8, or 6 spaces, as 'properties' on line 7",
    ),
    (  # a key one space past its neighbours
        "    inputSchema:\n      type: object\n      properties:\n        city:\n          type: string\n"
        "           minLength: 1\n",
        (10, 12),
        "indented more than 'type' on line 9, so YAML reads it as more of that key's value",
        "indent it 10 spaces, as 'type', to make it a key beside it",
    ),
    (  # a key of a list entry at the column of the entry's dash
        "  description: Forecast.\n",
        (5, 3),
        "the column of the '- ' entries of the list on line 4, but is not one",
        "indent it 4 spaces to go on with that entry",
    ),
    (  # an entry of the list, indented as a key of the entry before
        "    inputSchema: {type: object}\n    - name: b\n",
        (6, 5),
        "'- ' entry lines up with the keys of the mapping that 'inputSchema' on line 5 is in",
        "indent it 2 spaces, as the entries of the list on line 4",
    ),
    (  # a key indented past the key before it, which has a value
        "    description: Forecast\n      inputSchema: {}\n",
        (6, 7),
        "indented more than 'description' on line 5, so YAML reads it as more of that key's value",
        "indent it 4 spaces, as 'description'",
    ),
    (
        "    description: Forecast: the weather\n",
        (5, 26),
        "a value holding ': ' must be quoted",
        'write it as description: "Forecast: the weather"',
    ),
    (
        "    description: 'it's here'\n",
        (5, 22),
        "text after a quoted value: the value ended at the ' at column 21",
        "write ' twice inside '...'",
    ),
    (
        '    description: "Forecast\n    inputSchema: {type: object}\n',
        (5, 18),
        "a quoted value is never closed",
        'close it with "',
    ),
    (
        "    inputSchema: {type: object, properties: {a: {type: string}}\n  - name: b\n",
        (6, 3),
        "expected ',' or '}' here, inside the '{' opened at line 5, column 18",
        "close the '{' with '}'",
    ),
    (
        "    inputSchema: {type: object, required: [a, b}\n",
        (5, 48),
        "inside the '[' opened at line 5, column 43",
        "close the '[' with ']'",
    ),
    (
        "    description\n    inputSchema: {}\n",
        (5, 5),
        "'description' is neither a key",
        "write it as 'key: value'",
    ),
    ("    description: @home\n", (5, 18), "cannot start with '@' unquoted", 'quote the value: "@home"'),
    ("    description: `x` y\n", (5, 18), "cannot start with '`' unquoted", 'quote the value: "`x` y"'),
    (
        "    annotations: - readOnlyHint\n",
        (5, 18),
        "a list cannot start on its key's line",
        "indented under annotations:",
    ),
    (  # the document's first line indented, the next key not
        "  mcpstub: 1\nserver: {name: demo}\n",
        (2, 1),
        "indented 0 spaces, less than the document's first line (line 1, 2 spaces)",
        "indent it 2 spaces, as line 1; or indent the document's first lines 0 spaces",
    ),
    ("    inputSchema: {}\n---\nmore: 1\n", (6, 1), "a second YAML document starts here", "remove this"),
]


CASES += [
    (  # a line of a block of text dedented: the block's indentation, not the key's
        "    description: |\n      Line one\n     line two\n    inputSchema: {type: object}\n",
        (7, 6),
        "less than the block of text that 'description' starts on line 5, so it ends that block",
        "indent it 6 spaces, as the block's first line (line 6)",
    ),
    ("    inputSchema: {}\n    annotations:\n      title demo\n      readOnlyHint: true\n", (7, 7),
     "'title demo' is neither a key", "write it as title: demo, if 'title' is a key"),
    ("    inputSchema: {}\n    annotations:\n      title:demo\n      readOnlyHint: true\n", (7, 7),
     "'title:demo' is not a key: a key's ':' must be followed by a space", "write it as title: demo"),
    ("    inputSchema: {type: object, description: @user, default: x}\n", (5, 46),
     "cannot start with '@' unquoted", 'quote the value: "@user"\n'),
    ("    inputSchema: {enum: [@a, @b]}\n", (5, 26), "cannot start with '@'", 'quote the value: "@a"\n'),
    ('    description: "abc\n    inputSchema: {type: object, description: "x"}\n', (5, 18),
     "the quoted value opened here is not closed on its line: it runs on to line 6, column 46",
     'close it with "'),
    ("    inputSchema: {type: object, description: a: b}\n", (5, 47), "a value holding ': ' must be quoted",
     'write it as description: "a: b"'),
    ("    inputSchema: {}\n    a:b: note: here\n", (6, 14), "must be quoted",
     'write it as a:b: "note: here"'),
    ("    inputSchema: {}\n    c#: note: here\n", (6, 13), "must be quoted", 'write it as c#: "note: here"'),
    ("    description: [beta] Search tool\n", (5, 25), "text after a ']'",
     'description: "[beta] Search tool"'),
    ("    description: {name} is shown\n", (5, 25), "text after a '}'", 'description: "{name} is shown"'),
    # (a closing bracket too many: deleting it is the fix, not quoting the value)
    ("    inputSchema: {type: object, properties: {}}}\n", (5, 48), "a '}' that closes nothing",
     "delete the '}' here (one too many)"),
    ("    annotations: {tags: [a, b]]}  # why\n", (5, 31), "a ']' that closes nothing",
     "delete the ']' here"),
    ("    annotations: [{a: 1}}]\n", (5, 25), "a '}' that closes nothing", "delete the '}' here"),
    ("    description: *bold* text\n", (5, 18), "cannot start with '*' unquoted", '"*bold* text"'),
    ("    description: & more\n", (5, 18), "cannot start with '&' unquoted", '"& more"'),
    ("    description: | pipes here\n", (5, 18), "cannot start with '|' unquoted", '"| pipes here"'),
    ("    description: > quoted reply\n", (5, 18), "cannot start with '>' unquoted", '"> quoted reply"'),
    (  # a key dedented with its flow value: the line after it is where YAML notices
        "    inputSchema:\n      type: object\n      properties:\n        a: {type: string}\n"
        "    required: [a]\n      additionalProperties: false\n",
        (10, 7),
        "lines up with 'properties' on line 7, but 'required' on line 9, indented less, ended that mapping",
        "indent line 9 6 spaces, as 'properties', if 'required' belongs in that mapping",
    ),
    (  # the same, its flow value on two lines (and a comment after it)
        "    inputSchema:\n      type: object\n      properties:\n        a: {type: string}\n"
        "    required: [a,\n        b]\n    # then\n      additionalProperties: false\n",
        (12, 7),
        "lines up with 'properties' on line 7, but 'required' on line 9, indented less, ended that mapping",
        "indent line 9 6 spaces, as 'properties', if 'required' belongs in that mapping",
    ),
    (  # an entry meant for an earlier list, after the mapping went on
        "    inputSchema:\n      required:\n      - a\n      properties:\n"
        "        a: {type: string}\n      - b\n",
        (10, 7),
        "lines up with the keys of the mapping that 'properties' on line 8 is in, where no list can start",
        "write its list's key on the line above it",
    ),
    ("    description: %50 off\n", (5, 18), "cannot start with '%' unquoted", '"%50 off"'),
]  # fmt: skip


@pytest.mark.parametrize(("body", "where", "message", "hint"), CASES)
def test_a_syntax_error_says_what_is_wrong_where_and_how_to_fix_it(
    body: str, where: tuple[int, int], message: str, hint: str
) -> None:
    [found] = syntax_errors(body if body.startswith("  mcpstub") else HEAD + body)
    assert (found.location.line, found.location.col) == where, found
    assert message in found.message and found.message.startswith("invalid YAML: "), found.message
    assert found.hint is not None and hint in found.hint + "\n", found.hint


def _fixed(text: str, found: Diagnostic) -> str | None:
    """The text with the fix the hint names applied to the line it names, if it names one."""
    lines = text.split("\n")
    row = found.location.line - 1
    assert found.hint is not None
    indent = re.match(r"indent it (\d+) spaces?", found.hint)
    if indent:
        lines[row] = " " * int(indent[1]) + lines[row].lstrip(" ")
        return "\n".join(lines)
    quoted = re.match(r"write it as (.*?)(?:, if '.*)?$", found.hint)
    if quoted and "key: value" not in found.hint:
        start = len(lines[row]) - len(lines[row].lstrip(" -"))
        lines[row] = lines[row][:start] + quoted[1]
        return "\n".join(lines)
    return None


def _mistakes(text: str) -> list[str]:
    """Every line indented one or two spaces more or less, and every plain value given a ': '."""
    lines = text.split("\n")
    made = []
    for row, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        for shift in (-2, -1, 1, 2):
            indent = len(line) - len(line.lstrip(" ")) + shift
            if indent >= 0:
                made.append("\n".join([*lines[:row], " " * indent + line.lstrip(" "), *lines[row + 1 :]]))
        if re.search(r": [A-Za-z][^'\"{\[#:]*$", line):
            made.append("\n".join([*lines[:row], line + ": more", *lines[row + 1 :]]))
    return made


@pytest.mark.parametrize("toolset", TOOLSETS, ids=lambda p: p.name)
def test_the_fix_a_hint_names_mends_the_line_it_names(toolset: Path) -> None:
    """Each line of real toolsets indented wrongly, or given a ': ' in its value: where the error
    names a fix (an indentation, a quoted value), making it leaves that line's error behind, and
    the place named is within the file, on the line written wrongly or after it."""
    text = toolset.read_text("utf-8")
    named = 0
    for broken in _mistakes(text):
        found = syntax_errors(broken)
        if not found:
            continue
        [first] = found
        assert 1 <= first.location.line <= broken.count("\n") + 1, first
        assert first.hint, first
        fixed = _fixed(broken, first)
        if fixed is None:
            continue
        named += 1
        after = syntax_errors(fixed)
        assert not after or after[0].location.line > first.location.line, (first, after, broken)
    assert named >= 20


@pytest.mark.parametrize(
    ("name", "text", "where", "message", "hint"),
    [
        ("wide-entries", "mcpstub: 1\ntools:\n  -   name: t\n      description: x\n  inputSchema: {}\n",
         (5, 3), "the column of the '- ' entries of the list on line 3",
         "indent it 6 spaces to go on with that entry"),
        ("entry-among-keys", "mcpstub: 1\nserver: {name: s}\n- name: t\n", (3, 1),
         "a '- ' list entry among the keys of the mapping that 'server' on line 2 is in",
         "write the list's key"),
        ("tab-after-dash", "mcpstub: 1\ntools:\n  -\tname: t\n", (3, 4), "tab character", "spaces"),
        ("document-marker-first", "---\n  mcpstub: 1\nserver: {name: demo}\n", (3, 1),
         "less than the document's first line (line 2, 2 spaces)", "indent it 2 spaces"),
        ("indented-but-the-last", "  mcpstub: 1\n  server: {name: demo}\ntools: []\n", (3, 1),
         "less than the document's first line", "indent it 2 spaces, as line 1"),
        ("json-trailing-text", '{"mcpstub": 1} x\n', (1, 16),
         "invalid JSON: text after the end of the document",
         "remove it"),
        ("json-unclosed-at-the-end", '{"mcpstub": 1, "tools": [\n', (1, 25),
         "invalid JSON: the '[' opened here is never closed", "close it with ']'"),
        ("line-separator-unquoted",
         HEAD + "    description: first part\u2028second: part\n    inputSchema: {}\n",
         (6, 16), "invalid YAML", "the line above holds U+2028"),
        (  # a line break only YAML counts, in a quoted value earlier: places named as an editor shows them
            "line-separator-earlier",
            'mcpstub: 1\nserver: {name: "a\u2028b"}\ntools:\n  - name: t\n'
            "    inputSchema:\n      type: object\n"
            "      properties:\n        city:\n          type: string\n       days: {}\n",
            (10, 8),
            "indented 7 spaces",
            "indent it 8 spaces, as 'city' on line 8, or 6 spaces, as 'properties' on line 7",
        ),
    ],
)  # fmt: skip
def test_more_mistakes_are_explained(
    name: str, text: str, where: tuple[int, int], message: str, hint: str
) -> None:
    path = Path("tools.json" if name.startswith("json") else "tools.yaml")
    _, diagnostics = parse_document(path.name, path, text.encode())
    [found] = [d for d in diagnostics if d.code in ("yaml-syntax", "yaml-tab")]
    assert (found.location.line, found.location.col) == where, found
    assert message in found.message and found.hint is not None and hint in found.hint, found


def test_a_tag_that_is_text_is_told_to_be_quoted() -> None:
    _, diagnostics = parse_document(
        "t.yaml", Path("t.yaml"), (HEAD + '    description: !important "thing"\n').encode()
    )
    [found] = [d for d in diagnostics if d.code == "yaml-tag"]
    assert found.hint is not None and 'quote the value if the "!" is text: "!important thing"' in found.hint


LONG = "p" * 1100
LISTED = "        b:\n          type: array\n          items: {type: object}\n          examples:\n"


@pytest.mark.parametrize(
    ("line", "column", "fixed"),
    [
        (f"        {LONG}: {{type: string}}\n", 9, f'        ? "{LONG}"\n        : {{type: string}}\n'),
        (f'        "{LONG}": {{type: string}}\n', 9, f'        ? "{LONG}"\n        : {{type: string}}\n'),
        (f"{LISTED}          - {LONG}: 1\n", 13, f'{LISTED}          - ? "{LONG}"\n            : 1\n'),
    ],
    ids=["plain", "quoted", "in-a-list"],
)  # fmt: skip
def test_a_key_longer_than_1024_characters_is_said_so_with_a_fix_that_reads(
    line: str, column: int, fixed: str
) -> None:
    # It was told "indented more than 'properties'", or to quote it (a quoted key is no better).
    head = HEAD + "    inputSchema:\n      type: object\n      properties:\n"
    (found,) = syntax_errors(head + line)
    assert "longer than 1024 characters" in found.message and found.location is not None
    assert found.location.col == column, found
    assert not syntax_errors(head + fixed)  # what the hint says to write


@pytest.mark.parametrize(
    "written",
    ["    annotations: [a, b}\n", "    annotations: {a: 1]\n", "    inputSchema: {enum: [[1], [2}]}\n",
     "    annotations: {title: x]y}\n", "    annotations: [\n      {a: 1]\n"],
)  # fmt: skip
def test_a_closing_bracket_of_the_wrong_kind_is_not_said_to_be_one_too_many(written: str) -> None:
    # Deleting it would not mend the line: the bracket meant to close what is open, or text
    # holds it.
    (found,) = syntax_errors(HEAD + written)
    assert "closes nothing" not in found.message and "delete" not in (found.hint or ""), found
