"""A password set by an administrator is changed before anything else in the console, as the API requires (403
`mot-de-passe-a-changer` everywhere but the password route); anyone changes his own password there."""

from __future__ import annotations

from tests.console.connexion import PASSWORD, csrf_of
from unionflow.core.passwords import hash_password

NOUVEAU = "Un nouveau mot de passe 2026"


async def _connexion(client, email: str, password: str):
    page = await client.get("/console/connexion")
    return await client.post("/console/connexion", data={
        "csrf": csrf_of(page.text), "email": email, "password": password, "suite": "/console/moi"})


async def test_an_imposed_password_is_changed_before_any_page(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    tresorier.user.password_hash = hash_password(PASSWORD)
    tresorier.user.password_change_required = True
    await db.flush()
    assert (await _connexion(client, tresorier.user.email, PASSWORD)).status_code == 303
    for path in ("/console/moi", "/console/tresorerie", "/console/membres"):
        blocked = await client.get(path)
        assert blocked.status_code == 303 and blocked.headers["location"] == "/console/mot-de-passe", path
    page = await client.get("/console/mot-de-passe")
    assert page.status_code == 200 and "fixé par un administrateur" in page.text
    csrf = csrf_of(page.text)
    differ = await client.post("/console/mot-de-passe", data={
        "csrf": csrf, "actuel": PASSWORD, "nouveau": NOUVEAU, "confirmation": NOUVEAU + "x"})
    assert differ.status_code == 400 and "diffèrent" in differ.text
    wrong = await client.post("/console/mot-de-passe", data={
        "csrf": csrf, "actuel": "pas le bon", "nouveau": NOUVEAU, "confirmation": NOUVEAU})
    assert wrong.status_code == 400
    done = await client.post("/console/mot-de-passe", data={
        "csrf": csrf, "actuel": PASSWORD, "nouveau": NOUVEAU, "confirmation": NOUVEAU})
    assert done.status_code == 303 and done.headers["location"] == "/console/connexion?fait=mot-de-passe"
    assert "reconnectez-vous" in (await client.get(done.headers["location"])).text
    client.cookies.clear()
    assert (await _connexion(client, tresorier.user.email, PASSWORD)).status_code != 303
    assert (await _connexion(client, tresorier.user.email, NOUVEAU)).status_code == 303
    assert (await client.get("/console/moi")).status_code == 200
