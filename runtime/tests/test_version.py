"""The check a generated package makes of the runtime at import."""

from __future__ import annotations

import pytest

import mcpstub_runtime
from mcpstub_runtime.version import fits, require


@pytest.mark.parametrize(
    ("version", "wanted", "expected"),
    [
        ("0.1.0", ">=0.1,<0.2", True),
        ("0.1.7", ">=0.1,<0.2", True),
        ("0.1", ">=0.1.0,<0.2", True),
        ("0.2.0", ">=0.1,<0.2", False),
        ("0.0.9", ">=0.1,<0.2", False),
        ("0.2.0rc1", ">=0.1,<0.2", False),
        ("1.0.0", ">=0.1,<2", True),
    ],
)
def test_fits(version: str, wanted: str, expected: bool) -> None:
    assert fits(version, wanted) is expected


def test_this_runtime_fits_what_it_says() -> None:
    require("any_pkg", f">={mcpstub_runtime.__version__}")


def test_outside_the_range_names_both_versions_and_the_command() -> None:
    with pytest.raises(ImportError) as caught:
        require("weather_tools", ">=0.3,<0.4", version="0.1.0")
    message = str(caught.value)
    assert "weather_tools was generated for mcpstub-runtime >=0.3,<0.4" in message
    assert "mcpstub-runtime 0.1.0 is installed" in message
    assert "pip install 'mcpstub-runtime>=0.3,<0.4'" in message
