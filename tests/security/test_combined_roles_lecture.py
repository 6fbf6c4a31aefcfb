"""Combined roles, read grants of issue 19 (item 6): the treasurer reads the audit trail of his organisation's
money and exports its members; the commissaire aux comptes (extension) reads his organisation's books, audit
trail, receipts and exports and changes nothing. Each caller holds roles in two organisations (A and B) and is
checked with either active; the write refusals of the commissaire are also covered, for every permission, by
test_combined_roles.py (he is one of the organisation roles it combines)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from tests.factories.audit import entry, unique_module
from tests.factories.cotisations import cotisation
from unionflow.models import MembreOrganisation
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService

CAC = "COMMISSAIRE_AUX_COMPTES"


async def _two_orgs(db, factory):
    a, b = await factory.organisation(), await factory.organisation()
    marker = unique_module()  # the test's own entries, whatever else the database holds
    rows = {
        ("A", "argent"): await entry(db, organisation_id=a.id, module="PAIEMENTS", utilisateur=f"{marker}@a"),
        ("A", "registre"): await entry(db, organisation_id=a.id, module="MEMBRES", utilisateur=f"{marker}@a"),
        ("B", "argent"): await entry(db, organisation_id=b.id, module="VERSEMENTS", utilisateur=f"{marker}@b"),
        ("B", "registre"): await entry(db, organisation_id=b.id, module="ADHESIONS", utilisateur=f"{marker}@b"),
    }
    return a, b, rows


async def _caller(db, factory, a, b, roles_a: list[str], roles_b: list[str]):
    actor = await factory.actor(["USER"], organisation=a, org_roles=roles_a)
    if roles_b:
        db.add(MembreOrganisation(membre_id=actor.membre.id, organisation_id=b.id, roles=roles_b,
                                  date_debut=date.today()))
        await db.flush()
    return actor


async def _seen(client, headers, rows) -> set[tuple[str, str]] | int:
    response = await client.get("/api/audit", headers=headers, params={"size": 200})
    if response.status_code != 200:
        return response.status_code
    ids = {str(r["id"]) for r in response.json()["content"]}
    return {key for key, row in rows.items() if str(row.id) in ids}


# (roles in A, roles in B, active organisation, what the trail shows: a set of (org, kind) or a status code)
AUDIT_CASES = [
    (["MEMBRE", "TRESORIER"], [], "A", {("A", "argent")}),
    (["MEMBRE", CAC], [], "A", {("A", "argent"), ("A", "registre")}),
    (["MEMBRE", "TRESORIER"], ["MEMBRE"], "A", {("A", "argent")}),
    (["MEMBRE", "TRESORIER"], ["MEMBRE"], "B", 403),
    (["MEMBRE", CAC], ["MEMBRE", "TRESORIER"], "A", {("A", "argent"), ("A", "registre")}),
    (["MEMBRE", CAC], ["MEMBRE", "TRESORIER"], "B", {("B", "argent")}),
    (["MEMBRE", "TRESORIER", CAC], [], "A", {("A", "argent"), ("A", "registre")}),
    (["MEMBRE", "ADMIN_ORGANISATION"], ["MEMBRE", "TRESORIER"], "B", {("B", "argent")}),
    (["MEMBRE", "PRESIDENT"], [], "A", 403),
    (["MEMBRE", "SECRETAIRE"], ["MEMBRE", CAC], "A", 403),
    (["MEMBRE", "SECRETAIRE"], ["MEMBRE", CAC], "B", {("B", "argent"), ("B", "registre")}),
]


@pytest.mark.parametrize("roles_a,roles_b,active,expected", AUDIT_CASES,
                         ids=[f"{'+'.join(a)}@A,{'+'.join(b) or '-'}@B,actif {o}" for a, b, o, _ in AUDIT_CASES])
async def test_audit_trail_by_combined_roles(roles_a, roles_b, active, expected, client, db, factory):
    a, b, rows = await _two_orgs(db, factory)
    actor = await _caller(db, factory, a, b, roles_a, roles_b)
    assert await _seen(client, actor.in_org(a.id if active == "A" else b.id), rows) == expected


async def test_treasurer_narrowed_to_member_reads_no_trail(client, db, factory):
    a, b, rows = await _two_orgs(db, factory)
    actor = await _caller(db, factory, a, b, ["MEMBRE", "TRESORIER"], [])
    assert await _seen(client, actor.in_org(a.id, "MEMBRE"), rows) == 403
    assert await _seen(client, actor.in_org(a.id, "TRESORIER"), rows) == {("A", "argent")}


async def test_treasurer_audit_export_is_his_money_only(client, db, factory):
    a, b, rows = await _two_orgs(db, factory)
    actor = await _caller(db, factory, a, b, ["MEMBRE", "TRESORIER"], ["MEMBRE", "SECRETAIRE"])
    response = await client.get("/api/export/audit", headers=actor.in_org(a.id), params={"format": "csv"})
    assert response.status_code == 200, response.text
    assert rows[("A", "argent")].utilisateur in response.text
    assert "MEMBRES" not in response.text and rows[("B", "argent")].utilisateur not in response.text


async def test_treasurer_exports_his_members_only(client, db, factory):
    a, b = await factory.organisation(), await factory.organisation()
    inscrits_a = [await factory.membre(a) for _ in range(2)]
    inscrit_b = await factory.membre(b)
    actor = await _caller(db, factory, a, b, ["MEMBRE", "TRESORIER"], ["MEMBRE"])
    response = await client.get("/api/export/membres", headers=actor.in_org(a.id), params={"format": "csv"})
    assert response.status_code == 200, response.text
    assert all(m.numero_membre in response.text for m in inscrits_a)
    assert inscrit_b.numero_membre not in response.text
    # Acting for B, where he is a plain member: the members register is not his to export.
    refused = await client.get("/api/export/membres", headers=actor.in_org(b.id), params={"format": "csv"})
    assert refused.status_code == 403


async def test_commissaire_reads_books_receipts_and_exports_and_changes_nothing(client, db, factory):
    a, b = await factory.organisation(), await factory.organisation()
    owner = await factory.membre(a)
    due = await cotisation(db, owner, a, 5000)
    paiement = await EncaissementService(db, None).enregistrer(
        membre_id=owner.id, organisation_id=a.id, montant=Decimal("5000"), methode="ESPECES",
        cibles=[Cible(cotisation_id=due.id)])
    await db.flush()
    cac = await _caller(db, factory, a, b, ["MEMBRE", CAC], ["MEMBRE", "TRESORIER"])
    h = cac.in_org(a.id)
    for url, params in (("/api/comptabilite/etats/balance", {"organisationId": str(a.id)}),
                        ("/api/comptabilite/etats/journal", {"organisationId": str(a.id)}),
                        ("/api/comptabilite/verrouillage", {"organisationId": str(a.id)}),
                        (f"/api/paiements/{paiement.id}", {}),
                        (f"/api/paiements/{paiement.id}/recu", {}),
                        ("/api/export/paiements", {"format": "csv"}),
                        ("/api/export/ecritures", {"format": "csv"}),
                        ("/api/export/membres", {"format": "csv"})):
        response = await client.get(url, headers=h, params=params)
        assert response.status_code == 200, f"{url}: {response.status_code} {response.text[:200]}"
    cancel = await client.post(f"/api/paiements/{paiement.id}/annuler", headers=h, json={"motif": "Contrôle"})
    assert cancel.status_code == 403 and cancel.headers["content-type"].startswith("application/problem+json")
    lock = await client.put("/api/comptabilite/verrouillage", headers=h,
                            json={"organisationId": str(a.id), "dateVerrouillage": "2025-12-31"})
    assert lock.status_code == 403
    # What he reads as commissaire of A he does not read of B, where he is treasurer, while acting for A.
    other = await client.get("/api/comptabilite/etats/balance", headers=h, params={"organisationId": str(b.id)})
    assert other.status_code in (403, 404)
    await db.refresh(paiement)
    assert paiement.statut != "ANNULE"


async def test_role_catalogue_lists_the_commissaire_without_permissions(client, db, factory):
    actor = await factory.actor(["USER"])
    response = await client.get(f"/api/roles/{CAC}", headers=actor.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["permissions"] == [] and body["attribuableEnOrganisation"] is True
    president = (await client.get("/api/roles/PRESIDENT", headers=actor.headers)).json()
    assert "aide.decider" in {p["code"] for p in president["permissions"]}
