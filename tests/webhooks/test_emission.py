"""The services emit their events into the outbox in the transaction of the change (and part 7 of issue 11:
the receipt, aid-decision and pending-approval notifications)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from tests.factories.cotisations import cotisation_a_venir, treasury
from tests.factories.donnees_personnelles import consentement
from tests.factories.evenements import create_event
from tests.factories.paiements import defaire
from unionflow.models import AbonnementWebhook, LivraisonWebhook, Notification, ParametresLcbFt
from unionflow.webhooks.emission import EvenementWebhook


async def _subscribe(db, org, *evenements: EvenementWebhook) -> AbonnementWebhook:
    row = AbonnementWebhook(organisation_id=org.id, url="https://partenaire.example.sn/hooks",
                            evenements=[e.value for e in evenements], secret="whsec_test", actif=True,
                            echecs_consecutifs=0)
    db.add(row)
    await db.flush()
    return row


async def _events(db, abonnement) -> list[LivraisonWebhook]:
    rows = await db.execute(select(LivraisonWebhook).where(LivraisonWebhook.abonnement_id == abonnement.id)
                            .order_by(LivraisonWebhook.created_at))
    return list(rows.scalars())


async def _notifications(db, membre_id, kind) -> list[Notification]:
    rows = await db.execute(select(Notification).where(Notification.membre_id == membre_id,
                                                       Notification.type_notification == kind))
    return list(rows.scalars())


async def test_payment_emits_receipt_payment_and_dues_events_then_refund(client, factory, db):
    org, treasurer, a, _b = await treasury(factory)
    sub = await _subscribe(db, org, *EvenementWebhook)
    full = await cotisation_a_venir(factory, a.membre, org, montant="5000")
    partial = await cotisation_a_venir(factory, a.membre, org, montant="10000")
    paid = await client.post("/api/paiements", headers={**treasurer.headers, "Idempotency-Key": "k-emission-1"}, json={
        "membreId": str(a.membre.id), "organisationId": str(org.id), "montant": "9000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(full.id)}, {"cotisationId": str(partial.id)}]})
    assert paid.status_code == 201, paid.text
    paiement = paid.json()

    events = await _events(db, sub)
    assert [e.evenement for e in events] == ["paiement.valide", "cotisation.payee"]
    assert events[0].charge["donnees"]["numeroRecu"] == paiement["numeroRecu"]
    assert events[0].charge["donnees"]["montant"] == "9000.00"
    assert events[1].charge["donnees"]["cotisationId"] == str(full.id)

    [recu] = await _notifications(db, a.membre.id, "RECU_PAIEMENT")
    assert recu.statut == "EN_ATTENTE" and recu.canal == "EMAIL" and recu.source_id is not None
    assert paiement["numeroRecu"] in recu.sujet and "9 000 FCFA" in recu.sujet
    assert "espèces" in recu.corps and org.nom in recu.corps
    assert f"{partial.numero_reference}: reste dû 6 000 FCFA" in recu.corps
    assert f"{full.numero_reference}: soldé" in recu.corps

    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    refunded = await defaire(client, f"/api/paiements/{paiement['id']}/rembourser", treasurer, president,
                             "Double paiement")
    assert refunded.status_code == 200, refunded.text
    assert [e.evenement for e in await _events(db, sub)][-1] == "paiement.rembourse"


async def test_large_cash_payment_emits_the_lcbft_alert_without_the_members_identity(client, factory, db):
    org, treasurer, a, _b = await treasury(factory)
    db.add(ParametresLcbFt(organisation_id=org.id, seuil_operation=Decimal("1000000"),
                           seuil_cumul=Decimal("5000000"), periode_cumul_jours=30, seuil_especes=Decimal("3000")))
    sub = await _subscribe(db, org, EvenementWebhook.ALERTE_LCBFT_LEVEE)
    dues = await cotisation_a_venir(factory, a.membre, org, montant="5000")
    paid = await client.post("/api/paiements", headers={**treasurer.headers, "Idempotency-Key": "k-emission-2"}, json={
        "membreId": str(a.membre.id), "organisationId": str(org.id), "montant": "5000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    [alerte] = await _events(db, sub)
    assert alerte.evenement == "alerte_lcbft.levee"
    assert alerte.charge["donnees"]["typeAlerte"] == "ESPECES_ELEVEES"
    assert "membreId" not in alerte.charge["donnees"]


async def test_adhesion_request_notifies_deciders_and_decisions_emit(client, factory, db):
    org = await factory.organisation()
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    sub = await _subscribe(db, org, EvenementWebhook.ADHESION_REJETEE, EvenementWebhook.ADHESION_APPROUVEE)
    applicant = await factory.actor(["MEMBRE"])
    adh = await client.post("/api/adhesions", headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id), "fraisAdhesion": "2000"})
    assert adh.status_code == 201, adh.text
    [notice] = await _notifications(db, admin.membre.id, "APPROBATION_EN_ATTENTE")
    assert adh.json()["numeroReference"] in notice.sujet
    # The treasurer does not decide on adhesions (GRANTS): no notice.
    assert await _notifications(db, treasurer.membre.id, "APPROBATION_EN_ATTENTE") == []
    rejected = await client.post(f"/api/adhesions/{adh.json()['id']}/rejeter", params={"motifRejet": "Incomplet"},
                                 headers=admin.headers)
    assert rejected.status_code == 200
    [event] = await _events(db, sub)
    assert event.evenement == "adhesion.rejetee" and event.charge["donnees"]["motifRejet"] == "Incomplet"


@pytest.mark.parametrize("decision", ["approuver", "rejeter"])
async def test_aid_request_notifies_deciders_then_the_member_of_the_decision(client, factory, db, decision):
    org = await factory.organisation()
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["MEMBRE"], organisation=org)
    sub = await _subscribe(db, org, EvenementWebhook.DEMANDE_AIDE_DECIDEE)
    await consentement(db, member.membre.id, org.id)
    created = await client.post("/api/demandes-aide", headers=member.headers, json={
        "organisationId": str(org.id), "type": "MALADIE", "titre": "Hospitalisation",
        "description": "Frais d'hospitalisation", "montantDemande": "50000"})
    assert created.status_code in (200, 201), created.text
    assert len(await _notifications(db, admin.membre.id, "APPROBATION_EN_ATTENTE")) == 1
    assert await _notifications(db, member.membre.id, "APPROBATION_EN_ATTENTE") == []

    decided = await client.put(f"/api/demandes-aide/{created.json()['id']}/{decision}", headers=admin.headers,
                               params={"motif": "Décision du bureau"})
    assert decided.status_code == 200, decided.text
    [notice] = await _notifications(db, member.membre.id, "DECISION_AIDE")
    assert ("approuvée" if decision == "approuver" else "rejetée") in notice.sujet
    [event] = await _events(db, sub)
    assert event.charge["donnees"]["statut"] == ("APPROUVEE" if decision == "approuver" else "REJETEE")


async def test_event_registrations_emit_confirmed_and_cancelled_including_promotions(client, factory, db):
    org = await factory.organisation()
    organiser = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ORGANISATEUR_EVENEMENT"])
    evt = await create_event(client, organiser.headers, org.id, capaciteMax=1, listeAttenteActive=True)
    sub = await _subscribe(db, org, EvenementWebhook.INSCRIPTION_CONFIRMEE, EvenementWebhook.INSCRIPTION_ANNULEE)
    first, waiting = [await factory.actor(["USER"], organisation=org) for _ in range(2)]
    url = f"/api/evenements/{evt['id']}/inscriptions"
    assert (await client.post(url, headers=first.headers)).json()["statut"] == "CONFIRMEE"
    assert (await client.post(url, headers=waiting.headers)).json()["statut"] == "EN_ATTENTE"
    assert (await client.delete(url, headers=first.headers)).status_code == 204

    events = sorted((e.evenement, e.charge["donnees"]["membreId"]) for e in await _events(db, sub))
    assert events == sorted([("inscription_evenement.confirmee", str(first.membre.id)),
                      ("inscription_evenement.confirmee", str(waiting.membre.id)),
                      ("inscription_evenement.annulee", str(first.membre.id))])


async def test_confirmed_manual_payout_emits_versement_confirme(client, factory, db):
    org, treasurer, a, _b = await treasury(factory)
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    dues = await cotisation_a_venir(factory, a.membre, org, montant="20000")
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(a.membre.id), "organisationId": str(org.id), "montant": "20000", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    sub = await _subscribe(db, org, EvenementWebhook.VERSEMENT_CONFIRME)
    created = await client.post("/api/versements", headers=treasurer.headers, json={
        "organisationId": str(org.id), "montant": "3000", "mode": "MANUEL", "objetType": "COTISATIONS",
        "motif": "Reversement à la fédération", "beneficiaireNom": "Fédération de Dakar"})
    assert created.status_code == 201, created.text
    assert await _events(db, sub) == []
    [notice] = await _notifications(db, president.membre.id, "APPROBATION_EN_ATTENTE")
    assert created.json()["numero"] in notice.sujet
    done = await client.post(f"/api/versements/{created.json()['id']}/confirmer", headers=president.headers,
                             json={"referenceExterne": "VIR-BICIS-889"})
    assert done.status_code == 200, done.text
    [event] = await _events(db, sub)
    assert event.evenement == "versement.confirme" and event.charge["donnees"]["montant"] == "3000.00"
    assert event.charge["donnees"]["referenceExterne"] == "VIR-BICIS-889"
