"""Loader: YAML on disk -> data, the location of every node, and clear diagnostics."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from mcpstub.diagnostics import Location
from mcpstub.load import MAX_DEPTH, load_document, parse_document
from mcpstub.pipeline import check_toolset


def parse(text: str | bytes) -> tuple[object, list[tuple[str, int, int]], object]:
    raw = text.encode() if isinstance(text, str) else text
    doc, diagnostics = parse_document("tools.yaml", Path("tools.yaml"), raw)
    return doc.data, [(d.code, d.location.line, d.location.col) for d in diagnostics], doc


def test_yaml_12_scalars_stay_strings() -> None:
    data, diagnostics, _ = parse(
        "a: no\nb: yes\nc: on\nd: off\ne: 2026-01-01\nf: 12:30\ng: 0777\nh: '5'\ni: !!str 5\nj: 1_000\n"
    )
    assert diagnostics == []
    assert data == {
        "a": "no",
        "b": "yes",
        "c": "on",
        "d": "off",
        "e": "2026-01-01",
        "f": "12:30",
        "g": 777,
        "h": "5",
        "i": "5",
        "j": "1_000",
    }


def test_yaml_12_core_numbers_and_literals() -> None:
    data, diagnostics, _ = parse(
        "a: 1e3\nb: 0o17\nc: 0x1F\nd: -2.5\ne: .5\nf: true\ng: False\n"
        "h: ~\ni: null\nj:\nk: 12345678901234567890123\n"
    )
    assert diagnostics == []
    assert data == {
        "a": 1000.0,
        "b": 15,
        "c": 31,
        "d": -2.5,
        "e": 0.5,
        "f": True,
        "g": False,
        "h": None,
        "i": None,
        "j": None,
        "k": 12345678901234567890123,
    }


def test_json_is_yaml() -> None:
    data, diagnostics, _ = parse('{"mcpstub": 1, "tools": [{"name": "x", "n": 1e2, "s": "no"}]}')
    assert diagnostics == []
    assert data == {"mcpstub": 1, "tools": [{"name": "x", "n": 100.0, "s": "no"}]}


@pytest.mark.parametrize(
    ("text", "where", "message", "hint"),
    [
        ('{"a": 1,}', (1, 8), "a comma before the '}' that ends the object", "no comma after the last item"),
        ('{"a": [1, 2,\r\n  ]}', (1, 12), "a comma before the ']' that ends the array", "no comma after"),
        ('{"a": 1,\r /* why */ "b": 2}', (2, 2), "Expecting property name", "JSON has no comments"),
        ('{"a": 1}  # why\n', (1, 11), "Extra data", "JSON has no comments"),
        ("{'a': 1}", (1, 2), "Expecting property name", "JSON strings are in double quotes"),
        ("a: 1\n", (1, 1), "Expecting value", "name it .yaml to write YAML"),
        ("[1, 2, ]", (1, 6), "a comma before the ']' that ends the array", "no comma after"),
        ('{"a": ["NaN", NaN]}', (1, 15), "NaN is not a JSON number", "JSON has no NaN or Infinity"),
        ('{"a": -Infinity}', (1, 7), "-Infinity is not a JSON number", "JSON has no NaN or Infinity"),
        # Places as an editor shows them: a raw U+2028 ends no line, an escape is its characters.
        ('{"d": "a\u2028b\u2028c",\n "e": 1,}', (2, 8), "a comma before the '}'", "no comma after"),
        ('{"d": "\\ud83d\\ude00 x", "e": 1,}', (1, 31), "a comma before the '}'", "no comma after"),
    ],
)
def test_a_json_file_must_be_json_not_only_yaml_alike(
    tmp_path: Path, text: str, where: tuple[int, int], message: str, hint: str
) -> None:
    """YAML reads each of these (a trailing comma, a comment, single quotes) as the JSON meant, or
    as other data: a file named .json is told where it is not JSON. (Where YAML cannot read it
    either, its explanation is said: the YAML hint tests.)"""
    path = tmp_path / "tools.json"
    path.write_bytes(text.encode())
    _, diagnostics = load_document(path, "tools.json")
    [found] = diagnostics
    assert (found.code, (found.location.line, found.location.col)) == ("json-syntax", where), found.format()
    assert message in found.message and hint in (found.hint or ""), found.format()
    yaml_named = tmp_path / "tools.yaml"
    yaml_named.write_bytes(text.encode())
    assert all(d.code != "json-syntax" for d in load_document(yaml_named, "tools.yaml")[1])


def test_locations_of_values_and_keys() -> None:
    _, _, doc = parse("mcpstub: 1\ntools:\n  - name: greet\n    inputSchema: {type: object}\n")
    assert doc.loc(("tools", 0, "name")) == Location("tools.yaml", 3, 11)
    assert doc.key_loc(("tools", 0, "name")) == Location("tools.yaml", 3, 5)
    assert doc.loc(("tools", 0, "inputSchema", "type")) == Location("tools.yaml", 4, 25)
    # a path that does not exist falls back to its nearest located ancestor
    assert doc.loc(("tools", 0, "inputSchema", "missing")) == Location("tools.yaml", 4, 18)


def test_duplicate_key_is_an_error_at_the_second_key() -> None:
    _data, diagnostics, _doc = parse("a: 1\nb:\n  x: 1\n  x: 2\n")
    assert diagnostics == [("duplicate-key", 4, 3)]
    _, raw = parse_document("t.yaml", Path("t.yaml"), b"a: 1\nb:\n  x: 1\n  x: 2\n")
    assert "first defined at line 3, column 3" in raw[0].message


def test_duplicate_key_in_flow_mapping() -> None:
    _, diagnostics, _ = parse("a: {k: 1, k: 2}\n")
    assert diagnostics == [("duplicate-key", 1, 11)]


def test_tab_indentation() -> None:
    _, diagnostics, _ = parse("mcpstub: 1\nserver:\n\tname: s\n")
    assert [d[0] for d in diagnostics] == ["yaml-tab"]
    assert diagnostics[0][1] == 3


def test_tab_inside_a_value_is_fine() -> None:
    data, diagnostics, _ = parse('a: "x\ty"\nb: x\ty\n')
    assert diagnostics == []
    assert data == {"a": "x\ty", "b": "x\ty"}


def test_invalid_utf8_points_at_the_byte() -> None:
    _, diagnostics, _ = parse(b'mcpstub: 1\nserver: {name: "caf\xe9"}\n')
    assert diagnostics == [("invalid-utf8", 2, 20)]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize(
    "text",
    ["mcpstub: 1\ntools: []\n", '{"mcpstub": 1, "server": {"name": "café"}}', "#Описание\nmcpstub: 1\n",
     "日本: 1\n", "€: 1\n", "mcpstub: 1\na: \0\n", "description: " + "Описание. " * 30 + "\nmcpstub: 1\n"],
)  # fmt: skip
def test_a_file_saved_as_utf_16_or_32_is_said_to_be_so(encoding: str, text: str) -> None:
    """As Windows editors save "Unicode": with or without a byte order mark, ASCII alone or not,
    whatever the file starts with, with a byte added at its end (as `echo >>` adds one)."""
    for raw, name in ((text.encode(encoding), "tools.yaml"), (text.encode(encoding) + b"\n", "tools.json")):
        _, diagnostics = parse_document(name, Path(name), raw)
        said = [(d.code, d.message, d.location.line, d.location.col) for d in diagnostics]
        assert said == [("invalid-utf8", f"file is {encoding[:6].upper()}, not UTF-8", 1, 1)]
        assert diagnostics[0].hint == "save the file as UTF-8"


@pytest.mark.parametrize(
    ("raw", "at"),
    [(b"mcpstub: 1\nkey: va\0lue\n", (2, 8)), (b"x: 1\0\n", (1, 5)), ("中文: \0".encode(), (1, 5))],
)
def test_a_utf_8_file_holding_a_nul_is_not_taken_for_utf_16(raw: bytes, at: tuple[int, int]) -> None:
    _, diagnostics, _ = parse(raw)
    assert diagnostics == [("yaml-syntax", *at)]


@pytest.mark.parametrize("character", ["\x07", "\x00", "\ufffe", "\x1b"])
@pytest.mark.parametrize(
    "before",
    [
        "mcpstub: 1\ntools: [] # ",
        'mcpstub: 1\nserver: {name: "é€',
        "# 😀 ünï\nmcpstub: 1\nserver: {name: 'a𝄞",
    ],
)
def test_a_character_yaml_does_not_allow_is_located_where_it_stands(before: str, character: str) -> None:
    """The reader reports an offset, not a line and a column: counted as characters, past any
    multi-byte ones, and shown by its code point, not as the reader's own text."""
    _, diagnostics = parse_document("tools.yaml", Path("tools.yaml"), (before + character + "\n").encode())
    line, col = before.count("\n") + 1, len(before) - before.rfind("\n")
    assert [(d.code, d.location.line, d.location.col) for d in diagnostics] == [("yaml-syntax", line, col)]
    assert f"U+{ord(character):04X}" in diagnostics[0].message and "position" not in diagnostics[0].message


