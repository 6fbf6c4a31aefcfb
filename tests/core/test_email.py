"""One e-mail syntax: API schemas, members, organisations and the account creation used by CLI and bootstrap."""

from __future__ import annotations

import pytest

from unionflow.auth.service import create_local_user
from unionflow.core.email import normaliser_email
from unionflow.core.errors import InvalidInput


@pytest.mark.parametrize("address", ["admin@unionflow.local", "a.b@x.test", "awa.diop@orange.sn"])
def test_special_use_local_and_test_domains_are_accepted(address):
    assert normaliser_email(address) == address


@pytest.mark.parametrize(("address", "reason"), [
    ("pas-un-email", "il manque le @"), ("x@y.invalid", "domaine réservé"), ("x@localhost", "domaine invalide"),
    ("a b@c.sn", "partie avant le @ invalide"), ("x@serveur", "domaine invalide")])
def test_invalid_addresses_are_refused_in_french(address, reason):
    with pytest.raises(ValueError, match=rf"^adresse e-mail invalide \({reason}\)$"):
        normaliser_email(address)


async def test_every_entry_point_applies_the_same_rule(client, factory, db):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    org = await factory.organisation()
    membre = await client.post("/api/membres", headers=admin.headers, json={
        "prenom": "Awa", "nom": "Diop", "email": "awa.diop@coop.test", "organisationId": str(org.id)})
    assert membre.status_code in (200, 201), membre.text
    assert membre.json()["email"] == "awa.diop@coop.test"
    refused = await client.post("/api/membres", headers=admin.headers, json={
        "prenom": "Awa", "nom": "Diop", "email": "awa@coop.invalid", "organisationId": str(org.id)})
    assert refused.status_code == 400 and "adresse e-mail invalide (domaine réservé)" in refused.json()["detail"]
    updated = await client.put(f"/api/organisations/{org.id}", headers=admin.headers,
                               json={"email": "bureau@union.local"})
    assert updated.status_code == 200, updated.text
    with pytest.raises(InvalidInput, match="email: adresse e-mail invalide"):
        await create_local_user(db, email="pas-un-email", password=None, roles=["USER"])
