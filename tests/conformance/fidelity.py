"""Fidelity against the JSON-Schema-Test-Suite: does a generated server accept exactly what the
suite marks valid, on the way in and on the way out?

Each test group of a draft becomes tools of one toolset: `i_<group>` takes the group's schema as
the required property `value` of its arguments, `o_<group>` answers with it as `value` of its
structured output, and `d_<group>` (object schemas only) takes the schema itself as its input
schema. Every tool is first checked alone, so one refused schema does not block the rest; the
accepted ones are generated as one package, imported and called in memory through the official
MCP client, once per test instance and side.

    .venv/bin/python -m tests.conformance.fidelity            # print the table
    .venv/bin/python -m tests.conformance.fidelity --write    # also update docs/fidelity.md
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import logging
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import jsonschema_rs
from mcp import Client, types

from mcpstub.diagnostics import has_errors
from mcpstub.pipeline import check_toolset, generate

ROOT = Path(__file__).resolve().parents[2]
JSTS = ROOT / "tests" / "data" / "jsts"  # vendored core files, see tests/data/README.md
DOC = ROOT / "docs" / "fidelity.md"
COMMAND = ".venv/bin/python -m tests.conformance.fidelity --write"
DRAFTS = {"draft2020-12": "2020-12", "draft7": "draft-07"}
_DRAFT7_URI = "http://json-schema.org/draft-07/schema#"
# Files whose every group needs a remote reference (http://localhost:1234/...): refused by design.
REMOTE_FILES = frozenset({"refRemote.json"})
_REMOTE = "http://localhost:1234"
# Keywords whose value is data, not a schema: refs inside them are not rewritten.
_DATA_KEYS = frozenset({"enum", "const", "default", "examples"})
# 2020-12 and draft-07 make `format` an annotation by default; mcpstub asserts it (by design).
_FORMAT_ANNOTATION = re.compile(r"only an annotation by default")

VERDICTS = ("agree", "refused", "too lax", "too strict", "altered", "remote", "format asserted")


@dataclass
class Case:
    """One test instance of one group, with the suite's verdict."""

    file: str
    group: int
    description: str
    data: Any
    valid: bool


@dataclass
class Group:
    """One test group and the tools built from it."""

    file: str
    index: int
    description: str
    schema: Any
    cases: list[Case]
    remote: bool
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)  # kind -> tool entry
    refused: dict[str, list[str]] = field(default_factory=dict)  # kind -> diagnostic codes


@dataclass
class Outcome:
    """What happened to one case on one side."""

    case: Case
    side: str  # "input", "output" or "direct"
    verdict: str
    detail: str = ""


# --- building tools -----------------------------------------------------------------------------


def load_groups(draft: str) -> list[Group]:
    """Every group of the draft's core (non-optional) files."""
    groups: list[Group] = []
    for path in sorted((JSTS / draft).glob("*.json")):
        for index, raw in enumerate(json.loads(path.read_text("utf-8"))):
            schema = raw["schema"]
            remote = path.name in REMOTE_FILES or any(_REMOTE in ref for ref in _refs(schema))
            cases = [Case(path.name, index, t["description"], t["data"], t["valid"]) for t in raw["tests"]]
            groups.append(Group(path.name, index, raw["description"], schema, cases, remote))
    return groups


def _refs(node: Any) -> Iterator[str]:
    """Every `$ref` string in a schema (over-approximate: data values too)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _name(group: Group) -> str:
    stem = re.sub(r"[^A-Za-z0-9]+", "_", group.file.removesuffix(".json"))
    return f"{stem}_{group.index}"


def _walk_refs(node: Any, rewrite: Any, top: bool = True) -> Any:
    """Copy a schema, passing every `$ref` string through `rewrite` outside nested resources."""
    if isinstance(node, list):
        return [_walk_refs(v, rewrite, False) for v in node]
    if not isinstance(node, dict):
        return node
    if not top and "$id" in node:
        return copy.deepcopy(node)  # refs inside an embedded resource are relative to it
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            out[key] = rewrite(value)
        elif key in _DATA_KEYS:
            out[key] = copy.deepcopy(value)
        elif key in {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}:
            out[key] = (
                {k: _walk_refs(v, rewrite, False) for k, v in value.items()}
                if isinstance(value, dict)
                else value
            )
        else:
            out[key] = _walk_refs(value, rewrite, False)
    return out


def wrap(schema: Any, dialect: str) -> dict[str, Any]:
    """An object schema whose required property `value` is `schema`, with its refs rewritten."""
    root: dict[str, Any] = {}
    if dialect == "draft-07":
        root["$schema"] = _DRAFT7_URI
    inner: Any = schema
    if isinstance(schema, dict):
        inner = dict(schema)
        declared = inner.pop("$schema", None)
        if isinstance(declared, str) and not declared.startswith(("https://json-schema.org/", _DRAFT7_URI)):
            root["$schema"] = declared  # a custom meta-schema stays where the generator sees it
        if "$id" in inner:
            root["$id"] = inner.pop("$id")  # the wrapper takes the base URI, so refs keep theirs
        defs = {k: inner.pop(k) for k in ("$defs", "definitions") if k in inner}

        def rewrite(ref: str) -> str:
            if ref == "#":
                return "#/properties/value"
            if ref.startswith("#/") and not ref.startswith(("#/$defs/", "#/definitions/")):
                return "#/properties/value" + ref[1:]
            return ref

        inner = _walk_refs(inner, rewrite)
        for key, value in defs.items():
            root[key] = (
                {k: _walk_refs(v, rewrite, False) for k, v in value.items()}
                if isinstance(value, dict)
                else value
            )
    root.update(
        {
            "type": "object",
            "properties": {"value": inner},
            "required": ["value"],
            "additionalProperties": False,
        }
    )
    return root


def _direct(schema: Any, dialect: str) -> dict[str, Any] | None:
    """The schema itself as an input schema, when it is an object schema."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    direct = dict(schema)
    if dialect == "draft-07":
        direct["$schema"] = _DRAFT7_URI
    return direct


