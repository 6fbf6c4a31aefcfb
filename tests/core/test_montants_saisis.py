"""Amounts as people type them (« 2 500 », « 2 500 », « 2500 ») are read by one function, and written one way
(« 40 000 FCFA »): the console with a narrow no-break space, messages with plain spaces."""

from __future__ import annotations

from decimal import Decimal

import pytest

from unionflow.core.errors import InvalidInput
from unionflow.core.montants import format_montant, lire_montant, montant_texte


@pytest.mark.parametrize("texte", ["2500", "2 500", "2\u202f500", "2\u00a0500", " 2 500 FCFA ", "2500,00",
                                   "2500.00", "2\u2009500"])
def test_typed_amounts_are_read(texte):
    assert lire_montant(texte) == Decimal("2500")


@pytest.mark.parametrize("texte", ["", "abc", "0", "-5", "2,555", "1e3", "2.5.0", "12345678901234567"])
def test_what_is_not_a_positive_amount_is_refused_in_french_next_to_its_field(texte):
    with pytest.raises(InvalidInput) as refused:
        lire_montant(texte, "caisse")
    assert refused.value.extra["errors"][0]["field"] == "caisse"


def test_a_counted_balance_may_be_zero_or_negative():
    assert lire_montant("0", positif=False) == 0
    assert lire_montant("-1 250", positif=False) == Decimal("-1250")


def test_amounts_are_written_one_way():
    assert format_montant(Decimal("40000.00"), "XOF", "\u202f") == "40\u202f000\u00a0FCFA"
    assert montant_texte(Decimal("40000.00")) == "40 000 FCFA"
    assert montant_texte(Decimal("2500.50"), "EUR") == "2 500,50 EUR"
