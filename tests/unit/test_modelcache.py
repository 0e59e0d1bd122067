"""The model cache: whatever the edit sequence, cached, parallel and cold runs write the same bytes.

Also: the cache lives where it is told and nowhere else, a corrupted entry is ignored and replaced,
concurrent runs share it safely, and a merge clash falls back to one whole-toolset generation.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import types
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mcpstub import pipeline
from mcpstub.cli import main
from mcpstub.engine import model_groups
from mcpstub.engine.model_groups import ModelCache, ModelFeed, split_groups, start_models
from mcpstub.engine.workers import ModelWorkers
from mcpstub.ir import Toolset
from mcpstub.model_merge import Clash, merge_parts, merge_sources, split_source
from mcpstub.models import STAND_IN_MODULE, render_models
from mcpstub.pipeline import check_toolset, generate

ROOT = Path(__file__).resolve().parents[2]

SHARED: dict[str, Any] = {
    "Point": {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x", "y"],
    },
    "Mode": {"type": "string", "enum": ["fast", "slow"]},
    "Node": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        },
    },
}
PROPERTIES: list[dict[str, Any]] = [
    {"type": "string", "minLength": 1},
    {"type": "integer", "minimum": 0, "default": 3},
    {"$ref": "#/$defs/Point"},
    {"$ref": "#/$defs/Mode"},
    {"$ref": "#/$defs/Node"},
    {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
    {"type": "object", "properties": {"deep": {"type": "object", "properties": {"z": {"type": "boolean"}}}}},
    {"enum": ["a", "b", 1, None]},
    {"type": ["string", "null"], "format": "date-time"},
]


def tool(name: str, props: dict[str, int], output: int | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "description": f"tool {name}",
        "inputSchema": {"type": "object", "properties": {k: PROPERTIES[v] for k, v in props.items()}},
    }
    if output is not None:
        entry["outputSchema"] = {"type": "object", "properties": {"result": PROPERTIES[output]}}
    return entry


# No "_": names unique as written are then unique as Python names ("a" and "a_" are both "a").
names = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
props = st.dictionaries(
    st.sampled_from(["q", "n", "where", "mode", "tree", "items", "nest", "pick"]),
    st.integers(0, len(PROPERTIES) - 1),
    max_size=4,
)
tools = st.builds(tool, names, props, st.none() | st.integers(0, len(PROPERTIES) - 1))


@st.composite
def edit(draw: st.DrawFn, doc: dict[str, Any]) -> dict[str, Any]:
    """One change a user might make: add, remove, move or rename a tool, edit a schema or a shared def."""
    doc = copy.deepcopy(doc)
    kind = draw(st.sampled_from(["add", "remove", "move", "rename", "prop", "describe", "shared"]))
    listed = doc["tools"]
    if kind == "add" or not listed:
        listed.insert(draw(st.integers(0, len(listed))), draw(tools))
    elif kind == "remove":
        listed.pop(draw(st.integers(0, len(listed) - 1)))
    elif kind == "move":
        listed.insert(
            draw(st.integers(0, len(listed) - 1)), listed.pop(draw(st.integers(0, len(listed) - 1)))
        )
    elif kind == "rename":
        listed[draw(st.integers(0, len(listed) - 1))]["name"] = draw(names)
    elif kind == "prop":
        chosen = listed[draw(st.integers(0, len(listed) - 1))]["inputSchema"]["properties"]
        chosen[draw(st.sampled_from(["q", "extra", "where"]))] = PROPERTIES[draw(st.integers(0, 8))]
    elif kind == "describe":
        chosen = listed[draw(st.integers(0, len(listed) - 1))]["inputSchema"]
        chosen["description"] = draw(st.text('ab é"', max_size=5))
    else:
        doc["$defs"]["Point"]["properties"]["z"] = {"type": draw(st.sampled_from(["number", "string"]))}
    # Tool names must be unique: keep the first of each.
    seen: set[str] = set()
    doc["tools"] = [t for t in listed if not (t["name"] in seen or seen.add(t["name"]))]  # type: ignore[func-returns-value]
    return doc


@contextmanager
def small_groups() -> Iterator[None]:
    """Many groups, so that small toolsets exercise the merge."""
    small = {"GROUP_SPREAD": 2, "GROUP_WEIGHT": 0, "GROUP_MAX": 3}
    saved = {name: getattr(model_groups, name) for name in small}
    for name, value in small.items():
        setattr(model_groups, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(model_groups, name, value)


def checked(folder: Path, doc: dict[str, Any]) -> Toolset:
    path = folder / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = check_toolset(path)
    assert result.toolset is not None, [d.format() for d in result.diagnostics]
    return result.toolset


def first_toolset(data: Any) -> dict[str, Any]:
    """A random toolset of one to six tools using the shared definitions, to start an edit sequence."""
    return {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": copy.deepcopy(SHARED),
        "tools": data.draw(st.lists(tools, min_size=1, max_size=6, unique_by=lambda t: t["name"])),
    }


@pytest.fixture(scope="module")
def workers() -> Iterator[ModelWorkers]:
    """Warm workers that stay across runs, as a `--watch` session keeps them."""
    made = ModelWorkers()
    yield made
    made.close()


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_cached_output_equals_a_cold_run_over_random_edit_sequences(
    tmp_path_factory: Any, data: Any, workers: ModelWorkers
) -> None:
    folder = tmp_path_factory.mktemp("edits")
    store = ModelCache(folder / "cache")
    doc = first_toolset(data)
    with small_groups():
        for _ in range(data.draw(st.integers(1, 4))):
            toolset = checked(folder, doc)
            cold = start_models(toolset, None).result()  # this process alone, no cache
            warm = start_models(toolset, store, ModelFeed(workers, owned=False)).result()  # the workers
            again = start_models(toolset, store).result()  # every group from the cache now
            assert warm.source == cold.source
            assert again.source == cold.source
            assert warm.diagnostics == cold.diagnostics == again.diagnostics
            compile(cold.source, "models.py", "exec")
            doc = data.draw(edit(doc))
    assert workers.alive


def test_cached_generation_writes_the_same_files_as_no_cache(tmp_path: Path) -> None:
    source = ROOT / "examples" / "weather" / "tools.yaml"
    cold = generate(source)
    first = generate(source, cache_dir=tmp_path / "cache")
    second = generate(source, cache_dir=tmp_path / "cache")
    assert cold.ok and first.ok and second.ok
    assert first.ours == cold.ours == second.ours
    assert first.yours == cold.yours
    assert list((tmp_path / "cache").rglob("*.json")), "nothing was cached"


def test_a_corrupted_entry_is_ignored_and_replaced(tmp_path: Path) -> None:
    toolset = checked(
        tmp_path,
        {
            "mcpstub": 1,
            "server": {"name": "s"},
            "$defs": SHARED,
            "tools": [tool("a", {"q": 2}, 4), tool("b", {"n": 5}, None)],
        },
    )
    store = ModelCache(tmp_path / "cache")
    expected = start_models(toolset, store).result().source
    entries = sorted((tmp_path / "cache").rglob("*.json"))
    assert entries
    damages = [
        lambda b: b[:-1] + bytes([b[-1] ^ 1]),  # a flipped bit
        lambda b: b[: len(b) // 2],  # a torn write
        lambda b: b"",  # an empty file
        lambda b: b.replace(b"class ", b"klass "),  # edited text, stale hash
    ]
    for damage in damages:
        for entry in entries:
            entry.write_bytes(damage(entry.read_bytes()))
        assert start_models(toolset, store).result().source == expected
        assert all(store.get(e.stem) is not None for e in entries), "a damaged entry was not rewritten"
    # An intact file stored under another key is not taken for this key.
    entries[0].write_bytes(entries[-1].read_bytes())
    if entries[0] != entries[-1]:
        assert store.get(entries[0].stem) is None


def test_an_unwritable_cache_is_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    toolset = checked(tmp_path, {"mcpstub": 1, "server": {"name": "s"}, "tools": [tool("a", {"q": 0}, None)]})
    assert (
        start_models(toolset, ModelCache(blocker)).result().source
        == start_models(toolset, None).result().source
    )


def test_groups_are_content_defined() -> None:
    made = [checked_tool(f"t{i}") for i in range(60)]
    before = split_groups(made)
    after = split_groups([*made[:30], checked_tool("inserted"), *made[30:]])
    assert [t.name for g in before for t in g] == [t.name for t in made]
    # Inserting a tool changes at most the group it lands in (and perhaps splits it): the rest stay.
    unchanged = {tuple(t.name for t in g) for g in before} & {tuple(t.name for t in g) for g in after}
    assert len(unchanged) >= len(before) - 2
    assert all(len(g) <= model_groups.GROUP_MAX for g in before)


def test_light_tools_make_longer_groups_and_no_group_outweighs_the_bound() -> None:
    light = [checked_tool(f"light{i}") for i in range(300)]
    heavy = [checked_tool(f"heavy{i}", properties=40) for i in range(300)]
    light_groups, heavy_groups = split_groups(light), split_groups(heavy)
    # Fewer generator calls for light tools; bounded work for an edit of heavy ones.
    assert len(light_groups) * 3 < len(heavy_groups)
    for group in light_groups + heavy_groups:
        assert len(group) <= model_groups.GROUP_MAX
        assert sum(model_groups._weight(t) for t in group[:-1]) < model_groups.GROUP_MAX_WEIGHT


def checked_tool(name: str, properties: int = 1) -> Any:
    class Fake:
        pass

    fake = Fake()
    fake.name = name  # type: ignore[attr-defined]
    props = {f"q{k}": {"type": "string"} for k in range(properties)}
    fake.input_schema = {"type": "object", "properties": props}  # type: ignore[attr-defined]
    fake.output_schema = None  # type: ignore[attr-defined]
    fake.shared_def_names = ()  # type: ignore[attr-defined]
    return fake


def test_merge_keeps_identical_definitions_once_and_refuses_clashes() -> None:
    a = "from typing import Literal\n\nfrom pydantic import BaseModel\n\n\nclass A(BaseModel):\n    x: int\n"
    b = "from pydantic import BaseModel, Field\n\n\nclass A(BaseModel):\n    x: int\n\n\n"
    b += "class B(A):\n    y: str\n"
    merged = merge_sources([a, b])
    assert merged.count("class A(") == 1 and "class B(A)" in merged
    assert "from pydantic import BaseModel, Field" in merged and "from typing import Literal" in merged
    compile(merged, "m.py", "exec")
    with pytest.raises(Clash):
        merge_sources([a, "class A(BaseModel):\n    x: str\n"])


def test_a_clash_between_groups_falls_back_to_one_whole_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toolset = checked(
        tmp_path,
        {
            "mcpstub": 1,
            "server": {"name": "s"},
            "$defs": SHARED,
            "tools": [tool("a", {"q": 2}, 4), tool("b", {"n": 5}, None)],
        },
    )

    def clash(_: object) -> str:
        raise Clash("A")

    monkeypatch.setattr(model_groups, "merge_parts", clash)
    assert start_models(toolset, None).result().source == render_models(toolset).source


def test_a_whole_generation_is_kept_by_everything_it_was_made_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Groups that clash are generated as one toolset; that generation is cached like a group's,
    under a key that changes with any tool's or shared definition's schema."""
    tools = [tool("a", {"q": 2}, 4), tool("b", {"n": 5}, None)]
    doc = {"mcpstub": 1, "server": {"name": "s"}, "$defs": SHARED, "tools": tools}
    monkeypatch.setattr(model_groups, "merge_parts", lambda _: (_ for _ in ()).throw(Clash("A")))
    store = ModelCache(tmp_path / "cache")

    def whole(changed: dict[str, Any]) -> str:
        return start_models(checked(tmp_path, changed), store).result().source

    cold = render_models(checked(tmp_path, doc)).source
    assert whole(doc) == cold
    with monkeypatch.context() as patch:  # the second run generates nothing
        patch.setattr(model_groups, "render_models", lambda _: pytest.fail("generated again"))
        assert whole(copy.deepcopy(doc)) == cold
    edits = [
        {**doc, "tools": [tool("a", {"q": 3}, 4), tool("b", {"n": 5}, None)]},
        {**doc, "tools": [tool("a", {"q": 2}, 4), tool("b", {"n": 5}, 1)]},
        {**doc, "$defs": {**SHARED, "Mode": {"type": "string", "enum": ["fast", "slower"]}}},
    ]
    for edited in edits:
        assert whole(edited) == render_models(checked(tmp_path, edited)).source
    # a description is not what models are made of: the entry is reused
    described = {**doc, "tools": [{**tools[0], "description": "other"}, tools[1]]}
    with monkeypatch.context() as patch:
        patch.setattr(model_groups, "render_models", lambda _: pytest.fail("generated again"))
        assert whole(described) == cold


