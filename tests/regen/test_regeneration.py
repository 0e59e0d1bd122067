"""Regeneration: user code survives every run, and the tree always equals a fresh generation."""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from mcpstub.cli import main
from mcpstub.layout import STAGED_NAME
from mcpstub.write import is_generated

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
    {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    },
    {"type": "object", "properties": {"mode": {"enum": ["a", "b"]}, "x": {"$ref": "#/$defs/Point"}}},
]
OUTPUTS: list[dict[str, Any] | None] = [
    None,
    {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/Point"}}}},
]
POINT = {
    "type": "object",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
}


def write_toolset(path: Path, tools: dict[str, tuple[int, int]]) -> None:
    entries = []
    for name, (schema, output) in tools.items():
        entry: dict[str, Any] = {"name": name, "description": f"Tool {name}.", "inputSchema": SCHEMAS[schema]}
        if OUTPUTS[output] is not None:
            entry["outputSchema"] = OUTPUTS[output]
        entries.append(entry)
    doc = {"mcpstub": 1, "server": {"name": "regen"}, "$defs": {"Point": POINT}, "tools": entries}
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def generated_files(root: Path) -> dict[str, str]:
    return {k: v for k, v in tree(root).items() if is_generated(v)}


def fresh(toolset: Path, scratch: Path) -> dict[str, str]:
    out = scratch / "pkg"
    if out.exists():
        for p in sorted(out.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0, err
    return generated_files(out)


def user_code(name: str, version: int) -> str:
    header = f"# hand-written handler for {name}, version {version}\n"
    return header + f"async def {name}(args, ctx):\n    return None\n"


def test_add_rename_remove_change_keep_user_code(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "proj" / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (1, 0)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    mine = {f"handlers/{n}.py": user_code(n, 1) for n in ("alpha", "beta")}
    for rel, text in mine.items():
        (out / rel).write_text(text)

    write_toolset(toolset, {"alpha": (0, 1), "beta": (1, 0), "gamma": (2, 2)})  # add
    code, _, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0
    assert "handlers/gamma.py" in tree(out)
    write_toolset(toolset, {"alpha": (0, 1), "beta_two": (1, 0), "gamma": (2, 2)})  # rename
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0
    assert "handlers/beta.py" in err and "orphaned" in err
    # The tool with the same schemas is named, with the move that keeps the code.
    assert "hint: tool 'beta_two' is probably its tool renamed" in err
    # Not a git repository: a plain move (git mv would fail on an untracked file).
    source, target = err.split(": mv -f ", 1)[1].split(" (over the new stub)")[0].split(" ")
    assert Path(source).resolve() == (out / "handlers/beta.py").resolve()
    assert Path(target).resolve() == (out / "handlers/beta_two.py").resolve() and Path(target).is_file()
    write_toolset(toolset, {"beta_two": (1, 0), "gamma": (2, 2)})  # remove
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0
    assert err.count("(orphaned)") == 2 and err.count("then delete each") == 1  # one hint for all
    before = (out / "models.py").read_text()
    write_toolset(toolset, {"beta_two": (2, 1), "gamma": (2, 2)})  # change a schema
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    assert (out / "models.py").read_text() != before

    files = tree(out)
    for rel, text in mine.items():
        assert files[rel] == text  # byte-identical, even for tools that are gone
    assert generated_files(out) == fresh(toolset, tmp_path / "scratch")


def test_the_rename_hint_is_said_on_every_run_until_the_move_is_made(tmp_path: Path) -> None:
    # Said only by the run that renamed, it was lost to a user who missed it: the next runs, up to
    # date or not, said only "orphaned".
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"stats": (0, 1), "other": (1, 0)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    (out / "handlers/stats.py").write_text(user_code("stats", 1))
    write_toolset(toolset, {"statistics": (0, 1), "other": (1, 0)})
    hint = "hint: tool 'statistics' is probably its tool renamed; to keep your code: mv -f "
    for more in ([], [], ["--force"]):  # the run that renames, one up to date, one forced
        code, _, err = run("generate", str(toolset), "--out", str(out), *more)
        assert code == 0 and hint in err, (more, err)
    write_toolset(toolset, {"statistics": (0, 1), "other": (2, 2)})  # another change: still said
    assert hint in run("generate", str(toolset), "--out", str(out))[2]
    (out / "handlers/stats.py").replace(out / "handlers/statistics.py")  # the move made
    for more in ([], ["--force"]):
        code, _, err = run("generate", str(toolset), "--out", str(out), *more)
        assert code == 0 and "renamed" not in err and "orphaned" not in err, err


def test_the_surfaces_are_read_for_renames_only_where_a_handler_has_no_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading the last surface and the new one costs (39 MB at 500 `shared` tools): not on a run
    # whose handlers all have tools, helpers of the user's own (`_data.py`) and `__init__.py` beside.
    from mcpstub import handlerfiles  # noqa: PLC0415

    read: list[Path] = []
    renames = handlerfiles._renamed_handlers
    spy = lambda out, ours: read.append(out) or renames(out, ours)  # noqa: E731
    monkeypatch.setattr(handlerfiles, "_renamed_handlers", spy)
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    (out / "handlers/_data.py").write_text("X = 1\n")
    write_toolset(toolset, {"alpha": (1, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    assert read == []
    write_toolset(toolset, {"beta": (1, 1)})  # alpha's handler has no tool now
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    assert read == [out]


def test_a_rename_hint_never_moves_a_file_over_a_handler_that_has_code(tmp_path: Path) -> None:
    # Renamed, then renamed back: the handler of the name come back holds the user's code, and the
    # one left behind is an untouched stub. Moving it "over the new stub" would lose the code.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"wave": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    (out / "handlers/wave.py").write_text(user_code("wave", 1))
    write_toolset(toolset, {"wave_two": (0, 1)})
    assert "(over the new stub)" in run("generate", str(toolset), "--out", str(out))[2]
    write_toolset(toolset, {"wave": (0, 1)})
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "handlers/wave_two.py: warning: handler has no tool in the toolset (orphaned)" in err
    assert "mv" not in err and "(over the new stub)" not in err
    said = "hint: tool 'wave' is probably its tool renamed, whose handler "
    assert said in err and "has code: keep what you need of " in err
    assert (out / "handlers/wave.py").read_text() == user_code("wave", 1)


def test_no_rename_is_guessed_where_two_tools_have_the_schemas(tmp_path: Path) -> None:
    # Followed, two hints moving two handlers over one new stub would lose the first one's code.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"ping": (0, 0), "wave": (0, 0)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    write_toolset(toolset, {"ping_two": (0, 0)})
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and err.count("(orphaned)") == 2
    assert "mv" not in err and "renamed" not in err and "then delete each" in err


def test_a_renamed_tool_whose_handler_git_tracks_is_moved_with_git(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (1, 0)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    committer = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "-A"], [*committer, "commit", "-qm", "v1"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    write_toolset(toolset, {"alpha": (0, 1), "beta_two": (1, 0)})
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and ": git mv -f " in err, err
    source, target = err.split(": git mv -f ", 1)[1].split(" (over the new stub)")[0].split(" ")
    move = ["git", "mv", "-f", source, target]
    moved = subprocess.run(move, cwd=tmp_path, capture_output=True, check=False)
    assert moved.returncode == 0, moved.stderr


def test_check_and_diff(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    code, _, err = run("generate", str(toolset), "--out", str(out), "--check")
    assert code == 1 and "missing" in err
    assert not out.exists()  # --check writes nothing
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    code, outp, _ = run("generate", str(toolset), "--out", str(out), "--check")
    assert code == 0 and "up to date" in outp

    write_toolset(toolset, {"alpha": (1, 1)})
    snapshot = tree(out)
    code, _, err = run("generate", str(toolset), "--out", str(out), "--check")
    assert code == 1 and "models.py: stale" in err
    code, diff, _ = run("generate", str(toolset), "--out", str(out), "--diff")
    assert code == 1 and "pkg/models.py\n" in diff and "+++ b/" in diff
    assert tree(out) == snapshot  # neither wrote anything

    (out / "tools.py").unlink()
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    assert run("generate", str(toolset), "--out", str(out), "--check")[0] == 0

    (out / "server.py").write_text("# my own server\n")
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 1
    assert "server.py" in err and "not generated by mcpstub" in err
    assert (out / "server.py").read_text() == "# my own server\n"


def test_output_is_identical_across_hash_seeds(tmp_path: Path) -> None:
    toolset = tmp_path / "tools.yaml"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (1, 2), "gamma": (2, 0)})
    trees = []
    for seed in ("0", "1", "12345"):
        out = tmp_path / f"run{seed}" / "pkg"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-m", "mcpstub", "generate", "tools.yaml", "--out", str(out)],
            cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        trees.append(tree(out))
    assert trees[0] == trees[1] == trees[2]
    text = "".join(trees[0].values())
    assert str(tmp_path) not in text  # no absolute paths


NAMES = st.sampled_from(["alpha", "beta", "gamma", "delta", "epsilon"])


class RegenerationMachine(RuleBasedStateMachine):
    """Random edit/regenerate cycles with user code in every handler."""

    def __init__(self) -> None:
        super().__init__()
        import tempfile  # noqa: PLC0415

        self.dir = Path(tempfile.mkdtemp(prefix="mcpstub-regen-"))
        self.toolset = self.dir / "tools.yaml"
        self.out = self.dir / "pkg"
        self.tools: dict[str, tuple[int, int]] = {"alpha": (0, 0)}
        self.user: dict[str, str] = {}
        self.version = 0
        self.regenerate()

    def teardown(self) -> None:
        import shutil  # noqa: PLC0415

        shutil.rmtree(self.dir, ignore_errors=True)  # (each example's folder: none is left in /tmp)

    def regenerate(self) -> None:
        write_toolset(self.toolset, self.tools)
        code, _, err = run("generate", str(self.toolset), "--out", str(self.out))
        assert code == 0, err

    @rule(name=NAMES, schema=st.integers(0, 2), output=st.integers(0, 2))
    def add_or_change(self, name: str, schema: int, output: int) -> None:
        self.tools[name] = (schema, output)
        self.regenerate()

    @precondition(lambda self: len(self.tools) > 1)
    @rule(data=st.data())
    def remove(self, data: st.DataObject) -> None:
        del self.tools[data.draw(st.sampled_from(sorted(self.tools)))]
        self.regenerate()

    @rule(data=st.data(), new=NAMES)
    def rename(self, data: st.DataObject, new: str) -> None:
        old = data.draw(st.sampled_from(sorted(self.tools)))
        if new not in self.tools:
            self.tools[new] = self.tools.pop(old)
            self.regenerate()

    @rule(data=st.data())
    def edit_handler(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.tools)))
        self.version += 1
        rel = f"handlers/{name}.py"
        self.user[rel] = user_code(name, self.version)
        (self.out / rel).write_text(self.user[rel])

    @invariant()
    def user_code_survives_and_tree_is_fresh(self) -> None:
        files = tree(self.out)
        for rel, text in self.user.items():
            assert files[rel] == text
        for name in self.tools:
            assert f"handlers/{name}.py" in files
        assert generated_files(self.out) == fresh(self.toolset, self.dir / "scratch")


TestRegenerationMachine = RegenerationMachine.TestCase
TestRegenerationMachine.settings = settings(
    max_examples=int(os.environ.get("MCPSTUB_REGEN_EXAMPLES", "10")),
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_fast_path_skips_only_when_nothing_changed(tmp_path: Path) -> None:
    from mcpstub import render  # noqa: PLC0415
    from mcpstub.engine import stamp  # noqa: PLC0415

    assert stamp.OURS_FILES == render.OURS_FILES
    assert stamp.CONTRACT_TESTS == render.CONTRACT_TESTS
    (tmp_path / "common.yaml").write_text("$defs:\n  Tag: {type: string}\n")
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    toolset.write_text(
        "mcpstub: 1\nserver: {name: fast}\ntools:\n"
        "  - name: alpha\n"
        "    inputSchema: {type: object, properties: {t: {$ref: 'common.yaml#/$defs/Tag'}}}\n"
    )
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "toolset unchanged" in msg

    (tmp_path / "common.yaml").write_text("$defs:\n  Tag: {type: integer}\n")  # a referenced file changes
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "toolset unchanged" not in msg
    assert "\nTag: TypeAlias = _Integral\n" in (out / "models.py").read_text()  # the file's, shared

    (out / "results.py").unlink()  # a generated file goes missing
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "toolset unchanged" not in msg and (out / "results.py").exists()


@pytest.mark.parametrize("saved", ["tools.yaml", "common.yaml"])
def test_a_save_while_a_run_checks_is_not_taken_for_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, saved: str
) -> None:
    """The stamp holds the hash of the bytes the run parsed: a save of the toolset, or of a file
    it references, after they were read is seen by the next run, not called up to date."""
    from mcpstub import validate  # noqa: PLC0415

    (tmp_path / "common.yaml").write_text("$defs:\n  Tag: {type: string}\n")
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    before = (
        "mcpstub: 1\nserver: {name: first}\ntools:\n"
        "  - name: alpha\n"
        "    inputSchema: {type: object, properties: {t: {$ref: 'common.yaml#/$defs/Tag'}}}\n"
    )
    after = {
        "tools.yaml": before.replace("first", "second"),
        "common.yaml": "$defs:\n  Tag: {type: integer}\n",
    }
    toolset.write_text(before)
    real = validate.check_document

    def check_then_save(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        (tmp_path / saved).write_text(after[saved])  # a save lands while the run goes on
        return result

    monkeypatch.setattr(validate, "check_document", check_then_save)
    monkeypatch.setattr("mcpstub.pipeline.check_document", check_then_save)
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    monkeypatch.undo()
    assert "first" in (out / "server.py").read_text()  # what was read
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "toolset unchanged" not in msg
    if saved == "tools.yaml":
        assert "second" in (out / "server.py").read_text()
    else:
        assert "\nTag: TypeAlias = _Integral\n" in (out / "models.py").read_text()  # the file's, shared
    assert "toolset unchanged" in run("generate", str(toolset), "--out", str(out))[1]


def mtimes(root: Path) -> dict[str, int]:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in files}


def age(root: Path) -> None:
    """Set every file's mtime well into the past, so that any rewrite shows."""
    for p in root.rglob("*"):
        if p.is_file():
            os.utime(p, ns=(1_000_000_000, 1_000_000_000))


def test_a_description_change_rewrites_only_the_files_it_changes(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    before = tree(out)
    age(out)
    toolset.write_text(toolset.read_text().replace("Tool alpha.", "Tool alpha, described anew."))
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "2 generated files written" in msg
    after = tree(out)
    changed = {rel for rel in after if after[rel] != before.get(rel)}
    assert changed == {"tools.py"}  # of the Python files; surface.json holds the new digest
    touched = {rel for rel, mtime in mtimes(out).items() if mtime != 1_000_000_000}
    assert touched == {"tools.py", "surface.json", "_mcpstub.json"}  # the hash lives in the stamp only


@pytest.mark.parametrize("force", [False, True])
def test_a_no_op_regeneration_changes_no_byte_and_no_mtime(tmp_path: Path, force: bool) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2)})
    assert run("generate", str(toolset), "--out", str(out), "--emit-tests")[0] == 0
    age(out)
    before = {p: (out / p).read_bytes() for p in mtimes(out)}
    code, msg, _ = run("generate", str(toolset), "--out", str(out), "--emit-tests", *(["--force"] * force))
    assert code == 0 and ("0 generated files written" in msg if force else "toolset unchanged" in msg)
    assert set(mtimes(out).values()) == {1_000_000_000}
    assert {p: (out / p).read_bytes() for p in mtimes(out)} == before


def _edit_models(out: Path) -> None:
    path = out / "models.py"
    path.write_text(path.read_text() + "\nTAMPERED = 1\n")  # header kept: still "ours"


def _corrupt_stamp(out: Path) -> None:
    (out / "_mcpstub.json").write_text('{\n  "generator": "mcpstub", "broken')


def _interrupted(out: Path) -> None:
    (out / ".mcpstub-writing").write_text("")
    (out / "handlers" / ".alpha.py.0123abcd.mcpstub-tmp").write_text("half")


def _old_files_left(out: Path) -> None:
    # A run killed after it removed its marker, as it removed the old files (its backups).
    (out / ".tools.py.fffffff-0123abcd.mcpstub-tmp").write_text("old")
    (out / "handlers" / ".__init__.py.fffffff-4567cdef.mcpstub-tmp").write_text("old")


REPAIRS = {
    "interrupted run": _interrupted,
    "old files left": _old_files_left,
    "deleted stub": lambda out: (out / "handlers" / "alpha.py").unlink(),
    "deleted handlers/__init__.py": lambda out: (out / "handlers" / "__init__.py").unlink(),
    "deleted generated file": lambda out: (out / "server.py").unlink(),
    "edited generated file": _edit_models,
    "deleted stamp": lambda out: (out / "_mcpstub.json").unlink(),
    "corrupt stamp": _corrupt_stamp,
    "deleted contract tests": lambda out: (out / "test_contract.py").unlink(),
}


@pytest.mark.parametrize("damage", list(REPAIRS))
def test_a_plain_run_repairs_what_the_fast_path_would_miss(tmp_path: Path, damage: str) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2)})
    assert run("generate", str(toolset), "--out", str(out), "--emit-tests")[0] == 0
    before = {p: (out / p).read_bytes() for p in mtimes(out)}
    REPAIRS[damage](out)
    if damage not in {"deleted stamp", "corrupt stamp"}:
        assert run("generate", str(toolset), "--out", str(out), "--emit-tests", "--check")[0] == 1
    code, msg, err = run("generate", str(toolset), "--out", str(out), "--emit-tests")
    assert code == 0, err
    assert "toolset unchanged" not in msg
    assert {p: (out / p).read_bytes() for p in mtimes(out)} == before
    code, msg, _ = run("generate", str(toolset), "--out", str(out), "--emit-tests", "--check")
    assert code == 0 and "up to date" in msg
    code, msg, _ = run("generate", str(toolset), "--out", str(out), "--emit-tests")
    assert code == 0 and "toolset unchanged" in msg  # and the fast path is back


