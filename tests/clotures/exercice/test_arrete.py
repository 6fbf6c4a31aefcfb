"""The date d'arrêté of a year's statements (AUDCIF art. 23): the day the year was closed, « projet — non arrêté »
while it is open, and a warning when it falls more than four months after 31 December — in the JSON, the PDF to
sign and the workbook."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime

from openpyxl import load_workbook
from sqlalchemy import update

from tests.pdf import pdf_text
from unionflow.models import ExerciceComptable

TODAY = datetime.now(UTC).date()
LAST_YEAR = TODAY.year - 1
BASE = "/api/comptabilite"


def _plat(content: bytes) -> str:
    return " ".join(pdf_text(content).split())


async def _get(client, headers, chemin, **params):
    response = await client.get(f"{BASE}/{chemin}", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response


async def _dater_cloture(db, org_id, jour: date) -> None:
    """The closing as if it had been done on ``jour`` (the tests run on one day: the date is set, not waited)."""
    await db.execute(update(ExerciceComptable).where(ExerciceComptable.organisation_id == org_id,
                                                     ExerciceComptable.annee == LAST_YEAR)
                     .values(date_cloture=datetime(jour.year, jour.month, jour.day, 10, 0, tzinfo=UTC)))
    await db.flush()


async def test_an_open_year_is_a_draft_and_a_closed_one_says_when_it_was_arrete(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des pêcheurs de Mbour")
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = tresorier.headers
    params = {"organisationId": str(org.id), "exercice": LAST_YEAR}

    # Open: a draft, no date made up, in the three formats.
    projet = (await _get(client, h, "etats/sycebnl/bilan", **params)).json()["arrete"]
    assert projet["statut"] == "PROJET" and projet["dateArrete"] is None and not projet["horsDelai"]
    assert projet["dateLimite"] == f"{LAST_YEAR + 1}-04-30"
    pdf = _plat((await _get(client, h, "etats/sycebnl/bilan", **params, format="pdf")).content)
    assert "Projet — non arrêté" in pdf and "Vu et arrêté" not in pdf
    classeur = load_workbook(io.BytesIO((await _get(client, h, "etats/sycebnl/compte-resultat", **params,
                                                    format="xlsx")).content)).active
    assert classeur is not None and str(classeur["A3"].value).startswith("Projet — non arrêté")

    cloture = await client.post(f"{BASE}/exercices/{LAST_YEAR}/cloture", headers=h,
                                json={"organisationId": str(org.id)})
    assert cloture.status_code == 201, cloture.text

    # Closed within the four months: the date, no warning.
    await _dater_cloture(db, org.id, date(LAST_YEAR + 1, 3, 14))
    arrete = (await _get(client, h, "etats/sycebnl/flux-tresorerie", **params)).json()["arrete"]
    assert arrete == {"statut": "ARRETE", "dateArrete": f"{LAST_YEAR + 1}-03-14",
                      "dateLimite": f"{LAST_YEAR + 1}-04-30", "horsDelai": False,
                      "mention": f"Arrêté le 14/03/{LAST_YEAR + 1} (clôture de l'exercice {LAST_YEAR})",
                      "avertissement": None}
    pdf = _plat((await _get(client, h, "etats/sycebnl/bilan", **params, format="pdf")).content)
    assert f"Vu et arrêté le 14/03/{LAST_YEAR + 1} : Bilan (SYCEBNL)" in pdf and "ATTENTION" not in pdf
    notes = _plat((await _get(client, h, "etats/sycebnl/notes", **params, format="pdf")).content)
    assert f"Vu et arrêté le 14/03/{LAST_YEAR + 1}" in notes

    # Closed after 30 April: the date and the warning (AUDCIF art. 23), in every format.
    await _dater_cloture(db, org.id, date(LAST_YEAR + 1, 5, 2))
    arrete = (await _get(client, h, "etats/sycebnl/compte-resultat", **params)).json()["arrete"]
    assert arrete["horsDelai"] is True and "AUDCIF art. 23" in arrete["avertissement"]
    pdf = _plat((await _get(client, h, "etats/sycebnl/compte-resultat", **params, format="pdf")).content)
    assert f"Vu et arrêté le 02/05/{LAST_YEAR + 1}" in pdf
    assert (f"ATTENTION : arrêté le 02/05/{LAST_YEAR + 1}, plus de quatre mois après la clôture de l'exercice le "
            f"31/12/{LAST_YEAR} (AUDCIF art. 23 : au plus tard le 30/04/{LAST_YEAR + 1})") in pdf
    classeur = load_workbook(io.BytesIO((await _get(client, h, "etats/sycebnl/bilan", **params,
                                                    format="xlsx")).content)).active
    assert classeur is not None and "ATTENTION" in str(classeur["A3"].value)
    assert classeur["A4"].value == "Compte"  # the heading row did not move


async def test_the_cash_statements_the_inventory_and_the_assembly_pack_carry_it_too(client, factory, db):
    org = await factory.organisation(nom="Tontine des commerçantes de Kaolack")
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = tresorier.headers
    params = {"organisationId": str(org.id), "exercice": LAST_YEAR}
    smt = (await _get(client, h, "etats/smt/recettes-depenses", **params)).json()
    assert smt["arrete"]["statut"] == "PROJET"
    assert (await client.post(f"{BASE}/exercices/{LAST_YEAR}/cloture", headers=h,
                              json={"organisationId": str(org.id)})).status_code == 201
    await _dater_cloture(db, org.id, date(LAST_YEAR + 1, 6, 30))

    smt_pdf = _plat((await _get(client, h, "etats/smt/recettes-depenses", **params, format="pdf")).content)
    assert f"Vu et arrêté le 30/06/{LAST_YEAR + 1}" in smt_pdf and "AUDCIF art. 23" in smt_pdf
    inventaire = (await _get(client, h, "etats/inventaire", **params)).json()
    assert inventaire["arrete"]["dateArrete"] == f"{LAST_YEAR + 1}-06-30" and inventaire["arrete"]["horsDelai"]
    dossier = await _get(client, h, "assemblee", **params, dateAssemblee=f"{TODAY.year + 1}-06-30")
    assert dossier.json()["arrete"]["statut"] == "ARRETE"
    pack = _plat((await _get(client, h, "assemblee", **params, dateAssemblee=f"{TODAY.year + 1}-06-30",
                             format="pdf")).content)
    assert f"Arrêté le 30/06/{LAST_YEAR + 1}" in pack and f"Vu et arrêté le 30/06/{LAST_YEAR + 1}" in pack
    assert "ATTENTION : arrêté le" in pack


async def test_a_period_statement_of_a_whole_year_carries_it_and_another_period_does_not(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = tresorier.headers
    q = {"organisationId": str(org.id)}
    assert (await client.post(f"{BASE}/exercices/{LAST_YEAR}/cloture", headers=h,
                              json={"organisationId": str(org.id)})).status_code == 201
    await _dater_cloture(db, org.id, date(LAST_YEAR + 1, 4, 30))  # the last day allowed: no warning

    bilan = (await _get(client, h, "etats/bilan", **q, dateFin=f"{LAST_YEAR}-12-31")).json()
    assert bilan["arrete"]["dateArrete"] == f"{LAST_YEAR + 1}-04-30" and not bilan["arrete"]["horsDelai"]
    balance = await _get(client, h, "etats/balance", **q, dateDebut=f"{LAST_YEAR}-01-01",
                         dateFin=f"{LAST_YEAR}-12-31", format="pdf")
    texte = _plat(balance.content)
    assert f"Vu et arrêté le 30/04/{LAST_YEAR + 1} : Balance générale" in texte and "ATTENTION" not in texte

    mois = (await _get(client, h, "etats/balance", **q, dateDebut=f"{LAST_YEAR}-03-01",
                       dateFin=f"{LAST_YEAR}-03-31")).json()
    assert mois["arrete"] is None
    texte = _plat((await _get(client, h, "etats/balance", **q, dateDebut=f"{LAST_YEAR}-03-01",
                              dateFin=f"{LAST_YEAR}-03-31", format="pdf")).content)
    assert "Vu et arrêté : Balance générale" in texte
