from __future__ import annotations

import struct
import zlib

from ..models import RadarMapInput
from ..results import RadarMapResult
from ..server import ToolContext
from ._data import CITIES


def _png(width: int, height: int, pixel: object) -> bytes:
    """A small RGB PNG; `pixel(x, y)` gives each pixel's (r, g, b)."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width))  # type: ignore[operator]
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


async def radar_map(args: RadarMapInput, ctx: ToolContext) -> RadarMapResult | str:
    city = args.city
    if city not in CITIES:
        return RadarMapResult.error(f"no radar coverage for {city!r}")
    size = 16 * args.zoom

    def pixel(x: int, y: int) -> tuple[int, int, int]:
        d = (x - size // 2) ** 2 + (y - size // 2) ** 2
        return (0, 200, 0) if d < (size // 4) ** 2 else (20, 20, 60)

    return RadarMapResult.text(f"Radar around {city}, zoom {args.zoom}") + RadarMapResult.image(
        _png(size, size, pixel), "image/png"
    )
