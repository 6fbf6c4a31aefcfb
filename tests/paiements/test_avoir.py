"""A member's credit (avoir), issue 20 item 2: an advance at the counter becomes credit with its receipt; the
treasury applies it to the oldest dues (debit 4191 / credit 7061, no treasury movement); a payment whose credit
paid dues is no longer undone; one whose credit is whole takes it back with it."""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import func, select

from tests.factories.cotisations import cotisation
from tests.factories.paiements import defaire
from tests.pdf import pdf_text
from unionflow.models import CompteComptable, LigneEcriture, MouvementAvoir, PaiementAllocation


async def _setup(factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, treasurer, president, member


def _avance(org, member, montant, cibles=(), **extra):
    return {"membreId": str(member.membre.id), "organisationId": str(org.id), "montant": montant,
            "methode": "ESPECES", "cibles": list(cibles), **extra}


async def solde_compte(db, org, numero: str) -> Decimal:
    """Credit minus debit of one account of the organisation."""
    value = (await db.execute(
        select(func.coalesce(func.sum(LigneEcriture.credit - LigneEcriture.debit), 0))
        .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
        .where(CompteComptable.organisation_id == org.id, CompteComptable.numero_compte == numero))).scalar_one()
    return Decimal(value)


async def _avoir(client, treasurer, org, member) -> dict:
    response = await client.get(f"/api/avoirs?membreId={member.membre.id}&organisationId={org.id}",
                                headers=treasurer.headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_advance_without_target_becomes_credit_with_a_receipt(client, factory, db):
    org, treasurer, _, member = await _setup(factory)
    refused = await client.post("/api/paiements", headers=treasurer.headers, json=_avance(org, member, "5000"))
    assert refused.status_code == 400 and "avance" in refused.text
    response = await client.post("/api/paiements", headers=treasurer.headers,
                                 json=_avance(org, member, "5000", avance=True))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["allocations"] == [] and body["montantNonAffecte"] == "5000.00"
    assert body["avoirCree"] == "5000.00" and body["avoirUtilise"] == "0.00"
    avoir = await _avoir(client, treasurer, org, member)
    assert avoir["solde"] == "5000.00"
    assert [(m["typeMouvement"], m["montant"], m["numeroRecu"]) for m in avoir["mouvements"]] == [
        ("CREATION", "5000.00", body["numeroRecu"])]
    assert await solde_compte(db, org, "4191") == Decimal("5000")
    recu = await client.get(f"/api/paiements/{body['id']}/recu", headers=member.headers)
    assert "Avoir créé" in pdf_text(recu.content) and "5 000" in pdf_text(recu.content)


async def test_overpayment_is_credit_only_when_recorded_as_an_advance(client, factory, db):
    org, treasurer, _, member = await _setup(factory)
    dues = await cotisation(db, member.membre, org, 3000)
    cible = [{"cotisationId": str(dues.id)}]
    strict = await client.post("/api/paiements", headers=treasurer.headers, json=_avance(org, member, "5000", cible))
    assert strict.status_code == 400
    response = await client.post("/api/paiements", headers=treasurer.headers,
                                 json=_avance(org, member, "5000", cible, avance=True))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["allocations"][0]["montant"] == "3000.00" and body["avoirCree"] == "2000.00"
    await db.refresh(dues)
    assert dues.statut == "PAYEE"
    assert (await _avoir(client, treasurer, org, member))["solde"] == "2000.00"
    assert await solde_compte(db, org, "7061") == Decimal("3000")
    assert await solde_compte(db, org, "4191") == Decimal("2000")


async def test_treasurer_applies_credit_to_oldest_dues_first(client, factory, db):
    org, treasurer, _, member = await _setup(factory)
    today = date.today()
    later = await cotisation(db, member.membre, org, 2500, echeance=today + timedelta(days=20))
    oldest = await cotisation(db, member.membre, org, 2500, echeance=today - timedelta(days=40))
    middle = await cotisation(db, member.membre, org, 2500, echeance=today - timedelta(days=10))
    paid = await client.post("/api/paiements", headers=treasurer.headers,
                             json=_avance(org, member, "6000", avance=True))
    assert paid.status_code == 201, paid.text
    numero = paid.json()["numeroRecu"]
    encaisse_avant = await solde_compte(db, org, "571")

    body = {"membreId": str(member.membre.id), "organisationId": str(org.id)}
    forbidden = await client.post("/api/avoirs/imputer", headers=member.headers, json=body)
    assert forbidden.status_code == 403
    headers = {**treasurer.headers, "Idempotency-Key": "imputer-1"}
    response = await client.post("/api/avoirs/imputer", headers=headers, json=body)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["montantImpute"] == "6000.00" and result["solde"] == "0.00"
    assert [(i["numeroReference"], i["montant"], i["numeroRecu"]) for i in result["imputations"]] == [
        (oldest.numero_reference, "2500.00", numero), (middle.numero_reference, "2500.00", numero),
        (later.numero_reference, "1000.00", numero)]
    replay = await client.post("/api/avoirs/imputer", headers=headers, json=body)
    assert replay.status_code == 200 and replay.json() == result
    for row in (oldest, middle, later):
        await db.refresh(row)
    assert (oldest.statut, middle.statut, later.statut) == ("PAYEE", "PAYEE", "PARTIELLEMENT_PAYEE")
    assert later.montant_paye == Decimal("1000") and oldest.reference_paiement == numero

    # Books: 4191 emptied into 7061; the treasury did not move. Dues paid = Σ allocations (on the original receipt).
    assert await solde_compte(db, org, "4191") == Decimal("0")
    assert await solde_compte(db, org, "7061") == Decimal("6000")
    assert await solde_compte(db, org, "571") == encaisse_avant
    allocated = (await db.execute(select(func.sum(PaiementAllocation.montant)).where(
        PaiementAllocation.paiement_id == uuid.UUID(paid.json()["id"])))).scalar_one()
    assert Decimal(allocated) == Decimal("6000")
    receipt = (await client.get(f"/api/paiements/{paid.json()['id']}", headers=treasurer.headers)).json()
    assert receipt["avoirCree"] == "6000.00" and receipt["avoirUtilise"] == "6000.00"
    assert receipt["montantNonAffecte"] == "0.00"
    pdf = pdf_text((await client.get(f"/api/paiements/{paid.json()['id']}/recu", headers=member.headers)).content)
    assert "Avoir utilisé sur" in pdf and oldest.numero_reference in pdf

    nothing = await client.post("/api/avoirs/imputer", headers=treasurer.headers, json=body)
    assert nothing.status_code == 200 and nothing.json()["imputations"] == []


async def test_credit_of_another_organisation_is_invisible(client, factory, db):
    org, _, _, member = await _setup(factory)
    other = await factory.organisation()
    stranger = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "TRESORIER"])
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id)}
    assert (await client.post("/api/avoirs/imputer", headers=stranger.headers, json=body)).status_code == 404
    assert (await client.get(f"/api/avoirs?membreId={member.membre.id}&organisationId={org.id}",
                             headers=stranger.headers)).status_code == 404


