"""A password set by someone else (bootstrap administrator, an administrator's reset) must be changed by its owner
at first sign-in: until then the account's tokens allow that change and nothing else."""

from __future__ import annotations

from argon2 import PasswordHasher

from unionflow.auth.service import create_local_user

URL = "/api/membres/me/mot-de-passe"
PROBLEM = "https://unionflow.dev/problems/mot-de-passe-a-changer"
_CHEAP = PasswordHasher(time_cost=1, memory_cost=1024)


async def _token(client, email: str, password: str) -> dict[str, str]:
    response = await client.post("/api/auth/token", data={"grant_type": "password", "username": email,
                                                          "password": password})
    assert response.status_code == 200, response.text
    return {"Authorization": f"Bearer {response.json()['access_token']}"}


async def test_a_temporary_password_only_allows_changing_it(client, db):
    user = await create_local_user(db, email="premier.admin@union.sn", password=None,
                                   roles=["SUPER_ADMIN", "ADMIN"], password_change_required=True)
    user.password_hash = _CHEAP.hash("mot-de-passe-initial")
    await db.flush()
    headers = await _token(client, user.email, "mot-de-passe-initial")

    for method, path in (("GET", "/api/admin/users"), ("GET", "/api/membres/me"), ("GET", "/api/organisations")):
        refused = await client.request(method, path, headers=headers)
        assert refused.status_code == 403 and refused.json()["type"] == PROBLEM, (path, refused.text)
        assert "mot-de-passe" in refused.json()["detail"]

    changed = await client.put(URL, headers=headers, json={"motDePasseActuel": "mot-de-passe-initial",
                                                           "nouveauMotDePasse": "mon-propre-secret-2026"})
    assert changed.status_code == 204, changed.text
    await db.refresh(user)
    assert user.password_change_required is False
    fresh = await _token(client, user.email, "mon-propre-secret-2026")
    assert (await client.get("/api/admin/users", headers=fresh)).status_code == 200


async def test_an_administrators_reset_must_be_changed_by_the_owner(client, factory, db):
    admin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    owner = await factory.actor(["USER"], with_membre=False)
    reset = await client.put(f"/api/admin/users/{owner.user.id}", headers=admin.headers,
                             json={"password": "fixe-par-admin-2026"})
    assert reset.status_code == 200, reset.text
    await db.refresh(owner.user)
    assert owner.user.password_change_required is True
    headers = await _token(client, owner.user.email, "fixe-par-admin-2026")
    assert (await client.get("/api/organisations/mes-organisations", headers=headers)).json()["type"] == PROBLEM
    # The administrator's own tokens are unaffected.
    assert (await client.get("/api/admin/users", headers=admin.headers)).status_code == 200
