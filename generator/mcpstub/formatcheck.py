"""The toolset's format check: its shape against `schemas/toolset.schema.json`, each problem said
at its place with the hint a newcomer needs (a close key, a schema keyword outside its schema, a
text YAML read as another type or as a comment, a timeout written as a duration).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

import jsonschema_rs

from mcpstub.diagnostics import Diagnostic, error
from mcpstub.document import Document, JsonPath
from mcpstub.errortext import echo_value, schema_said, written, yaml_boolean_hint
from mcpstub.keywords import KNOWN_2020_12, closest, comma_hint, comment_hint
from mcpstub.resources import format_schema

if TYPE_CHECKING:
    from jsonschema import ValidationError

FORMAT_VERSION = 1
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}


def type_name(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


def _misspelled(doc: Document, path: JsonPath, err: ValidationError, key: str) -> bool:
    """Whether the object missing `key` holds an unknown key whose hint names it (another case, a
    typo): the hint `_unknown_key_hint` gives, so the key is said once, there."""
    allowed = list(err.schema.get("properties", {})) if isinstance(err.schema, dict) else []
    if not isinstance(err.instance, dict) or key not in allowed:
        return False
    meant = f"did you mean {key!r}?"
    return any(
        k not in allowed and _unknown_key_hint(doc, path, err.instance, str(k), allowed) == meant
        for k in err.instance
    )


def _did_you_mean(key: str, allowed: list[str]) -> str:
    close = closest(key, allowed)
    return f"did you mean {close!r}?" if close is not None else f"allowed keys: {', '.join(allowed)}"


_ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _unknown_key_hint(
    doc: Document, path: JsonPath, node: dict[str, Any], key: str, allowed: list[str]
) -> str | None:
    """A flow-map comma that cut a text, a close key, or a schema keyword outside its schema."""
    comma = comma_hint(doc, (*path, key), node)
    if comma is not None:
        return comma
    hint = _did_you_mean(key, allowed)
    meant = next((h for h in _ANNOTATION_HINTS if h.lower() == key.lower()), None)
    if len(path) == 2 and path[0] == "tools" and meant is not None:  # (written beside `name`)
        said = f"{meant!r} is a tool annotation: write it"
        if "annotations" in node:
            return f"{said} in the tool's `annotations`"
        value = json.dumps(node[key]) if isinstance(node[key], bool) else "true or false"  # (`no`: text)
        return f"{said} under annotations: `annotations: {{{meant}: {value}}}`"
    if _in_example(path) and (meant := _EXAMPLE_WORDS.get(key.lower())) and hint.startswith("allowed"):
        return f"did you mean {meant!r}? (an example's arguments go under `input`, its result under `output`)"
    if hint.startswith("allowed") and "input" not in node and key in _input_properties(doc, path):
        written = f'{{"input": {{"{key}": ...}}}}' if doc.is_json else f"- input: {{{key}: ...}}"
        return f"an example's arguments go under `input` (what the tool returns under `output`): `{written}`"
    if not hint.startswith("allowed") or len(path) != 2 or path[0] != "tools" or key not in KNOWN_2020_12:
        return hint
    return f"{key!r} is a schema keyword: indent it under `inputSchema` (or `outputSchema`)"


# Other words for what an example holds: MCP's own (`arguments`, `result`) and the usual ones.
_EXAMPLE_WORDS = {
    **dict.fromkeys(("arguments", "args", "params", "parameters", "request"), "input"),
    **dict.fromkeys(("result", "expected", "returns", "response", "structuredcontent"), "output"),
}


def _in_example(path: JsonPath) -> bool:
    """Whether `path` is that of one of a tool's examples (`tools[0].examples[1]`)."""
    return len(path) == 4 and path[0] == "tools" and path[2] == "examples"


def _input_properties(doc: Document, path: JsonPath) -> dict[str, Any]:
    """The properties of the input schema of the tool whose example is at `path` (none elsewhere)."""
    if not (_in_example(path) and isinstance(doc.data, dict)):
        return {}
    tool = doc.data["tools"][path[1]]
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


@cache
def _format_validator() -> Any:
    return jsonschema_rs.validator_for(format_schema())


def format_errors(doc: Document) -> list[Diagnostic]:
    if _format_validator().is_valid(doc.data):  # the Python validator only explains a failure
        return []
    import jsonschema  # noqa: PLC0415 - slow to import, and only needed for messages

    found: list[Diagnostic] = []
    for err in jsonschema.Draft202012Validator(format_schema()).iter_errors(doc.data):
        found.extend(_format_error(doc, err))
    return found


