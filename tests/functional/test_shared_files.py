"""A definition in a second file is shared as one written in the toolset: one class, used by every
tool that refers to it (directly or through a shared definition), returnable by their handlers;
its patterns are left to the validator."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest
from mcp import Client

from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_shared_files"

COMMON = """\
$defs:
  User:
    type: object
    properties:
      login: {type: string, pattern: "^(?!admin$)[a-z]+$"}
      home: {$ref: "#/$defs/Address"}
    required: [login]
  Address: {type: object, properties: {city: {type: string}}, required: [city]}
  Tag: {type: string, pattern: "^(?=x)[a-z]+$"}
  Issue: {type: object, properties: {other: {type: boolean}}}
  odd.name: {type: object, properties: {n: {type: integer}}}
"""

TOOLSET = """\
mcpstub: 1
server: {name: files}
$defs:
  Issue:
    type: object
    properties:
      id: {type: integer}
      title: {type: string}
      assignee: {$ref: "common.yaml#/$defs/User"}
    required: [id, title]
tools:
  - name: get_issue
    inputSchema: {type: object, properties: {id: {type: integer}}, required: [id]}
    outputSchema: {$ref: "#/$defs/Issue"}
  - name: list_issues
    inputSchema:
      type: object
      properties: {tag: {$ref: "common.yaml#/$defs/Tag"}}
    outputSchema:
      type: object
      properties:
        items: {type: array, items: {$ref: "#/$defs/Issue"}}
        owner: {$ref: "common.yaml#/$defs/User"}
        other: {$ref: "common.yaml#/$defs/Issue"}
        odd: {$ref: "common.yaml#/$defs/odd.name"}
      required: [items]
  - name: whoami
    inputSchema: {type: object, properties: {login: {type: string}}, required: [login]}
    outputSchema: {$ref: "common.yaml#/$defs/User"}
  # The second file's Issue before the toolset's own: each is still its one shared class.
  - name: triage
    inputSchema:
      type: object
      properties: {other: {$ref: "common.yaml#/$defs/Issue"}, issue: {$ref: "#/$defs/Issue"}}
"""

HANDLERS = {
    "get_issue": """\
from __future__ import annotations

from ..models import Address, GetIssueInput, GetIssueOutput, Issue, User
from ..results import GetIssueResult
from ..server import ToolContext


async def get_issue(args: GetIssueInput, ctx: ToolContext) -> GetIssueOutput | GetIssueResult:
    owner = User(login="bob", home=Address(city="Oslo"))
    return Issue(id=args.id, title="first", assignee=owner)
""",
    "list_issues": """\
from __future__ import annotations

from pydantic import MISSING

from ..models import Issue, ListIssuesInput, ListIssuesOutput, User
from ..results import ListIssuesResult
from ..server import ToolContext


async def list_issues(args: ListIssuesInput, ctx: ToolContext) -> ListIssuesOutput | ListIssuesResult:
    tag = "none" if args.tag is MISSING else args.tag
    owner = User(login="ann")
    return ListIssuesOutput(items=[Issue(id=1, title=tag, assignee=owner)], owner=owner)
""",
    "whoami": """\
from __future__ import annotations

from ..models import User, WhoamiInput, WhoamiOutput
from ..results import WhoamiResult
from ..server import ToolContext


async def whoami(args: WhoamiInput, ctx: ToolContext) -> WhoamiOutput | WhoamiResult:
    return User(login=args.login)
