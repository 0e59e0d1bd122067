# ruff: noqa: E501 - the adversarial toolset has long lines on purpose
"""Generated files are black-stable by construction: black (the pinned mode) changes nothing.

Generation does not run black, so every template, literal and the models' layout must write what
black would. `CASES` are the toolsets every generated file of which test_default_lint.py holds to
`black --check` (and ruff and mypy); the tests here hold the layout of single statements to black.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpstub import format as format_module
from mcpstub.format import format_with_black
from tests.functional.test_long_names import TOOLSET as LONG_TOOL_NAMES

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus" / "github.json"

ADVERSARIAL = r"""
mcpstub: 1
server:
  name: "adv \"server\" it's"
  version: "1.0.0-\\beta"
  instructions: "Both 'single' and \"double\" quotes, a backslash \\ and \\n, triple \"\"\" and ''' quotes, unicode é 中文 🌧 \u2028 and a long tail: lorem ipsum dolor sit amet, consectetur adipiscing elit."
$defs:
  Quoted:
    type: string
    description: "He said \"hi\" and 'bye' \\ \"\"\""
    enum: ["it's", "say \"x\"", "both ' and \"", "back\\slash", "tab\there", "中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符"]
tools:
  - name: quotes
    title: "Quotes \"everywhere\""
    description: "It's a \"tool\" with \\ backslashes, \"\"\" triple quotes and a very long description that certainly does not fit on one line."
    inputSchema:
      type: object
      properties:
        single: {type: string, default: "it's"}
        double: {type: string, default: "say \"x\""}
        both: {type: string, default: "it's \"x\""}
        more_double: {type: string, default: "\"a\" \"b\" 'c'"}
        backslash: {type: string, default: "C:\\path\\to\\file", pattern: "^\\d+\\.\\w*$"}
        controls: {type: string, default: "nul \0 bell \a del \x7f nbsp \u00a0 ls \u2028 zw \u200b combining e\u0301"}
        unicode: {type: string, default: "é 中文 🌧", description: "中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字"}
        wide: {type: string, description: "x中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字符中文字"}
        ref: {$ref: "#/$defs/Quoted"}
        numbers: {type: number, default: 1.0e+300, minimum: -1.5e-7, maximum: 1e300}
        big: {type: integer, default: 123456789012345678901234567890}
        empty_obj: {type: object, default: {}}
        empty_list: {type: array, items: {type: string}, default: []}
        mixed_enum: {enum: [1, 2.5, true, null, "x", "it's", "say \"x\""]}
        long_enum:
          type: string
          enum: [alpha_value_one, beta_value_two, gamma_value_three, delta_value_four, epsilon_value_five]
        long_string: {type: string, default: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
        long_list: {type: array, default: [{"a": "a fairly long string value number one", "b": [1, 2, 3]}, {"a": "two"}]}
      required: [single]
    outputSchema:
      type: object
      properties:
        class: {type: string}
        from: {type: integer}
        import: {type: boolean}
        def: {type: array, items: {type: string}}
        None: {type: string}
        "True": {type: string}
        async: {type: string}
        lambda: {type: number}
        "with-dash": {type: string}
        "with space": {type: string}
        "ünïcödé": {type: string}
        "'quoted'": {type: string}
        '"dq"': {type: string}
        "": {type: string}
  - name: deep
    description: ""
    inputSchema:
      type: object
      properties:
        level1:
          type: object
          properties:
            level2:
              type: object
              properties:
                level3:
                  type: array
                  items:
                    type: object
                    properties:
                      level4:
                        type: object
                        properties:
                          level5:
                            type: array
                            items:
                              type: object
                              properties:
                                level6: {type: string, enum: [a_long_enum_value, another_long_enum_value, a_third_value]}
                                level6b: {type: array, items: {type: array, items: {type: array, items: {type: string, enum: [one, two, three, four, five, six, seven, eight, nine, ten, eleven]}}}}
    outputSchema:
      type: object
      properties:
        anything: {}
        nothing: {type: object, properties: {}}
        list_of_objects: {type: array, items: {type: object}}
  - name: a_rather_long_tool_name_that_makes_every_generated_identifier_wide
    description: long name
    inputSchema: {type: object, properties: {x: {type: string}}}
    outputSchema: {type: object, properties: {y: {type: string}}}
  - name: an_even_longer_tool_name_that_makes_every_generated_identifier_really_very_wide_indeed_x
    inputSchema: {type: object, properties: {x: {type: string}}}
    outputSchema: {type: object, properties: {y: {type: string}}}
  - name: an_even_longer_tool_name_that_makes_every_generated_identifier_really_very_wide_indeed_y
    inputSchema: {type: object, properties: {x: {type: string}}}
  - name: empty
    inputSchema: {type: object}
"""


def _written(text: str) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        path = folder / "tools.yaml"
        path.write_text(text, "utf-8")
        return path

    return write


def _corpus(folder: Path) -> Path:
    tools = json.loads(CORPUS.read_text("utf-8"))
    toolset = {"mcpstub": 1, "server": {"name": "github"}, "tools": tools}
    return _written(json.dumps(toolset, ensure_ascii=False))(folder)  # JSON is YAML


# Names long enough that black lays out whole statements differently (a parenthesised annotation,
# `TypeAlias` on a line of its own, a default wrapped in parentheses): every kind of default and
# every shape of annotation behind a long property, shared definition and tool name.
_LONG = "a_really_long_property_name_that_goes_on_and_on_and_on_for_quite_a_while_longer"


def _long_names(folder: Path) -> Path:
    enum = ["value_" + "x" * 100, "short", 'with space and "quote"', "ünïcödé" * 12]
    properties: dict[str, object] = {
        _LONG: {"$ref": "#/$defs/VeryLongSharedDefinitionNameThatKeepsGoingAndGoingForeverAndEver"},
        _LONG + "2": {"type": "array", "items": {"type": "string", "enum": enum}, "default": enum * 2},
        _LONG + "3": {"type": "object", "default": {"k" * 50: ["v" * 60, {"n": 1e300}], "z": None}},
        _LONG + "4": {"$ref": "#/$defs/Lim"},
        _LONG + "5": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": 30},
        _LONG + "6": {"type": "number", "default": 123456789012345678901234567890.5, "minimum": -1e308},
        _LONG + "7": {"type": "integer", "default": 10**40, "maximum": 10**50},
        _LONG + "8": {"$ref": "#/$defs/LongPattern", "default": "alt1"},
        _LONG + "9": {"type": "string", "const": "c" * 120, "default": "c" * 120},
        _LONG + "10": {"type": ["string", "null"], "default": None},
        _LONG + "11": {"$ref": "#/$defs/Obj", "default": {_LONG: "q"}},
        _LONG + "12": {"type": "boolean", "default": True, "description": "d" * 100},
    }
    toolset = {
        "mcpstub": 1,
        "server": {"name": "long"},
        "$defs": {
            "VeryLongSharedDefinitionNameThatKeepsGoingAndGoingForeverAndEver": {
                "type": "string", "enum": enum, "default": enum[0]
            },
            "LongPattern": {"type": "string", "pattern": "^(" + "|".join(f"alt{i}" for i in range(40)) + ")$"},
            "Lim": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "default": 30},
            "Obj": {"type": "object", "properties": {_LONG: {"type": "string", "default": "d" * 200}}},
        },
        "tools": [
            {
                "name": name,
                "inputSchema": {"type": "object", "properties": properties},
                "outputSchema": {"type": "object", "properties": {_LONG: {"$ref": "#/$defs/Obj"}}},
            }
            for name in ["t_" + "very_long_tool_name_" * 3 + "end", "x" * 64, "a", "get-" + "y" * 59]
        ],
    }
    return _written(json.dumps(toolset, ensure_ascii=False))(folder)


def _wide_by_columns(folder: Path) -> Path:
    """Fields too wide only when East Asian characters count two columns (the model generator
    counts characters), with and without defaults, and values ending in a backslash."""
    properties: dict[str, object] = {}
    for n in range(18, 30):
        wide = "中" * n
        properties[f"plain_{n}"] = {"enum": ["b", wide]}
        properties[f"slash_{n}"] = {"enum": ["a\\", wide]}
        properties[f"default_{n}"] = {"enum": ["b", wide], "default": "b"}
        properties[f"nullable_{n}"] = {"enum": ["b", wide, None], "default": None}
    toolset = {
        "mcpstub": 1,
        "server": {"name": "columns"},
        "tools": [{"name": "wide_tool", "inputSchema": {"type": "object", "properties": properties}}],
    }
    path = folder / "columns.json"
    path.write_text(json.dumps(toolset, ensure_ascii=False), "utf-8")
    return path


def _wide_enums(folder: Path) -> Path:
    """Enums too wide for a line, in every place a model holds one (shared, inline, optional, listed)."""
    wide = {"type": "string", "enum": [f"value_{i}" for i in range(40)]}
    properties = {
        "required_enum": wide,
        "optional_enum": wide,
        "defaulted": {**wide, "default": "value_3"},
        "listed": {"type": "array", "items": wide, "default": []},
        "nullable": {"anyOf": [wide, {"type": "null"}], "default": None},
        "shared": {"$ref": "#/$defs/Wide"},
        "shared_optional": {"anyOf": [{"$ref": "#/$defs/Wide"}, {"type": "integer"}]},
        "pattern": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[a-z]{1,20}-[0-9]{1,8}$"},
    }
    toolset = {
        "mcpstub": 1,
        "server": {"name": "enums"},
        "$defs": {"Wide": wide, "WideInt": {"enum": list(range(1000, 1040))}},
        "tools": [
            {
                "name": f"enum_tool_{i}",
                "inputSchema": {"type": "object", "properties": properties, "required": ["required_enum"]},
                "outputSchema": {"type": "object", "properties": {"w": {"$ref": "#/$defs/WideInt"}, **properties}},
            }
            for i in range(3)
        ],
    }
    return _written(json.dumps(toolset))(folder)


def _recursion(folder: Path) -> Path:
    """Recursive definitions of every shape: nullable (`anyOf` with null, a type list with null),
    arrays of arrays, maps, mutual recursion, objects, a tuple, a tool's own root, an output."""
    null = {"type": "null"}

    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/$defs/{name}"}

    defs = {
        "Json": {"anyOf": [{"type": "string"}, null, {"type": "array", "items": ref("Json")}]},
        "NullList": {"type": ["array", "null"], "items": ref("NullList")},
        "NullOnly": {"anyOf": [null, {"type": "array", "items": ref("NullOnly")}]},
        "Value": {"anyOf": [null, {"type": "boolean"}, {"type": "number"}, {"type": "string"},
                            {"type": "array", "items": ref("Value")},
                            {"type": "object", "additionalProperties": ref("Value")}]},
        "Node": {"type": "object", "properties": {"next": {"anyOf": [ref("Node"), null]},
                                                  "kids": {"type": "array", "items": ref("Node")}}},
        "NodeOrNull": {"anyOf": [ref("Node"), null]},
        "Map": {"type": ["object", "null"], "additionalProperties": ref("Map")},
        "A": {"anyOf": [null, {"type": "array", "items": ref("B")}]},
        "B": {"anyOf": [{"type": "integer"}, {"type": "array", "items": ref("A")}]},
        "Grid": {"type": "array", "items": {"type": "array", "items": ref("Grid")}},
        "Deep": {"type": "array", "items": {"type": ["array", "null"], "items": {"anyOf": [null, ref("Deep")]}}},
        "Pair": {"type": "array", "prefixItems": [{"type": "string"}, {"anyOf": [ref("Pair"), null]}]},
        "Choice": {"oneOf": [null, {"type": "object", "properties": {"v": ref("Choice")}, "required": ["v"]}]},
        "Enumish": {"anyOf": [{"enum": ["a", None]}, {"type": "array", "items": ref("Enumish")}]},
        "Union": {"type": "object", "properties": {"u": {"anyOf": [ref("Union"), null, ref("Json")]}}},
        # A union whose branch reaches it again only through an array, an alias chain, a map.
        "Via": {"anyOf": [ref("ViaAlias"), {"type": "string"}]},
        "ViaAlias": ref("ViaArray"),
        "ViaArray": {"type": "array", "items": ref("Via")},
        "Typed": {"type": ["array", "string"], "items": ref("Typed")},
        "MapOrInt": {"oneOf": [{"type": "object", "additionalProperties": ref("MapOrInt")}, {"type": "integer"}]},
        "Items": {"anyOf": [{"type": "array", "items": ref("ItemsAlias")}, {"type": "string"}]},
        "ItemsAlias": ref("Items"),  # an alias of a union, inside the union's own array
    }
    properties: dict[str, object] = {name.lower(): ref(name) for name in defs}
    properties["inline"] = {"anyOf": [null, ref("Json")]}
    properties["defaulted"] = {"anyOf": [null, ref("Json")], "default": None}
    toolset = {
        "mcpstub": 1,
        "server": {"name": "recursion"},
        "$defs": defs,
        "tools": [
            {"name": "all", "inputSchema": {"type": "object", "properties": properties},
             "outputSchema": {"type": "object", "properties": properties}},
            {"name": "value", "inputSchema": {"type": "object"}, "outputSchema": ref("Json")},
            {"name": "own", "inputSchema": {"type": "object", "properties": {
                "self": {"$ref": "#"}, "more": {"type": ["null", "array"], "items": {"$ref": "#"}}}}},
        ],
    }  # fmt: skip
    return _written(json.dumps(toolset))(folder)


def _imported_names(folder: Path) -> Path:
    from mcpstub.classnames import IMPORTED  # noqa: PLC0415
    from tests.unit.test_classnames import imported_names_toolset  # noqa: PLC0415

    return _written(json.dumps(imported_names_toolset(sorted(IMPORTED))))(folder)


def _package_names(folder: Path) -> Path:
    """Tools, and properties holding objects, named like what the generated modules import or
    define (a handler named `annotations` beside `from __future__ import annotations`)."""
    names = [
        "annotations", "ToolContext", "TYPE_CHECKING", "types", "base64", "importlib", "os", "Any",
        "models", "results", "server", "tools", "ToolError", "OutputT", "ToolSpec", "typing",
        "warnings", "json", "Self", "ClassVar", "Generic", "TypeVar", "_clean", "Mapping", "Callable",
        "Awaitable", "MISSING", "logging", "anyio", "Optional", "TypeAliasType", "create_server",
        "create_app", "app", "testing",
    ]  # fmt: skip
    obj = {"type": "object", "properties": {"x": {"type": "string"}}}
    tools = [
        {
            "name": name,
            "inputSchema": {"type": "object", "properties": {name: obj}},
            "outputSchema": {"type": "object", "properties": {name: {"type": "string"}, "o": obj}},
        }
        for name in names
    ]
    return _written(json.dumps({"mcpstub": 1, "server": {"name": "names"}, "tools": tools}))(folder)


def _many_bases(folder: Path) -> Path:
    """Classes with several long-named bases (an `allOf` of a reference, properties and a
    `oneOf`): a header too long for one line, split one base per line."""
    value = {
        "allOf": [
            {"$ref": "#/$defs/one"},
            {"properties": {"b": True}},
            {"oneOf": [{"$ref": "#/$defs/two"}, {"required": ["y"], "properties": {"y": True}}]},
        ],
        "unevaluatedProperties": False,
    }
    schema = {
        "$defs": {"one": {"properties": {"a": True}}, "two": {"required": ["x"], "properties": {"x": True}}},
        "type": "object",
        "properties": {"value": value},
        "required": ["value"],
    }
    tools = [{"name": f"unevaluated_properties_with_{n}_bases", "inputSchema": schema} for n in ("two", "many")]
    return _written(json.dumps({"mcpstub": 1, "server": {"name": "bases"}, "tools": tools}))(folder)


CASES: dict[str, Callable[[Path], Path]] = {
    "weather": lambda _: ROOT / "examples" / "weather" / "tools.yaml",
    "full": lambda _: ROOT / "schemas" / "examples" / "full.yaml",
    **{p.stem: (lambda _, p=p: p) for p in sorted((ROOT / "tests" / "data").glob("*.yaml"))},
    "adversarial": _written(textwrap.dedent(ADVERSARIAL)),
    "github-corpus": _corpus,
    "long-names": _long_names,
    "long-tool-names": _written(LONG_TOOL_NAMES),
    "wide-enums": _wide_enums,
    "wide-by-columns": _wide_by_columns,
    "recursion": _recursion,
    "imported-names": _imported_names,
    "package-names": _package_names,
    "many-bases": _many_bases,
}


def test_generation_does_not_import_black() -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from mcpstub.pipeline import generate\n"
        f"assert generate(Path({str(ROOT / 'schemas' / 'examples' / 'full.yaml')!r})).ok\n"
        "assert 'black' not in sys.modules, 'black was imported'\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)


_PLAIN_TEXT = st.text(
    alphabet=st.sampled_from("abcXYZ019 _-./:'中é"), min_size=0, max_size=24
).map(lambda s: f'"{s}"')
_VALUE = st.one_of(
    _PLAIN_TEXT, st.integers(-(10**15), 10**15).map(str), st.sampled_from(["None", "True", "False"])
)
# Lines as the model generator writes them before the layout, without a default (where black
# may put a default in parentheses of its own, black lays the line out: the `wide-by-columns` case).
_FORMS = (
    "class M(BaseModel):\n    {name}: Literal[{items}]\n",
    "class M(BaseModel):\n    {name}: Literal[{items}] | None\n",
    "class M(BaseModel):\n    {name}: list[Literal[{items}]] | MISSING\n",
    "class M(BaseModel):\n    {name}: dict[str, Literal[{items}]] | None | MISSING\n",
    "{name}: TypeAlias = Literal[{items}]\n",
    "{name}: TypeAlias = list[Literal[{items}] | None]\n",
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    form=st.sampled_from(_FORMS),
    name=st.sampled_from(["a", "a_rather_long_field_name_for_a_model", "中文字段"]),
    items=st.lists(_VALUE, min_size=1, max_size=40),
)
def test_a_literal_of_plain_values_is_laid_out_as_black_would(
    form: str, name: str, items: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """However wide, nested or non-ASCII, a bracket of plain values comes out as black writes
    it, by the layout alone (black itself, the fallback for what the layout leaves, is off)."""
    source = form.format(name=name, items=", ".join(items))
    with monkeypatch.context() as patch:
        patch.setattr(format_module, "_black_statements", lambda text: text)
        laid_out = format_module.format_piece(source)
    assert laid_out == format_with_black(source)


@pytest.mark.parametrize("bases", [["Plain", "B" * 40], ["C" * 90, "D" * 90, "E"]])
def test_a_long_class_header_with_several_bases_has_one_base_a_line(bases: list[str]) -> None:
    """However short the bases, as the model generator lays them out (the grouped and the whole
    generation must agree), and black keeps it (the trailing comma)."""
    name = "A" * 60
    laid_out = format_module.format_piece(f"class {name}({', '.join(bases)}):\n    x: int\n")
    expected = f"class {name}(\n" + "".join(f"    {b},\n" for b in bases) + "):\n    x: int\n"
    assert laid_out == expected
    assert format_with_black(laid_out) == laid_out


_DEFAULTS = st.one_of(
    st.sampled_from(["True", "False", "None", "MISSING", "Color.red", "0", "1.5", "1e+20", "[]", "{}", "-1"]),
    st.integers(-(10**6), 10**12).map(str),
    _PLAIN_TEXT,
    st.text(alphabet="ab\"'\\", max_size=6).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    indent=st.sampled_from(["", "    "]),
    name=st.text(alphabet="abcxyz_", min_size=1, max_size=30).filter(str.isidentifier),
    described=st.text(alphabet="abc xyz.,é", min_size=0, max_size=70),
    kind=st.sampled_from(["StrictBool", "StrictStr | MISSING", "list[StrictInt]", "Literal['a', 'b']"]),
    default=_DEFAULTS,
)
def test_a_field_with_a_default_too_long_for_its_line_is_laid_out_as_black_would(
    indent: str, name: str, described: str, kind: str, default: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`name: Annotated[T, Field(...)] = default` just over the line: black puts the default in
    parentheses of its own when the head fits, else splits the annotation; the layout agrees
    without black (which it leaves the rest to)."""
    line = f'{indent}{name}: Annotated[{kind}, Field(description="{described}")] = {default}'
    source = ("class M(BaseModel):\n" if indent else "") + line + "\n"
    with monkeypatch.context() as patch:
        patch.setattr(format_module, "_black_statements", lambda text: text)
        laid_out = format_module.format_piece(source)
    if laid_out.count("\n") != source.count("\n") or format_module.text_width(line) <= 88:
        assert laid_out == format_with_black(laid_out)
        assert laid_out == format_with_black(source)
