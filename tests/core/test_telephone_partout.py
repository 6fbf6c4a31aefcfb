"""Issue 20, item 8 (leftover): the per-country phone rules (core/telephone.py) apply to every phone a request
carries, not only the members': the organisation's, the Wave account's and the payout beneficiary's. A number its
country's numbering plan rules out is refused 400 ``regle-metier`` with the reason; a valid one is accepted."""

from __future__ import annotations

REGLE = "https://unionflow.dev/problems/regle-metier"
COURT = "+22177123"  # the "77123" stored as +22177123: 5 digits after +221
MOTIF = "numéro invalide pour le Sénégal: 9 chiffres commençant par 7 ou 3 attendus après +221, 5 reçus (77123)"


def _refused(response) -> None:
    assert response.status_code == 400, response.text
    assert response.json()["type"] == REGLE and MOTIF in response.text, response.text


async def test_the_organisation_phone_follows_its_country_rule(client, factory):
    admin = await factory.actor(["ADMIN"], with_membre=False)
    body = {"nom": "Mutuelle des enseignants", "typeOrganisation": "MUTUELLE", "telephone": COURT}
    _refused(await client.post("/api/organisations", headers=admin.headers, json=body))
    ivorian = await client.post("/api/organisations", headers=admin.headers,
                                json={**body, "telephone": "+2250701020304", "pays": "CI"})
    assert ivorian.status_code == 201, ivorian.text
    url = f"/api/organisations/{ivorian.json()['id']}"
    _refused(await client.put(url, headers=admin.headers, json={"telephone": COURT}))
    short_ci = await client.put(url, headers=admin.headers, json={"telephone": "+22507010203"})
    assert short_ci.status_code == 400 and "10 chiffres" in short_ci.text, short_ci.text
    assert (await client.put(url, headers=admin.headers, json={"telephone": "+221331234567"})).status_code == 200


async def test_the_wave_account_phone_follows_its_country_rule(client, factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    body = {"organisationId": str(org.id), "libelle": "Compte marchand", "numeroTelephone": COURT}
    _refused(await client.post("/api/wave/comptes", headers=treasurer.headers, json=body))
    created = await client.post("/api/wave/comptes", headers=treasurer.headers,
                                json={**body, "numeroTelephone": "+221771112233"})
    assert created.status_code == 201, created.text
    _refused(await client.put(f"/api/wave/comptes/{created.json()['id']}", headers=treasurer.headers,
                              json={"numeroTelephone": COURT}))


async def test_the_payout_beneficiary_phone_follows_its_country_rule(client, factory):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    body = {"organisationId": str(org.id), "montant": "15000", "mode": "WAVE", "objetType": "COTISATIONS",
            "motif": "Reversement des cotisations à la fédération", "beneficiaireNom": "Fédération de Dakar",
            "beneficiaireTelephone": COURT}
    _refused(await client.post("/api/versements", headers=treasurer.headers, json=body))
