from __future__ import annotations

from ..models import TestEmbeddedResourceInput
from ..results import TestEmbeddedResourceResult
from ..server import ToolContext


async def test_embedded_resource(
    args: TestEmbeddedResourceInput, ctx: ToolContext
) -> TestEmbeddedResourceResult | str:
    return TestEmbeddedResourceResult.resource(
        "test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain"
    )
