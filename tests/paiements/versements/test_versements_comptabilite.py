"""Outgoing money is booked, screened and bounded: a delivered payout writes its double entry (books and
treasury agree both ways, budget execution sees it), an aid is paid only once granted and never beyond the
granted amount, and payouts go through the LCB-FT thresholds like payments."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from sqlalchemy import func, select

from tests.factories.cotisations import cotisation
from unionflow.models import (
    AlerteLcbFt,
    CompteComptable,
    DemandeAide,
    EcritureComptable,
    LigneEcriture,
    ParametresLcbFt,
    Versement,
)


async def _org(client, factory, db, collected="200000"):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, member.membre, org, collected)
    paid = await client.post("/api/paiements", headers=treasurer.headers, json={
        "membreId": str(member.membre.id), "organisationId": str(org.id), "montant": collected,
        "methode": "VIREMENT", "referenceExterne": "VIR-IN-1", "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    return org, treasurer, president, member


async def _demande(db, org, membre, statut="APPROUVEE", accorde="100000"):
    row = DemandeAide(numero_reference=f"AIDE-T-{uuid.uuid4().hex[:8]}", organisation_id=org.id, membre_id=membre.id,
                      type_aide="SANTE", titre="Frais d'hospitalisation", description="Hospitalisation à Thiès",
                      montant_demande=Decimal("150000"),
                      montant_accorde=Decimal(accorde) if statut == "APPROUVEE" else None, devise="XOF",
                      urgence="HAUTE", statut=statut, date_soumission=datetime.now(UTC))
    db.add(row)
    await db.flush()
    return row


def _payout(org, montant, objet_type="COTISATIONS", **extra):
    return {"organisationId": str(org.id), "montant": montant, "mode": "MANUEL", "objetType": objet_type,
            "motif": "Versement de l'union", "beneficiaireNom": "Awa Diop", **extra}


async def _confirm(client, president, versement_id, ref="VIR-OUT-1"):
    return await client.post(f"/api/versements/{versement_id}/confirmer", headers=president.headers,
                             json={"referenceExterne": ref})


async def _treasury_balance(db, org) -> Decimal:
    debit, credit = (await db.execute(
        select(func.coalesce(func.sum(LigneEcriture.debit), 0), func.coalesce(func.sum(LigneEcriture.credit), 0))
        .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
        .where(CompteComptable.organisation_id == org.id, CompteComptable.numero_compte.like("5%")))).one()
    return Decimal(debit) - Decimal(credit)


async def test_confirmed_payout_is_booked_once_and_budget_execution_sees_it(client, factory, db):
    org, treasurer, president, member = await _org(client, factory, db)
    demande = await _demande(db, org, member.membre)
    budget = await client.post("/api/finance/budgets", headers=treasurer.headers, json={
        "organisationId": str(org.id), "annee": date.today().year, "libelle": "Budget de l'année",
        "lignes": [{"libelle": "Aides aux membres", "prefixeCompte": "6581", "montantPrevu": "300000"}]})
    assert budget.status_code == 201, budget.text

    created = await client.post("/api/versements", headers=treasurer.headers,
                                json=_payout(org, "60000", "AIDE", objetId=str(demande.id)))
    assert created.status_code == 201, created.text
    assert await _treasury_balance(db, org) == Decimal("200000")  # nothing booked before it leaves
    confirmed = await _confirm(client, president, created.json()["id"])
    assert confirmed.status_code == 200 and confirmed.json()["statut"] == "REUSSI", confirmed.text

    entries = (await db.execute(select(EcritureComptable).where(
        EcritureComptable.piece_reference == created.json()["numero"]))).scalars().all()
    assert len(entries) == 1 and entries[0].montant_total == Decimal("60000")
    lines = (await db.execute(select(CompteComptable.numero_compte, LigneEcriture.debit, LigneEcriture.credit)
                              .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
                              .where(LigneEcriture.ecriture_id == entries[0].id))).all()
    assert sorted((n, Decimal(d), Decimal(c)) for n, d, c in lines) == [
        ("521", Decimal("0"), Decimal("60000")), ("6581", Decimal("60000"), Decimal("0"))]
    # Books = treasury: what came in (200,000) minus what went out (60,000).
    assert await _treasury_balance(db, org) == Decimal("140000")

    execution = await client.get(f"/api/finance/budgets/{budget.json()['id']}/execution", headers=treasurer.headers)
    assert execution.status_code == 200, execution.text
    assert [Decimal(li["montantRealise"]) for li in execution.json()["lignes"]] == [Decimal("60000")]


async def test_aid_payout_needs_an_approved_request_and_stays_within_the_grant(client, factory, db):
    org, treasurer, _, member = await _org(client, factory, db)
    for statut in ("SOUMISE", "REJETEE"):
        demande = await _demande(db, org, member.membre, statut=statut)
        refused = await client.post("/api/versements", headers=treasurer.headers,
                                    json=_payout(org, "50000", "AIDE", objetId=str(demande.id)))
        assert refused.status_code == 400 and statut in refused.json()["detail"], refused.text
    no_object = await client.post("/api/versements", headers=treasurer.headers, json=_payout(org, "50000", "AIDE"))
    assert no_object.status_code == 400
    unknown = await client.post("/api/versements", headers=treasurer.headers,
                                json=_payout(org, "50000", "AIDE", objetId=str(uuid.uuid4())))
    assert unknown.status_code == 404

    granted = await _demande(db, org, member.membre, accorde="100000")
    over = await client.post("/api/versements", headers=treasurer.headers,
                             json=_payout(org, "150000", "AIDE", objetId=str(granted.id)))
    assert over.status_code == 400 and "accordée" in over.json()["detail"]
    first = await client.post("/api/versements", headers=treasurer.headers,
                              json=_payout(org, "100000", "AIDE", objetId=str(granted.id)))
    assert first.status_code == 201, first.text
    second = await client.post("/api/versements", headers=treasurer.headers,
                               json=_payout(org, "100000", "AIDE", objetId=str(granted.id)))
    assert second.status_code == 400  # a pending payout already takes the whole grant
    cancelled = await client.post(f"/api/versements/{first.json()['id']}/annuler", headers=treasurer.headers,
                                  json={"motif": "Erreur de bénéficiaire"})
    assert cancelled.status_code == 200
    again = await client.post("/api/versements", headers=treasurer.headers,
                              json=_payout(org, "100000", "AIDE", objetId=str(granted.id)))
    assert again.status_code == 201, again.text


async def test_payout_above_threshold_raises_an_lcbft_alert(client, factory, db):
    org, treasurer, president, member = await _org(client, factory, db)
    db.add(ParametresLcbFt(organisation_id=org.id, seuil_operation=Decimal("50000"), seuil_cumul=Decimal("80000"),
                           periode_cumul_jours=30, seuil_especes=Decimal("1000000"), devise="XOF"))
    await db.flush()
    demande = await _demande(db, org, member.membre)
    small = (await client.post("/api/versements", headers=treasurer.headers,
                               json=_payout(org, "40000", "AIDE", objetId=str(demande.id)))).json()
    assert (await _confirm(client, president, small["id"], "VIR-A")).status_code == 200
    assert (await db.execute(select(func.count()).select_from(AlerteLcbFt)
                             .where(AlerteLcbFt.organisation_id == org.id))).scalar_one() == 0
    big = (await client.post("/api/versements", headers=treasurer.headers,
                             json=_payout(org, "55000", "AIDE", objetId=str(demande.id)))).json()
    assert (await _confirm(client, president, big["id"], "VIR-B")).status_code == 200
    alerts = (await db.execute(select(AlerteLcbFt).where(AlerteLcbFt.organisation_id == org.id))).scalars().all()
    assert {a.type_alerte for a in alerts} == {"SEUIL_OPERATION", "CUMUL_PERIODE"}
    assert all(a.membre_id == member.membre.id and big["numero"] in a.description for a in alerts)
    cumul = next(a for a in alerts if a.type_alerte == "CUMUL_PERIODE")
    assert cumul.montant_cumule == Decimal("95000")


@pytest.mark.postgresql_only
async def test_concurrent_aid_payouts_never_exceed_the_grant(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    treasurer = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await committed_factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    demande = await _demande(committed_db, org, member.membre, accorde="100000")
    await committed_db.commit()
    answers = await asyncio.gather(*[
        client.post("/api/versements", headers=treasurer.headers,
                    json=_payout(org, "60000", "AIDE", objetId=str(demande.id))) for _ in range(4)])
    assert sorted(a.status_code for a in answers) == [201, 400, 400, 400], [a.text for a in answers]
    total = (await committed_db.execute(select(func.sum(Versement.montant))
                                        .where(Versement.objet_id == demande.id))).scalar_one()
    assert total == Decimal("60000")
