"""The intermediate representation: a checked toolset as frozen dataclasses, equal when their
values are (a `Tool` holds its schemas as dicts, so it is not hashable).

`build_ir` (in validate.py) produces a `Toolset` from a loaded, checked document; render stages
read only these fields. Every Python name that generated code uses is computed here, never in a
template: `PythonIdentifier` and `ClassName` are valid by construction.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

JSON = Any
Dialect = Literal["2020-12", "draft-07"]
# The `$schema` each dialect is declared by.
DIALECT_URIS: dict[Dialect, str] = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
}
_DRAFT7 = re.compile(r"^https?://json-schema\.org/draft-07/schema#?$")
_DRAFT2020 = re.compile(r"^https?://json-schema\.org/draft/2020-12/schema#?$")


def definitions_key(dialect: str) -> str:
    """Where a schema of `dialect` keeps its own definitions (and bundling puts the copies)."""
    return "definitions" if dialect == "draft-07" else "$defs"


def schema_dialect(schema: Any) -> Dialect | None:
    """The dialect a schema's `$schema` declares: 2020-12 when undeclared, None when unsupported."""
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    if declared is None or (isinstance(declared, str) and _DRAFT2020.fullmatch(declared)):
        return "2020-12"
    if isinstance(declared, str) and _DRAFT7.fullmatch(declared):
        return "draft-07"
    return None


# Names a handler module or function must not take: they would shadow what the package imports
# or exports (a tool named `create_server` has the handler `create_server_`).
_RESERVED_IDENTIFIERS = frozenset(
    {"handlers", "models", "results", "tools", "server", "testing", "create_server", "create_app"}
)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+|[0-9]+")


class PythonIdentifier(str):
    """A string that is a valid, non-keyword Python identifier."""

    def __new__(cls, value: str) -> PythonIdentifier:
        if not value.isidentifier() or keyword.iskeyword(value):
            raise ValueError(f"not a Python identifier: {value!r}")
        return super().__new__(cls, value)


class ClassName(PythonIdentifier):
    """A PascalCase class name."""


def split_words(name: str) -> list[str]:
    """Split a tool name into words: separators, camelCase humps and digit runs."""
    return _WORD.findall(re.sub(r"[^A-Za-z0-9]+", " ", name))


@lru_cache(maxsize=65536)
def to_identifier(name: str) -> PythonIdentifier:
    """`get-User.v2` -> `get_user_v2`; keywords and reserved names get a `_` suffix."""
    words = [w.lower() for w in split_words(name)]
    text = "_".join(words) or "tool"
    if text[0].isdigit():
        text = "tool_" + text
    if keyword.iskeyword(text) or keyword.issoftkeyword(text) or text in _RESERVED_IDENTIFIERS:
        text += "_"
    return PythonIdentifier(text)


@lru_cache(maxsize=65536)
def to_class_prefix(name: str) -> ClassName:
    """`get_forecast` -> `GetForecast`."""
    words = split_words(name)
    text = "".join(w[:1].upper() + w[1:] for w in words) or "Tool"
    if text[0].isdigit():
        text = "Tool" + text
    # `None`, `True`, `False` are no class names; `ContentResult` and `StructuredResult` are the
    # runtime's result classes, which results.py derives every tool's from.
    if keyword.iskeyword(text) or text in ("Content", "Structured"):
        text += "Tool"
    return ClassName(text)


def elicitation_class(tool_name: str, key: str) -> ClassName:
    """The model class of a tool's requested schema: `deploy`, `confirm` -> `DeployConfirm`."""
    return ClassName(to_class_prefix(tool_name) + to_class_prefix(key))


# The classes every tool takes, after its prefix (`GetForecastInput`, ...).
CLASS_SUFFIXES = ("Input", "Output", "Result")