def test_the_orphan_warning_repeats_on_every_run(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    write_toolset(toolset, {"alpha": (0, 1)})
    for attempt in range(3):  # a full run, then fast-path runs
        code, msg, err = run("generate", str(toolset), "--out", str(out))
        assert code == 0
        assert ("toolset unchanged" in msg) == (attempt > 0)
        assert f"{out / 'handlers' / 'beta.py'}: warning: handler has no tool in the toolset" in err
        assert "a helper module of yours is never reported if its name starts with '_'" in err
    (out / "handlers" / "beta.py").rename(out / "handlers" / "_beta_helpers.py")
    assert "orphaned" not in run("generate", str(toolset), "--out", str(out))[2]


def _git(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo, input=stdin, capture_output=True, text=True, check=False,
    )  # fmt: skip


def _in(cwd: Path, *args: str) -> tuple[int, str, str]:
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        return run(*args)
    finally:
        os.chdir(previous)


@pytest.mark.parametrize("where", ["root", "toolset folder", "package", "outside"])
def test_diff_applies_with_git_apply_from_the_repository_root(tmp_path: Path, where: str) -> None:
    repo = tmp_path / "repo"
    (repo / "spec").mkdir(parents=True)
    assert _git(repo, "init", "-q").returncode == 0
    toolset, out = repo / "spec" / "tools.yaml", repo / "src" / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2)})
    assert run("generate", str(toolset), "--out", str(out), "--emit-tests")[0] == 0
    assert _git(repo, "add", "-A").returncode == 0
    assert _git(repo, "commit", "-qm", "base").returncode == 0

    write_toolset(toolset, {"alpha": (1, 1), "gamma": (0, 0)})  # changed, new stub, orphan
    (out / "results.py").write_text((out / "results.py").read_text() + "# no newline at the end")
    (out / "handlers" / "__init__.py").unlink()
    cwd = {"root": repo, "toolset folder": repo / "spec", "package": out, "outside": tmp_path}[where]
    rel_toolset, rel_out = os.path.relpath(toolset, cwd), os.path.relpath(out, cwd)
    code, diff, err = _in(cwd, "generate", rel_toolset, "--out", rel_out, "--diff")  # tests dropped too
    assert code == 1, err
    assert "+++ b/src/pkg/models.py" in diff and "--- a/src/pkg/test_contract.py" in diff
    assert "+++ b/src/pkg/handlers/gamma.py" in diff
    applied = _git(repo, "apply", "--check", "-", stdin=diff)
    assert applied.returncode == 0, applied.stderr + diff
    assert _git(repo, "apply", "-", stdin=diff).returncode == 0
    code, _, err = _in(cwd, "generate", rel_toolset, "--out", rel_out, "--check")
    assert code == 0, err  # the diff applied is exactly the regeneration
    stamp = (out / "_mcpstub.json").read_bytes()  # the stamp too: a run after it writes nothing
    assert _in(cwd, "generate", rel_toolset, "--out", rel_out)[0] == 0
    assert (out / "_mcpstub.json").read_bytes() == stamp


