"""The check of one schema's keywords: the keyword lint, then the meta-schema of its dialect.

`schema_problems` lints a schema (misspelled and unknown keywords, bounds, formats, defaults to
judge) and checks it against its dialect's meta-schema with jsonschema-rs, which is fast; the
Python meta-schema validator only runs to explain a failure precisely, said where it is.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import jsonschema_rs

from mcpstub.diagnostics import Diagnostic, error
from mcpstub.document import Document, JsonPath
from mcpstub.errortext import schema_said, yaml_boolean_hint
from mcpstub.ir import Dialect, schema_dialect
from mcpstub.keywords import Lint, invalid_value_hint, lint_schema, unsupported_dialect
from mcpstub.policy import Policy


@lru_cache(maxsize=4096)
def _is_regex(pattern: str) -> bool:
    """True when the schema validator accepts `pattern` (ECMA-262 flavour, not Python's `re`)."""
    try:
        jsonschema_rs.validator_for({"pattern": pattern})
    except ValueError:
        return False
    return True


@lru_cache(maxsize=8)
def _meta_validator(dialect: Dialect) -> Any:
    """The Python meta-schema validator, which explains failures precisely."""
    import jsonschema  # noqa: PLC0415 - slow to import, and only needed for messages

    formats = jsonschema.FormatChecker(())
    formats.checks("regex")(lambda value: not isinstance(value, str) or _is_regex(value))
    cls = jsonschema.Draft7Validator if dialect == "draft-07" else jsonschema.Draft202012Validator
    return cls(cls.META_SCHEMA, format_checker=formats)


def schema_problems(
    doc: Document,
    path: JsonPath,
    schema: Any,
    dialect: Dialect,
    policy: Policy,
    defaults: list[JsonPath] | None = None,
    by_ref: bool = False,
) -> Iterator[Diagnostic]:
    """The keyword lint, then the meta-schema check (minus what the lint already said better);
    `defaults`, if given, gets the paths of the schemas holding a `default`; `by_ref`: a schema of
    another file, read in the dialect of the one reaching it."""
    if isinstance(schema, dict) and "$schema" in schema and schema_dialect(schema) is None:
        yield unsupported_dialect(doc, path, schema)  # (nor is the meta-schema it names fetched)
        return
    lint = lint_schema(doc, path, schema, dialect == "draft-07", policy.vendor_keywords, by_ref)
    if defaults is not None:
        defaults.extend(lint.defaults)
    yield from policy.judged(lint.diagnostics)
    # The Rust meta-schema check is fast; the Python one only runs to explain a failure precisely.
    if jsonschema_rs.meta.is_valid(schema) and all(_is_regex(p) for p in lint.patterns):
        return
    from jsonschema.exceptions import best_match  # noqa: PLC0415 - as slow, as rarely needed

    for err in map(best_match, ([e] for e in _meta_validator(dialect).iter_errors(schema))):
        # (`best_match`: within anyOf/oneOf, the branch of the value's own kind, as deep as it goes:
        # a draft-07 `items` list's bad schema is said where it is, not as the whole list)
        where = (*path, *err.absolute_path)
        if _said(lint, where) or (isinstance(err.instance, float) and not math.isfinite(err.instance)):
            continue  # (a number JSON cannot hold is said where it is written: not-json)
        said = schema_said(err)
        if err.instance is None and err.validator in ("type", "anyOf"):  # `a:` with nothing after it
            wanted = err.validator_value if err.validator == "type" else None
            article = "an" if str(wanted)[:1] in ("a", "i", "o") else "a"
            said = (
                f"it has no value (null), where {article} {wanted} belongs"
                if isinstance(wanted, str)
                else "it has no value (null), where a schema (a mapping, or true or false) belongs"
                if isinstance(wanted, list)
                else "it has no value (null)"
            )
        hint = invalid_value_hint(doc, path, schema, tuple(err.absolute_path), err.instance)
        wanted = err.validator_value if err.validator == "type" else ()
        if hint is None and "boolean" in ([wanted] if isinstance(wanted, str) else wanted):
            hint = yaml_boolean_hint(err.instance) if doc.written_plain(where) else None  # (`no`)
        yield error(
            "invalid-schema",
            f"{doc.describe(where)} is not a valid {dialect} schema: {said}",
            doc.loc(where),
            hint,
        )


def _said(lint: Lint, where: JsonPath) -> bool:
    """True when the lint reported the problem at `where` (a `type` naming no JSON type)."""
    return where in lint.bad_types or where[:-1] in lint.bad_types