_CASE_INPUT = {"type": "object", "properties": {"case": {"type": "integer"}}, "required": ["case"]}


def build_tools(group: Group, dialect: str) -> None:
    """Fill `group.tools` with its input, output and direct tools."""
    name = _name(group)
    wrapped = wrap(group.schema, dialect)
    case_input = dict(_CASE_INPUT)
    if dialect == "draft-07":
        case_input["$schema"] = _DRAFT7_URI
    group.tools["input"] = {"name": f"i_{name}", "inputSchema": wrapped}
    group.tools["output"] = {"name": f"o_{name}", "inputSchema": case_input, "outputSchema": wrapped}
    direct = _direct(group.schema, dialect)
    if direct is not None:
        group.tools["direct"] = {"name": f"d_{name}", "inputSchema": direct}


def _write_toolset(path: Path, tools: list[dict[str, Any]]) -> None:
    toolset = {"mcpstub": 1, "server": {"name": "jsts"}, "tools": tools}
    path.write_text(json.dumps(toolset, indent=1), "utf-8")  # JSON is YAML


def check_tools(groups: list[Group], workdir: Path) -> None:
    """Check each tool alone; record the ones refused at build time with their diagnostic codes."""
    path = workdir / "one.yaml"
    for group in groups:
        if group.remote:
            continue
        for kind, tool in list(group.tools.items()):
            _write_toolset(path, [tool])
            checked = check_toolset(path, "tools.yaml")
            if has_errors(checked.diagnostics):
                group.refused[kind] = sorted({d.code for d in checked.diagnostics if d.severity == "error"})
                del group.tools[kind]


# --- calling the server ---------------------------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value, but booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


class _Reached(Exception):
    pass


def _handlers(package: Any, groups: list[Group]) -> tuple[dict[str, Any], list[Any]]:
    """Handlers for every generated tool, and the list input handlers record their arguments in."""
    seen: list[Any] = []
    handlers: dict[str, Any] = {}
    results = package.ToolError

    def recorder(args: Any, ctx: Any) -> Any:
        seen.append(args)
        raise results("reached")

    async def record(args: Any, ctx: Any) -> Any:
        return recorder(args, ctx)

    for group in groups:
        for kind, tool in group.tools.items():
            if kind != "output":
                handlers[tool["name"]] = record
                continue
            spec = package.TOOLS[tool["name"]]
            handlers[tool["name"]] = _output_handler(spec.output_model, group.cases)
    return handlers, seen


def _output_handler(model: Any, cases: list[Case]) -> Any:
    """A handler answering case number `n` with its instance as `value`, built behind the model's
    back when the model refuses it (the server must still refuse to send an invalid payload)."""

    async def handler(args: Any, ctx: Any) -> Any:
        instance = cases[args.case].data
        try:
            return model.model_validate({"value": instance})
        except Exception:
            if cases[args.case].valid:
                raise _Reached("the model refused a valid instance") from None
            return model.model_construct(value=instance)

    return handler