@pytest.mark.parametrize("folder", ["src", "src dir", "q\"uote", "tab\tand\\back", "ünï"])
def test_a_diff_applied_makes_a_new_package_whole_empty_files_too(tmp_path: Path, folder: str) -> None:
    # A new package's diff held no py.typed (an empty file has no lines to add): `--check` then
    # said it was missing, and the next run made it.
    repo = tmp_path / "repo"
    repo.mkdir()
    assert _git(repo, "init", "-q").returncode == 0
    toolset, out = repo / "tools.yaml", repo / folder / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    code, diff, err = _in(repo, "generate", "tools.yaml", "--out", f"{folder}/pkg", "--diff")
    assert code == 1, err
    applied = _git(repo, "apply", "-", stdin=diff)
    assert applied.returncode == 0, applied.stderr + diff
    assert (out / "py.typed").read_bytes() == b""
    code, _, err = _in(repo, "generate", "tools.yaml", "--out", f"{folder}/pkg", "--check")
    assert code == 0, err


@pytest.mark.parametrize("style", ["crlf", "mixed", "cr", "some cr", "last cr"])
def test_diff_applies_to_a_checkout_with_other_line_endings(tmp_path: Path, style: str) -> None:
    """A checkout with CRLF line endings (git's autocrlf) is up to date for --check; --diff's
    output applies to its bytes (`git apply`, `patch`) and keeps each file one style. So does
    one with old Mac line endings (a bare CR), which a patch sees as one line."""
    repo = tmp_path / "repo"
    repo.mkdir()
    assert _git(repo, "init", "-q").returncode == 0
    assert _git(repo, "config", "core.autocrlf", "false").returncode == 0
    toolset, out = repo / "tools.yaml", repo / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    ending, odd = {
        "crlf": (b"\r\n", b"\r\n"),
        "mixed": (b"\r\n", b"\n"),
        "cr": (b"\r", b"\r"),
        "some cr": (b"\n", b"\r"),
        "last cr": (b"\n", b"\n"),
    }[style]
    for path in out.rglob("*"):
        if path.is_file():
            lines = path.read_bytes().split(b"\n")
            # every line so, or (a file edited on two systems) all but one in ten
            path.write_bytes(
                b"".join(
                    line + (odd if i % 10 == 3 and lines[i + 1] else ending)  # (a CR then LF is one ending)
                    for i, line in enumerate(lines[:-1])
                )
                + lines[-1]
            )
            if style == "last cr" and path.read_bytes().endswith(b"\n"):  # the last line alone ends in CR
                path.write_bytes(path.read_bytes()[:-1] + b"\r")
    assert run("generate", str(toolset), "--out", str(out), "--check")[0] == 0
    assert _git(repo, "add", "-A").returncode == 0
    assert _git(repo, "commit", "-qm", "base").returncode == 0

    write_toolset(toolset, {"alpha": (1, 1), "beta": (2, 2), "gamma": (0, 0)})  # gamma: after the last line
    code, diff, err = _in(repo, "generate", "tools.yaml", "--out", "pkg", "--diff")
    assert code == 1 and "+++ b/pkg/models.py" in diff, err
    patch = ["patch", "-p1", "--dry-run", "--binary"]
    dry = subprocess.run(patch, cwd=repo, input=diff.encode(), capture_output=True, check=False)
    assert dry.returncode == 0, dry.stdout.decode() + dry.stderr.decode()
    applied = _git(repo, "apply", "--check", "-", stdin=diff)
    assert applied.returncode == 0, applied.stderr
    assert _git(repo, "apply", "-", stdin=diff).returncode == 0
    assert _in(repo, "generate", "tools.yaml", "--out", "pkg", "--check")[0] == 0
    models = (out / "models.py").read_bytes()
    crlf, lf = models.count(b"\r\n"), models.count(b"\n")
    if style in {"crlf", "mixed"}:
        assert crlf > 10 and (crlf == lf if style == "crlf" else crlf > 0.8 * lf)  # the style it had


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_generated_files_follow_the_umask_and_keep_a_mode_the_user_set(tmp_path: Path, umask: int) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    previous = os.umask(umask)
    try:
        assert run("generate", str(toolset), "--out", str(out))[0] == 0
        modes = {p: stat.S_IMODE((out / p).stat().st_mode) for p in mtimes(out)}
        assert set(modes.values()) == {0o666 & ~umask}, modes
        (out / "tools.py").chmod(0o444)
        (out / "handlers" / "alpha.py").chmod(0o600)
        toolset.write_text(toolset.read_text().replace("Tool alpha.", "Tool alpha, again."))
        code, msg, _ = run("generate", str(toolset), "--out", str(out))
        assert code == 0 and "2 generated files written" in msg  # tools.py and surface.json
    finally:
        os.umask(previous)
    assert "again" in (out / "tools.py").read_text()
    assert stat.S_IMODE((out / "tools.py").stat().st_mode) == 0o444
    assert stat.S_IMODE((out / "handlers" / "alpha.py").stat().st_mode) == 0o600
    assert stat.S_IMODE((out / "models.py").stat().st_mode) == 0o666 & ~umask


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root, hidden ones too, but no bytecode caches."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