def _editor_position(text: str, marker: str) -> tuple[int, int]:
    """Where `marker` last starts as an editor shows it: lines end at LF, CRLF or CR only."""
    before = text[: text.rindex(marker)].replace("\r\n", "\n").replace("\r", "\n")
    return before.count("\n") + 1, len(before) - before.rfind("\n")


@pytest.mark.parametrize("odd", ["\x85", "\u2028", "\u2029"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize(
    ("name", "text", "code", "marker"),
    [
        ("quoted", 'mcpstub: 1\nserver: {name: "a~b~c"}\ntools:\n  - name: t\n    inputSchema: {type: OBJ}\n',
         "unknown-type", "OBJ"),
        ("json", '{"mcpstub": 1, "server": {"name": "a~b"},\n "tools": [{"name": "t",\n'
         '  "inputSchema": {"type": "OBJ"}}]}\n', "unknown-type", '"OBJ'),
        ("escaped", '{"mcpstub": 1, "server": {"name": "\\ud83d\\ude00~\\ud83d\\ude00"},'
         ' "tools": [{"name": "t", "inputSchema": {"type": "OBJ"}}]}\n', "unknown-type", '"OBJ'),
        ("comment", "mcpstub: 1\n# x~y: 1\nserver: {name: s}\ntools: [{name: t, inputSchema: {type: OBJ}}]\n",
         "unknown-type", "OBJ"),
        ("syntax", 'mcpstub: 1\nserver: {name: "a~b"}\ntools: [OBJ}\n', "yaml-syntax", "}\n"),
        ("duplicate", 'mcpstub: 1\nserver: {name: "a~b"}\nOBJ: 1\nOBJ: 2\n', "duplicate-key", "OBJ: 2"),
    ],
)  # fmt: skip
def test_a_line_break_only_yaml_counts_moves_no_location(
    tmp_path: Path, odd: str, newline: str, name: str, text: str, code: str, marker: str
) -> None:
    """PyYAML counts NEL, LS and PS as line breaks (YAML 1.1), an editor does not: a problem after
    one is still located where the editor shows it."""
    text, marker = text.replace("~", odd).replace("\n", newline), marker.replace("\n", newline)
    path = tmp_path / ("tools.json" if name in {"json", "escaped"} else "tools.yaml")
    path.write_bytes(text.encode())
    checked = check_toolset(path, path.name)
    found = [d for d in checked.diagnostics if d.code == code]
    assert found, checked.diagnostics
    assert (found[0].location.line, found[0].location.col) == _editor_position(text, marker), found[0]
    if name == "duplicate":
        assert f"first defined at line {_editor_position(text, 'OBJ: 1')[0]}, column 1" in found[0].message


@pytest.mark.parametrize("odd", ["\x85", "\u2028", "\u2029"])
def test_a_syntax_error_after_a_line_break_only_yaml_counts_says_so(odd: str) -> None:
    text = f"mcpstub: 1\nserver: {{name: s}}  # pasted{odd} text\n"
    _, diagnostics = parse_document("tools.yaml", Path("tools.yaml"), text.encode())
    assert [(d.code, d.location.line) for d in diagnostics] == [("yaml-syntax", 2)]
    assert diagnostics[0].hint == (
        f"this line holds U+{ord(odd):04X}, which YAML reads as a line break: remove it, or write it as the"
        f" escape \\u{ord(odd):04x} in a double-quoted string"
    )


def test_no_hint_for_such_a_character_on_an_earlier_line_of_a_cr_file() -> None:
    text = 'mcpstub: 1\rserver: {name: "a\u2028b"}\rtools: [x}\r'
    _, diagnostics = parse_document("tools.yaml", Path("tools.yaml"), text.encode())
    assert [(d.code, d.location.line) for d in diagnostics] == [("yaml-syntax", 3)]
    assert diagnostics[0].hint == "separate the entries with ', ' and close the '[' with ']'"


def test_utf8_bom_is_accepted() -> None:
    data, diagnostics, _ = parse(b"\xef\xbb\xbfa: caf\xc3\xa9\n")
    assert diagnostics == []
    assert data == {"a": "café"}


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "# only a comment\n  # another\n", "---\n", " \r\n\t# a\r# b\u2028 # c\n", "\x0c\n# x"],
)
def test_empty_file(text: str) -> None:
    _, diagnostics, _ = parse(text)
    assert [d[0] for d in diagnostics] == ["empty-file"]


