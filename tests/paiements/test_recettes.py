"""A donation or an event fee received at the counter (issue 20, item 5): a receipt in the REC series, an entry
crediting the kind's income account, never a credit; undone by the four-eyes cancellations like any payment."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.comptabilite.produits.test_comptes_produits import credits
from tests.factories.paiements import defaire
from tests.notifications.boite import notifications
from tests.pdf import pdf_text
from unionflow.models import EcritureComptable, Evenement, Paiement

URL = "/api/paiements/recettes"


async def _org(factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    second = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, tresorier, second, membre


async def _evenement(db, org, prix: str | None = "5000", titre="Gala annuel de la mutuelle") -> Evenement:
    debut = datetime.now(UTC).replace(microsecond=0) + timedelta(days=10)
    evt = Evenement(titre=titre, type_evenement="REUNION", date_debut=debut, date_fin=debut + timedelta(hours=4),
                    organisation_id=org.id, statut="PLANIFIE", prix=Decimal(prix) if prix else None)
    db.add(evt)
    await db.flush()
    return evt


def _body(org, membre, nature, montant, **extra):
    return {"nature": nature, "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": "ESPECES", **extra}


async def test_donation_gives_a_receipt_and_credits_donations(client, factory, db):
    org, tresorier, _, membre = await _org(factory)
    headers = {**tresorier.headers, "Idempotency-Key": "don-2026-0001"}
    recu = await client.post(URL, headers=headers, json=_body(org, membre, "DON", "150000"))
    assert recu.status_code == 201, recu.text
    don = recu.json()
    assert don["numeroRecu"].startswith("REC-") and don["nature"] == "DON" and don["statut"] == "VALIDE"
    assert Decimal(don["montantNonAffecte"]) == 0 and don["allocations"] == []
    again = await client.post(URL, headers=headers, json=_body(org, membre, "DON", "150000"))
    assert again.status_code == 201 and again.json()["id"] == don["id"]
    assert await credits(db, don["numeroRecu"]) == {"7581": Decimal("150000")}

    pdf = await client.get(f"/api/paiements/{don['id']}/recu", headers=membre.headers)
    assert pdf.status_code == 200, pdf.text
    text = pdf_text(pdf.content)
    assert "Don" in text and "Avoir" not in text and don["numeroRecu"] in text

    recus = [n for n in await notifications(client, membre) if n["typeNotification"] == "RECU_PAIEMENT"]
    assert len(recus) == 1 and "a bien reçu votre don de 150 000 FCFA" in recus[0]["corps"], recus

    # A donation pays no dues and is no credit: the member's account is unchanged.
    compte = (await client.get("/api/compte-adherent/me", headers=membre.headers)).json()
    assert (compte["totalPaye"], compte["credit"]) == ("0.00", "0.00")

    # A plain member does not record money; an event id is refused for a donation.
    assert (await client.post(URL, headers=membre.headers, json=_body(org, membre, "DON", "100"))).status_code == 403
    evt = await _evenement(db, org)
    wrong = await client.post(URL, headers=tresorier.headers,
                              json=_body(org, membre, "DON", "100", evenementId=str(evt.id)))
    assert wrong.status_code == 400


async def test_event_fee_is_the_price_or_a_multiple_and_credits_event_income(client, factory, db):
    org, tresorier, _, membre = await _org(factory)
    evt = await _evenement(db, org, "5000")
    for montant, raison in (("7500", "multiple"), ("2500", "multiple")):
        refused = await client.post(URL, headers=tresorier.headers,
                                    json=_body(org, membre, "EVENEMENT", montant, evenementId=str(evt.id)))
        assert refused.status_code == 400 and raison in refused.json()["detail"], refused.text
    missing = await client.post(URL, headers=tresorier.headers, json=_body(org, membre, "EVENEMENT", "5000"))
    assert missing.status_code == 400
    gratuit = await _evenement(db, org, None, "Réunion de quartier")
    free = await client.post(URL, headers=tresorier.headers,
                             json=_body(org, membre, "EVENEMENT", "5000", evenementId=str(gratuit.id)))
    assert free.status_code == 400 and "gratuit" in free.json()["detail"]
    other = await factory.organisation()
    ailleurs = await _evenement(db, other, "5000")
    foreign = await client.post(URL, headers=tresorier.headers,
                                json=_body(org, membre, "EVENEMENT", "5000", evenementId=str(ailleurs.id)))
    assert foreign.status_code in (400, 404)

    recu = await client.post(URL, headers=tresorier.headers,
                             json=_body(org, membre, "EVENEMENT", "10000", evenementId=str(evt.id)))
    assert recu.status_code == 201, recu.text
    fee = recu.json()
    assert (fee["nature"], fee["evenementId"]) == ("EVENEMENT", str(evt.id))
    assert await credits(db, fee["numeroRecu"]) == {"7066": Decimal("10000")}
    text = pdf_text((await client.get(f"/api/paiements/{fee['id']}/recu", headers=tresorier.headers)).content)
    assert "Participation : Gala annuel de la mutuelle" in " ".join(text.split()), text

    don = await client.post(URL, headers=tresorier.headers, json=_body(org, membre, "DON", "3000"))
    assert don.status_code == 201
    resultat = (await client.get(f"/api/comptabilite/etats/compte-resultat?organisationId={org.id}",
                                 headers=tresorier.headers)).json()
    postes = {p["numeroCompte"]: Decimal(p["montant"]) for r in resultat["produits"] for p in r["postes"]}
    assert postes == {"7066": Decimal("10000"), "7581": Decimal("3000")}


async def test_donation_cancelled_and_event_fee_refunded_by_two_people(client, factory, db):
    org, tresorier, second, membre = await _org(factory)
    evt = await _evenement(db, org, "5000")
    don = (await client.post(URL, headers=tresorier.headers, json=_body(org, membre, "DON", "20000"))).json()
    fee = (await client.post(URL, headers=tresorier.headers, json={
        **_body(org, membre, "EVENEMENT", "5000", evenementId=str(evt.id)), "methode": "VIREMENT",
        "referenceExterne": "VIR-EVT-1"})).json()

    cancelled = await defaire(client, f"/api/paiements/{don['id']}/annuler", tresorier, second)
    assert cancelled.status_code == 200, cancelled.text
    refunded = await defaire(client, f"/api/paiements/{fee['id']}/rembourser", tresorier, second, "Gala reporté")
    assert refunded.status_code == 200, refunded.text
    assert refunded.json()["numeroRemboursement"].startswith("RMB-")
    for paiement, statut in ((don, "ANNULE"), (fee, "REMBOURSE")):
        row = await db.get(Paiement, uuid.UUID(paiement["id"]))
        await db.refresh(row)
        assert row.statut == statut and row.montant_non_affecte == 0
        (extourne,) = (await db.execute(select(EcritureComptable).where(
            EcritureComptable.piece_reference == f"EXT-{paiement['numeroRecu']}"))).scalars().all()
        assert extourne is not None
    resultat = (await client.get(f"/api/comptabilite/etats/compte-resultat?organisationId={org.id}",
                                 headers=tresorier.headers)).json()
    assert Decimal(resultat["totalProduits"]) == 0
    text = " ".join(pdf_text((await client.get(f"/api/paiements/{fee['id']}/recu",
                                               headers=tresorier.headers)).content).split())
    assert "REMBOURSÉ" in text and "Participation : Gala annuel de la mutuelle" in text
    rembourse = await client.get(f"/api/paiements/{fee['id']}/recu-remboursement", headers=membre.headers)
    assert rembourse.status_code == 200, rembourse.text
