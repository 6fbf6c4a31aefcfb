"""Receipts that tell the truth about money undone (issue 19, item 4): the refund receipt in its own series, and
the original receipt — PDF and verification page — marked cancelled or refunded with who asked, who approved and
why. The PDFs are rendered to PNG (ARTIFACTS) so that a person can look at them."""

from __future__ import annotations

import os
from pathlib import Path

from tests.factories.paiements import defaire
from tests.paiements.annulations.test_quatre_yeux import _org, _paiement
from tests.pdf import pdf_page_image, pdf_text
from unionflow.models import Paiement

ARTIFACTS = Path(os.environ.get("UNIONFLOW_TEST_ARTIFACTS", "/tmp/unionflow-artifacts"))
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def _png(content: bytes, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    image = pdf_page_image(content)
    assert image.size[0] > 500 and image.getextrema() != ((255, 255), (255, 255), (255, 255))
    image.save(ARTIFACTS / name)


async def _verification(client, db, paiement):
    row = await db.get(Paiement, __import__("uuid").UUID(paiement["id"]))
    return f"/api/recus/verifier/{row.numero_recu}?cle={row.cle_verification}"


def _nom(actor):
    return f"{actor.membre.prenom} {actor.membre.nom}"


async def test_refund_receipt_and_refunded_receipt(client, factory, db):
    org, tresorier, _, president, membre = await _org(factory)
    paiement, _ = await _paiement(client, db, org, tresorier, membre, "7500", "VIREMENT")
    done = await defaire(client, f"/api/paiements/{paiement['id']}/rembourser", tresorier, president,
                         "Départ du membre pour Dakar")
    assert done.status_code == 200, done.text
    numero = done.json()["numeroRemboursement"]

    refund = await client.get(f"/api/paiements/{paiement['id']}/recu-remboursement", headers=membre.headers)
    assert refund.status_code == 200 and refund.headers["content-type"] == "application/pdf"
    # The organisation's number (RMB-<code>-<year>-n) may wrap under the title: compare words, not lines.
    text = " ".join(pdf_text(refund.content).split())
    for expected in (f"REÇU DE REMBOURSEMENT N° {numero}", paiement["numeroRecu"], "7 500 FCFA",
                     "sept mille cinq cents", "Départ du membre pour Dakar", _nom(tresorier),
                     _nom(president), "Le membre (reçu la somme, signature)", "Le trésorier (signature et cachet)",
                     "Date du remboursement"):
        assert expected.lower() in text.lower(), (expected, text)
    _png(refund.content, "recu-remboursement.png")

    original = await client.get(f"/api/paiements/{paiement['id']}/recu", headers=membre.headers)
    text = pdf_text(original.content)
    for expected in ("REMBOURSÉ", "ne vaut plus quittance", f"Demandé par : {_nom(tresorier)}",
                     f"Approuvé par : {_nom(president)}", "Motif : Départ du membre pour Dakar", numero):
        assert expected in text, (expected, text)
    _png(original.content, "recu-rembourse.png")

    path = await _verification(client, db, paiement)
    data = (await client.get(path, headers={"Accept": "application/json"})).json()
    assert (data["statut"], data["valide"], data["demandePar"], data["approuvePar"], data["numeroRemboursement"],
            data["motifAnnulation"]) == ("REMBOURSE", False, _nom(tresorier), _nom(president), numero,
                                          "Départ du membre pour Dakar")
    page = await client.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for expected in ("Reçu remboursé", "Approuvé par", _nom(president), "Départ du membre pour Dakar", numero):
        assert expected in page.text
    # Nothing about the member, and no account e-mail of the staff.
    assert _nom(membre) not in page.text and membre.membre.numero_membre not in page.text
    assert "@" not in page.text


async def test_cancelled_receipt_stays_in_its_series_marked_cancelled(client, factory, db):
    org, tresorier, second, _, membre = await _org(factory)
    paiement, _ = await _paiement(client, db, org, tresorier, membre, "2500")
    done = await defaire(client, f"/api/paiements/{paiement['id']}/annuler", tresorier, second, "Saisi deux fois")
    assert done.status_code == 200, done.text
    assert done.json()["numeroRemboursement"] is None
    original = await client.get(f"/api/paiements/{paiement['id']}/recu", headers=tresorier.headers)
    text = pdf_text(original.content)
    for expected in (f"REÇU DE PAIEMENT N° {paiement['numeroRecu']}", "ANNULÉ", "ne vaut plus quittance",
                     f"Demandé par : {_nom(tresorier)}", f"Approuvé par : {_nom(second)}",
                     "Motif : Saisi deux fois"):
        assert expected in text, (expected, text)
    _png(original.content, "recu-annule.png")
    no_refund = await client.get(f"/api/paiements/{paiement['id']}/recu-remboursement", headers=tresorier.headers)
    assert no_refund.status_code == 400
    page = await client.get(await _verification(client, db, paiement), headers={"Accept": BROWSER})
    assert "Reçu annulé" in page.text and "Saisi deux fois" in page.text and _nom(second) in page.text
