"""The organisation's accounting referential: default SYCEBNL_NORMAL (a mutual too), a choice by the president
effective from a year on, its history and audit, PCMS only for a mutual citing its approval, 403 for the
treasurer."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from unionflow.models import AuditLog

ANNEE = datetime.now(UTC).year


def _url(org) -> str:
    return f"/api/configuration/organisations/{org.id}/referentiel-comptable"


async def test_a_mutual_keeps_sycebnl_until_it_cites_its_approval(client, factory, db):
    org = await factory.organisation(type_organisation="MUTUELLE")
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])

    lu = await client.get(_url(org), headers=tresorier.headers)
    assert lu.status_code == 200, lu.text
    assert lu.json()["referentiel"] == "SYCEBNL_NORMAL" and lu.json()["parDefaut"] is True
    assert lu.json()["historique"] == []

    refus = await client.post(_url(org), headers=tresorier.headers, json={
        "referentiel": "SYCEBNL_SMT", "exercice": ANNEE, "motif": "Petite mutuelle"})
    assert refus.status_code == 403 and "président" in refus.json()["detail"]

    sans_agrement = await client.post(_url(org), headers=president.headers, json={
        "referentiel": "PCMS", "exercice": ANNEE, "motif": "Mutuelle sociale"})
    assert sans_agrement.status_code == 400 and "agrément" in sans_agrement.json()["detail"]

    pcms = await client.post(_url(org), headers=president.headers, json={
        "referentiel": "PCMS", "exercice": ANNEE - 1, "motif": "Mutuelle sociale agréée",
        "referenceAgrement": "AGR-MS-2019-014"})
    assert pcms.status_code == 201, pcms.text
    smt = await client.post(_url(org), headers=president.headers, json={
        "referentiel": "SYCEBNL_SMT", "exercice": ANNEE, "motif": "Retrait d'agrément, petite entité"})
    assert smt.status_code == 201, smt.text
    assert smt.json()["referentiel"] == "SYCEBNL_SMT" and smt.json()["parDefaut"] is False
    assert [c["referentiel"] for c in smt.json()["historique"]] == ["PCMS", "SYCEBNL_SMT"]

    avant = (await client.get(_url(org) + f"?exercice={ANNEE - 1}", headers=tresorier.headers)).json()
    assert avant["referentiel"] == "PCMS" and avant["choix"]["referenceAgrement"] == "AGR-MS-2019-014"
    plus_tot = (await client.get(_url(org) + f"?exercice={ANNEE - 2}", headers=tresorier.headers)).json()
    assert plus_tot["referentiel"] == "SYCEBNL_NORMAL" and plus_tot["parDefaut"] is True

    audits = (await db.execute(select(AuditLog).where(AuditLog.type_action == "CHOISIR_REFERENTIEL",
                                                      AuditLog.organisation_id == org.id))).scalars().all()
    assert len(audits) == 2
    assert {a.details["apres"]["referentiel"] for a in audits} == {"PCMS", "SYCEBNL_SMT"}


async def test_pcms_is_a_mutuals_referential_only(client, factory):
    org = await factory.organisation()
    admin = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    refus = await client.post(_url(org), headers=admin.headers, json={
        "referentiel": "PCMS", "exercice": ANNEE, "motif": "Essai", "referenceAgrement": "AGR-1"})
    assert refus.status_code == 400 and "mutuelle" in refus.json()["detail"]
    agrement = await client.post(_url(org), headers=admin.headers, json={
        "referentiel": "SYCEBNL_NORMAL", "exercice": ANNEE, "motif": "Essai", "referenceAgrement": "AGR-1"})
    assert agrement.status_code == 400
    inconnu = await client.post(_url(org), headers=admin.headers, json={
        "referentiel": "SYSCOHADA", "exercice": ANNEE, "motif": "Essai"})
    assert inconnu.status_code == 400
    ailleurs = await factory.organisation()
    assert (await client.get(_url(ailleurs), headers=admin.headers)).status_code == 404