def entry_classes(raw: dict[str, Any]) -> list[ClassName]:
    """The class names a tool entry as written (with a string `name`) takes: its input, output and
    result classes, then one per requested schema (`elicitations`)."""
    prefix = to_class_prefix(raw["name"])
    asks = raw.get("elicitations")
    keys = [key for key in asks if isinstance(key, str)] if isinstance(asks, dict) else []
    return [ClassName(prefix + suffix) for suffix in CLASS_SUFFIXES] + [
        elicitation_class(raw["name"], key) for key in keys
    ]


# serverInfo fields a toolset's `server` may set besides name and version, in the order sent.
SERVER_INFO_KEYS = ("title", "description", "websiteUrl", "icons")


@dataclass(frozen=True)
class Example:
    """One `examples` entry: an input and, optionally, the output it produces."""

    input: JSON
    output: JSON = None
    has_output: bool = False


@dataclass(frozen=True)
class Tool:
    """One tool, with its advertised form and every Python name generated code uses."""

    name: str
    identifier: PythonIdentifier  # handler module and function name
    class_prefix: ClassName
    input_class: ClassName
    output_class: ClassName | None
    result_class: ClassName
    dialect: Dialect
    # The advertised schemas: self-contained (shared and file refs bundled into `$defs`).
    input_schema: dict[str, JSON]
    output_schema: dict[str, JSON] | None
    # The advertised MCP Tool object (camelCase keys), exactly the keys the author wrote.
    advertised: dict[str, JSON]
    examples: tuple[Example, ...] = ()
    # Names of `$defs` entries that are shared definitions: bundled from the document-level `$defs`,
    # or from another file's definitions under the name `Toolset.shared_defs` gives them.
    shared_def_names: frozenset[str] = field(default_factory=frozenset)
    # The output schema's own dialect (`dialect` is the input schema's); None without one.
    output_dialect: Dialect | None = None
    # Seconds a call may run (the toolset's generator-only `timeout`); None: no limit of its own.
    timeout: float | None = None
    # What the tool may ask its user (generator-only `elicitations`): key -> requested schema.
    elicitations: dict[str, JSON] = field(default_factory=dict)

    @property
    def elicitation_classes(self) -> dict[str, ClassName]:
        """The model class of each requested schema, by key: `deploy`, `confirm` -> `DeployConfirm`."""
        return {key: elicitation_class(self.name, key) for key in self.elicitations}

    @property
    def title(self) -> str | None:
        """The tool's title, if any."""
        value = self.advertised.get("title")
        return value if isinstance(value, str) else None

    @property
    def description(self) -> str | None:
        """The tool's description, if any."""
        value = self.advertised.get("description")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Toolset:
    """A checked toolset, ready to render."""

    server_name: str
    server_version: str | None
    instructions: str | None
    # Document-level `$defs`, then the definitions of other files they and the tools refer to,
    # each referring to the others as `#/$defs/NAME`: each becomes one shared model class.
    shared_defs: dict[str, JSON]
    tools: tuple[Tool, ...]
    # Hash of the toolset and every file it references, for the regeneration fast path.
    source_hash: str = ""
    # The toolset's file name (no directories), named in generated headers.
    source_name: str = "tools.yaml"
    # Files the toolset references, relative to its folder (posix), also covered by source_hash.
    sources: tuple[str, ...] = ()
    # When this is part of a larger toolset: the root class names of the rest (tool classes, shared
    # definitions) that extend a root class name of this part; nested class names avoid them.
    reserved_roots: frozenset[str] = frozenset()
    # serverInfo fields beyond name and version (SERVER_INFO_KEYS), as written.
    server_info: dict[str, JSON] = field(default_factory=dict)
    # When this is part of a larger toolset whose shared definitions are generated elsewhere: a
    # shared definition its tools only point at may be generated as a stand-in (see models).
    stand_ins: bool = False


def make_tool_names(name: str) -> tuple[PythonIdentifier, ClassName]:
    """The handler identifier and class prefix for a tool name."""
    return to_identifier(name), to_class_prefix(name)