@pytest.mark.parametrize("text", ["# a comment first\na: 1\n", "\n  # indented\n\na: 1\n", "#\n{}\n"])
def test_comments_before_the_data_do_not_make_a_file_empty(text: str) -> None:
    _, diagnostics, _ = parse(text)
    assert "empty-file" not in [d[0] for d in diagnostics]


def test_syntax_error_has_a_position() -> None:
    _, diagnostics, _ = parse("a: [1, 2\nb: 3\n")
    assert len(diagnostics) == 1
    code, line, _col = diagnostics[0]
    assert code == "yaml-syntax"
    assert line >= 2


def test_multiple_documents_are_refused() -> None:
    _, diagnostics, _ = parse("a: 1\n---\nb: 2\n")
    assert [d[0] for d in diagnostics] == ["yaml-syntax"]


def test_alias_bomb_fails_fast() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefghi", "bcdefghij", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    start = time.perf_counter()
    _, diagnostics, _ = parse("\n".join(lines) + "\n")
    elapsed = time.perf_counter() - start
    assert [d[0] for d in diagnostics] == ["yaml-alias-bomb"]
    assert elapsed < 2.0


def test_modest_aliases_are_expanded() -> None:
    data, diagnostics, _doc = parse("a: &x {type: string}\nb: *x\nc: [*x, *x]\n")
    assert diagnostics == []
    assert data == {"a": {"type": "string"}, "b": {"type": "string"}, "c": [{"type": "string"}] * 2}
    # an expanded alias is a copy, not a shared object
    assert data["a"] is not data["b"]  # type: ignore[index]


