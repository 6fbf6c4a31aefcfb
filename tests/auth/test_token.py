from __future__ import annotations

import jwt

from unionflow.auth.service import create_local_user


async def _user(db, email="tresorier@example.sn", password="mot-de-passe-solide", roles=("USER",)):
    user = await create_local_user(db, email=email, password=password, roles=list(roles))
    await db.flush()
    return user


async def test_password_grant_issues_rs256_token_with_claims(client, db, settings):
    user = await _user(db)
    response = await client.post("/api/auth/token", data={
        "grant_type": "password", "username": "Tresorier@Example.sn", "password": "mot-de-passe-solide"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == settings.access_token_ttl_seconds
    header = jwt.get_unverified_header(body["access_token"])
    claims = jwt.decode(body["access_token"], options={"verify_signature": False})
    assert header["alg"] == "RS256" and header["kid"]
    assert claims["sub"] == str(user.id) and claims["iss"] == settings.issuer
    assert claims["aud"] == settings.token_audience and claims["realm_access"] == {"roles": ["USER"]}
    assert claims["email"] == "tresorier@example.sn" and claims["preferred_username"] == "tresorier@example.sn"
    assert claims["exp"] > claims["iat"]

    jwks = (await client.get("/api/auth/jwks")).json()
    assert header["kid"] in {k["kid"] for k in jwks["keys"]}
    assert all("d" not in k for k in jwks["keys"]), "private key material must never be published"
    discovery = (await client.get("/.well-known/openid-configuration")).json()
    assert discovery["issuer"] == settings.issuer and discovery["jwks_uri"].endswith("/api/auth/jwks")

    status = await client.get("/api/status", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert status.status_code == 200 and status.json()["database"] == "UP"


async def test_wrong_password_and_unknown_user_are_indistinguishable(client, db):
    await _user(db)
    wrong = await client.post("/api/auth/token", data={
        "grant_type": "password", "username": "tresorier@example.sn", "password": "faux"})
    unknown = await client.post("/api/auth/token", data={
        "grant_type": "password", "username": "personne@example.sn", "password": "faux"})
    assert wrong.status_code == unknown.status_code == 400
    assert wrong.json()["error"] == unknown.json()["error"] == "invalid_grant"
    assert wrong.json()["detail"] == unknown.json()["detail"]


async def test_disabled_account_cannot_log_in(client, db):
    user = await _user(db)
    user.enabled = False
    await db.flush()
    response = await client.post("/api/auth/token", data={
        "grant_type": "password", "username": user.email, "password": "mot-de-passe-solide"})
    assert response.status_code == 400


async def test_refresh_rotates_and_reuse_revokes_the_family(client, db):
    await _user(db)
    first = (await client.post("/api/auth/token", data={
        "grant_type": "password", "username": "tresorier@example.sn", "password": "mot-de-passe-solide"})).json()
    second = await client.post("/api/auth/token", data={"grant_type": "refresh_token",
                                                         "refresh_token": first["refresh_token"]})
    assert second.status_code == 200
    rotated = second.json()["refresh_token"]
    assert rotated != first["refresh_token"]
    replay = await client.post("/api/auth/token", data={"grant_type": "refresh_token",
                                                         "refresh_token": first["refresh_token"]})
    assert replay.status_code == 400
    # the replay of a rotated token ended the whole family, including the newest token
    after = await client.post("/api/auth/token", data={"grant_type": "refresh_token", "refresh_token": rotated})
    assert after.status_code == 400


async def test_unsupported_grant_and_missing_fields(client):
    assert (await client.post("/api/auth/token", data={"grant_type": "authorization_code"})).status_code == 400
    # client_credentials is supported; without credentials the client is unknown (RFC 6749 §5.2).
    assert (await client.post("/api/auth/token", data={"grant_type": "client_credentials"})).status_code == 401
    assert (await client.post("/api/auth/token", data={"grant_type": "password"})).status_code == 400
    assert (await client.post("/api/auth/token", data={})).status_code == 400


async def test_protected_route_requires_a_bearer_token(client):
    response = await client.get("/api/organisations")
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_token_response_is_never_cached(client, db):
    await _user(db, email="cache@example.sn")
    response = await client.post("/api/auth/token", data={
        "grant_type": "password", "username": "cache@example.sn", "password": "mot-de-passe-solide"})
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store" and response.headers["Pragma"] == "no-cache"
    refreshed = await client.post("/api/auth/token", data={
        "grant_type": "refresh_token", "refresh_token": response.json()["refresh_token"]})
    assert refreshed.status_code == 200
    assert refreshed.headers["Cache-Control"] == "no-store" and refreshed.headers["Pragma"] == "no-cache"