def run_cli(folder: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpstub", "generate", "tools.json", "--out", "pkg", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_cache_location_flags_and_concurrent_runs(tmp_path: Path) -> None:
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": SHARED,
        "tools": [tool(f"t{i}", {"q": i % 9, "n": (i * 5) % 9}, i % 9) for i in range(16)],
    }
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in {"MCPSTUB_CACHE_DIR", "XDG_CACHE_HOME"}}
    env["HOME"] = str(home)
    runs = []
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "tools.json").write_text(json.dumps(doc), encoding="utf-8")
        runs.append(folder)
    # Two runs at once on an empty cache in the user cache folder.
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "mcpstub", "generate", "tools.json", "--out", "pkg"],
            cwd=f,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for f in runs
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    models = [(f / "pkg" / "models.py").read_text("utf-8") for f in runs]
    assert models[0] == models[1]
    cache = home / ".cache" / "mcpstub"
    assert list(cache.rglob("*.json"))
    assert not list(runs[0].rglob("models-v2")), "the cache is not in the project"
    # --no-cache neither reads nor writes it, and writes the same files.
    other = tmp_path / "elsewhere"
    done = run_cli(runs[0], "--force", "--no-cache", env={**env, "MCPSTUB_CACHE_DIR": str(other)})
    assert done.returncode == 0, done.stderr
    assert not other.exists()
    assert (runs[0] / "pkg" / "models.py").read_text("utf-8") == models[0]
    # MCPSTUB_CACHE_DIR, then [tool.mcpstub] cache_dir.
    done = run_cli(runs[0], "--force", env={**env, "MCPSTUB_CACHE_DIR": str(other)})
    assert done.returncode == 0, done.stderr
    assert list(other.rglob("*.json"))
    (runs[1] / "pyproject.toml").write_text('[tool.mcpstub]\ncache_dir = "../configured"\n', encoding="utf-8")
    done = run_cli(runs[1], "--force", env=env)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "configured").rglob("*.json"))
    assert (runs[1] / "pkg" / "models.py").read_text("utf-8") == models[0]


