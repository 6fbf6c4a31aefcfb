"""The member's account page names each dues' payment code (to give whoever pays for him) and the public payment
page; his account API answers it too."""

from __future__ import annotations

from tests.console.connexion import sign_in
from tests.factories.code_paiement import dues_avec_code


async def test_member_sees_each_dues_payment_code(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    due = await dues_avec_code(db, membre.membre, org, 5000)
    code = due.code_paiement
    await sign_in(client, membre, db)
    moi = await client.get("/console/moi")
    assert moi.status_code == 200
    assert f"Code de paiement <strong>{code[:4]} {code[4:8]} {code[8:]}</strong>" in moi.text
    assert 'href="/api/paiements/par-code"' in moi.text
    compte = await client.get("/api/compte-adherent/me", headers=membre.headers,
                              params={"organisationId": str(org.id)})
    assert [c["codePaiement"] for c in compte.json()["cotisationsAPayer"]] == [code]
