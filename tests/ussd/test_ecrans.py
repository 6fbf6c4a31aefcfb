"""Every screen is GSM-7 and at most 182 characters whatever names, titles and amounts it carries."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.ussd.passerelle import valide
from unionflow.ussd import ecrans
from unionflow.ussd.ecrans import Profil

noms = st.text(min_size=1, max_size=300)
montants = st.decimals(min_value=Decimal("-1e12"), max_value=Decimal("1e12"), places=2)
jours = st.dates(min_value=date(2000, 1, 1), max_value=date(2999, 12, 31))
instants = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2999, 1, 1), timezones=st.just(UTC))


def test_transliteration_of_french_accents():
    assert ecrans.gsm7("ç ê â î ô û œ Œ ë ï") == "c e a i o u oe OE e i"
    assert ecrans.gsm7("é è à ù É Ç") == "é è à ù É Ç"  # in the GSM-7 table: kept
    assert ecrans.gsm7("€ [ ] 漢") == "? ? ? ?"  # extension characters count twice: replaced too
    for screen in (ecrans.INCONNU, ecrans.CHOIX_INVALIDE, ecrans.VERROUILLE, ecrans.DEMANDE_PIN,
                   ecrans.TROP_DE_DEMANDES, ecrans.MENU, ecrans.NUMERO_RECU, ecrans.CLE_RECU,
                   ecrans.RECU_INTROUVABLE, ecrans.SANS_DEMANDE, ecrans.SANS_EVENEMENT, ecrans.SANS_RECU,
                   ecrans.SANS_PIN_CODE, ecrans.SANS_PIN_PARTAGE, ecrans.CODE_ENVOYE, ecrans.DEMANDE_CODE,
                   ecrans.NOUVEAU_PIN, ecrans.CONFIRMER_PIN, ecrans.PIN_REFUSE, ecrans.PIN_DIFFERENT, ecrans.PIN_CREE,
                   ecrans.code_faux(2), ecrans.code_faux(1), ecrans.code_faux(0)):
        valide(screen)


@given(st.lists(st.tuples(noms, noms, noms), min_size=2, max_size=8))
def test_choice_screen(people):
    valide(ecrans.choix([Profil(uuid.uuid4(), p, n, uuid.uuid4(), o) for p, n, o in people]))


@given(noms, montants, st.integers(0, 10_000), st.none() | jours, montants, montants)
def test_balance_screen(organisation, doit, retard, prochaine, credit, solde):
    valide(ecrans.solde(organisation, ecrans.Situation(doit, retard, prochaine, credit, solde)))
    valide(ecrans.payer(doit))


@given(st.lists(st.tuples(noms, montants, instants), max_size=10), noms, st.booleans(), montants, instants)
def test_receipt_screens(lignes, texte, valide_, montant, quand):
    valide(ecrans.recus(lignes))
    valide(ecrans.verification(texte, valide_, texte, montant, quand, texte))


@given(noms, noms, st.sampled_from(["SOUMISE", "APPROUVEE", "REJETEE", "AUTRE"]), montants, st.none() | montants,
       instants, st.none() | noms)
def test_aid_and_event_screens(reference, titre, statut, demande, accorde, debut, lieu):
    valide(ecrans.aide(reference, titre, statut, demande, accorde))
    valide(ecrans.evenement(titre, debut, lieu))
    for restants in range(-1, 4):
        valide(ecrans.pin_faux(restants))


def test_docs_show_every_fixed_screen_with_its_length():
    doc = (Path(__file__).parents[2] / "docs" / "ussd-sms.md").read_text(encoding="utf-8")
    fixed = [v for v in vars(ecrans).values() if isinstance(v, str) and v.startswith(("CON ", "END "))]
    assert len(fixed) >= 13
    for screen in fixed:
        assert f"`{screen.replace(chr(10), '⏎')}` | {len(screen)} |" in doc, screen


@given(montants, st.lists(st.tuples(noms, montants), min_size=1, max_size=6), noms)
def test_payment_screens(doit, cotisations, libelle):
    from unionflow.core.code_paiement import nouveau_code

    code = nouveau_code()
    valide(ecrans.a_payer(doit, cotisations))
    valide(ecrans.cotisation(libelle, doit, code))
    assert ecrans.afficher(code) in ecrans.cotisation(libelle, doit, code)
    for ecran in (ecrans.lien_envoye(code), ecrans.wave_indisponible(code), ecrans.PAIEMENT_EN_COURS):
        valide(ecran)
