"""The tokenizer of long generated lines: the same tokens as a token-by-token scan, in linear time."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from mcpstub import format as fmt

PIECES = [
    '"a"',
    "'b'",
    '"x\\"y"',
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    "|",
    " ",
    "Literal",
    '"',
    "'",
    "\\",
    "1e5",
    "x=",
]


def scanned(line: str) -> list[str] | None:
    """Token by token: the reference."""
    text, tokens, position = line.strip(), [], 0
    while position < len(text):
        match = fmt._TOKEN.match(text, position)
        if match is None:
            return None
        tokens.append(match[1])
        position = match.end()
    return tokens


@given(st.lists(st.sampled_from(PIECES), max_size=20).map("".join))
def test_tokens_are_those_of_a_scan(line: str) -> None:
    assert fmt._tokens(line) == scanned(line)


def test_a_long_line_that_is_not_tokens_is_refused_at_once() -> None:
    start = time.perf_counter()
    for line in [
        "a" * 20000 + '"',
        "x " * 20000 + "'",
        '"' + "\\\\" * 20000,
        "Literal[" + '"v", ' * 5000 + '"',
    ]:
        assert fmt._tokens(line) is None
    assert time.perf_counter() - start < 1.0


# String literals as written in source: plain text, escapes, either quote escaped, the other bare.
_PIECES = ["a", " ", "é", "\\\\", "\\n", "\\'", '\\"']


@given(st.sampled_from(["'", '"']), st.lists(st.sampled_from([*_PIECES, "q"]), max_size=12))
def test_string_quotes_are_blacks(quote: str, pieces: list[str]) -> None:
    from black.strings import normalize_string_quotes  # noqa: PLC0415

    other = "'" if quote == '"' else '"'
    literal = quote + "".join(other if piece == "q" else piece for piece in pieces) + quote
    match = fmt._STRING.fullmatch(literal)
    assert match is not None, literal
    assert fmt._quotes(match) == normalize_string_quotes(literal), literal
