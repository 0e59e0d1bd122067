"""ToolError and the bases of the typed results a generated package declares per tool.

A result is built only through its factories, so an invalid one cannot exist. A tool with an
output schema has `XResult.ok(output, *extra_blocks)` and `XResult.error(message)`; a tool without
one answers with content blocks: `.text()`, `.image()`, `.audio()`, `.resource_link()`,
`.resource()`, `.blocks()` (results combine with `+`) and `.error()`.
"""

from __future__ import annotations

import base64
import importlib
from typing import Any, ClassVar, Generic, Self, TypeVar

from mcp import types

from ._text import clean_json, plain_json, pointer, unreadable

__all__ = ["ContentResult", "Result", "StructuredResult", "ToolError"]

OutputT = TypeVar("OutputT")


class ToolError(Exception):
    """Raise from a handler: the client gets an `isError` result with this message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _dump_block(block: types.ContentBlock) -> dict[str, Any]:
    if not isinstance(
        block,
        types.TextContent
        | types.ImageContent
        | types.AudioContent
        | types.ResourceLink
        | types.EmbeddedResource,
    ):
        raise TypeError(f"not an MCP content block: {type(block).__name__}")
    # (JSON's dump writes a NaN in `_meta` as null, and a reader ends the connection at an integer
    # of more than 4,300 digits: said here, where the handler built the block)
    dumped: dict[str, Any] = plain_json(block, exclude_none=True)
    if (found := unreadable(dumped)) is not None:
        raise ValueError(f"the {block.type} block cannot be sent: at {pointer(found[0])}, {found[1]}")
    return dumped


class Result:
    """Base of every result: wire-ready content blocks and the error flag."""

    __slots__ = ("_content", "_is_error")
    _content: tuple[dict[str, Any], ...]
    _is_error: bool

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(f"{type(self).__name__} is built only through its factory methods")

    @classmethod
    def _build(cls, content: tuple[dict[str, Any], ...], is_error: bool = False) -> Self:
        result = cls.__new__(cls)
        result._content = tuple(clean_json(block) for block in content)
        result._is_error = is_error
        return result

    @classmethod
    def error(cls, message: str) -> Self:
        """A failed call: the client gets `isError: true` with this message."""
        if not isinstance(message, str):
            raise TypeError("message must be a str")
        return cls._build(({"type": "text", "text": message},), is_error=True)

    @property
    def is_error(self) -> bool:
        """True for a result made with `.error()`."""
        return self._is_error

    @property
    def content(self) -> list[dict[str, Any]]:
        """The content blocks as sent on the wire (camelCase keys)."""
        return [dict(block) for block in self._content]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(is_error={self._is_error!r}, content={self.content!r})"


class StructuredResult(Result, Generic[OutputT]):
    """Result of a tool with an output schema."""

    __slots__ = ("_output",)
    _output: OutputT | None
    # The output model's class name in the package's models.py; None for a non-object output
    # (a plain value, checked against the output schema when it is sent).
    _output_name: ClassVar[str | None] = None

    @classmethod
    def ok(cls, output: OutputT, *extra_blocks: types.ContentBlock) -> Self:
        """A successful call: `output` becomes structuredContent (plus its JSON as text)."""
        if cls._output_name is not None:
            # The package's models.py sits beside its results.py.
            package = cls.__module__.rpartition(".")[0]
            model = getattr(importlib.import_module(f"{package}.models"), cls._output_name)
            if not isinstance(output, model):
                raise TypeError(
                    f"{cls.__name__}.ok() takes a {cls._output_name}, not {type(output).__name__}"
                )
        result = cls._build(tuple(_dump_block(block) for block in extra_blocks))
        result._output = output
        return result

    @classmethod
    def error(cls, message: str) -> Self:
        """A failed call: the client gets `isError: true` with this message."""
        result = super().error(message)
        result._output = None
        return result

    @property
    def output(self) -> OutputT | None:
        """The output of a successful result, None for an error (see `is_error`)."""
        return self._output


class ContentResult(Result):
    """Result of a tool without an output schema: a list of content blocks."""

    __slots__ = ()

    @classmethod
    def text(cls, text: str) -> Self:
        """One text block."""
        return cls._build(({"type": "text", "text": _text("text", text)},))

    @classmethod
    def image(cls, data: bytes, mime_type: str) -> Self:
        """One image block; `data` is the raw image, sent base64-encoded."""
        return cls._build(({"type": "image", "data": _b64(data), "mimeType": _text("mime_type", mime_type)},))

    @classmethod
    def audio(cls, data: bytes, mime_type: str) -> Self:
        """One audio block; `data` is the raw audio, sent base64-encoded."""
        return cls._build(({"type": "audio", "data": _b64(data), "mimeType": _text("mime_type", mime_type)},))

    @classmethod
    def resource_link(
        cls,
        uri: str,
        name: str,
        *,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        size: int | None = None,
    ) -> Self:
        """One link to a resource the client may read."""
        block = types.ResourceLink(
            uri=uri,
            name=name,
            title=title,
            description=description,
            mime_type=mime_type,
            size=size,
        )
        return cls._build((_dump_block(block),))

    @classmethod
    def resource(
        cls,
        uri: str,
        *,
        text: str | None = None,
        blob: bytes | None = None,
        mime_type: str | None = None,
    ) -> Self:
        """One embedded resource: give exactly one of `text` or `blob` (raw bytes)."""
        if (text is None) == (blob is None):
            raise TypeError("resource() takes exactly one of text= or blob=")
        contents: dict[str, Any] = {"uri": uri}
        if mime_type is not None:
            contents["mimeType"] = mime_type
        if text is not None:
            contents["text"] = text
        else:
            contents["blob"] = _b64(blob)
        block = types.EmbeddedResource.model_validate({"type": "resource", "resource": contents})
        return cls._build((_dump_block(block),))

    @classmethod
    def blocks(cls, *blocks: types.ContentBlock) -> Self:
        """Any number of MCP content blocks."""
        return cls._build(tuple(_dump_block(block) for block in blocks))

    def __add__(self, other: Self) -> Self:
        if type(other) is not type(self):
            return NotImplemented
        if self._is_error or other._is_error:
            raise TypeError("an error result cannot be combined with other results")
        return self._build(self._content + other._content)


def _text(name: str, value: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str")
    return value


def _b64(data: bytes | None) -> str:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError("data must be bytes")
    return base64.b64encode(data).decode("ascii")