# Imports `pkg` from each folder given, in one process (the libraries it needs load once), and
# prints a line per folder: "loaded", or the error the import raised.
IMPORT_EACH = """\
import importlib, sys
for folder in sys.argv[1:]:
    for name in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
        del sys.modules[name]
    sys.path.insert(0, folder)
    importlib.invalidate_caches()
    try:
        importlib.import_module("pkg")
        print("loaded")
    except Exception as exc:
        print(" ".join(f"{type(exc).__name__}: {exc}".split()))
    sys.path.remove(folder)
"""


def test_a_kill_at_any_point_of_a_write_leaves_a_tree_that_is_whole_or_refuses_to_load(
    tmp_path: Path,
) -> None:
    toolset, base, work = tmp_path / "tools.yaml", tmp_path / "base", tmp_path / "work"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (1, 0)})
    assert run("generate", str(toolset), "--out", str(base / "pkg"), "--emit-tests")[0] == 0
    (base / "pkg" / "handlers" / "alpha.py").write_text(user_code("alpha", 1))
    old = snapshot(base / "pkg")
    # Nearly every file changes, a stub is created, the contract tests are removed.
    write_toolset(toolset, {"alpha": (1, 2), "gamma": (2, 2)})
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "tests.regen.kill_harness", str(toolset), str(base), str(work)],
        cwd=root, capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    points = int(done.stdout.split()[-1])
    new = snapshot(work / "0" / "pkg")
    assert new != old and ".mcpstub-writing" not in new
    assert points > 2 * len(set(new) ^ set(old))  # a point before and after each file operation
    seen = set()
    marked = [
        str(work / str(k))
        for k in range(1, points + 1)
        if (work / str(k) / "pkg" / ".mcpstub-writing").exists()
    ]
    loaded = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH, *marked], capture_output=True, text=True, check=False, timeout=600
    )
    assert loaded.returncode == 0, loaded.stderr
    import_errors = dict(zip(marked, loaded.stdout.splitlines(), strict=True))
    for k in range(1, points + 1):
        pkg = work / str(k) / "pkg"
        if (pkg / ".mcpstub-writing").exists():
            error = import_errors[str(pkg.parent)]
            assert error != "loaded", f"point {k}: a half-written package loaded"
            assert "did not finish writing this package" in error, error
            assert "run `mcpstub generate` again" in error
            seen.add("refused")
        else:
            state = snapshot(pkg)
            # After the marker, the run removes the old files: a kill then leaves the new tree and
            # hidden backups, which the next run removes (checked below).
            whole = {rel: b for rel, b in state.items() if not re.fullmatch(STAGED_NAME, Path(rel).name)}
            assert whole in (old, new), f"point {k}: neither the old tree nor the new one, and it loads"
            assert whole in (state, new), f"point {k}: backups left beside the old tree"
            seen.add("old" if whole == old else "new" if whole == state else "new, old files left")
        code, _, err = run("generate", str(toolset), "--out", str(pkg))  # a plain run repairs it
        assert code == 0, err
        assert snapshot(pkg) == new, f"point {k}: not repaired"
    # The package's last point is the removal of the marker; a kill after it, while the run removes
    # the old files or stores what serves the next one (its pieces, in the cache), leaves the new tree.
    left = "new, old files left"
    assert {"old", "refused", left} <= seen <= {"old", "refused", "new", left}