async def test_payment_whose_credit_paid_dues_is_not_undone(client, factory, db):
    org, treasurer, _, member = await _setup(factory)
    await cotisation(db, member.membre, org, 2000, echeance=date.today() - timedelta(days=5))
    paid = await client.post("/api/paiements", headers=treasurer.headers,
                             json=_avance(org, member, "5000", avance=True))
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id)}
    assert (await client.post("/api/avoirs/imputer", headers=treasurer.headers, json=body)).status_code == 200
    refused = await client.post(f"/api/paiements/{paid.json()['id']}/annuler", headers=treasurer.headers,
                                json={"motif": "Erreur de saisie"})
    assert refused.status_code == 400 and "déjà servi" in refused.json()["detail"], refused.text
    assert (await _avoir(client, treasurer, org, member))["solde"] == "3000.00"


async def test_cancelled_advance_takes_its_credit_back(client, factory, db):
    org, treasurer, president, member = await _setup(factory)
    paid = await client.post("/api/paiements", headers=treasurer.headers,
                             json=_avance(org, member, "4000", avance=True))
    approved = await defaire(client, f"/api/paiements/{paid.json()['id']}/annuler", treasurer, president)
    assert approved.status_code == 200, approved.text
    avoir = await _avoir(client, treasurer, org, member)
    assert avoir["solde"] == "0.00"
    assert [m["typeMouvement"] for m in avoir["mouvements"]] == ["CREATION", "EXTOURNE"]
    assert await solde_compte(db, org, "4191") == Decimal("0")
    receipt = (await client.get(f"/api/paiements/{paid.json()['id']}", headers=treasurer.headers)).json()
    assert receipt["statut"] == "ANNULE" and receipt["avoirCree"] == "4000.00"
    total = (await db.execute(select(func.sum(MouvementAvoir.montant)).where(
        MouvementAvoir.membre_id == member.membre.id))).scalar_one()
    assert Decimal(total) == 0


