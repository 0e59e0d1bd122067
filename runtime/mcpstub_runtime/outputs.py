"""What a handler returned where models.py declares a model, when it is not one.

A handler answers with the output model (or a type alias over models, for a non-object output).
A plain `dict` standing in for a model is refused the same way at the root and inside a list or
union, with a message that names the model to build; everything else is judged by the output
schema alone.
"""

from __future__ import annotations

import types
import typing
import weakref
from collections.abc import Mapping
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from .spec import ToolSpec

__all__ = ["misfit"]

_NOTHING_TO_CHECK = object()
_TYPES: weakref.WeakKeyDictionary[ToolSpec, Any] = weakref.WeakKeyDictionary()


def misfit(value: Any, spec: ToolSpec) -> str | None:
    """`: <what is wrong>` when `value` has a dict where the output type declares a model."""
    declared = _TYPES.get(spec)
    if declared is None:
        declared = spec.output_type
        declared = _TYPES[spec] = declared if _has_model(declared, 0) else _NOTHING_TO_CHECK
    if declared is _NOTHING_TO_CHECK:
        return None
    if not spec.wraps_output and not isinstance(value, dict):
        result = spec.result_type.__name__
        return (
            f": the handler returned {type(value).__name__}; "
            f"return {spec.output_class}(...) or {result}.ok(...)"
        )
    found = _dict_for_model(value, declared, "")
    if found is None:
        return None
    path, model = found
    name = model.__name__
    where = f" at {path} where {spec.output_class} declares {name}" if path else ""
    return (
        f": the handler returned a dict{where}; return {name}(...) "
        f"({name}.model_validate(value) makes one from a dict)"
    )


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _has_model(annotation: Any, depth: int) -> bool:
    if _is_model(annotation):
        return True
    if depth > 20:
        return False
    return any(_has_model(arg, depth + 1) for arg in get_args(annotation))


def _takes_dict(annotation: Any) -> bool:
    """Whether a plain dict is itself a value of `annotation` (a mapping or Any)."""
    origin = get_origin(annotation) or annotation
    if origin is Annotated:
        return _takes_dict(get_args(annotation)[0])
    if annotation is Any or origin in (dict, Mapping, typing.Mapping):
        return True
    return isinstance(origin, type) and not _is_model(origin) and issubclass(origin, dict)


def _dict_for_model(value: Any, annotation: Any, path: str) -> tuple[str, type] | None:
    """Where (a JSON Pointer) `value` holds a dict that `annotation` declares a model for."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _dict_for_model(value, get_args(annotation)[0], path)
    if _is_model(annotation):
        return (path, annotation) if isinstance(value, dict) else None
    if origin is Union or origin is types.UnionType:
        members = get_args(annotation)
        if isinstance(value, dict):
            if any(_takes_dict(member) for member in members):
                return None
            models = [_bare(m) for m in members if _is_model(_bare(m))]
            return (path, models[0]) if models else None
        found = [
            _dict_for_model(value, member, path)
            for member in members
            if get_origin(_bare(member)) in _SEQUENCES
        ]
        return found[0] if found and None not in found else None
    if origin in _SEQUENCES and isinstance(value, list | tuple | set | frozenset):
        items = [a for a in get_args(annotation) if a is not Ellipsis]
        for index, item in enumerate(value):
            if not items:
                return None
            item_type = items[min(index, len(items) - 1)] if origin is tuple else items[0]
            found_item = _dict_for_model(item, item_type, f"{path}/{index}")
            if found_item is not None:
                return found_item
        return None
    if origin in (dict, Mapping, typing.Mapping) and isinstance(value, dict):
        pair = get_args(annotation)
        for key, item in value.items():
            key_text = str(key).replace("~", "~0").replace("/", "~1")
            found_item = _dict_for_model(item, pair[1] if pair else Any, f"{path}/{key_text}")
            if found_item is not None:
                return found_item
    return None


_SEQUENCES = (list, tuple, set, frozenset)


def _bare(annotation: Any) -> Any:
    """`annotation` without its `Annotated[...]` metadata."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation
