"""Every SMS answer, the receipt and the PIN code fit one segment (160 GSM-7 septets) whatever names, numbers and
amounts they carry; the fixed answers are listed with their length in docs/ussd-sms.md."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from unionflow.notifications.gsm import SMS_MAX, septets, un_sms
from unionflow.paiements.encaissement.emission import sms_recu
from unionflow.sms import textes
from unionflow.sms.service import mot_cle
from unionflow.ussd.ecrans import Situation, sms_code_pin

noms = st.text(min_size=1, max_size=300)
montants = st.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), places=2)
jours = st.dates(min_value=date(2000, 1, 1), max_value=date(2999, 12, 31))
instants = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2999, 1, 1), timezones=st.just(UTC))
FIXES = {"AIDE": textes.AIDE, "INCONNU": textes.INCONNU, "MOT_INCONNU": textes.MOT_INCONNU,
         "PLUSIEURS": textes.PLUSIEURS, "RECU_SANS_NUMERO": textes.RECU_SANS_NUMERO,
         "RECU_INTROUVABLE": textes.RECU_INTROUVABLE, "STOP": textes.STOP, "START": textes.START}


def un_segment(texte: str) -> str:
    longueur = septets(texte)
    assert longueur is not None and longueur <= SMS_MAX, (longueur, texte)
    return texte


def test_fixed_answers_and_their_documented_lengths():
    doc = (Path(__file__).parents[2] / "docs" / "ussd-sms.md").read_text(encoding="utf-8")
    for nom, texte in FIXES.items():
        un_segment(texte)
        assert f"| `{texte}` | {len(texte)} |" in doc, nom


@settings(deadline=None, print_blob=True)
@given(noms, montants, st.integers(0, 10_000), st.none() | jours, montants, montants)
def test_balance(organisation, doit, retard, prochaine, credit, solde):
    un_segment(textes.solde(organisation, Situation(doit, retard, prochaine, credit, solde)))


@settings(deadline=None, print_blob=True)
@given(noms, st.booleans(), st.sampled_from(["VALIDE", "ANNULE", "REMBOURSE"]), montants, instants, noms)
def test_receipt_verification(numero, valide, statut, montant, quand, organisation):
    un_segment(textes.verification(numero, valide, statut, montant, quand, organisation))


@settings(deadline=None, print_blob=True)
@given(noms, noms, noms, noms, noms)
def test_receipt_by_sms(numero, montant, methode, quand, organisation):
    un_segment(sms_recu(numero[:40], montant[:30], methode[:20], quand[:10], organisation))


@settings(deadline=None, print_blob=True)
@given(st.from_regex(r"[0-9]{6}", fullmatch=True), st.integers(1, 1440))
def test_pin_code(code, minutes):
    texte = un_segment(sms_code_pin(code, minutes))
    assert code in texte


@settings(deadline=None, print_blob=True)
@given(st.text(max_size=2000))
def test_the_last_guard_cuts_anything_to_one_segment(texte):
    un_segment(un_sms(texte))


def test_keywords_ignore_case_accents_and_punctuation():
    assert mot_cle("reçu REC-MJ-2026-000012") == ("RECU", ["REC-MJ-2026-000012"])
    assert mot_cle("  Solde! ") == ("SOLDE", [])
    assert mot_cle("stop.") == ("STOP", [])
    assert mot_cle("") == ("INCONNU", [])
    assert mot_cle("bonjour") == ("INCONNU", [])
    assert re.fullmatch(r"[A-Z]+", mot_cle("aide")[0])
