"""Bodies: unknown fields and wrong types → 400 naming the field; a malformed body never reveals more than the
caller's authentication allows (401 anonymous, 403 without the role, then 400)."""

from __future__ import annotations

BODY_ROUTES = [("POST", "/api/admin/users"), ("POST", "/api/organisations")]


async def test_unknown_field_and_bad_types_name_the_fields(client, factory):
    sa = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    response = await client.post("/api/admin/users", headers=sa.headers, json={
        "username": "awa.sow", "email": "pas-un-email", "enabled": "peut-etre", "isAdmin": True})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    fields = {e["field"] for e in response.json()["errors"]}
    assert {"email", "enabled", "isAdmin"} <= fields
    roles = await client.put(f"/api/admin/users/{sa.user.id}/roles", headers=sa.headers, json=["USER", 42])
    assert roles.status_code == 400 and roles.json()["errors"]


async def test_malformed_json_is_401_then_403_then_400(client, factory):
    roleless = await factory.actor([], with_membre=False)
    member = await factory.actor(["MEMBRE"], with_membre=False)
    sa = await factory.actor(["SUPER_ADMIN", "ADMIN"], with_membre=False)
    broken = {"content": b'{"username": "x",', "headers": {"Content-Type": "application/json"}}
    for method, url in BODY_ROUTES:
        anonymous = await client.request(method, url, **broken)
        assert anonymous.status_code == 401, (url, anonymous.text)
        for caller in (roleless, member):
            forbidden = await client.request(method, url, content=broken["content"],
                                             headers={**broken["headers"], **caller.headers})
            assert forbidden.status_code == 403, (url, forbidden.text)
        allowed = await client.request(method, url, content=broken["content"],
                                       headers={**broken["headers"], **sa.headers})
        assert allowed.status_code == 400, (url, allowed.text)
    # Same order on the password change, open to every role but not to a caller without any.
    url = "/api/membres/me/mot-de-passe"
    assert (await client.put(url, **broken)).status_code == 401
    assert (await client.put(url, content=broken["content"],
                             headers={**broken["headers"], **roleless.headers})).status_code == 403
    assert (await client.put(url, content=broken["content"],
                             headers={**broken["headers"], **member.headers})).status_code == 400
