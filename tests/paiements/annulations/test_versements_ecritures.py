"""A delivered payout and a manual accounting entry are undone like payments (issue 19, item 1): a request, then a
second person's approval; the books get the mirror entry only then; payment and payout entries are not reversed
by hand; and members are told when their declaration is rejected or confirmed and when aid is paid to them."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from tests.factories.comptabilite import compte, ecriture, journal, passer
from tests.factories.cotisations import cotisation
from tests.factories.finance import demande_aide
from tests.notifications.boite import notifications
from tests.paiements.annulations.test_quatre_yeux import _org, _paiement
from tests.paiements.versements.test_versements_comptabilite import _treasury_balance
from unionflow.models import EcritureComptable


def _payout(org, montant="3000", **extra):
    return {"organisationId": str(org.id), "montant": montant, "mode": "MANUEL", "objetType": "COTISATIONS",
            "motif": "Reversement à la fédération", "beneficiaireNom": "Fédération", **extra}


async def test_delivered_payout_is_cancelled_by_a_third_person_and_its_entry_reversed(client, factory, db):
    org, tresorier, second, president, membre = await _org(factory)
    await _paiement(client, db, org, tresorier, membre, "10000", "VIREMENT")
    created = (await client.post("/api/versements", headers=tresorier.headers, json=_payout(org))).json()
    done = await client.post(f"/api/versements/{created['id']}/confirmer", headers=second.headers,
                             json={"referenceExterne": "VIR-OUT-9"})
    assert done.json()["statut"] == "REUSSI", done.text
    before = await _treasury_balance(db, org)
    asked = await client.post(f"/api/versements/{created['id']}/annuler", headers=tresorier.headers,
                              json={"motif": "Virement revenu: compte du bénéficiaire clos"})
    assert asked.status_code == 202 and asked.json()["typeAnnulation"] == "ANNULATION_VERSEMENT", asked.text
    assert await _treasury_balance(db, org) == before  # nothing moved
    for who in (tresorier, second):  # the requester (and creator), the confirmer
        refused = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=who.headers, json={})
        assert refused.status_code == 403, refused.text
    ok = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=president.headers, json={})
    assert ok.status_code == 200, ok.text
    payout = (await client.get(f"/api/versements/{created['id']}", headers=tresorier.headers)).json()
    assert payout["statut"] == "ANNULE"
    assert await _treasury_balance(db, org) == before + Decimal("3000")
    reversal = (await db.execute(select(EcritureComptable).where(
        EcritureComptable.piece_reference == f"ANN-{created['numero']}"))).scalar_one()
    assert reversal.montant_total == Decimal("3000")


async def test_manual_entry_reversed_on_approval_and_automatic_entries_refused(client, factory, db):
    org, tresorier, _, president, membre = await _org(factory)
    bq = await journal(client, tresorier.headers, org.id)
    banque = await compte(client, tresorier.headers, org.id, "5211", "Banque BICIS")
    charge = await compte(client, tresorier.headers, org.id, "6051", "Eau")
    posted = await passer(client, factory, org, tresorier.headers, ecriture(
        bq["id"], [(charge["id"], "1200", "0"), (banque["id"], "0", "1200")]))
    assert posted.status_code == 200, posted.text
    entry = posted.json()
    path = f"/api/comptabilite/ecritures/{entry['id']}/contrepasser"
    asked = await client.post(path, headers=tresorier.headers, json={"motif": "Facture comptée deux fois"})
    assert asked.status_code == 202, asked.text
    piece = f"CTP-{entry['numeroPiece']}"
    mirror = select(EcritureComptable).where(EcritureComptable.piece_reference == piece)
    assert (await db.execute(mirror)).scalar_one_or_none() is None
    alone = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=tresorier.headers,
                              json={})
    assert alone.status_code == 403
    ok = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=president.headers, json={})
    assert ok.status_code == 200, ok.text
    assert (await db.execute(mirror)).scalar_one().montant_total == Decimal("1200")
    twice = await client.post(path, headers=tresorier.headers, json={"motif": "Encore une fois"})
    assert twice.status_code == 409

    paiement, _ = await _paiement(client, db, org, tresorier, membre)
    booked = (await db.execute(select(EcritureComptable).where(
        EcritureComptable.piece_reference == paiement["numeroRecu"]))).scalars().first()
    assert booked is not None
    refused = await client.post(f"/api/comptabilite/ecritures/{booked.id}/contrepasser", headers=tresorier.headers,
                                json={"motif": "Essai"})
    assert refused.status_code == 400 and "paiement" in refused.json()["detail"]


async def test_member_is_told_declaration_confirmed_or_rejected_and_aid_paid(client, factory, db):
    org, tresorier, second, _, membre = await _org(factory)
    for montant, action in (("1000", "confirmer"), ("2000", "rejeter")):
        dues = await cotisation(db, membre.membre, org, montant)
        declared = await client.put(f"/api/cotisations/{dues.id}/payer", headers=membre.headers,
                                    json={"montant": montant, "methodePaiement": "ESPECES"})
        pid = declared.json()["declaration"]["paiementId"]
        body = {} if action == "confirmer" else {"motif": "Rien en caisse ce jour-là"}
        decided = await client.post(f"/api/paiements/{pid}/{action}", headers=tresorier.headers, json=body)
        assert decided.status_code == 200, decided.text
    notices = await notifications(client, membre)
    kinds = {n["typeNotification"]: n for n in notices}
    assert "RECU_PAIEMENT" in kinds and "1 000 FCFA" in kinds["RECU_PAIEMENT"]["sujet"]
    assert "Rien en caisse ce jour-là" in kinds["DECLARATION_REJETEE"]["corps"]

    await _paiement(client, db, org, tresorier, membre, "50000", "VIREMENT")
    aide = await demande_aide(db, org, membre.membre, statut="APPROUVEE", accorde="20000")
    created = (await client.post("/api/versements", headers=tresorier.headers, json=_payout(
        org, "20000", objetType="AIDE", objetId=str(aide.id)))).json()
    done = await client.post(f"/api/versements/{created['id']}/confirmer", headers=second.headers,
                             json={"referenceExterne": "VIR-AIDE-1"})
    assert done.json()["statut"] == "REUSSI", done.text
    paid = [n for n in await notifications(client, membre) if n["typeNotification"] == "AIDE_VERSEE"]
    assert len(paid) == 1 and created["numero"] in paid[0]["corps"] and "20 000 FCFA" in paid[0]["corps"]