""",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("files")
    (root / "common.yaml").write_text(COMMON, encoding="utf-8")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    for name, text in HANDLERS.items():
        (folder / "handlers" / f"{name}.py").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_each_definition_is_one_class_whichever_file_it_is_written_in(pkg: ModuleType) -> None:
    models = importlib.import_module(f"{pkg.__name__}.models")
    source = Path(models.__file__).read_text("utf-8")
    assert models.GetIssueOutput is models.Issue and models.WhoamiOutput is models.User
    fields = models.ListIssuesOutput.model_fields
    assert fields["items"].annotation == list[models.Issue]
    assert models.User in fields["owner"].annotation.__args__
    assert models.User in models.Issue.model_fields["assignee"].annotation.__args__
    assert models.Address in models.User.model_fields["home"].annotation.__args__
    # the second file's `Issue` is a class of its own, named apart from the toolset's
    assert models.Issue2 in fields["other"].annotation.__args__
    assert set(models.Issue2.model_fields) == {"other"}
    # no copies per tool: each class is written once
    for name in ("User", "Address", "Issue", "Issue2"):
        assert source.count(f"class {name}(") == 1
    assert "OutputUser" not in source and "OutputIssue" not in source and "OutputAddress" not in source
    triage = models.TriageInput.model_fields  # (the second file's first: both were copies per tool)
    assert models.Issue2 in triage["other"].annotation.__args__
    assert models.Issue in triage["issue"].annotation.__args__
    assert "TriageInputOther" not in source and "TriageInputIssue" not in source


def test_patterns_of_a_second_file_are_left_to_the_validator(pkg: ModuleType) -> None:
    models = importlib.import_module(f"{pkg.__name__}.models")
    source = Path(models.__file__).read_text("utf-8")
    assert "pattern" not in source and "regex_engine" not in source
    assert models.User(login="admin").login == "admin"  # the model is never stricter than the schema


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_handlers_return_the_shared_classes_and_the_schema_still_rules(
    pkg: ModuleType, mode: str | None
) -> None:
    options = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(), **options) as client:  # type: ignore[arg-type]
        got = await client.call_tool("get_issue", {"id": 7})
        listed = await client.call_tool("list_issues", {"tag": "xyz"})
        me = await client.call_tool("whoami", {"login": "eve"})
        bad_tag = await client.call_tool("list_issues", {"tag": "abc"})  # the lookahead refuses it
        admin = await client.call_tool("whoami", {"login": "admin"})  # an output the schema refuses
    assert got.structured_content == {
        "id": 7, "title": "first", "assignee": {"login": "bob", "home": {"city": "Oslo"}}
    }  # fmt: skip
    assert not listed.is_error and listed.structured_content is not None
    assert listed.structured_content["items"][0]["title"] == "xyz"
    assert me.structured_content == {"login": "eve"}
    assert bad_tag.is_error and "tag" in bad_tag.content[0].text  # type: ignore[union-attr]
    assert admin.is_error and admin.structured_content is None
    assert "output did not match the declared schema" in admin.content[0].text  # type: ignore[union-attr]


def test_package_passes_mypy_strict(root: Path, mypy_strict: MypyRun) -> None:
    done = mypy_strict(PACKAGE, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_copy_numbered_in_one_tool_takes_no_other_file_s_shared_name(tmp_path: Path) -> None:
    # Item is the toolset's, Item2 common.yaml's, Item3 other.yaml's. Tool `t2` holds an Item2 of
    # its own, so common's Item is a copy there: numbered Item3, it made other's a copy too.
    (tmp_path / "common.yaml").write_text("$defs: {Item: {type: object, properties: {c: {type: string}}}}\n")
    (tmp_path / "other.yaml").write_text("$defs: {Item: {type: object, properties: {o: {type: string}}}}\n")
    own = {"Item2": {"type": "object", "properties": {"t": {"type": "string"}}}}
    toolset = {"mcpstub": 1, "server": {"name": "s"}, "$defs": {"Item": {"type": "string"}}, "tools": [
        {"name": "t0", "inputSchema": {"type": "object", "properties": {
            "a": {"$ref": "common.yaml#/$defs/Item"}, "z": {"$ref": "other.yaml#/$defs/Item"}}}},
        {"name": "t1", "inputSchema": {"type": "object", "properties": {"i": {"$ref": "#/$defs/Item"}}}},
        {"name": "t2", "inputSchema": {"type": "object", "$defs": own, "properties": {
            "own": {"$ref": "#/$defs/Item2"}, "c": {"$ref": "common.yaml#/$defs/Item"},
            "z": {"$ref": "other.yaml#/$defs/Item"}}}},
    ]}  # fmt: skip
    folder, _ = write_package(tmp_path, "fx_three_items", json.dumps(toolset))
    with imported(tmp_path, "fx_three_items") as package:
        models = importlib.import_module(f"{package.__name__}.models")
        assert set(models.Item3.model_fields) == {"o"}
        assert models.Item3 in models.T0Input.model_fields["z"].annotation.__args__
        assert models.Item3 in models.T2Input.model_fields["z"].annotation.__args__
    assert (folder / "models.py").read_text("utf-8").count("o: StrictStr") == 1  # one class for it


@pytest.mark.parametrize(
    ("own", "other"),
    [("tools.yaml#/$defs/Person", "../tools.yaml#/$defs/Person"),
     ("./tools.yaml#/$defs/Person", "./../tools.yaml#/$defs/Person")],
)  # fmt: skip
def test_the_toolset_named_by_its_file_is_the_toolset_one_class_each(
    tmp_path: Path, own: str, other: str
) -> None:
    # A definition named through the toolset's own file name (from the toolset, or from a file it
    # refers to: moved back from common.yaml, say) is the one `#/$defs/...` names, not a second copy
    # (a `Person2` its handlers could not return where `Person` was given).
    (tmp_path / "sub").mkdir()
    common = f"$defs:\n  Note: {{type: object, properties: {{by: {{$ref: '{other}'}}}}, required: [by]}}\n"
    (tmp_path / "sub" / "common.yaml").write_text(common)
    toolset = f"""\