def test_no_cache_flag_is_accepted_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tools.json").write_text(
        json.dumps({"mcpstub": 1, "server": {"name": "s"}, "tools": [tool("a", {"q": 0}, None)]})
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "c"))
    assert main(["generate", "tools.json", "--out", "pkg", "--no-cache"]) == 0
    assert not (tmp_path / "c").exists()


def test_a_cache_folder_that_is_a_loop_of_symbolic_links_is_a_cache_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tools.json").write_text(
        json.dumps({"mcpstub": 1, "server": {"name": "s"}, "tools": [tool("a", {"q": 0}, None)]})
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c").symlink_to("c")
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "c"))
    assert main(["generate", "tools.json", "--out", "pkg"]) == 0
    assert main(["generate", "tools.json", "--out", "again"]) == 0
    assert (tmp_path / "pkg" / "models.py").read_bytes() == (tmp_path / "again" / "models.py").read_bytes()


def test_no_cache_generates_a_current_package_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A package made from a bad cache entry is current by its stamp: `--no-cache` must make it
    # anew, not answer "up to date" as a plain run does.
    (tmp_path / "tools.json").write_text(
        json.dumps({"mcpstub": 1, "server": {"name": "s"}, "tools": [tool("a", {"q": 0}, None)]})
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "c"))
    assert main(["generate", "tools.json", "--out", "pkg"]) == 0
    assert main(["generate", "tools.json", "--out", "pkg"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert main(["generate", "tools.json", "--out", "pkg", "--no-cache"]) == 0
    said = capsys.readouterr().out
    assert "up to date" not in said and "0 generated files written" in said, said


# Names whose class names start with one another's (`foo`, `foo_input`, `foo_input_bar`) and nested
# objects under properties named like the rest of them, beside shared definitions named so too.
CLASH_WORDS = st.sampled_from(["foo", "input", "output", "bar", "nested"])
clash_names = st.lists(CLASH_WORDS, min_size=1, max_size=3).map("_".join)


@st.composite
def clash_tool(draw: st.DrawFn) -> dict[str, Any]:
    def nested(depth: int) -> dict[str, Any]:
        props: dict[str, Any] = {}
        for name in draw(st.lists(clash_names, min_size=1, max_size=2, unique=True)):
            kind = draw(
                st.sampled_from(["leaf", "object", "array", "any", "shared"] if depth < 2 else ["leaf"])
            )
            if kind == "object":
                props[name] = nested(depth + 1)
            elif kind == "array":
                props[name] = {"type": "array", "items": nested(depth + 1)}
            elif kind == "any":
                props[name] = {"anyOf": [nested(depth + 1), {"type": "null"}]}
            elif kind == "shared":
                props[name] = {"$ref": f"#/$defs/{draw(st.sampled_from(sorted(CLASH_SHARED)))}"}
            else:
                props[name] = {"type": "integer"}
        return {"type": "object", "properties": props}

    entry: dict[str, Any] = {"name": draw(clash_names), "inputSchema": nested(0)}
    if draw(st.booleans()):
        entry["outputSchema"] = nested(0)
    return entry


CLASH_SHARED: dict[str, Any] = {
    "FooInputBar": {"type": "object", "properties": {"input": {"type": "object", "properties": {"q": {}}}}},
    "Foo": {"type": "object", "properties": {"input": {"type": "object", "properties": {"r": {}}}}},
    "BarOutputNested": {"type": "object", "properties": {"s": {"type": "string"}}},
}


def _definitions(source: str) -> dict[tuple[str, ...], str]:
    return {names: text for kind, names, text in split_source(source) if kind in {"class", "alias"}}


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_clashing_class_names_are_the_same_cached_grouped_and_in_one_call(
    tmp_path_factory: Any, data: Any
) -> None:
    folder = tmp_path_factory.mktemp("clash")
    store = ModelCache(folder / "cache")
    listed = data.draw(st.lists(clash_tool(), min_size=2, max_size=6, unique_by=lambda t: t["name"]))
    doc: dict[str, Any] = {"mcpstub": 1, "server": {"name": "s"}, "$defs": CLASH_SHARED, "tools": listed}
    path = folder / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    checked_result = check_toolset(path)
    if checked_result.toolset is None:  # two tool names that are one Python name: refused, located
        assert {d.code for d in checked_result.diagnostics if d.is_error} == {"name-collision"}
        return
    toolset = checked_result.toolset
    whole = render_models(toolset)
    assert [d.format() for d in whole.diagnostics if d.is_error] == []
    with small_groups():
        cold = start_models(toolset, None).result()
        warm = start_models(toolset, store).result()
        again = start_models(toolset, store).result()
    assert warm.source == cold.source == again.source
    assert warm.diagnostics == cold.diagnostics == again.diagnostics
    # However the tools are grouped, each class has one name and one text.
    assert _definitions(cold.source) == _definitions(whole.source)


# Shared definitions of every kind, and every place a tool can refer to one: a stand-in must
# never change what the tools' classes say.
STAND_IN_SHARED: dict[str, Any] = {
    "Plain": {"type": "object", "properties": {"id": {"type": "string"}, "class": {"type": "integer"}}},
    "Parented": {
        "type": "object",
        "properties": {"parent": {"$ref": "#/$defs/Plain"}, "at": {"$ref": "#/$defs/Mode"}},
        "required": ["parent"],
    },
    "Tree": {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}, "v": {"type": "number"}},
    },
    "Nested": {
        "type": "object",
        "properties": {"inner": {"type": "object", "properties": {"a-b": {"type": "boolean"}}}},
        "additionalProperties": False,
    },
    "Defaulted": {"type": "object", "properties": {"n": {"type": "integer"}}, "default": {"n": 1}},
    "Nullable": {"type": ["object", "null"], "properties": {"x": {"type": "string"}}},
    "Mode": {"type": "string", "enum": ["fast", "slow"]},
    "Count": {"type": "integer", "minimum": 1},
    "Pair": {"type": "array", "items": {"$ref": "#/$defs/Plain"}, "maxItems": 2},
    "Either": {"anyOf": [{"$ref": "#/$defs/Plain"}, {"$ref": "#/$defs/Tree"}]},
    "Merged": {"allOf": [{"$ref": "#/$defs/Plain"}, {"properties": {"extra": {"type": "string"}}}]},
    "Open": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Plain"}},
    # A class the generator names otherwise than its key: stands in as an empty class.
    "snake_item": {"type": "object", "properties": {"v": {"type": "integer"}}},
}


