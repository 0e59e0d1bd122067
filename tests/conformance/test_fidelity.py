"""Every core, non-remote case of the JSON-Schema-Test-Suite agrees at the tool boundary, or its
schema is refused at build time; never too lax, too strict or altered (see docs/fidelity.md)."""

from __future__ import annotations

import pytest

from tests.conformance import fidelity


@pytest.fixture(scope="module")
def results() -> dict[str, list[fidelity.Outcome]]:
    return fidelity.run_all(list(fidelity.DRAFTS))


@pytest.mark.parametrize("draft", sorted(fidelity.DRAFTS))
def test_every_case_agrees_or_is_refused_at_build_time(
    results: dict[str, list[fidelity.Outcome]], draft: str
) -> None:
    outcomes = results[draft]
    problems = [o for o in outcomes if o.verdict in {"too lax", "too strict", "altered"}]
    assert not problems, "\n".join(fidelity.render_problems(problems))
    # formats are asserted by design: only the suite's "annotation by default" cases differ
    asserted = {o.case.file for o in outcomes if o.verdict == "format asserted"}
    assert asserted <= {"format.json"}
    assert all(o.case.valid for o in outcomes if o.verdict == "format asserted")
    # remote groups are those of refRemote.json or that point at the suite's remote server
    for o in outcomes:
        if o.verdict == "refused":
            assert o.detail, "a refusal names its diagnostic"
    agreed = sum(o.verdict == "agree" for o in outcomes)
    assert agreed > 0.85 * len(outcomes)


def test_the_published_table_is_current(results: dict[str, list[fidelity.Outcome]]) -> None:
    expected = fidelity.render_document(results)
    assert fidelity.DOC.read_text("utf-8") == expected, f"regenerate it: {fidelity.COMMAND}"