def test_the_report_counts_one_stub_per_tool_and_names_what_it_removed(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (2, 2), "gamma": (1, 0)})
    code, msg, _ = run("generate", str(toolset), "--out", str(out), "--emit-tests")
    assert code == 0 and msg.endswith(", 3 handler stubs created\n")  # handlers/__init__.py is no stub
    assert "removed" not in msg
    generated = int(msg.split(": ", 1)[1].split(" ", 1)[0])  # test_contract.py among them
    (out / "handlers" / "beta.py").unlink()
    code, msg, _ = run("generate", str(toolset), "--out", str(out))  # emit_tests off: the tests go
    assert code == 0 and not (out / "test_contract.py").exists()
    removed, summary = msg.splitlines()
    assert removed.endswith(
        "test_contract.py: removed (no longer generated: written only with --emit-tests or"
        " emit_tests = true in [tool.mcpstub], unless --no-emit-tests)"
    )
    assert summary.endswith(f": 0 generated files written, {generated - 1} unchanged, 1 handler stub created")
    code, msg, _ = run("generate", str(toolset), "--out", str(out), "--force")
    assert code == 0 and "removed" not in msg and msg.endswith(", 0 handler stubs created\n")
    # A comment edited: no generated file changes, the stamp (what was read) does, and is said;
    # --check and --diff hold the package current (docs/command-line.md).
    toolset.write_text(toolset.read_text() + "# a note\n")
    assert run("generate", str(toolset), "--out", str(out), "--check")[0] == 0
    assert run("generate", str(toolset), "--out", str(out), "--diff")[1].endswith(": up to date\n")
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    said = "0 generated files written, 9 unchanged, 0 handler stubs created (_mcpstub.json updated: it"
    assert code == 0 and msg.endswith(said + " records the toolset read)\n"), msg