async def _run_cases(package: Any, groups: list[Group]) -> list[Outcome]:
    handlers, seen = _handlers(package, groups)
    outcomes: list[Outcome] = []
    async with Client(package.create_server(handlers)) as client:
        # The client's own output check would stop at schemas its validator cannot compile; this
        # script checks what the server sent itself.
        client.session.validate_tool_result = _no_check  # type: ignore[method-assign]
        for group in groups:
            for number, case in enumerate(group.cases):
                for kind in ("input", "direct", "output"):
                    if kind == "direct" and not isinstance(case.data, dict):
                        continue
                    if kind == "direct" and "direct" not in group.tools and "direct" not in group.refused:
                        continue
                    if group.remote:
                        outcomes.append(Outcome(case, kind, "remote"))
                    elif kind in group.refused:
                        outcomes.append(Outcome(case, kind, "refused", ",".join(group.refused[kind])))
                    else:
                        seen.clear()
                        try:
                            outcome = await _call(client, kind, group.tools[kind], number, case, seen)
                        except Exception as exc:
                            outcome = Outcome(case, kind, "too strict", f"client error: {exc}")
                        outcomes.append(outcome)
    return outcomes


async def _no_check(name: str, result: types.CallToolResult) -> None:
    return None


def _sent_is_valid(schema: dict[str, Any], sent: Any) -> bool:
    cls = jsonschema_rs.Draft7Validator if "$schema" in schema else jsonschema_rs.Draft202012Validator
    return bool(cls(schema, validate_formats=True).is_valid(sent))


async def _call(
    client: Client, kind: str, tool: dict[str, Any], number: int, case: Case, seen: list[Any]
) -> Outcome:
    name = tool["name"]
    schema = tool.get("outputSchema", {})
    if kind == "output":
        result = await client.call_tool(name, {"case": number})
        text = _text(result)
        if result.is_error:
            if not case.valid:
                return Outcome(case, kind, "agree")
            return Outcome(case, kind, _strict(case), text[:200])
        sent = result.structured_content
        if not case.valid:
            if _same(sent, {"value": case.data}) or not _sent_is_valid(schema, sent):
                return Outcome(case, kind, "too lax", json.dumps(sent)[:200])
            # The model turned the instance into a valid one (1 -> true): nothing invalid was sent.
            return Outcome(case, kind, "agree", "coerced")
        if not _same(sent, {"value": case.data}) or not _same(json.loads(text), sent):
            return Outcome(case, kind, "altered", f"sent {json.dumps(sent)[:200]}")
        return Outcome(case, kind, "agree")
    arguments = {"value": case.data} if kind == "input" else case.data
    result = await client.call_tool(name, arguments)
    text = _text(result)
    reached = bool(seen) and text == "reached"
    if not case.valid:
        if reached:
            return Outcome(case, kind, "too lax")
        return Outcome(
            case, kind, "agree" if text.startswith("invalid arguments") else "too strict", text[:200]
        )
    if not reached:
        return Outcome(case, kind, _strict(case), text[:200])
    dumped = seen[0].model_dump(mode="json", by_alias=True, exclude_unset=True)
    if not _same(dumped, arguments):
        return Outcome(case, kind, "altered", f"handler got {json.dumps(dumped)[:200]}")
    return Outcome(case, kind, "agree")


def _strict(case: Case) -> str:
    return "format asserted" if _FORMAT_ANNOTATION.search(case.description) else "too strict"


def _generate_package(groups: list[Group], workdir: Path, package: str) -> Path:
    tools = [tool for group in groups for tool in group.tools.values()]
    source = workdir / "tools.yaml"
    _write_toolset(source, tools)
    generated = generate(source)
    if not generated.ok:
        problems = "\n".join(d.format() for d in generated.diagnostics)
        raise RuntimeError(f"the checked tools did not generate together:\n{problems}")
    folder = workdir / package
    for relative, text in {**generated.ours, **generated.yours}.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder


def run_draft(draft: str, workdir: Path) -> list[Outcome]:
    """Every outcome for one draft of the suite."""
    dialect = DRAFTS[draft]
    groups = load_groups(draft)
    for group in groups:
        if not group.remote:
            build_tools(group, dialect)
    check_tools(groups, workdir)
    package = "jsts_" + re.sub(r"\W", "_", draft)
    _generate_package(groups, workdir, package)
    logging.getLogger(package).setLevel(logging.CRITICAL)  # refusals are expected here
    sys.path.insert(0, str(workdir))
    try:
        module = importlib.import_module(package)
        return anyio.run(_run_cases, module, groups)
    finally:
        sys.path.remove(str(workdir))
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]


# --- reporting ------------------------------------------------------------------------------------


def tally(outcomes: list[Outcome]) -> dict[str, Counter[str]]:
    """Per keyword file: how many case-sides got each verdict."""
    table: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        table.setdefault(outcome.case.file, Counter())[outcome.verdict] += 1
    return table


def _status(counts: Counter[str]) -> str:
    if counts["too lax"] or counts["too strict"] or counts["altered"]:
        return "**disagrees**"
    if counts["remote"]:
        return "remote (refused by design)"
    if counts["format asserted"]:
        return "agrees; formats asserted by design"
    if counts["refused"] and not counts["agree"]:
        return "refused at build time"
    if counts["refused"]:
        return "agrees or refused"
    return "agrees"