def _placed(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A schema that refers to a shared definition in one of the ways a tool can."""
    ref = {"$ref": f"#/$defs/{name}"}
    return draw(
        st.sampled_from(
            [
                ref,
                {**ref, "description": "with a note"},
                {"type": "array", "items": ref},
                {"anyOf": [ref, {"type": "null"}]},
                {"oneOf": [ref, {"type": "string"}]},
                {"allOf": [ref]},
                {"allOf": [ref, {"properties": {"more": {"type": "integer"}}}]},
                {"type": "object", "additionalProperties": ref},
                {"type": "object", "properties": {"deep": ref}, "required": ["deep"]},
                {"type": "array", "prefixItems": [ref, {"type": "integer"}]},
                {"anyOf": [ref, {"type": "null"}], "default": None},
                {**ref, "default": {"id": "x"}},
                {"not": ref},
                {"oneOf": [ref, {"$ref": "#/$defs/Tree"}], "discriminator": {"propertyName": "id"}},
            ]
        )
    )


@st.composite
def stand_in_tool(draw: st.DrawFn) -> dict[str, Any]:
    def schema() -> dict[str, Any]:
        chosen = st.lists(
            st.sampled_from(["a", "b", "class", "c-d", "json", "default", "enum"]), max_size=3, unique=True
        )
        props = {prop: _placed(draw, draw(st.sampled_from(sorted(STAND_IN_SHARED)))) for prop in draw(chosen)}
        return {"type": "object", "properties": props, "required": sorted(props)[:1]}

    entry: dict[str, Any] = {"name": draw(names), "inputSchema": schema()}
    if draw(st.booleans()):
        entry["outputSchema"] = schema()
    elif draw(st.booleans()):  # an output that is a shared class itself
        entry["outputSchema"] = {"$ref": f"#/$defs/{draw(st.sampled_from(['Plain', 'Parented', 'Tree']))}"}
    return entry


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_stand_ins_for_shared_classes_change_no_byte(tmp_path_factory: Any, data: Any) -> None:
    folder = tmp_path_factory.mktemp("standins")
    listed = data.draw(st.lists(stand_in_tool(), min_size=1, max_size=6, unique_by=lambda t: t["name"]))
    doc = {"mcpstub": 1, "server": {"name": "s"}, "$defs": STAND_IN_SHARED, "tools": listed}
    path = folder / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    checked_result = check_toolset(path)
    if checked_result.toolset is None:  # two tool names that are one Python name: refused
        assert {d.code for d in checked_result.diagnostics if d.is_error} == {"name-collision"}
        return
    toolset = checked_result.toolset
    saved = model_groups.STAND_INS
    try:
        with small_groups():
            model_groups.STAND_INS = False
            whole = start_models(toolset, None).result()
            model_groups.STAND_INS = True
            standing = start_models(toolset, None).result()
    finally:
        model_groups.STAND_INS = saved
    # A group's classes may come in another order (the generator sorts them by what they refer
    # to); every statement is the same, and the module still runs.
    assert _statements(standing.source) == _statements(whole.source)
    assert standing.diagnostics == whole.diagnostics
    exec(compile(standing.source, "models.py", "exec"), {})


# Names of keywords, as property names: a walk that takes every key for a keyword misreads them.
KEYWORD_NAMES = [
    "default", "const", "enum", "examples", "example", "discriminator", "allOf", "anyOf", "$ref",
    "properties", "items", "additionalProperties", "not", "nullable", "customTypePath", "type",
    "format", "readOnly", "deprecated", "title", "description", "$defs", "definitions", "required",
    "$dynamicRef", "$recursiveRef", "$dynamicAnchor", "$recursiveAnchor",
]  # fmt: skip


@pytest.mark.parametrize("name", KEYWORD_NAMES)
def test_a_property_named_like_a_keyword_refers_to_its_definition_s_class(tmp_path: Path, name: str) -> None:
    ref = {"$ref": "#/$defs/City"}
    shared = {"City": {"type": "object", "properties": {"name": {"type": "string"}}}}
    properties = {
        name: ref,
        "list": {"type": "array", "items": ref},
        "nested": {"type": "object", "properties": {name: ref}},
    }
    tools = [
        {"name": "a", "inputSchema": {"type": "object", "properties": properties},
         "outputSchema": {"type": "object", "properties": {name: {"type": "array", "items": ref}}}},
        *({"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"c": ref}}} for i in range(6)),
    ]  # fmt: skip
    toolset = checked(tmp_path, {"mcpstub": 1, "server": {"name": "s"}, "$defs": shared, "tools": tools})
    with small_groups():
        source = start_models(toolset, None).result().source
    module = types.ModuleType(f"keyword_named_{len(name)}_{abs(hash(name))}")
    sys.modules[module.__name__] = module  # deferred builds resolve names in the module
    exec(compile(source, "models.py", "exec"), module.__dict__)

    def wire(made: Any, key: str) -> Any:
        return next(
            getattr(made, f) for f, info in type(made).model_fields.items() if (info.alias or f) == key
        )

    made = module.AInput.model_validate({name: {"name": "x"}, "list": [{"name": "y"}], "nested": {name: {}}})
    city = module.City
    assert isinstance(wire(made, name), city)
    assert isinstance(wire(made, "list")[0], city)
    assert isinstance(wire(wire(made, "nested"), name), city)
    assert isinstance(wire(module.AOutput.model_validate({name: [{"name": "x"}]}), name)[0], city)


def test_groups_import_the_shared_classes_they_only_name(tmp_path: Path) -> None:
    shared = {f"Entity{k}": {"type": "object", "properties": {"id": {"type": "string"}}} for k in range(8)}
    listed = {"type": "array", "items": {"$ref": "#/$defs/Entity7"}}

    def schema(i: int) -> dict[str, Any]:
        return {"type": "object", "properties": {"a": {"$ref": f"#/$defs/Entity{i % 8}"}, "b": listed}}

    tools = [{"name": f"t{i}", "inputSchema": schema(i)} for i in range(12)]
    toolset = checked(tmp_path, {"mcpstub": 1, "server": {"name": "s"}, "$defs": shared, "tools": tools})
    units, _ = model_groups._units(toolset)
    group = render_models(units[1].toolset)
    # The group's tools name shared classes: imported from the stand-in module, not generated.
    assert f"from {STAND_IN_MODULE} import" in group.source
    assert "class Entity" not in group.source and "arbitrary_types_allowed" not in group.source
    with small_groups():
        merged = start_models(toolset, None).result().source
    assert STAND_IN_MODULE not in merged and "arbitrary_types_allowed" not in merged
    assert all(merged.count(f"class Entity{k}(BaseModel):") == 1 for k in range(8))
    exec(compile(merged, "models.py", "exec"), {})


def test_a_name_a_group_imports_must_be_defined_by_another() -> None:
    group = [("from", ("Entity",), STAND_IN_MODULE), ("class", ("Tool",), "class Tool:\n    e: Entity")]
    with pytest.raises(Clash):  # then the toolset is generated in one call
        merge_parts([group])
    shared = [("class", ("Entity",), "class Entity:\n    pass")]
    merged = merge_parts([shared, group])
    assert STAND_IN_MODULE not in merged
    exec(compile(merged, "models.py", "exec"), {})


def _statements(source: str) -> tuple[list[Any], dict[tuple[str, ...], str], set[str]]:
    parts = split_source(source)
    imports = [(kind, names, text) for kind, names, text in parts if kind in {"from", "import"}]
    return imports, _definitions(source), {text for kind, _, text in parts if kind == "other"}


@pytest.mark.parametrize("argv", [["generate"], ["generate", "--check"], ["validate"]])
def test_a_command_pauses_the_cycle_collector_and_turns_it_on_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """A run's own objects hold no cycles, and the command pauses the collector while it reads,
    checks and writes (the stages do not touch it); called as a function, it is on again after."""
    import gc  # noqa: PLC0415

    doc = {"mcpstub": 1, "server": {"name": "s"}, "tools": [
        {"name": f"t{i}", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}
        for i in range(3)
    ]}  # fmt: skip
    (tmp_path / "tools.json").write_text(json.dumps(doc))
    paused: list[bool] = []
    real = pipeline.check_document

    def spy(*args: Any, **kwargs: Any) -> Any:
        paused.append(not gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "check_document", spy)
    assert gc.isenabled()
    out = ["--out", str(tmp_path / "pkg"), "--no-cache"] if argv[0] == "generate" else []
    if "--check" in argv:
        assert main(["generate", str(tmp_path / "tools.json"), *out]) == 0
    assert main([*argv, str(tmp_path / "tools.json"), *out]) == 0
    assert paused and all(paused)
    assert gc.isenabled()
    paused.clear()
    assert pipeline.check_toolset(tmp_path / "tools.json").ok  # a stage alone leaves it as it is
    assert paused == [False]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=12))
def test_another_file_s_definition_of_any_name_is_a_typed_class(tmp_path_factory: Any, name: str) -> None:
    # Its name is the bundled definition's only where models can read it (`a/b` became `Any`).
    folder = tmp_path_factory.mktemp("named")
    (folder / "common.json").write_text(
        json.dumps({"$defs": {name: {"type": "string", "maxLength": 4}}}), "utf-8"
    )
    pointer = urllib.parse.quote(name.replace("~", "~0").replace("/", "~1"), safe="")
    properties = {"p": {"$ref": f"common.json#/$defs/{pointer}"}, "q": {"$ref": "#/$defs/a_b"}}
    toolset = checked(
        folder,
        {"mcpstub": 1, "server": {"name": "s"}, "$defs": {"a_b": {"type": "integer"}},
         "tools": [{"name": "t", "inputSchema": {"type": "object", "properties": properties}}]},
    )  # fmt: skip
    module = types.ModuleType(f"named_{abs(hash(name))}")
    sys.modules[module.__name__] = module
    exec(compile(start_models(toolset, None).result().source, "models.py", "exec"), module.__dict__)
    assert module.TInput.model_validate({"p": "abcd", "q": 1}).p == "abcd"
    for wrong in ({"p": "abcde"}, {"p": 1}, {"q": "1"}):
        with pytest.raises(ValidationError):
            module.TInput.model_validate(wrong)