def test_the_type_marker_is_created_when_missing_and_a_projects_own_is_kept(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    assert (out / "py.typed").read_bytes() == b""  # PEP 561: the package's types are read
    (out / "py.typed").write_text("partial\n")  # the project's own marker
    assert run("generate", str(toolset), "--out", str(out), "--check")[0] == 0
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    assert (out / "py.typed").read_text() == "partial\n"
    (out / "py.typed").unlink()
    code, _, err = run("generate", str(toolset), "--out", str(out), "--check")
    assert code == 1 and "py.typed: missing" in err
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and msg.endswith("0 handler stubs created; py.typed created again\n"), msg
    assert (out / "py.typed").exists()
    (out / "py.typed").unlink()
    (out / "handlers" / "__init__.py").unlink()
    code, msg, _ = run("generate", str(toolset), "--out", str(out))
    assert msg.endswith("0 handler stubs created; handlers/__init__.py and py.typed created again\n"), msg


def test_a_stub_left_as_written_for_an_earlier_form_of_its_tool_is_said(tmp_path: Path) -> None:
    # Stubs are never rewritten: one that imports a model the tool no longer has fails every call
    # until it is deleted (a new stub is then written); one with a note of its user is said too
    # (a comment is no code); one with code is said to import a model its tool no longer has.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (0, 1), "gamma": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    noted = (out / "handlers" / "beta.py").read_text("utf-8") + "    # to do: call the API\n"
    (out / "handlers" / "beta.py").write_text(noted, "utf-8")
    gamma = (out / "handlers" / "gamma.py").read_text("utf-8")
    (out / "handlers" / "gamma.py").write_text(
        gamma.replace("    raise NotImplementedError", "    x = 1\n    raise NotImplementedError"), "utf-8"
    )
    write_toolset(toolset, {"alpha": (0, 0), "beta": (0, 0), "gamma": (0, 0)})  # no output schema any more
    code, _, err = run("generate", str(toolset), "--out", str(out))
    hint = "  hint: delete it and run again for the current stub (it holds no code; keep any note of yours)"
    said = "warning: still a stub, written for an earlier form of its tool: not the one it gets now"
    assert code == 0 and err.splitlines() == [
        f"{out / 'handlers' / 'gamma.py'}:3:34: warning: imports GammaOutput from models.py, which no"
        " longer defines it",
        "  hint: its tool's form changed: mend the handler to the classes it has now, GammaInput",
        f"{out / 'handlers' / 'alpha.py'}: {said}",
        hint,
        f"{out / 'handlers' / 'beta.py'}: {said}",
        hint,
        "0 errors, 3 warnings",
    ], err
    (out / "handlers" / "alpha.py").unlink()
    code, msg, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and msg.endswith("1 handler stub created\n") and "alpha" not in err, (msg, err)


STALE = "warning: still a stub, written for an earlier form of its tool: not the one it gets now"


def _stale(err: str) -> list[str]:
    return [Path(line.split(": warning:")[0]).stem for line in err.splitlines() if STALE in line]


def test_a_stub_of_an_earlier_form_is_said_on_every_run_until_it_is_mended(tmp_path: Path) -> None:
    # The run that changes the tool says it, and so does each later one, up to date or not, until
    # it is mended.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    write_toolset(toolset, {"alpha": (0, 0), "beta": (0, 1)})
    assert _stale(run("generate", str(toolset), "--out", str(out))[2]) == ["alpha"]
    code, msg, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "up to date" in msg and _stale(err) == ["alpha"], (msg, err)
    (out / "handlers" / "alpha.py").unlink()
    assert _stale(run("generate", str(toolset), "--out", str(out))[2]) == []
    code, msg, err = run("generate", str(toolset), "--out", str(out))
    assert "up to date" in msg and _stale(err) == []
    # A current stub edited (a note, an import of the user's) is not said, and stays up to date.
    beta = out / "handlers" / "beta.py"
    beta.write_text("import json\n" + beta.read_text("utf-8") + "    # to do\n", "utf-8")
    code, msg, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and "up to date" in msg and _stale(err) == [], (msg, err)


_RETURNED = r"-> (\w+) \| (\w+)"
_IMPORTED = r"from \.\.(models|results) import .+"
# Edits to a current stub that say nothing new of its tool, and edits to an old one that keep it so.
CURRENT_EDITS = {
    "an-import-of-the-user-s": lambda text: "import json\nfrom typing import Any\n" + text,
    "quoted-annotations": lambda text: re.sub(r"(args|ctx): (\w+)", r"\1: '\2'", text),
    "renamed-parameters": lambda text: text.replace("args:", "arguments:").replace("ctx:", "context:"),
    "an-alias": lambda text: text.replace("import ToolContext", "import ToolContext as Ctx").replace(
        "ctx: ToolContext", "ctx: Ctx"
    ),
    "a-docstring": lambda text: text.replace("    raise", '    """Soon."""\n    raise'),
    "called": lambda text: text.replace("raise NotImplementedError", 'raise NotImplementedError("soon")'),
    "a-byte-order-mark": lambda text: "\ufeff" + text,
    "module-qualified": lambda text: re.sub(_IMPORTED, r"from .. import \1", text)
    .replace("args: ", "args: models.")
    .replace("-> ", "-> models.")
    .replace(" | ", " | results."),
    "union-reordered": lambda text: re.sub(_RETURNED, r"-> \2 | \1", text),
    "typing-union": lambda text: "import typing\n" + re.sub(_RETURNED, r"-> typing.Union[\1, \2]", text),
    "each-part-quoted": lambda text: re.sub(_RETURNED, r'-> "\1" | "\2"', text),
}


@pytest.mark.parametrize("edit", sorted(CURRENT_EDITS))
def test_a_stub_is_judged_by_its_signature_however_it_is_written(tmp_path: Path, edit: str) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1), "beta": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    for name in ("alpha", "beta"):
        handler = out / "handlers" / f"{name}.py"
        handler.write_text(CURRENT_EDITS[edit](handler.read_text("utf-8")), "utf-8")
    assert _stale(run("generate", str(toolset), "--out", str(out), "--force")[2]) == []
    write_toolset(toolset, {"alpha": (0, 0), "beta": (0, 1)})  # alpha's stub is of an earlier form now
    assert _stale(run("generate", str(toolset), "--out", str(out))[2]) == ["alpha"]
    assert _stale(run("generate", str(toolset), "--out", str(out))[2]) == ["alpha"]


