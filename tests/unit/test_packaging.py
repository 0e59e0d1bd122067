"""Packaging: compatible ranges for what installs, the tested set in constraints.txt, the stated
minimum versions of a generated package, and the `testing` extra for contract tests."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from mcpstub.layout import RUNTIME_REQUIREMENTS
from mcpstub.pipeline import generate

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
RUNTIME = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text("utf-8"))["project"]


def _pins() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text("utf-8").splitlines()
    pins = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return {_key(r.name): str(next(iter(r.specifier)).version) for r in pins}


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize("project", [PROJECT, RUNTIME], ids=["mcpstub", "mcpstub-runtime"])
def test_dependencies_are_compatible_ranges_that_hold_the_tested_set(project: dict[str, Any]) -> None:
    # The runtime is this repository's own (runtime/): its version, not a pin, is the tested one.
    pins = {**_pins(), "mcpstub-runtime": RUNTIME["version"]}
    for text in project["dependencies"]:
        requirement = Requirement(text)
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, f"{text}: a range with a floor and a ceiling, not a pin"
        assert requirement.specifier.contains(pins[_key(requirement.name)]), f"{text}: tested version outside"


def test_the_runtime_depends_on_mcp_pydantic_and_jsonschema_rs_only() -> None:
    names = {_key(Requirement(text).name) for text in RUNTIME["dependencies"]}
    assert names == {"mcp", "pydantic", "jsonschema-rs"}


def test_black_is_only_a_test_dependency() -> None:
    runtime = {_key(Requirement(text).name) for text in PROJECT["dependencies"]}
    assert "black" not in runtime
    assert any(Requirement(t).name == "black" for t in PROJECT["optional-dependencies"]["test"])


def test_the_testing_extra_pins_the_working_hypothesis_pair() -> None:
    extra = [Requirement(t) for t in PROJECT["optional-dependencies"]["testing"]]
    testing = {r.name: str(r.specifier) for r in extra}
    assert testing["hypothesis"] == "==6.170.0"
    assert testing["hypothesis-jsonschema"] == "==0.23.1"


def test_generated_package_states_its_runtime_requirements() -> None:
    runtime = {_key(Requirement(t).name): Requirement(t).specifier for t in PROJECT["dependencies"]}
    for text in RUNTIME_REQUIREMENTS:  # the same ranges as mcpstub's own
        requirement = Requirement(text)
        assert runtime[_key(requirement.name)] == requirement.specifier, text
    generated = generate(ROOT / "schemas" / "examples" / "minimal.yaml")
    init = generated.ours["__init__.py"]
    assert f"# Needs at run time: {', '.join(RUNTIME_REQUIREMENTS)} (never mcpstub)." in init
    readme = (ROOT / "README.md").read_text("utf-8")
    for text in RUNTIME_REQUIREMENTS:
        assert f"`{text}`" in readme, text
