"""« Mise en route »: the steps left are computed from the database (whoever did the work, console or API), each
links to its screen, the page resumes where the set-up stopped; ``restantes`` is what a home page calls."""

from __future__ import annotations

import re

from tests.console.connexion import sign_in
from unionflow.console.mise_en_route import restantes
from unionflow.core.auth import AuthContext


def _etapes(html: str) -> dict[str, str]:
    """Each step's title → « Fait » / « À faire », as the page says it."""
    return dict(re.findall(r'<li><a href="[^"]+">([^<]+)</a> — <span class="(?:ok|ko)">([^<]+)</span>', html))


async def test_an_empty_installation_starts_with_the_federation(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    await sign_in(client, admin, db)
    home = await client.get("/console/contexte")
    assert 'href="/console/mise-en-route"' in home.text
    page = await client.get("/console/mise-en-route")
    assert page.status_code == 200, page.text
    assert 'Étape suivante: <a href="/console/organisations/nouvelle?type=FEDERATION">' in page.text
    assert set(_etapes(page.text).values()) == {"À faire"} and len(_etapes(page.text)) == 7
    assert len(page.content) < 30_000


async def test_progress_is_read_from_the_database_and_the_next_step_follows(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    federation = await factory.organisation(type_organisation="FEDERATION", nom="Fédération de Kaolack")
    mutuelle = await factory.organisation(type_organisation="MUTUELLE", parent_id=federation.id)
    await factory.actor(["USER"], organisation=mutuelle, org_roles=["MEMBRE", "TRESORIER"])
    await sign_in(client, admin, db)
    steps = _etapes((await client.get("/console/mise-en-route")).text)
    assert steps["Créer la fédération"] == "Fait" and steps["Créer ses organisations"] == "Fait"
    assert steps["Nommer les responsables (président, trésorier)"] == "À faire"  # no president yet
    page = await client.get("/console/mise-en-route")
    assert f'Étape suivante: <a href="/console/organisations/{mutuelle.id}/bureau">' in page.text
    assert f"Importer les membres de {mutuelle.nom}" in page.text

    await factory.actor(["USER"], organisation=mutuelle, org_roles=["MEMBRE", "PRESIDENT"])
    await factory.membre(mutuelle)  # a member who holds no office
    page = await client.get("/console/mise-en-route")
    steps = _etapes(page.text)
    assert steps["Nommer les responsables (président, trésorier)"] == "Fait"
    assert steps["Importer les membres"] == "Fait"
    assert f'Étape suivante: <a href="/console/organisations/{mutuelle.id}/tresoreries">' in page.text


async def test_remaining_steps_for_a_home_page(factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    auth = AuthContext(sub=str(admin.user.id), email=admin.user.email, username=admin.user.email,
                       realm_roles=frozenset({"SUPER_ADMIN"}), roles=frozenset({"SUPER_ADMIN"}), membre_id=None,
                       memberships={}, active_organisation_id=None)
    before = [e.code for e in await restantes(db, auth)]
    assert before[0] == "federation" and "membres" in before
    await factory.organisation(type_organisation="FEDERATION")
    assert "federation" not in [e.code for e in await restantes(db, auth)]
