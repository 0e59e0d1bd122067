"""Texts kept in memory by the value they are made from, within one process and bounded in size.

A key holds everything a text is made from (the definition as marshal writes it, the layout, the
columns used), so a text found is the one that would be made again: nothing to invalidate.
"""

from __future__ import annotations


class TextCache:
    """Texts by key in this process, all forgotten at once past a total size (keys counted), so
    that what a long `--watch` session keeps stays bounded whatever toolsets it sees."""

    def __init__(self, limit: int = 64_000_000) -> None:
        self._texts: dict[tuple[object, ...], str] = {}
        self._size = 0
        self._limit = limit

    def get(self, key: tuple[object, ...]) -> str | None:
        """The text kept under `key`, or None."""
        return self._texts.get(key)

    def put(self, key: tuple[object, ...], text: str) -> str:
        """Keep `text` under `key`; returns it."""
        size = len(text) + sum(len(part) for part in key if isinstance(part, bytes | str))
        if self._size + size > self._limit:
            self._texts.clear()
            self._size = 0
        self._texts[key] = text
        self._size += size
        return text
