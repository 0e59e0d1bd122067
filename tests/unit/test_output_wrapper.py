"""The 2025-11-25 form of an output schema accepts `{"result": v}` exactly when the schema accepts v."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs
import pytest

from mcpstub.ir import schema_dialect
from mcpstub.output_wrapper import is_object_root, legacy_output_schema

JSTS = Path(__file__).resolve().parents[1] / "data" / "jsts"
DIALECTS = {
    "draft2020-12": ("https://json-schema.org/draft/2020-12/schema", jsonschema_rs.Draft202012Validator),
    "draft7": ("http://json-schema.org/draft-07/schema#", jsonschema_rs.Draft7Validator),
}


def _suite_cases() -> list[Any]:
    cases = []
    for folder, (uri, validator) in DIALECTS.items():
        for path in sorted((JSTS / folder).glob("*.json")):
            for group in json.loads(path.read_text("utf-8")):
                schema = group["schema"]
                if not isinstance(schema, dict) or "http" in json.dumps(
                    {k: v for k, v in schema.items() if k != "$schema"}
                ):
                    continue  # boolean roots and schemas that need a remote document
                schema = {"$schema": uri, **schema}
                cases.append(
                    pytest.param(
                        validator, schema, group["tests"], id=f"{folder}/{path.stem}/{group['description']}"
                    )
                )
    return cases


@pytest.mark.parametrize(("validator", "schema", "tests"), _suite_cases())
def test_wrapper_agrees_with_the_schema_on_the_test_suite(validator: Any, schema: Any, tests: Any) -> None:
    try:
        plain = validator(schema, validate_formats=False, offline=True)
    except Exception:
        pytest.skip("the schema does not compile offline")
    wrapper = legacy_output_schema(schema, schema_dialect(schema))
    if is_object_root(schema, schema_dialect(schema)):
        assert wrapper is schema
        return
    assert wrapper["type"] == "object" and wrapper["required"] == ["result"]
    assert wrapper.get("$schema") == schema["$schema"]
    wrapped = validator(wrapper, validate_formats=False, offline=True)
    for test in tests:
        expected = plain.is_valid(test["data"])
        assert wrapped.is_valid({"result": test["data"]}) is expected, test["description"]
    assert not wrapped.is_valid({}), "the wrapper must require the result"


def test_object_roots_are_not_wrapped() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "array"}}}
    assert legacy_output_schema(schema, schema_dialect(schema)) is schema


def test_wrapper_hoists_definitions_and_repoints_refs() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "items": {"$ref": "#/$defs/Item"},
        "prefixItems": [{"$ref": "#/items"}],
        "contains": {"$ref": "#"},
        "$defs": {"Item": {"type": "object", "properties": {"more": {"$ref": "#/items"}}}},
        "description": "items",
        "const": {"$ref": "#/items"},
    }
    assert legacy_output_schema(schema, schema_dialect(schema)) == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "result": {
                "type": "array",
                "items": {"$ref": "#/$defs/Item"},
                "prefixItems": [{"$ref": "#/properties/result/items"}],
                "contains": {"$ref": "#/properties/result"},
                "description": "items",
                "const": {"$ref": "#/items"},  # a value, not a reference
            }
        },
        "required": ["result"],
        "$defs": {"Item": {"type": "object", "properties": {"more": {"$ref": "#/properties/result/items"}}}},
    }


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},
        {},
        {"type": ["object", "null"]},
        {"anyOf": [{"type": "object"}, {"type": "integer"}]},
    ],
)
def test_everything_but_a_plain_object_root_is_wrapped(schema: dict[str, Any]) -> None:
    assert legacy_output_schema(schema, schema_dialect(schema))["properties"] == {"result": schema}


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"type": "array", "items": {"$ref": "#/%24defs/P"}, "$defs": {"P": {"minimum": 5}}}, [5], [1]),
        ({"type": "array", "items": {"$ref": "#/%24def%73/P"}, "$defs": {"P": {"minimum": 5}}}, [5], [1]),
        (
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "array",
                "items": {"$ref": "#/%64efinitions/P"},
                "definitions": {"P": {"minimum": 5}},
            },
            [5],
            [1],
        ),
        (
            {"type": "array", "prefixItems": [{"type": "string"}], "items": {"$ref": "#/prefix%49tems/0"}},
            ["a"],
            [1],
        ),
    ],
)
def test_percent_encoded_pointers_are_repointed_as_decoded(schema: Any, good: Any, bad: Any) -> None:
    """A fragment is percent-decoded before it is read as a pointer (RFC 6901 section 6)."""
    wrapper = legacy_output_schema(schema, schema_dialect(schema))
    for make in (jsonschema_rs.validator_for, lambda s: jsonschema.validators.validator_for(s)(s)):
        assert make(schema).is_valid(good) and not make(schema).is_valid(bad)
        assert make(wrapper).is_valid({"result": good}), wrapper
        assert not make(wrapper).is_valid({"result": bad}), wrapper


D7 = "http://json-schema.org/draft-07/schema#"


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        (
            {
                "$schema": D7,
                "$id": "https://example.com/y",
                "$ref": "#/definitions/X",
                "definitions": {"X": {"minimum": 3}},
            },
            4,
            1,
        ),
        (
            {
                "$schema": D7,
                "anyOf": [
                    {"type": "array", "items": {"minimum": 3}},
                    {"$id": "https://example.com/i", "$ref": "#/anyOf/0", "description": "ignored $id"},
                ],
            },
            [4],
            [1],
        ),
        (
            {
                "type": "array",
                "items": {
                    "$id": "https://example.com/i",
                    "$ref": "#/$defs/X",
                    "$defs": {"X": {"minimum": 3}},
                },
            },
            [4],
            [1],
        ),
    ],
)
def test_an_id_beside_a_ref_starts_a_resource_only_where_the_dialect_says_so(
    schema: Any, good: Any, bad: Any
) -> None:
    """In draft-07 every sibling of `$ref`, `$id` included, is ignored; in 2020-12 `$id` counts."""
    wrapper = legacy_output_schema(schema, schema_dialect(schema))
    for make in (jsonschema_rs.validator_for, lambda s: jsonschema.validators.validator_for(s)(s)):
        assert make(schema).is_valid(good) and not make(schema).is_valid(bad)
        assert make(wrapper).is_valid({"result": good}), wrapper
        assert not make(wrapper).is_valid({"result": bad}), wrapper
