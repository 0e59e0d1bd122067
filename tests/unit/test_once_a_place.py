"""Diagnostics said once a place, the gravest reading winning (`OncePerPlace`)."""

from __future__ import annotations

from mcpstub.diagnostics import Diagnostic, Location, error, warning
from mcpstub.once_a_place import OncePerPlace

HERE, THERE = Location("common.yaml", 3, 5), Location("common.yaml", 9, 1)


def said(once: OncePerPlace) -> list[tuple[str, str, int]]:
    return [(d.severity.value, d.code, d.location.line) for d in once.kept()]


def test_a_problem_read_again_at_its_place_is_said_once() -> None:
    once = OncePerPlace([])
    once.add(warning("unknown-format", "a", HERE), "2020-12")
    once.add(warning("unknown-format", "b", HERE), "draft-07")
    once.add(warning("unknown-format", "c", THERE), "draft-07")
    assert said(once) == [("warning", "unknown-format", 3), ("warning", "unknown-format", 9)]


def test_an_error_drops_the_warnings_another_reading_said_at_its_place_only() -> None:
    once = OncePerPlace([])
    once.add(warning("unasserted-format", "w", HERE), "draft-07")  # another reading: dropped
    once.add(warning("unknown-keyword", "k", HERE), "2020-12")  # the same reading: a problem of its own
    once.add(warning("unasserted-format", "w", THERE), "draft-07")  # another place: kept
    once.add(error("invalid-schema", "e", HERE), "2020-12")
    assert said(once) == [
        ("warning", "unknown-keyword", 3),
        ("warning", "unasserted-format", 9),
        ("error", "invalid-schema", 3),
    ]


def test_after_an_error_a_place_says_no_warning_and_no_error_of_the_same_code() -> None:
    once = OncePerPlace([])
    once.add(error("invalid-schema", "e", HERE), "2020-12")
    once.add(warning("unknown-format", "w", HERE), "draft-07")
    once.add(error("invalid-schema", "again", HERE), "draft-07")
    once.add(error("unsupported-dialect", "another", HERE), "draft-07")
    assert said(once) == [("error", "invalid-schema", 3), ("error", "unsupported-dialect", 3)]


def test_what_others_append_or_cut_counts_and_every_error_stays_after_its_length() -> None:
    shared: list[Diagnostic] = []
    once = OncePerPlace(shared)
    shared.append(warning("ref-sibling", "theirs", HERE))  # said by no reading: another's
    shared.append(error("ref-file", "cut", THERE))
    once.add(warning("unknown-format", "w", THERE), "2020-12")  # an error is said there: not said
    del shared[1:]  # (theirs, cut again)
    before = len(shared)
    once.add(warning("unknown-format", "w", THERE), "2020-12")  # (the error there is gone: said)
    once.add(error("invalid-schema", "e", HERE), "2020-12")
    assert len(shared) > before and any(d.is_error for d in shared[before:])
    assert said(once) == [("warning", "unknown-format", 9), ("error", "invalid-schema", 3)]