def render_table(draft: str, outcomes: list[Outcome]) -> Iterator[str]:
    table = tally(outcomes)
    total: Counter[str] = Counter()
    yield f"### {draft}"
    yield ""
    yield "| file | " + " | ".join(VERDICTS) + " | status |"
    yield "|---|" + "---:|" * len(VERDICTS) + "---|"
    for file in sorted(table):
        counts = table[file]
        total.update(counts)
        yield f"| {file} | " + " | ".join(str(counts[v]) for v in VERDICTS) + f" | {_status(counts)} |"
    yield "| **total** | " + " | ".join(f"**{total[v]}**" for v in VERDICTS) + " | |"
    yield ""


def render_problems(outcomes: list[Outcome]) -> Iterator[str]:
    for o in outcomes:
        if o.verdict in {"too lax", "too strict", "altered"}:
            yield (
                f"- {o.case.file} #{o.case.group} {o.side}: {o.verdict}: {o.case.description!r} "
                f"data={json.dumps(o.case.data)[:80]} {o.detail[:160]!r}"
            )


def render_refusals(outcomes: list[Outcome]) -> Iterator[str]:
    codes: Counter[tuple[str, str]] = Counter()
    for o in outcomes:
        if o.verdict == "refused":
            codes[(o.case.file, o.detail)] += 1
    for (file, detail), count in sorted(codes.items()):
        yield f"| {file} | {detail} | {count} |"


def render_document(results: dict[str, list[Outcome]]) -> str:
    lines = [
        "# Fidelity against the JSON-Schema-Test-Suite",
        "",
        "Generated by `tests/conformance/fidelity.py`; reproduce with",
        "",
        "```sh",
        COMMAND,
        "```",
        "",
        f"Suite: `tests/data/jsts` (JSON-Schema-Test-Suite) at commit `{_commit()}`, core files only",
        "(`optional/` is left out).",
        "Every test instance is checked at the tool boundary of one generated package per draft,",
        "through the official MCP client: as the `value` argument of a tool whose input schema holds",
        "the group's schema (*input*), as the `value` of a handler's structured output (*output*), and",
        "for object schemas also as the whole arguments of a tool whose input schema is the group's",
        "schema itself. Counts are instance-side pairs.",
        "",
        "- **agree**: valid instances reach the handler unchanged (output: are sent unchanged, text",
        "  mirror included); invalid ones get `isError` and never reach the handler (output: are",
        "  never sent).",
        "- **refused**: mcpstub refuses the schema at build time with a diagnostic (it cannot honour it",
        "  exactly), so no server serves it loosely.",
        "- **too lax** / **too strict** / **altered**: a disagreement (a bug).",
        "- **remote**: the group needs `http://localhost:1234/...`; remote references are refused by",
        "  design (a build never touches the network).",
        "- **format asserted**: the suite's \"only an annotation by default\" cases; mcpstub's servers",
        "  assert `format` (by design), so these invalid-format strings are refused.",
        "",
    ]
    for draft, outcomes in results.items():
        lines += list(render_table(draft, outcomes))
    for draft, outcomes in results.items():
        refusals = list(render_refusals(outcomes))
        if refusals:
            lines += [
                f"### Build-time refusals, {draft}",
                "",
                "| file | diagnostic | count |",
                "|---|---|---:|",
            ]
            lines += [*refusals, ""]
    return "\n".join(lines)


def _commit() -> str:
    commit = JSTS / "COMMIT"
    return commit.read_text("utf-8").strip()[:12] if commit.is_file() else "unknown"


def run_all(drafts: list[str]) -> dict[str, list[Outcome]]:
    """Outcomes for each draft, in a scratch folder."""
    results: dict[str, list[Outcome]] = {}
    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        for draft in drafts:
            workdir = Path(tmp) / draft
            workdir.mkdir()
            results[draft] = run_draft(draft, workdir)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.conformance.fidelity", description=__doc__)
    parser.add_argument("--draft", choices=sorted(DRAFTS), action="append", help="default: both")
    parser.add_argument("--write", action="store_true", help=f"also write {DOC.relative_to(ROOT)}")
    options = parser.parse_args(argv)
    if not JSTS.is_dir():
        print(f"JSON-Schema-Test-Suite not found at {JSTS} (vendored in the repository)", file=sys.stderr)
        return 2
    results = run_all(options.draft or list(DRAFTS))
    document = render_document(results)
    print(document)
    problems = [line for outcomes in results.values() for line in render_problems(outcomes)]
    if problems:
        print("\n## Disagreements\n", *problems, sep="\n")
    if options.write:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(document, "utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