def test_recursive_alias() -> None:
    _, diagnostics, _ = parse("a: &a [*a]\n")
    assert diagnostics == [("yaml-recursive-alias", 1, 4)]


def test_deep_nesting_fails_fast_without_crashing() -> None:
    start = time.perf_counter()
    _, diagnostics, _ = parse("[" * 100_000)
    assert [d[0] for d in diagnostics] == ["yaml-too-deep"]
    assert time.perf_counter() - start < 5.0


def test_nesting_within_bounds_is_fine() -> None:
    depth = MAX_DEPTH - 2
    data, diagnostics, _ = parse("a: " + "[" * depth + "]" * depth + "\n")
    assert diagnostics == []
    assert isinstance(data, dict)


def test_merge_keys_are_refused() -> None:
    _, diagnostics, _ = parse("base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n")
    assert diagnostics == [("yaml-merge-key", 3, 3)]


def test_complex_keys_and_custom_tags_are_refused() -> None:
    _, diagnostics, _ = parse("? [a, b]\n: 1\nc: !python/object x\n")
    assert sorted(d[0] for d in diagnostics) == ["yaml-key", "yaml-tag"]


def test_top_level_scalar_loads() -> None:
    data, diagnostics, _ = parse("just a string\n")
    assert diagnostics == []
    assert data == "just a string"


def test_unreadable_file(tmp_path: Path) -> None:
    doc, diagnostics = load_document(tmp_path / "missing.yaml", "missing.yaml")
    assert [d.code for d in diagnostics] == ["file-unreadable"]
    assert diagnostics[0].location == Location("missing.yaml", 1, 1)
    assert doc.data is None


def test_load_document_reads_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("a: 1\n", "utf-8")
    doc, diagnostics = load_document(path)
    assert diagnostics == []
    assert doc.data == {"a": 1}
    assert doc.file == str(path)


def test_integer_beyond_the_digit_limit_is_a_diagnostic() -> None:
    data, diagnostics, _ = parse("a: " + "9" * 5000 + "\nb: " + "9" * 4000 + "\n")
    assert diagnostics == [("number-too-large", 1, 4)]
    assert data == {"a": None, "b": int("9" * 4000)}


# --- JSON surrogate pairs ------------------------------------------------------------------------

PAIR = "\\ud83d\\ude80"  # 🚀 as json.dumps writes it (ensure_ascii)