_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)\s*", re.I)
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}


def _seconds(text: str) -> float | None:
    """The seconds a duration written as text means (`5m`, `30 s`, `1.5h`), or None."""
    found = _DURATION.fullmatch(text)
    if found is None:
        return None
    unit = found[2].lower()
    return float(found[1]) * _UNIT_SECONDS["ms" if unit == "ms" else unit[0]]


def _format_error(doc: Document, err: ValidationError) -> Iterator[Diagnostic]:
    path: JsonPath = tuple(err.absolute_path)
    where = doc.describe(path)
    kind = err.validator
    if kind == "additionalProperties" and isinstance(err.instance, dict):
        allowed = list(err.schema.get("properties", {}))
        for key in err.instance:
            if key not in allowed:
                yield error(
                    "unknown-key",
                    f"unknown key {key!r} in {where}",
                    doc.key_loc((*path, key)),
                    _unknown_key_hint(doc, path, err.instance, key, allowed),
                )
    elif kind == "required":
        missing = re.findall(r"'([^']*)' is a required property", err.message)
        key = missing[0] if missing else err.message
        if path == () and key == "mcpstub":
            yield error(
                "missing-version", "missing format version", doc.loc(path), "add `mcpstub: 1` at the top"
            )
        elif not _misspelled(doc, path, err, key):  # (else the misspelled key says it: "did you mean")
            yield error("missing-key", f"{where} is missing required key {key!r}", doc.loc(path))
    elif kind == "const" and path == ("mcpstub",):
        yield error(
            "unsupported-version",
            f"unsupported format version {echo_value(err.instance)}",
            doc.loc(path),
            f"this mcpstub reads format version {FORMAT_VERSION}",
        )
    elif kind == "type":
        expected = err.validator_value
        expected_text = " or ".join(expected) if isinstance(expected, list) else expected
        unquoted = expected == "string" and isinstance(err.instance, bool | int | float)
        boolean = "boolean" in expected and doc.written_plain(path)
        hint = yaml_boolean_hint(err.instance) if boolean else None
        if unquoted:
            hint = "YAML reads this unquoted text as another type: put it in quotes"
        elif expected == "array" and isinstance(err.instance, dict) and path and path[-1] == "tools":
            hint = "tools is a list: start each tool with '- ' (  - name: ..., its keys indented under it)"
            if doc.is_json:
                hint = 'tools is a list: "tools": [{"name": ...}, ...]'
        elif err.instance is None and (commented := comment_hint(doc, path)) is not None:
            hint = commented  # (`description: #1 tool`)
        elif path and path[-1] == "timeout" and isinstance(err.instance, str):
            seconds = _seconds(err.instance)
            hint = "timeout is in seconds, a number" + (f": timeout: {seconds:g}" if seconds else "")
        said = f"{where} must be {expected_text}, not {type_name(err.instance)}"
        yield error("wrong-type", said, doc.loc(path), hint)
    elif kind == "enum":
        choices = ", ".join(map(written, err.validator_value))
        message = f"{where} must be one of {choices}, not {echo_value(err.instance)}"
        yield error("wrong-value", message, doc.loc(path))
    elif "propertyNames" in err.schema_path and isinstance(err.instance, str):
        # A refused key: located at the key itself, not at the mapping holding it.
        hint = (
            "a shared definition name starts with an ASCII letter or `_`, then ASCII letters, "
            "digits, `_` or `-`"
            if path == ("$defs",)
            else "an elicitation key is 1-64 ASCII letters, digits, `_` or `-`, starting with a letter"
            if path[-1:] == ("elicitations",)
            else None
        )
        message = f"{where}: {echo_value(err.instance)} is not a valid name"
        yield error("invalid-name", message, doc.key_loc((*path, err.instance)), hint)
    elif kind == "pattern" and path and path[-1] != "name":
        message = f"{where}: {echo_value(err.instance)} is not a valid name"
        yield error("invalid-name", message, doc.key_loc(path))
    elif kind == "minLength":
        yield error("empty-value", f"{where} must not be empty", doc.loc(path))
    else:
        yield error("invalid-toolset", f"{where}: {schema_said(err)}", doc.loc(path))
