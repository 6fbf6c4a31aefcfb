"""The published money patterns accept exactly what the parser accepts within each bound, so a client (or the
fuzz) that trusts the schema is never surprised: leading zeros are read, "-0" is zero (not negative)."""

from __future__ import annotations

import re

import pytest
from pydantic import Field, ValidationError

from unionflow.core.schemas import (
    MONEY_PATTERN,
    POSITIVE_MONEY_PATTERN,
    InputModel,
    Montant,
    MontantPositif,
    money_pattern,
)


class Montants(InputModel):
    libre: Montant = Field(default=None)
    positif: MontantPositif = Field(default=None)
    non_negatif: Montant = Field(default=None, ge=0)


PATTERNS = {"libre": MONEY_PATTERN, "positif": POSITIVE_MONEY_PATTERN, "non_negatif": money_pattern({"ge": 0})}
VALUES = ["0", "-0", "-0.00", "00000000000000000001", "0000000000000000000.01", "2500", "2500.5", "2500.50",
          "0.1", "0.01", "-1", "-0.01", "1.", ".5", "1.234", "12345678901234567", "9999999999999999.99", "1e3",
          "abc", ""]


@pytest.mark.parametrize("field", sorted(PATTERNS))
def test_pattern_and_parser_agree(field):
    for value in VALUES:
        try:
            Montants.model_validate({field: value})
            accepted = True
        except ValidationError:
            accepted = False
        assert accepted == bool(re.fullmatch(PATTERNS[field], value)), (field, value)


NUMBERS = [0, -0.0, 1, 2500, 2500.5, 0.01, 0.1, -1, -0.01, 1.234, 1e16, 9999999999999999, 1e3, 12.345]


@pytest.mark.parametrize("field", sorted(PATTERNS))
def test_the_number_branch_of_the_input_schema_and_the_parser_agree(field):
    # Issue 21, finding 10: numbers are read, so the input schema states them, with the same bounds.
    alias = Montants.model_fields[field].alias or field
    prop = Montants.model_json_schema(mode="validation")["properties"][alias]
    string, number = prop["oneOf"]
    assert string["type"] == "string" and number["type"] == "number"
    for value in NUMBERS:
        try:
            Montants.model_validate({field: value})
            accepted = True
        except ValidationError:
            accepted = False
        allowed = (round(value * 100) == value * 100 and value < number["exclusiveMaximum"]
                   and value >= number.get("minimum", float("-inf"))
                   and value > number.get("exclusiveMinimum", float("-inf")))
        assert accepted == allowed, (field, value)
    # Answers always carry the string.
    assert Montants.model_json_schema(mode="serialization")["properties"][alias]["type"] == "string"