def _at(text: str, needle: str, nth: int = 1) -> tuple[int, int]:
    """Line and column (1-based, as YAML counts: CRLF is one break) of the nth `needle`."""
    index = -1
    for _ in range(nth):
        index = text.index(needle, index + 1)
    before = text[:index].replace("\r\n", "\n")
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_json_surrogate_pairs_read_as_json_reads_them_and_locations_stay_right(eol: str) -> None:
    text = (
        f'{{"x": "{PAIR}{PAIR}", "d": "{PAIR}", "d": 1,{eol}'
        f' "y": ["{PAIR}", "\\\\ud83d\\\\ude80", "{PAIR}", 5], "z": "\\ud83d"}}'
    )
    lone = text.replace(', "d": 1', "")
    for name in ("t.json", "t.yaml"):  # JSON by content too, not only by name
        # Each located where it is written, past every escape before it on its line.
        _, diagnostics = parse_document(name, Path(name), text.replace(', "z": "\\ud83d"', "").encode())
        assert [(d.code, d.location.line, d.location.col) for d in diagnostics] == [
            ("duplicate-key", *_at(text, '"d"', 2))
        ], name
        assert "first defined at line {}, column {})".format(*_at(text, '"d"')) in diagnostics[0].message
        # A lone surrogate stays an error, located at its backslash.
        _, diagnostics = parse_document(name, Path(name), lone.encode())
        assert [(d.code, d.location.line, d.location.col) for d in diagnostics] == [
            ("surrogate-escape", *_at(lone, '\\ud83d"}'))
        ], name
    fine = text.replace(', "z": "\\ud83d"', "").replace(', "d": 1', "")
    for fast in (True, False):
        doc, diagnostics = parse_document("t.json", Path("t.json"), fine.encode(), fast=fast)
        assert diagnostics == []
        assert doc.data == json.loads(fine) and doc.data["y"][1] == "\\ud83d\\ude80"
        assert (doc.loc(("y", 3)).line, doc.loc(("y", 3)).col) == _at(fine, "5]")
        assert (doc.key_loc(("d",)).line, doc.key_loc(("d",)).col) == _at(fine, '"d"')


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
@pytest.mark.parametrize(
    "lone",
    ["\\ud83d", "\\uDBFF", "\\ude00", "\\ud83d\\u0041", "\\ud83dx\\ude00", "\\ude80\\ud83d"],
)
def test_an_unpaired_surrogate_escape_is_located_at_its_backslash(eol: str, lone: str) -> None:
    """In JSON (by name or by content), past pairs rewritten on the same line, and in YAML, where
    even a pair is no escape: at the backslash, called what it is, never "invalid YAML"."""
    first = lone[:6]  # the unpaired one
    text = f'{{"a": "{PAIR} {PAIR}",{eol} "b": ["{PAIR}x{lone}", 1]}}'
    for name in ("t.json", "t.yaml"):
        _, diagnostics = parse_document(name, Path(name), text.encode())
        [d] = diagnostics
        line, col = _at(text, "x" + lone)
        assert (d.code, d.location.line, d.location.col) == ("surrogate-escape", line, col + 1), name
        assert f"unpaired surrogate escape '{first}' in JSON" in d.message and "YAML" not in d.message
        assert d.hint is not None and "character itself" in d.hint
    yaml_text = f"a: 1{eol}b: [x, 'y', \"z {lone}\"]{eol}"
    [d] = parse_document("t.yaml", Path("t.yaml"), yaml_text.encode())[1]
    assert (d.code, d.location.line, d.location.col) == ("surrogate-escape", *_at(yaml_text, lone))
    assert "in a YAML string" in d.message
    [d] = parse_document("t.yaml", Path("t.yaml"), f'a: "{PAIR}"{eol}'.encode())[1]
    assert (d.code, d.location.col) == ("surrogate-escape", 5)
    assert "JSON's" in d.message and d.hint is not None and "\\U0001F680" in d.hint


def test_a_yaml_scalar_holding_a_pair_as_text_is_not_rewritten(tmp_path: Path) -> None:
    # Single-quoted and plain YAML scalars take a backslash as text: only JSON gets the rewrite.
    text = f"{{a: '{PAIR}', b: {PAIR}}}"
    doc, diagnostics = parse_document("t.yaml", Path("t.yaml"), text.encode())
    assert diagnostics == [] and doc.data == {"a": PAIR, "b": PAIR}


def test_a_json_toolset_with_surrogate_pairs_validates(tmp_path: Path) -> None:
    toolset = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "tools": [{"name": "go", "description": "Go 🚀", "inputSchema": {"type": "object"}}],
    }
    path = tmp_path / "t.json"
    path.write_text(json.dumps(toolset), "utf-8")
    assert PAIR in path.read_text("utf-8")
    checked = check_toolset(path)
    assert checked.toolset is not None, checked.diagnostics
    assert checked.toolset.tools[0].advertised["description"] == "Go 🚀"
    bad = json.dumps({**toolset, "tools": [{"name": "go 🚀", "inputSchema": {"type": "object"}}]})
    path.write_text(bad, "utf-8")
    [problem] = [d for d in check_toolset(path).diagnostics if d.is_error]
    assert (problem.location.line, problem.location.col) == _at(bad, '"go ')
