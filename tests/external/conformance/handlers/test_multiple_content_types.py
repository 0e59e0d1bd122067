from __future__ import annotations

from ..models import TestMultipleContentTypesInput
from ..results import TestMultipleContentTypesResult
from ..server import ToolContext
from .test_image_content import PNG


async def test_multiple_content_types(
    args: TestMultipleContentTypesInput, ctx: ToolContext
) -> TestMultipleContentTypesResult | str:
    result = TestMultipleContentTypesResult
    return (
        result.text("Multiple content types test:")
        + result.image(PNG, "image/png")
        + result.resource(
            "test://mixed-content-resource", text='{"test":"data","value":123}', mime_type="application/json"
        )
    )
