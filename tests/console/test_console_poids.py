"""Weight of the new screens (issue 22: every page after the first under 30 KB). Measured through the ASGI app:
the HTML document as sent (headers included, no compression), the CSS being cached after the first page. The
browser's transferSize (tests/console/test_browser.py) is this or less."""

from __future__ import annotations

from datetime import date, timedelta

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from tests.factories.donnees_personnelles import consentement
from tests.factories.evenements import create_event

BUDGET = 30 * 1024


def _poids(response) -> int:
    headers = sum(len(k) + len(v) + 4 for k, v in response.headers.items())
    return len(response.content) + headers + len("HTTP/1.1 200 OK\r\n\r\n")


async def _as(client, actor, db) -> str:
    client.cookies.clear()
    return await sign_in(client, actor, db)


async def test_every_new_page_stays_under_30_kb(client, factory, db, capsys):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    secretaire = await factory.actor(organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    membres = [await factory.actor(organisation=org, org_roles=["MEMBRE"]) for _ in range(5)]
    evt = await create_event(client, secretaire.headers, org.id, capaciteMax=3, listeAttenteActive=True)
    for m in membres:
        assert (await client.post(f"/api/evenements/{evt['id']}/inscriptions", headers=m.headers)).status_code == 201
        await cotisation(db, m.membre, org, 5000)
        await consentement(db, m.membre.id, org.id)
        await client.post("/api/demandes-aide", headers=m.headers, json={
            "organisationId": str(org.id), "type": "MALADIE", "titre": "Hospitalisation à Thiès",
            "description": "Frais d'hospitalisation et de médicaments", "montantDemande": "75000"})
    sizes: dict[str, int] = {}
    csrf = await _as(client, tresorier, db)
    for i in range(18):  # more than the page lists
        form = await client.get("/console/versements")
        await client.post("/console/versements", data={
            "csrf": csrf, "idempotency_key": KEY.search(form.text).group(1), "objet_type": "AUTRE",
            "montant": str(10000 + i), "motif": "Fournitures de bureau", "beneficiaire_nom": f"Librairie {i}",
            "mode": "MANUEL"})
    lock = (date.today().replace(day=1) - timedelta(days=1)).isoformat()
    await client.post("/console/comptabilite/verrou", data={"csrf": csrf, "date": lock})
    await client.post("/console/comptabilite/deverrouillages", data={"csrf": csrf, "date": "2026-01-31",
                                                                     "motif": "Écriture de janvier à corriger"})
    for path in ("/console/versements", "/console/aides", "/console/comptabilite", "/console/clotures",
                 "/console/cotisations/generer", "/console/exports", "/console/"):
        sizes[f"trésorier {path}"] = _poids(await client.get(path))
    await _as(client, president, db)
    for path in ("/console/versements", "/console/aides", "/console/comptabilite"):
        sizes[f"président {path}"] = _poids(await client.get(path))
    await _as(client, secretaire, db)
    for path in ("/console/evenements", f"/console/evenements/{evt['id']}", f"/console/membres/{membres[0].membre.id}"):
        sizes[f"secrétaire {path}"] = _poids(await client.get(path))
    await _as(client, membres[4], db)
    for path in ("/console/evenements", f"/console/evenements/{evt['id']}", "/console/moi", "/console/",
                 "/console/moi/releve", "/console/moi/notifications", "/console/moi/aides", "/console/moi/preferences"):
        sizes[f"membre {path}"] = _poids(await client.get(path))
    with capsys.disabled():
        for name, size in sizes.items():
            print(f"\n{name}: {size} octets", end="")
    assert sizes and all(size < BUDGET for size in sizes.values()), sizes
