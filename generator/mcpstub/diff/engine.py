"""The engine: two sides -> findings, one per difference, located in NEW.

Tool-level rules (removed, added, output schema added or removed, annotation flips, wording) live
here; schema rules live in `compare` (one subset question per direction) and what those cannot
decide goes to `search`. Then the version rule, and the ignores the user configured.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from mcpstub.diff.asked import ELICITATION_RULES, elicitation_findings
from mcpstub.diff.compare import Subset
from mcpstub.diff.facts import Reason, show
from mcpstub.diff.model import JSON, DiffOptions, Direction, Finding, Severity, Side
from mcpstub.diff.search import Outcome, Searcher
from mcpstub.diff.semantics import server_validator
from mcpstub.errortext import first_line
from mcpstub.pointers import resolve, split, split_fragment, to_pointer

# Reason kind -> (rule when an input gets stricter, rule when an output gets looser).
KIND_RULES = {
    "required": ("input-required-added", "output-required-removed"),
    "property-forbidden": ("input-property-removed", "output-property-added"),
    "property-undeclared": ("input-property-added", "output-property-removed"),
    "additional": ("input-additional-properties-closed", "output-additional-properties-opened"),
    "type": ("input-type-narrowed", "output-type-widened"),
    "false": ("input-type-narrowed", "output-type-widened"),
    "null": ("input-null-refused", "output-null-allowed"),
    "enum": ("input-enum-narrowed", "output-enum-widened"),
    "const": ("input-const-added", "output-const-removed"),
    "bound": ("input-constraint-tightened", "output-constraint-relaxed"),
    "format": ("input-format-added", "output-format-removed"),
    "format-changed": ("input-format-changed", "output-format-changed"),
    "open-property": ("input-property-added", "output-property-removed"),
    "content": ("input-content-checked", "output-content-unchecked"),
    "pattern": ("input-pattern-changed", "output-pattern-changed"),
    "undecided": ("input-narrowed", "output-widened"),
}
UNDECIDED_RULES = ("input-undecided", "output-undecided")
# Reason kind, found the other way round -> (input widened, output narrowed): an info rule's end.
SAFE_CHANGES = {
    "required": ("required-removed", "required-added"),
    "property-forbidden": ("property-allowed", "property-removed"),
    "property-undeclared": ("property-unconstrained", "property-declared"),
    "open-property": ("property-unconstrained", "property-declared"),
    "additional": ("additional-properties-opened", "additional-properties-closed"),
    "type": ("type-widened", "type-narrowed"),
    "false": ("type-widened", "type-narrowed"),
    "null": ("null-allowed", "null-refused"),
    "enum": ("enum-widened", "enum-narrowed"),
    "const": ("const-removed", "const-added"),
    "bound": ("constraint-relaxed", "constraint-tightened"),
    "format": ("format-removed", "format-added"),
    "format-changed": ("format-changed", "format-changed"),
    "content": ("content-unchecked", "content-checked"),
    "pattern": ("pattern-changed", "pattern-changed"),
    "undecided": ("widened", "narrowed"),
}
# The other way round, a reason is worded for the other direction: the words that turn it back.
_INPUT_WORDS = (("may now be returned", "now accepted"), ("no longer required", "now optional"))
_OUTPUT_WORDS = (
    ("no longer accepted", "no longer returned"),
    ("accepted", "returned"),
    ("refused", "never returned"),
)


# The open-object rule's words are a client's, of what it sends: said of an output, of what it gets.
_OPEN_PROPERTY = re.compile(r"property ('.*?'|\".*?\") added to an object that accepts unlisted .*", re.S)
_OPEN_OUTPUT = "declared in an object that may hold unlisted properties: it is now returned only as declared"


_NO_LONGER_REQUIRED = re.compile(r"property ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") is no longer required")


def _said_removed(reason: Reason, key: str, said: set[str]) -> bool:
    """Whether `reason`, a property no longer required, is of one said removed (closed out) at its
    place: "now optional" besides would contradict it."""
    found = _NO_LONGER_REQUIRED.fullmatch(reason.message) if reason.kind == "required" else None
    if found is None:
        return False
    import ast  # noqa: PLC0415 - only for such a reason

    name = ast.literal_eval(found[1])
    place = reason.path.removesuffix("/required")
    return f"/{key}{place}{to_pointer(['properties', name])}" in said


def _safe_words(message: str, direction: str) -> str:
    if direction == "output" and (match := _OPEN_PROPERTY.fullmatch(message)):
        return f"property {match[1]} {_OPEN_OUTPUT}"
    for old, new in _INPUT_WORDS if direction == "input" else _OUTPUT_WORDS:
        message = message.replace(old, new)
    return message


# Annotation -> (the value that is safe to rely on, its default when absent, rule when it is lost).
HINTS = {
    "readOnlyHint": (True, False, "annotation-read-only-dropped"),
    "destructiveHint": (False, True, "annotation-destructive-added"),
    "idempotentHint": (True, False, "annotation-idempotent-dropped"),
    "openWorldHint": (False, True, "annotation-open-world-added"),
}
# A semantic version, its minor and patch numbers optional (`2.0` and `2` read as 2.0.0).
_SEMVER = re.compile(
    r"^v?(0|[1-9][0-9]{0,99})(?:\.(0|[1-9][0-9]{0,99}))?(?:\.(0|[1-9][0-9]{0,99}))?"
    r"(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$",
    re.ASCII,
)  # (ASCII digits, as semver has them; up to 100 a number, which Python reads as an integer)
_NO_CHECK = "version-check = false under [tool.mcpstub.diff], or --no-version-check, turns the check off"
_WORDING = ("title", "description")
_METADATA = ("icons", "_meta", "execution")
_SCHEMA_KEY = {"input": "inputSchema", "output": "outputSchema"}
# Every rule a finding may name (what an ignore may name): `diff_sides` holds its findings to it.
RULES = frozenset(
    {
        *(rule for pair in KIND_RULES.values() for rule in pair),
        *UNDECIDED_RULES,
        *(f"input-{ends[0]}" for ends in SAFE_CHANGES.values()),
        *(f"output-{ends[1]}" for ends in SAFE_CHANGES.values()),
        *(f"{d}-schema-rewritten" for d in _SCHEMA_KEY),
        *(f"{d}-schema-uncompiled" for d in _SCHEMA_KEY),
        *(f"{key}-changed" for key in _WORDING),
        *(lost for _, _, lost in HINTS.values()),
        *(f"annotation-{hint}-safer" for hint in HINTS),
        *ELICITATION_RULES,
        "output-schema-removed", "output-schema-added", "schema-default-changed",
        "schema-wording-changed", "metadata-changed", "tool-changed", "title-changed",
        "version-not-bumped", "tool-removed", "tool-added", "server-version-changed",
        "server-name-changed",
    }
)  # fmt: skip


def _through_refs(tool: JSON, path: str) -> str:
    """`path` as a pointer into the tool that exists: where the rules read a node merged with its
    `$ref` target or its `allOf` parts (a root `$ref` beside `type`), the pointer goes on inside the
    part that holds the rest (`/outputSchema/$defs/Message/properties/text`, not
    `/outputSchema/properties/text`); what is gone is placed where its parent is. As it is where no
    such part is in the way."""
    parts = split(path)
    if not parts or parts[0] not in ("inputSchema", "outputSchema") or not isinstance(tool, dict):
        return path
    root = tool.get(parts[0])
    for rest, gone in ((parts[1:], ()), (parts[1:-1], parts[-1:])):
        found = _placed(root, root, [parts[0]], list(rest), 0)
        if found is not None:
            return to_pointer([*found, *gone])
    return path


def _placed(root: JSON, node: JSON, at: list[str], rest: list[str], steps: int) -> list[str] | None:
    """The pointer parts of the place `rest` reaches from `node` (at `at`), through a `$ref` or an
    `allOf` part where `node` itself does not hold the next part; None if nothing does."""
    if not rest:
        return at
    if steps > 16:
        return None
    head = rest[0]
    if isinstance(node, list):
        if head.isdigit() and int(head) < len(node):
            return _placed(root, node[int(head)], [*at, head], rest[1:], steps)
        return None
    if not isinstance(node, dict):
        return None
    if head in node:
        found = _placed(root, node[head], [*at, head], rest[1:], steps)
        if found is not None:
            return found
    ref = node.get("$ref")
    target = split_fragment(ref[1:]) if isinstance(ref, str) and ref.startswith("#") else None
    if target is not None:
        ok, value, _ = resolve(root, list(target))
        found = _placed(root, value, [at[0], *target], rest, steps + 1) if ok else None
        if found is not None:
            return found
    parts = node.get("allOf")
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        found = _placed(root, part, [*at, "allOf", str(index)], rest, steps + 1)
        if found is not None:
            return found
    return None


def _canon(value: JSON) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class _Tool:
    """Findings for one tool present on both sides."""

    def __init__(
        self, name: str, old: dict[str, Any], new: dict[str, Any], side: Side, options: DiffOptions,
        budget: list[float],
    ) -> None:  # fmt: skip
        self.name, self.old, self.new, self.side, self.options = name, old, new, side, options
        # CPU seconds the counterexample search has left in this diff (shared by every tool).
        self.budget = budget
        self.findings: list[Finding] = []

    def finding(
        self, rule: str, severity: Severity, direction: Direction, path: str, message: str,
        counterexample: JSON = None, has_counterexample: bool = False, *, placed: bool = False,
    ) -> None:  # fmt: skip
        """`placed`: `path` names its place as it is (an annotation gone from a node is said at the
        node, not at its reference's of that name)."""
        path = path if placed else _through_refs(self.new, path)
        gone = placed and not resolve(self.new, split(path) or ())[0]  # (at the node that held it)
        location = self.side.locate(self.name, path.rpartition("/")[0] if gone else path)
        self.findings.append(
            Finding(
                self.name,
                rule,
                severity,
                direction,
                path,
                message,
                location,
                counterexample,
                has_counterexample,
            )
        )

    def run(self) -> list[Finding]:
        if _canon(self.old) == _canon(self.new):
            return []  # most tools of a release do not change
        self._schema("input", self.old.get("inputSchema"), self.new.get("inputSchema"))
        old_out, new_out = self.old.get("outputSchema"), self.new.get("outputSchema")
        if old_out is not None and new_out is None:
            self.finding(
                "output-schema-removed", "breaking", "output", "",
                "outputSchema removed: clients relying on structuredContent get none",
            )  # fmt: skip
        elif old_out is None and new_out is not None:
            self.finding(
                "output-schema-added", "breaking", "output", "/outputSchema",
                "outputSchema added: the tool now answers with structuredContent instead of content blocks",
            )  # fmt: skip
        elif old_out is not None:
            self._schema("output", old_out, new_out)
        self._annotations()
        for key in _WORDING:
            if self.old.get(key) != self.new.get(key):
                self.finding(f"{key}-changed", "info", "tool", f"/{key}", f"{key} changed")
        for key in _METADATA:
            if _canon(self.old.get(key)) != _canon(self.new.get(key)):
                self.finding("metadata-changed", "info", "tool", f"/{key}", f"{key} changed")
        if not self.findings:  # a change no rule names (an unknown member of the tool object)
            changed = sorted(
                k for k in {*self.old, *self.new} if _canon(self.old.get(k)) != _canon(self.new.get(k))
            )
            self.finding("tool-changed", "info", "tool", f"/{changed[0]}", f"{', '.join(changed)} changed")
        return self.findings

    def compared(self, old: JSON, new: JSON) -> list[Finding]:
        """The findings of `old` -> `new` as an input schema's (what an answer to a form is)."""
        self.old, self.new, self.findings = {"inputSchema": old}, {"inputSchema": new}, []
        self._schema("input", old, new)
        return self.findings

    def _annotations(self) -> None:
        old = self.old.get("annotations") if isinstance(self.old.get("annotations"), dict) else {}
        new = self.new.get("annotations") if isinstance(self.new.get("annotations"), dict) else {}
        assert isinstance(old, dict) and isinstance(new, dict)
        for hint, (safe, default, lost) in HINTS.items():
            before, after = old.get(hint, default), new.get(hint, default)
            if (before is safe) != (after is safe):  # to the safer side: information only
                severity: Severity = "warning" if before is safe else "info"
                rule = lost if before is safe else f"annotation-{hint}-safer"
                message = f"{hint} changed from {show(before)} to {show(after)}"
                self.finding(rule, severity, "tool", f"/annotations/{hint}", message)
        if old.get("title") != new.get("title"):
            self.finding("title-changed", "info", "tool", "/annotations/title", "annotations.title changed")

    def _schema(self, direction: Direction, old: JSON, new: JSON) -> None:
        if old is None or new is None or _canon(old) == _canon(new):
            return
        key = _SCHEMA_KEY[direction]
        # (a saved answer or a live server may hold one; where OLD's was no better, no call worked before)
        if (why := _uncompiled(new)) is not None and _uncompiled(old) is None:
            message = f"the server's validator cannot compile the new {key} ({why}): every call fails"
            self.finding(f"{direction}-schema-uncompiled", "breaking", direction, f"/{key}", message)
            return
        a, b = (old, new) if direction == "input" else (new, old)
        rule_index = 0 if direction == "input" else 1
        before = len(self.findings)
        subset = Subset(a, b, a_is_old=direction == "input")
        try:
            reasons = subset.run()
            # The other way round: what NEW lets through that OLD did not (an input widened, an
            # output narrowed) breaks no client; each such change is an info finding.
            widened = Subset(b, a, a_is_old=direction != "input").run()
        except (RecursionError, TypeError, ValueError, KeyError, AttributeError) as exc:
            # A source read from a live server or a snapshot may hold what no toolset check let
            # through; say so rather than stop.
            why = first_line(exc)[:120]
            message = f"rules could not decide: the schemas could not be compared ({why})"
            self.finding(UNDECIDED_RULES[rule_index], "warning", direction, f"/{key}", message)
            return
        for path, what, moved in subset.infos:
            rule = "schema-default-changed" if what == "default" else "schema-wording-changed"
            at = f"/{key}{path}"
            placed = resolve(self.new, split(at.rpartition("/")[0]) or ())[0]  # (its node is there)
            self.finding(rule, "info", direction, at, f"schema {what} changed: {moved}", placed=placed)
        self._breaks(direction, a, b, reasons)
        said = {f.path for f in self.findings[before:]}
        for reason in widened:
            where = f"/{key}{reason.path}"
            # (a place said already, or what the rules could not tell for sure below one: that change
            # is reported once, as it breaks; a widening they know below it is a change of its own)
            below = not reason.exact and any(where.startswith(f"{place}/") for place in said)
            if where not in said and not below and not _said_removed(reason, key, said):
                said.add(where)
                rule = f"{direction}-{SAFE_CHANGES[reason.kind][rule_index]}"
                words = _safe_words(reason.message, direction)
                if not reason.exact:  # read off keywords whose sum the rules do not work out (not, if)
                    words += " (perhaps: the rules could not tell for sure)"
                self.finding(rule, "info", direction, where, words)
        if len(self.findings) == before:
            message = f"{key} changed without changing which values it accepts"
            self.finding(f"{direction}-schema-rewritten", "info", direction, f"/{key}", message)

    def _breaks(self, direction: Direction, a: JSON, b: JSON, reasons: list[Reason]) -> None:
        """A finding for each reason A is not within B: breaking, or a warning."""
        key, rule_index = _SCHEMA_KEY[direction], 0 if direction == "input" else 1
        seen: set[tuple[str, str]] = set()  # (rule, path) of the findings made
        # Reasons at one place the search could not settle: said only where no other reason there is.
        undecided: dict[tuple[str, str], tuple[str, str]] = {}
        # (without the search, it still plants a witness into an instance: nothing is drawn)
        options = self.options
        searcher = Searcher(a, b, options.max_examples, options.search_seconds, options.search_cache)
        # A property newly required is that break: that it is also added to an object open to
        # others is not said again at its place.
        required = {reason.path for reason in reasons if reason.kind == "required"}
        for reason in reasons:
            rule = KIND_RULES[reason.kind][rule_index]
            if (rule, reason.path) in seen or (reason.kind == "open-property" and reason.path in required):
                continue
            where = f"/{key}{reason.path}"
            severity: Severity = "breaking"
            if reason.kind == "open-property" and self.options.open_objects != "strict":
                severity = "warning"
            instance: Outcome | None = None
            if reason.has_witness:
                whole = self._whole(searcher, reason)
                instance = whole if whole.found else None
            # A break the rules know is shown with an instance too: searched for like the others.
            outcome = instance or self._search(searcher if self.options.search else None, reason)
            if outcome is not None and outcome.found:
                self.finding(rule, severity, direction, where, reason.message, outcome.instance, True)
            elif reason.exact:
                self.finding(rule, severity, direction, where, reason.message)
            else:
                note = outcome.note if outcome is not None else "the counterexample search is off"
                undecided.setdefault(
                    (rule, reason.path), (where, f"rules could not decide ({reason.message}); {note}")
                )
                continue
            seen.add((rule, reason.path))
        for place, (where, message) in undecided.items():
            if place not in seen:
                self.finding(UNDECIDED_RULES[rule_index], "warning", direction, where, message)

    def _whole(self, searcher: Searcher, reason: Reason) -> Outcome:
        """A witness planted into an instance, drawn only within what is left of the search time."""
        left = self.budget[0]
        searcher.seconds = min(self.options.search_seconds, max(left, 0))
        start = time.process_time()
        try:
            return searcher.whole(reason, draw=self.options.search and left > 0)
        finally:
            self.budget[0] = left - (time.process_time() - start)

    def _search(self, searcher: Searcher | None, reason: Reason) -> Outcome | None:
        """The search for one reason, within what is left of the diff's search time."""
        if searcher is None:
            return None
        left = self.budget[0]
        if left <= 0:  # only the values the schemas name are tried (cheap); nothing is drawn
            searcher.seconds = self.options.search_seconds
            outcome = searcher.find(reason, draw=False)
            spent = self.options.search_budget_seconds
            note = (
                f"{outcome.note}; instances were not drawn: this diff's search time "
                f"({spent:g} s of CPU) is spent"
            )
            return outcome if outcome.found else Outcome(False, note=note)
        searcher.seconds = min(self.options.search_seconds, left)
        start = time.process_time()
        try:
            return searcher.find(reason)
        finally:
            self.budget[0] = left - (time.process_time() - start)


def _uncompiled(schema: JSON) -> str | None:
    """Why the generated server's validator cannot be built for `schema` (an invalid pattern, a
    schema that is no object), or None."""
    if not isinstance(schema, dict):
        return "it is no JSON object"
    try:
        server_validator(schema)
    except Exception as exc:  # whatever the validator refuses
        return first_line(exc)[:160]
    return None


def _parse_version(text: str | None) -> tuple[int, int, int] | None:
    match = _SEMVER.fullmatch(text or "")
    return (int(match[1]), int(match[2] or 0), int(match[3] or 0)) if match else None


def bump_needed(old: str | None, new: str | None) -> tuple[str, str | None]:
    """The bump breaking changes from version `old` need (`a major version bump`; in 0.x a minor
    one), and the least version that is one, where both versions are semantic versions."""
    before, after = _parse_version(old), _parse_version(new)
    minor = before is not None and before[0] == 0
    bump = "a minor version bump (in 0.x)" if minor else "a major version bump"
    if before is None or after is None:
        return bump, None
    return bump, f"{before[0]}.{before[1] + 1}.0" if minor else f"{before[0] + 1}.0.0"


def _version_finding(old: Side, new: Side) -> Finding | None:
    before, after = _parse_version(old.server_version), _parse_version(new.server_version)
    where = new.locate("", "/server/version")
    bump, need = bump_needed(old.server_version, new.server_version)
    if before is None or after is None:
        side, bad = ("old", old.server_version) if before is None else ("new", new.server_version)
        fix = "write it as one, or " if side == "new" else ""  # (the old side is written: a past revision)
        message = (
            f"breaking changes need {bump}, but the {side} server.version {bad[:40]!r} is not"
            f" a semantic version (MAJOR.MINOR.PATCH, e.g. 2.0.0): {fix}{_NO_CHECK}"
            if bad
            else f"breaking changes need {bump}, but the {side} server.version is not set: "
            + ("set it (e.g. 2.0.0), or " if side == "new" else "")
            + _NO_CHECK
        )
        return Finding("", "version-not-bumped", "breaking", "server", "/server/version", message, where)
    bumped = after[0] > before[0] or (before[0] == 0 and after[0] == 0 and after[1] > before[1])
    if bumped:
        return None
    moved = (
        f"stays {new.server_version}"
        if old.server_version == new.server_version
        else f"{old.server_version} -> {new.server_version}"
    )
    message = f"breaking changes without {bump}: server.version {moved} (at least {need})"
    return Finding("", "version-not-bumped", "breaking", "server", "/server/version", message, where)


def renames(gone: dict[str, dict[str, Any]], added: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Removed tool -> the added tool it was probably renamed to: the one with the same schemas,
    where no other removed or added tool has them too (a guess that may be wrong is not made)."""

    def by_schemas(tools: dict[str, dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
        found: dict[tuple[str, str], list[str]] = {}
        for name, tool in tools.items():
            schemas = (_canon(tool.get("inputSchema")), _canon(tool.get("outputSchema")))
            found.setdefault(schemas, []).append(name)
        return found

    olds, news = by_schemas(gone), by_schemas(added)
    return {o[0]: n[0] for key, o in olds.items() if len(o) == 1 and len(n := news.get(key, [])) == 1}


def _ignored(finding: Finding, options: DiffOptions) -> bool:
    return any(i.rule == finding.rule and i.tool in (finding.tool, "*") for i in options.ignore)


def diff_sides(
    old: Side, new: Side, options: DiffOptions | None = None, ignored: list[Finding] | None = None
) -> list[Finding]:
    """Every difference between OLD and NEW, breaking ones first within each tool; those the
    options ignore go to `ignored`, if given."""
    options = options or DiffOptions()
    ignored = [] if ignored is None else ignored

    def kept(finding: Finding) -> bool:
        if _ignored(finding, options):
            ignored.append(finding)
            return False
        return True

    findings: list[Finding] = []
    budget = [options.search_budget_seconds]
    added = {n: t for n, t in new.tools.items() if n not in old.tools}
    renamed = renames({n: t for n, t in old.tools.items() if n not in new.tools}, added)
    for name in old.tools:
        if name not in new.tools:
            other = renamed.get(name)
            message = "no longer served: a client that calls it fails" + (
                f" (renamed to {other!r}?)" if other else ""
            )
            where = new.locate("", "/tools")
            findings.append(Finding(name, "tool-removed", "breaking", "tool", "", message, where))
    for name, tool in new.tools.items():
        if name in added:
            findings.append(
                Finding(name, "tool-added", "info", "tool", "", "a new tool", new.locate(name, ""))
            )
            continue
        findings.extend(_Tool(name, old.tools[name], tool, new, options, budget).run())
        if old.shows_asking and new.shows_asking:  # (a side that shows none tells nothing of them)
            asking = _Tool(name, {}, {}, new, options, budget)
            findings.extend(elicitation_findings(name, old, new, asking.compared))
    findings = list(filter(kept, findings))
    shown = old.shows_server and new.shows_server  # (a saved tools/list answer shows no server)
    if options.check_version and shown and any(f.severity == "breaking" for f in findings):
        version = _version_finding(old, new)
        if version is not None and kept(version):
            findings.append(version)
    said = any(f.rule == "version-not-bumped" for f in findings)
    if shown and old.server_version != new.server_version and not said:
        message = f"server.version {old.server_version!r} -> {new.server_version!r}"
        where, rule = new.locate("", "/server/version"), "server-version-changed"
        changed = Finding("", rule, "info", "server", "/server/version", message, where)
        findings += [changed] if kept(changed) else []
    if shown and old.server_name and new.server_name and old.server_name != new.server_name:
        message = f"server.name {old.server_name!r} -> {new.server_name!r}"
        where, rule = new.locate("", "/server/name"), "server-name-changed"
        named = Finding("", rule, "info", "server", "/server/name", message, where)
        findings += [named] if kept(named) else []
    unique: dict[tuple[str, str, str, str], Finding] = {}
    for f in findings:
        unique.setdefault((f.tool, f.rule, f.direction, f.path), f)
    assert {f.rule for f in findings} <= RULES, "a rule missing from RULES"
    order = {name: i for i, name in enumerate([*new.tools, *(n for n in old.tools if n not in new.tools)])}
    rank = {"breaking": 0, "warning": 1, "info": 2}
    # A tool's findings as NEW reads, top to bottom (a file it references after it), then the
    # ones NEW does not locate, by place.
    home = new.locate("", "")

    def place(f: Finding) -> tuple[bool, str, int, int]:
        at = f.location
        if at is None:
            return (True, "", 0, 0)
        return (home is not None and at.file != home.file, at.file, at.line, at.col)

    return sorted(
        unique.values(),
        key=lambda f: (
            order.get(f.tool, -1),
            *place(f),
            f.direction not in ("tool", "server"),
            f.direction,
            f.path,
            rank[f.severity],
            f.rule,
        ),
    )