# Edits that leave the function raising NotImplementedError but put code of the user's in the
# module: deleting the file, as the warning of an old stub advises, would lose it.
CODE_EDITS = {
    "a-decorator": lambda text: "import functools\n" + text.replace(
        "async def", "@functools.lru_cache(maxsize=128)  # my caching\nasync def"
    ),
    "a-default": lambda text: re.sub(r"ctx: (\w+)\)", r"ctx: \1 = DEFAULT)", text),
    "a-computed-message": lambda text: text.replace(
        "raise NotImplementedError", 'raise NotImplementedError(f"soon: {__name__}")'
    ),
    "a-cause": lambda text: text.replace("raise NotImplementedError", "raise NotImplementedError from None"),
}


@pytest.mark.parametrize("edit", sorted(CODE_EDITS))
def test_a_stub_holding_code_of_the_user_s_is_not_said_to_hold_none(tmp_path: Path, edit: str) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    handler = out / "handlers" / "alpha.py"
    edited = CODE_EDITS[edit](handler.read_text("utf-8"))
    assert edited != handler.read_text("utf-8")
    handler.write_text(edited, "utf-8")
    write_toolset(toolset, {"alpha": (0, 0)})  # the stub's form is an earlier one now
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and _stale(err) == [] and "delete it" not in err, err
    assert handler.read_text("utf-8") == edited


