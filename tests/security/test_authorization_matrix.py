"""Authorization matrix: anonymous → 401; each single role outside the endpoint's set → 403 even with a random
id and a garbage body; each role inside → neither 401 nor 403. The set is the spec's (spec/endpoints.json) for
spec endpoints, the route's declared set otherwise."""

from __future__ import annotations

import re
import uuid

import pytest

from tests.security.catalog import (
    ALL_ROLES,
    Endpoint,
    absent_spec_endpoints,
    guarded_endpoints,
    normalise,
    spec_document,
)
from unionflow.core import roles as core_roles
from unionflow.core.routing import PUBLIC_ROUTES

ENDPOINTS = guarded_endpoints()
WITH_BODY = {"POST", "PUT", "PATCH", "DELETE"}


def _url(endpoint: Endpoint) -> str:
    return re.sub(r"\{[^}]+\}", lambda _m: str(uuid.uuid4()), endpoint.path)


async def _call(client, endpoint: Endpoint, headers: dict[str, str], body: bytes | None):
    extra = {"content": body, "headers": {**headers, "Content-Type": "application/json"}} if body is not None \
        else {"headers": headers}
    return await client.request(endpoint.method, _url(endpoint), **extra)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[e.id for e in ENDPOINTS])
async def test_matrix(endpoint: Endpoint, client, db, role_headers):
    if endpoint.spec is not None:
        # A documented extension (issue 19) may only add roles to the spec's set, never remove one.
        assert endpoint.declared is not None and endpoint.declared - endpoint.extension == endpoint.spec, \
            f"{endpoint.id}: declared set differs from the spec"
    garbage = b'{"id": [unterminated' if endpoint.method in WITH_BODY else None
    empty = b"{}" if endpoint.method in WITH_BODY else None

    anonymous = await _call(client, endpoint, {}, garbage)
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")

    for role in ALL_ROLES:
        if role in endpoint.expected:
            response = await _call(client, endpoint, role_headers[role], empty)
            assert response.status_code not in (401, 403), f"{role}: {response.status_code} {response.text}"
        else:
            response = await _call(client, endpoint, role_headers[role], garbage)
            assert response.status_code == 403, f"{role}: {response.status_code} {response.text}"
    roleless = await _call(client, endpoint, role_headers[""], garbage)
    assert roleless.status_code == 403


def test_spec_role_sets_are_the_ones_in_core_roles():
    document = spec_document()
    sets = [v for v in vars(core_roles).values() if isinstance(v, core_roles.RoleSet)]
    by_name = {v.name: v for v in sets if not v.extension}
    for name, roles in document["role_sets"].items():
        assert name in by_name and by_name[name].roles == frozenset(roles), name
    for extended in (v for v in sets if v.extension):
        # Same name as a spec set: the spec's roles plus extension roles, documented (docs/authorization.md).
        assert extended.roles - extended.extension == frozenset(document["role_sets"][extended.name]), extended.name
    assert set(document["all_roles"]) == {r.value for r in core_roles.Role} - core_roles.EXTENSION_ROLES


def test_report_spec_coverage():
    absent = absent_spec_endpoints()
    checked = {(e.method, normalise(e.path)) for e in ENDPOINTS if e.in_spec}
    spec = {(e["method"], normalise(e["path"])) for e in spec_document()["endpoints"]}
    print(f"\nspec endpoints checked: {len(checked)}; absent from this app ({len(absent)}): {absent}")
    # Every spec endpoint is either checked above, public, or reported absent.
    public = {(m, normalise(p)) for m, p in PUBLIC_ROUTES}
    assert spec == checked | {tuple(a.split(" ", 1)) for a in absent} | (spec & public)
    assert ("GET", "/api/admin/users/roles") in checked
