"""What a generated package declares: `ToolSpec` per tool and `ServerInfo` for the server."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mcp import types
from pydantic import BaseModel

from .interactive import Elicitation
from .results import ContentResult, StructuredResult

__all__ = ["PROTOCOLS", "ServerInfo", "ToolSpec"]

# The protocol generations a tool is advertised in, newest first.
PROTOCOLS = ("2026-07-28", "2025-11-25")


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class ToolSpec:
    """One advertised tool: its models, result type, schemas and MCP `Tool` wire objects."""

    name: str
    package: str  # the generated package: its models and handlers modules are found there
    identifier: str  # the handler's module and function name
    input_class: str  # the input model's class name in models.py
    output_class: str | None  # a model class, or a type alias for a non-object output
    result_type: type[StructuredResult[Any] | ContentResult]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None  # as written, as 2026-07-28 connections see it
    legacy_output_schema: Mapping[str, Any] | None  # as 2025-11-25 connections see it
    dialect: Literal["2020-12", "draft-07"]  # the input schema's
    output_dialect: Literal["2020-12", "draft-07"] | None
    wire: Mapping[str, Any]  # the Tool object of tools/list on 2026-07-28, as written
    digests: Mapping[str, str]  # SHA-256 of the wire object (RFC 8785) by protocol
    timeout: float | None = None  # seconds a call may run (the toolset's `timeout`)
    # What the tool may ask its user: key -> requested schema, and key -> its model's class name.
    elicitations: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    elicitation_classes: Mapping[str, str] = field(default_factory=dict)

    @property
    def wraps_output(self) -> bool:
        """True when the output is not a JSON object: 2025-11-25 gets `{"result": value}`, and is
        shown another schema (a package declares one only then: it knows the dialect's rules, a
        draft-07 `type: object` beside `$ref` saying nothing, say)."""
        legacy = self.legacy_output_schema
        return legacy is not self.output_schema and legacy != self.output_schema

    @property
    def legacy_wire(self) -> Mapping[str, Any]:
        """The Tool object of tools/list on 2025-11-25 connections."""
        if not self.wraps_output:
            return self.wire
        return {**self.wire, "outputSchema": self.legacy_output_schema}

    @property
    def tool(self) -> types.Tool:
        """The SDK's `Tool` model of `wire` (it keeps no annotation extension keys)."""
        return types.Tool.model_validate(self.wire)

    @property
    def input_model(self) -> type[BaseModel]:
        """The input model class (models.py is imported on first use, not at start-up)."""
        model: type[BaseModel] = getattr(self._models(), self.input_class)
        return model

    @property
    def output_model(self) -> type[BaseModel] | None:
        """The output model class; None without an output schema or for a non-object output."""
        if self.output_class is None or self.wraps_output:
            return None
        model: type[BaseModel] = getattr(self._models(), self.output_class)
        return model

    @property
    def output_type(self) -> Any:
        """What models.py declares for the output: a model class or a type alias; None without."""
        if self.output_class is None:
            return None
        return getattr(self._models(), self.output_class)

    @property
    def forms(self) -> dict[type[BaseModel], Elicitation]:
        """Each form the tool may ask, by its model class (models.py is imported here)."""
        models = self._models()
        return {
            getattr(models, self.elicitation_classes[key]): Elicitation.of(key, schema)
            for key, schema in self.elicitations.items()
        }

    def _models(self) -> Any:
        return importlib.import_module(f"{self.package}.models")


@dataclass(frozen=True, slots=True, eq=False)
class ServerInfo:
    """The toolset's `server` entry: what `initialize` reports (serverInfo, instructions)."""

    name: str
    version: str = ""
    instructions: str | None = None
    title: str | None = None
    description: str | None = None
    website_url: str | None = None
    icons: list[dict[str, Any]] | None = None
