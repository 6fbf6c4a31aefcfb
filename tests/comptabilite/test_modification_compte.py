from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.comptabilite import compte, ecriture, journal, passer
from unionflow.models import AuditLog


async def _books(client, factory):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    h = tresorier.headers
    banque = await compte(client, h, org.id, "521", "Banque")
    achats = await compte(client, h, org.id, "601", "Achats")
    bq = await journal(client, h, org.id)
    return org, tresorier, banque, achats, bq


async def _put(client, headers, compte_id, body):
    return await client.put(f"/api/comptabilite/comptes/{compte_id}", headers=headers, json=body)


async def test_rename_keeps_number_and_is_audited(client, factory, db):
    _, tresorier, _, achats, _ = await _books(client, factory)
    r = await _put(client, tresorier.headers, achats["id"], {"libelle": "Achats de fournitures"})
    assert r.status_code == 200, r.text
    assert (r.json()["libelle"], r.json()["numeroCompte"], r.json()["actif"]) == ("Achats de fournitures", "601", True)
    for bad in ({"numeroCompte": "602"}, {"classe": 7}, {"libelle": None}, {"actif": None}, {"libelle": "A"}):
        refused = await _put(client, tresorier.headers, achats["id"], bad)
        assert refused.status_code == 400, bad
    audited = (await db.execute(select(AuditLog).where(AuditLog.entite_id == achats["id"])
                                .order_by(AuditLog.date_heure))).scalars().all()
    assert [a.type_action for a in audited] == ["CREER", "MODIFIER"]


async def test_deactivation_needs_a_zero_balance_and_reactivation_is_free(client, factory):
    org, tresorier, banque, achats, bq = await _books(client, factory)
    h = tresorier.headers
    posted = await passer(client, factory, org, h, ecriture(
        bq["id"], [(achats["id"], "1500.00", "0"), (banque["id"], "0", "1500.00")]))
    assert posted.status_code == 200, posted.text
    refused = await _put(client, h, achats["id"], {"actif": False})
    assert refused.status_code == 400
    assert "1500.00" in refused.json()["detail"]
    # A reversal brings the balance back to zero: the account may now be closed.
    reversal = await passer(client, factory, org, h, ecriture(
        bq["id"], [(banque["id"], "1500.00", "0"), (achats["id"], "0", "1500.00")]))
    assert reversal.status_code == 200, reversal.text
    closed = await _put(client, h, achats["id"], {"actif": False})
    assert closed.status_code == 200, closed.text
    assert closed.json()["actif"] is False
    blocked = await passer(client, factory, org, h, ecriture(
        bq["id"], [(achats["id"], "10.00", "0"), (banque["id"], "0", "10.00")]))
    assert blocked.status_code == 400
    reopened = await _put(client, h, achats["id"], {"actif": True})
    assert reopened.status_code == 200 and reopened.json()["actif"] is True


async def test_accounts_of_automatic_postings_cannot_be_deactivated(client, factory):
    _, tresorier, banque, _, _ = await _books(client, factory)
    refused = await _put(client, tresorier.headers, banque["id"], {"actif": False})
    assert refused.status_code == 400
    assert "écritures automatiques" in refused.json()["detail"]
    assert (await client.get(f"/api/comptabilite/comptes/{banque['id']}", headers=tresorier.headers)).json()["actif"]
    # Renaming such an account stays allowed.
    assert (await _put(client, tresorier.headers, banque["id"], {"libelle": "Banque Atlantique"})).status_code == 200


async def test_only_bookkeepers_edit_and_foreign_accounts_are_404(client, factory):
    org, _, _, achats, _ = await _books(client, factory)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    assert (await _put(client, secretaire.headers, achats["id"], {"libelle": "Autre"})).status_code == 403
    outsider = await factory.actor(["USER"], organisation=await factory.organisation(),
                                   org_roles=["MEMBRE", "TRESORIER"])
    assert (await _put(client, outsider.headers, achats["id"], {"libelle": "Autre"})).status_code == 404
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await _put(client, admin.headers, uuid.uuid4(), {"libelle": "Autre"})).status_code == 404
    assert (await _put(client, admin.headers, achats["id"], {"actif": False})).status_code == 200