mcpstub: 1
server: {{name: s}}
$defs:
  Person: {{type: object, properties: {{name: {{type: string}}}}, required: [name]}}
tools:
  - name: make
    inputSchema: {{type: object, properties: {{who: {{$ref: "#/$defs/Person"}}}}, required: [who]}}
    outputSchema:
      type: object
      properties: {{p: {{$ref: "{own}"}}, n: {{$ref: "sub/common.yaml#/$defs/Note"}}}}
      required: [p, n]
"""
    folder, _ = write_package(tmp_path, "fx_self_named", toolset)
    (folder / "handlers" / "make.py").write_text(
        "from ..models import MakeInput, MakeOutput, Note\n\n\n"
        "async def make(args: MakeInput, ctx: object) -> MakeOutput:\n"
        "    return MakeOutput(p=args.who, n=Note(by=args.who))\n"
    )
    assert "Person2" not in (folder / "models.py").read_text("utf-8")
    with imported(tmp_path, "fx_self_named") as package:
        output = package.TOOLS["make"].output_schema
        assert list(output["$defs"]) == ["Person", "Note"]
        assert output["properties"]["p"] == {"$ref": "#/$defs/Person"}

        async def call() -> None:
            async with Client(package.create_server()) as client:
                result = await client.call_tool("make", {"who": {"name": "Ada"}})
            assert result.structured_content == {"p": {"name": "Ada"}, "n": {"by": {"name": "Ada"}}}

        anyio.run(call)


def test_a_warning_of_a_definition_of_another_file_is_said_where_that_file_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two files each define a `Never` no model can take (one is shared as Never2); each warning
    # names its own file and line, on the run that generates and on the one that finds it current.
    from mcpstub.cli import main  # noqa: PLC0415

    (tmp_path / "schemas").mkdir()
    never = "  Never: {allOf: [{type: string}, false]}\n"
    (tmp_path / "schemas" / "a.yaml").write_text("$defs:\n  Other: {type: string}\n" + never)
    (tmp_path / "b.yaml").write_text("$defs:\n" + never)
    (tmp_path / "tools.yaml").write_text(
        "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: t\n    inputSchema:\n      type: object\n"
        '      properties: {a: {$ref: "schemas/a.yaml#/$defs/Never"}, b: {$ref: "b.yaml#/$defs/Never"}}\n'
    )
    for _ in range(2):
        assert main(["generate", str(tmp_path / "tools.yaml"), "--out", str(tmp_path / "pkg")]) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "[models-fallback]" in line]
        places = sorted(line.split(": warning: ")[0].removeprefix(f"{tmp_path}/") for line in said)
        assert places == ["b.yaml:2:3", "schemas/a.yaml:3:3"], said
