from __future__ import annotations

import io
import wave

from ..models import TestAudioContentInput
from ..results import TestAudioContentResult
from ..server import ToolContext


def _silence() -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as sound:
        sound.setnchannels(1)
        sound.setsampwidth(2)
        sound.setframerate(8000)
        sound.writeframes(b"\0\0" * 80)
    return buffer.getvalue()


async def test_audio_content(args: TestAudioContentInput, ctx: ToolContext) -> TestAudioContentResult | str:
    return TestAudioContentResult.audio(_silence(), "audio/wav")
