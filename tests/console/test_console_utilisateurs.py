"""The union's accounts for the super-administrator: who, e-mail, roles per organisation (linked to the bureau
where they change), active or blocked, last sign-in; searched and paged as the API's list; no one else."""

from __future__ import annotations

import re
from datetime import date

from sqlalchemy import select

from tests.console.connexion import sign_in
from unionflow.models import AuditLog, MembreOrganisation, UtilisateurLocal


def _ligne(html: str, user_id: object) -> str:
    found = re.search(rf'<tr id="compte-{user_id}">.*?</tr>', html, re.S)
    assert found, html[:3000]
    return found.group(0)


async def test_the_super_administrator_reads_every_account_with_its_roles_per_organisation(client, factory, db):
    a = await factory.organisation(nom="Mutuelle de Pikine")
    b = await factory.organisation(nom="Association de Rufisque")
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    secretaire = await factory.actor(["USER"], organisation=a, org_roles=["MEMBRE", "SECRETAIRE"])
    db.add(MembreOrganisation(membre_id=secretaire.membre.id, organisation_id=b.id, roles=["MEMBRE", "TRESORIER"],
                              date_debut=date.today()))
    bloque = await factory.actor(["USER"], organisation=a, org_roles=["MEMBRE"])
    bloque.user.enabled = False
    db.add_all(UtilisateurLocal(email=f"pagination.{i:02d}@example.sn", username=f"pagination.{i:02d}@example.sn",
                                realm_roles=[], enabled=True) for i in range(26))
    await db.flush()
    await sign_in(client, admin, db)

    home = await client.get("/console/")
    assert 'href="/console/utilisateurs"' in home.text  # « Paramètres » → « Comptes utilisateurs »
    page = await client.get("/console/utilisateurs", params={"q": secretaire.user.email})
    assert page.status_code == 200, page.text
    row = _ligne(page.text, secretaire.user.id)
    assert secretaire.user.email in row and "Actif" in row and "Jamais" in row
    assert f'href="/console/organisations/{a.id}/bureau">Mutuelle de Pikine</a>: Secrétaire' in row
    assert f'href="/console/organisations/{b.id}/bureau">Association de Rufisque</a>: Trésorier' in row
    assert "Bloqué" in _ligne((await client.get("/console/utilisateurs", params={"q": bloque.user.email})).text,
                              bloque.user.id)
    me = _ligne((await client.get("/console/utilisateurs", params={"q": admin.user.email})).text, admin.user.id)
    await db.refresh(admin.user)
    assert admin.user.last_login_at is not None  # signed in just now
    assert "Jamais" not in me and admin.user.last_login_at.strftime("%d/%m/%Y %H:%M") in me

    first = await client.get("/console/utilisateurs", params={"q": "pagination"})
    assert first.text.count('<tr id="compte-') == 25 and "26 comptes" in first.text
    assert "Page 1 sur 2" in first.text and 'href="/console/utilisateurs?page=1&amp;q=pagination"' in first.text
    second = await client.get("/console/utilisateurs", params={"q": "pagination", "page": "1"})
    assert second.text.count('<tr id="compte-') == 1 and "Page précédente" in second.text


async def test_no_one_but_the_super_administrator_reads_the_accounts(client, factory, db):
    org = await factory.organisation()
    president = await factory.actor(["ADMIN"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    await sign_in(client, president, db)
    refused = await client.get("/console/utilisateurs")
    assert refused.status_code == 403 and "Votre rôle ne donne pas accès" in refused.text
    assert 'href="/console/utilisateurs"' not in (await client.get("/console/mise-en-route")).text


async def test_a_provisional_password_and_blocking_from_the_accounts_row(client, factory, db):
    org = await factory.organisation()
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    autre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    csrf = await sign_in(client, admin, db)
    q = {"q": "example.sn"}
    base = f"/console/utilisateurs/{tresorier.user.id}"

    short = await client.post(f"{base}/reinitialiser", params=q, data={"csrf": csrf, "password": "court"})
    assert short.status_code == 400
    row, other = _ligne(short.text, tresorier.user.id), _ligne(short.text, autre.user.id)
    assert f'aria-invalid="true" aria-describedby="raison-password-{tresorier.user.id}-reinitialiser"' in row
    assert "court" not in row and "aria-invalid" not in other  # a password is never shown again

    done = await client.post(f"{base}/reinitialiser", params=q, data={"csrf": csrf, "password": "Provisoire-2026!"})
    assert done.status_code == 303
    assert done.headers["location"] == "/console/utilisateurs?q=example.sn&fait=reinitialiser"
    await db.refresh(tresorier.user)
    assert tresorier.user.password_change_required
    assert (await client.post(f"{base}/bloquer", params=q, data={"csrf": csrf})).status_code == 303
    await db.refresh(tresorier.user)
    assert not tresorier.user.enabled
    assert "Débloquer le compte" in _ligne((await client.get("/console/utilisateurs", params=q)).text,
                                           tresorier.user.id)
    assert (await client.post(f"{base}/debloquer", data={"csrf": csrf})).status_code == 303
    await db.refresh(tresorier.user)
    assert tresorier.user.enabled
    actions = list((await db.execute(select(AuditLog.type_action).where(
        AuditLog.entite_id == str(tresorier.user.id)))).scalars())
    assert actions.count("MODIFIER") == 3
    mine = await client.post(f"/console/utilisateurs/{admin.user.id}/bloquer", data={"csrf": csrf})
    assert mine.status_code == 409 and "Vous ne pouvez pas désactiver votre propre compte" in mine.text
    assert "Bloquer le compte" not in _ligne(mine.text, admin.user.id)  # not offered: forced, the service says no
