"""The secretary suspends, lifts and ends one member and his memberships from the member's page, through the
API's operations (POST /api/membres/{id}/statut, …/organisations/{organisationId}/terminer), checked through the
API; a refused change comes back on the page with its reason."""

from __future__ import annotations

from tests.console.connexion import sign_in


async def test_secretary_suspends_lifts_and_ends_a_membership(client, factory, db):
    org = await factory.organisation()
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    membre = await factory.membre(org)
    csrf = await sign_in(client, secretaire, db)
    page = await client.get(f"/console/membres/{membre.id}")
    assert page.status_code == 200 and f'action="/console/membres/{membre.id}/statut"' in page.text
    assert f"/organisations/{org.id}/terminer" in page.text

    refused = await client.post(f"/console/membres/{membre.id}/statut", data={"csrf": csrf, "statut": "SUSPENDU"})
    assert refused.status_code == 400 and "motif est obligatoire" in refused.text
    assert f"<h1>{membre.prenom} {membre.nom}</h1>" in refused.text  # the member's page, not an error page
    assert '<option value="SUSPENDU" selected>' in refused.text

    done = await client.post(f"/console/membres/{membre.id}/statut", data={
        "csrf": csrf, "statut": "SUSPENDU", "motif": "Cotisations impayées depuis un an"})
    assert done.status_code == 303, done.text
    api = (await client.get(f"/api/membres/{membre.id}", headers=secretaire.headers)).json()
    assert api["statut"] == "SUSPENDU"
    appartenances = (await client.get(f"/api/membres/{membre.id}/organisations", headers=secretaire.headers)).json()
    assert [a["statut"] for a in appartenances] == ["SUSPENDU"]
    shown = await client.get(f"/console/membres/{membre.id}?fait=statut")
    assert "Statut enregistré." in shown.text and "Suspendu" in shown.text

    lifted = await client.post(f"/console/membres/{membre.id}/statut", data={"csrf": csrf, "statut": "ACTIF"})
    assert lifted.status_code == 303, lifted.text
    ended = await client.post(f"/console/membres/{membre.id}/organisations/{org.id}/terminer",
                              data={"csrf": csrf, "motif": "Départ à Dakar"})
    assert ended.status_code == 303, ended.text
    appartenances = (await client.get(f"/api/membres/{membre.id}/organisations", headers=secretaire.headers)).json()
    assert [a["statut"] for a in appartenances] == ["TERMINE"]
