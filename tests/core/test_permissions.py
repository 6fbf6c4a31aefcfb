"""The permission table: the documented table is the code's, and how roles count for an organisation."""

from __future__ import annotations

import uuid
from pathlib import Path

from unionflow.core.permissions import GRANTS, Permission, granted, markdown_table, role_permissions, roles_for
from unionflow.core.roles import Role

DOC = Path(__file__).resolve().parents[2] / "docs" / "authorization.md"
A, B = uuid.uuid4(), uuid.uuid4()


def test_documented_table_is_generated_from_grants():
    text = DOC.read_text(encoding="utf-8")
    documented = text.split("<!-- permissions:start -->\n", 1)[1].split("<!-- permissions:end -->", 1)[0]
    assert documented == markdown_table(), "regenerate: .venv/bin/python -m unionflow.core.permissions"


def test_every_permission_is_granted_and_role_permissions_inverts_the_table():
    assert set(GRANTS) == set(Permission) and all(GRANTS.values())
    by_role = role_permissions()
    for permission, roles in GRANTS.items():
        assert {r for r in Role if permission in by_role[r]} == set(roles)
    assert by_role[Role.MEMBRE] == [] and by_role[Role.USER] == []


def _roles(org, **kwargs):
    defaults = {"realm_roles": frozenset(), "memberships": {}, "active_organisation_id": None,
                "active_role": None}
    return roles_for(org, **{**defaults, **kwargs})


def test_roles_count_only_in_their_organisation():
    memberships = {A: frozenset({"TRESORIER", "MEMBRE"}), B: frozenset({"MEMBRE"})}
    assert _roles(A, memberships=memberships, active_organisation_id=A) == {"TRESORIER", "MEMBRE"}
    assert _roles(B, memberships=memberships, active_organisation_id=A) == set()
    assert _roles(A, memberships=memberships, active_organisation_id=B) == set()
    # Several memberships, no active organisation: only the personal role.
    assert _roles(A, memberships=memberships) == {"MEMBRE"}
    assert _roles(A, memberships=memberships, active_organisation_id=A, active_role="MEMBRE") == {"MEMBRE"}
    assert _roles(None, realm_roles=frozenset({"ADMIN", "ADMIN_ORGANISATION"}), memberships=memberships) == {"ADMIN"}
    realm_staff = _roles(A, realm_roles=frozenset({"ADMIN_ORGANISATION"}), memberships={A: frozenset({"MEMBRE"})},
                         active_organisation_id=A)
    assert realm_staff == {"ADMIN_ORGANISATION", "MEMBRE"}
    assert _roles(B, realm_roles=frozenset({"ADMIN_ORGANISATION"}), memberships={A: frozenset({"MEMBRE"})}) == set()


def test_union_wide_moderator():
    kwargs = {"realm_roles": frozenset({"MODERATEUR"}), "memberships": {}, "active_organisation_id": None}
    assert granted(Permission.FEEDBACK_MODERER, A, active_role=None, **kwargs)
    assert not granted(Permission.TICKET_TRAITER, A, active_role=None, **kwargs)
    assert not granted(Permission.FEEDBACK_MODERER, A, active_role="USER", **kwargs)