async def _checkout(client, member, org, dues) -> dict:
    response = await client.post("/api/paiements/wave/checkout", headers=member.headers, json={
        "organisationId": str(org.id), "cibles": [{"cotisationId": str(dues.id)}]})
    assert response.status_code == 201, response.text
    return response.json()


async def test_counter_expires_an_open_wave_checkout_first(client, factory, db, wave):
    org, treasurer, _, member = await _setup(factory)
    dues = await cotisation(db, member.membre, org, 2500)
    checkout = await _checkout(client, member, org, dues)
    response = await client.post("/api/paiements", headers=treasurer.headers,
                                 json=_avance(org, member, "2500", [{"cotisationId": str(dues.id)}]))
    assert response.status_code == 201, response.text
    assert wave.sessions[checkout["checkoutId"]]["checkout_status"] == "expired"
    pending = (await client.get(f"/api/paiements/{checkout['paiementId']}", headers=treasurer.headers)).json()
    assert pending["statut"] == "EXPIRE"
    await db.refresh(dues)
    assert dues.statut == "PAYEE" and dues.montant_paye == Decimal("2500")


async def test_counter_refuses_dues_wave_already_paid(client, factory, db, wave):
    org, treasurer, _, member = await _setup(factory)
    dues = await cotisation(db, member.membre, org, 2500)
    checkout = await _checkout(client, member, org, dues)
    wave.complete(checkout["checkoutId"])
    response = await client.post("/api/paiements", headers=treasurer.headers,
                                 json=_avance(org, member, "2500", [{"cotisationId": str(dues.id)}]))
    assert response.status_code == 409, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "vient d'aboutir" in response.json()["detail"]
    await db.refresh(dues)
    assert dues.montant_paye == 0


async def test_credit_is_paid_back_by_two_people_never_above_the_balance(client, factory, db):
    org, treasurer, president, member = await _setup(factory)
    paid = await client.post("/api/paiements", headers=treasurer.headers,
                             json=_avance(org, member, "5000", avance=True))
    assert paid.status_code == 201
    body = {"membreId": str(member.membre.id), "organisationId": str(org.id), "motif": "Départ du membre"}
    too_much = await client.post("/api/avoirs/rembourser", headers=treasurer.headers, json={**body, "montant": "6000"})
    assert too_much.status_code == 400 and "dépasse" in too_much.json()["detail"]
    first = await client.post("/api/avoirs/rembourser", headers=treasurer.headers, json={**body, "montant": "3000"})
    second = await client.post("/api/avoirs/rembourser", headers=treasurer.headers, json={**body, "montant": "3000"})
    assert first.status_code == second.status_code == 202, first.text
    assert first.json()["typeAnnulation"] == "REMBOURSEMENT_AVOIR"
    assert (await _avoir(client, treasurer, org, member))["solde"] == "5000.00"  # nothing moves before approval
    own = await client.post(f"/api/annulations/{first.json()['id']}/approuver", headers=treasurer.headers, json={})
    assert own.status_code == 403
    approved = await client.post(f"/api/annulations/{first.json()['id']}/approuver", headers=president.headers,
                                 json={})
    assert approved.status_code == 200, approved.text
    assert approved.json()["numeroRemboursement"].startswith("RMB-")
    assert (await _avoir(client, treasurer, org, member))["solde"] == "2000.00"
    assert await solde_compte(db, org, "4191") == Decimal("2000")
    account = (await client.get("/api/compte-adherent/me", headers=member.headers)).json()
    assert account["credit"] == "2000.00" and account["totalPaye"] == "2000.00"  # 5000 received, 3000 given back
    pdf = pdf_text((await client.get(f"/api/paiements/{paid.json()['id']}/recu", headers=member.headers)).content)
    assert f"Avoir remboursé ({approved.json()['numeroRemboursement']})" in pdf and "Avoir restant" in pdf
    assert await solde_compte(db, org, "571") == Decimal("-2000")  # 5000 in (debit), 3000 out (credit)
    # The balance is read again at approval: the second request no longer fits.
    late = await client.post(f"/api/annulations/{second.json()['id']}/approuver", headers=president.headers,
                             json={})
    assert late.status_code == 400 and "dépasse" in late.json()["detail"], late.text
    assert (await _avoir(client, treasurer, org, member))["solde"] == "2000.00"
    # Its credit partly paid back, the payment itself is no longer undone.
    refused = await client.post(f"/api/paiements/{paid.json()['id']}/annuler", headers=treasurer.headers,
                                json={"motif": "Erreur de saisie"})
    assert refused.status_code == 400