def _said(*args: str) -> tuple[int, list[str]]:
    """A run's exit code and its lines as a terminal shows them, both streams in order."""
    both = io.StringIO()
    with contextlib.redirect_stdout(both), contextlib.redirect_stderr(both):
        code = main(list(args))
    return code, both.getvalue().splitlines()


def test_the_count_ends_all_a_run_said(tmp_path: Path) -> None:
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    generate = ("generate", str(toolset), "--out", str(out))
    assert run(*generate)[0] == 0
    (out / "handlers" / "extra.py").write_text("X = 1\n", "utf-8")  # (a handler no tool has: a warning)
    for args, code, last in (
        (generate, 0, "0 errors, 1 warning"),  # (the toolset unchanged: said up to date)
        ((*generate, "--client-only"), 0, "0 errors, 1 warning"),
        (generate, 0, "0 errors, 1 warning"),  # (serves again)
        ((*generate, "--force"), 1, "1 error, 1 warning"),  # (a file in the way, below)
    ):
        if code:
            (out / "results.py").write_text("x = 1\n", "utf-8")
        done, lines = _said(*args)
        assert (done, lines[-1]) == (code, last), lines
        said = [line.split(": ")[1] for line in lines if line.startswith(str(out))]
        assert said.count("warning") == 1 and said.count("error") == code, lines


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_where_a_handler_belongs_is_refused_not_read(tmp_path: Path) -> None:
    # Reading one would wait for a writer forever.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    write_toolset(toolset, {"alpha": (0, 1)})
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    (out / "handlers" / "alpha.py").unlink()
    os.mkfifo(out / "handlers" / "alpha.py")
    command = [sys.executable, "-m", "mcpstub", "generate", str(toolset), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and "refusing to overwrite it" in done.stderr, done.stderr


def test_a_stub_that_asks_or_was_reformatted_is_judged_by_what_it_says_of_its_tool(tmp_path: Path) -> None:
    # A stub's comments (how to ask a form) and its layout do not count; its imports and signature do.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    doc: dict[str, Any] = {
        "mcpstub": 1, "server": {"name": "regen"},
        "tools": [{"name": "ask", "inputSchema": SCHEMAS[0], "elicitations": {"confirm": form}},
                  {"name": "plain", "inputSchema": SCHEMAS[0]}],
    }  # fmt: skip
    toolset.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    plain = out / "handlers" / "plain.py"
    plain.write_text(plain.read_text("utf-8").replace("from __future__ import annotations\n", ""), "utf-8")
    doc["tools"][0]["outputSchema"] = OUTPUTS[1]
    doc["tools"][1]["description"] = "changed"
    toolset.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, _, err = run("generate", str(toolset), "--out", str(out))
    warned = [line.split(": warning:")[0] for line in err.splitlines() if ": warning:" in line]
    assert code == 0 and warned == [
        str(out / "handlers" / "ask.py")
    ], err


def test_a_stub_importing_a_model_class_its_signature_does_not_name_is_told_of_the_class_lost(
    tmp_path: Path,
) -> None:
    # The stub's comment invites importing the form's class: renamed, the import fails as the
    # server starts, and the stub's signature (which the old-stub warning reads) is the same.
    toolset, out = tmp_path / "tools.yaml", tmp_path / "pkg"
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    doc: dict[str, Any] = {
        "mcpstub": 1, "server": {"name": "regen"},
        "tools": [{"name": "ask", "inputSchema": SCHEMAS[0], "elicitations": {"confirm": form}}],
    }  # fmt: skip
    toolset.write_text(yaml.safe_dump(doc, sort_keys=False))
    assert run("generate", str(toolset), "--out", str(out))[0] == 0
    stub = out / "handlers" / "ask.py"
    stub.write_text(re.sub(r"from \.\.models import (\w+)", r"from ..models import AskConfirm, \1",
                           stub.read_text("utf-8")), "utf-8")  # fmt: skip
    assert "AskConfirm" in stub.read_text("utf-8")
    doc["tools"][0]["elicitations"] = {"agree": form}
    toolset.write_text(yaml.safe_dump(doc, sort_keys=False))
    code, _, err = run("generate", str(toolset), "--out", str(out))
    assert code == 0 and f"{stub}:" in err and "imports AskConfirm from models.py" in err, err
