"""Spelling: when a name written is another one slipped on the keyboard.

A slip is the name in other case or punctuation, two neighbouring letters swapped, its plural or
singular, its last letter left out, or, in a name of five letters or more, one letter left out,
added or changed: not another word that is close (`count` for `const`), which may be meant.
"""

from __future__ import annotations


def folded(key: str) -> str:
    """`additional_properties`, `Additional-Properties`, `$ref`, `ref` -> one spelling."""
    return key.lower().replace("_", "").replace("-", "").lstrip("$")


def swapped(a: str, b: str) -> bool:
    """True when `a` is `b` with two neighbouring characters exchanged."""
    if len(a) != len(b):
        return False
    differ = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(differ) != 2 or differ[1] != differ[0] + 1:
        return False
    i, j = differ
    return a[i] == b[j] and a[j] == b[i]


def one_slip(written: str, meant: str) -> bool:
    """`written` is `meant` with two neighbouring letters swapped, made plural or singular (`types`,
    `additionalProperty`), cut short by its last letter (`typ`), or (`meant` of five letters or
    more) one letter left out, added or changed."""
    singular = meant[:-3] + "y" if meant.endswith("ies") else ""
    if written in (meant + "s", singular, meant[:-1] * (len(meant) > 3)):
        return True
    if len(written) == len(meant):
        changed = sum(a != b for a, b in zip(written, meant, strict=True))
        return swapped(written, meant) or (changed == 1 and len(meant) >= 5)
    if abs(len(written) - len(meant)) != 1 or len(meant) < 5:
        return False
    short, long = sorted((written, meant), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
