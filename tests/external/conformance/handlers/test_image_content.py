from __future__ import annotations

import base64

from ..models import TestImageContentInput
from ..results import TestImageContentResult
from ..server import ToolContext

# A 1x1 red pixel.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


async def test_image_content(args: TestImageContentInput, ctx: ToolContext) -> TestImageContentResult | str:
    return TestImageContentResult.image(PNG, "image/png")
