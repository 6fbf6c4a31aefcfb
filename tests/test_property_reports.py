"""Property tests print their failing example in full, so that it can be replayed (issue 21).

The schemathesis pytest plugin, loaded by its entry point in any pytest run of this environment, swaps Hypothesis's
printer for one that prints nothing (``ops=,``); pyproject.toml disables it with ``-p no:schemathesis``.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import core, given, settings
from hypothesis import strategies as st
from hypothesis.vendor import pretty


def test_hypothesis_prints_with_its_own_printer():
    assert core.RepresentationPrinter is pretty.RepresentationPrinter


def test_a_failing_property_prints_its_example_and_the_blob_that_replays_it():
    @settings(max_examples=1, database=None)
    @given(st.just([("creer", 0, "MENSUELLE", Decimal("500"))]))
    def prop(ops):
        raise AssertionError("échec voulu")

    with pytest.raises(AssertionError) as failure:
        prop()
    notes = "\n".join(getattr(failure.value, "__notes__", []))
    assert "ops=[('creer', 0, 'MENSUELLE', Decimal('500'))]" in notes, notes
    assert "@reproduce_failure(" in notes, notes
