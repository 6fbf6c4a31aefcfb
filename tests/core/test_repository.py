"""The scoped repository base: global callers see all, staff their organisations' rows, members their own
rows only where the repository is personal; an invisible row reads as None (404), locked reads included."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from tests.factories import Factory
from unionflow.core.auth import AuthContext
from unionflow.core.pagination import PageParams
from unionflow.core.repository import ScopedRepository
from unionflow.lcbft.repository import LcbFtRepository
from unionflow.models import AlerteLcbFt


class PersonalAlertes(ScopedRepository[AlerteLcbFt]):
    model = AlerteLcbFt
    personal = True


def caller(*, realm: set[str] | None = None, membre_id: uuid.UUID | None = None,
           memberships: dict[uuid.UUID, frozenset[str]] | None = None) -> AuthContext:
    realm_roles = frozenset(realm or ())
    memberships = memberships or {}
    active = next(iter(memberships)) if len(memberships) == 1 else None
    roles = realm_roles | (memberships[active] if active else frozenset())
    return AuthContext(sub=str(uuid.uuid4()), email=None, username=None, realm_roles=realm_roles, roles=roles,
                       membre_id=membre_id, memberships=memberships, active_organisation_id=active)


async def alerte(db: AsyncSession, organisation_id: uuid.UUID, membre_id: uuid.UUID | None) -> AlerteLcbFt:
    row = AlerteLcbFt(organisation_id=organisation_id, membre_id=membre_id, type_alerte="SEUIL_OPERATION",
                      montant=Decimal("5000000"), seuil=Decimal("1000000"), description="Opération importante")
    db.add(row)
    await db.flush()
    return row


async def test_scope_by_caller(db: AsyncSession, factory: Factory) -> None:
    org_a, org_b = await factory.organisation(), await factory.organisation()
    sujet = await factory.membre(org_a)
    in_a = await alerte(db, org_a.id, sujet.id)
    in_b = await alerte(db, org_b.id, None)

    tresorier_a = caller(membre_id=uuid.uuid4(), memberships={org_a.id: frozenset({"MEMBRE", "ADMIN_ORGANISATION"})})
    repo = LcbFtRepository(db, tresorier_a)
    assert await repo.get(in_a.id) is not None
    assert await repo.get(in_b.id) is None
    assert await repo.get_for_update(in_b.id) is None
    rows, total, _ = await repo.paginate(repo.select(), PageParams(page=0, size=50))
    assert {r.id for r in rows} == {in_a.id} and total == 1

    admin = caller(realm={"ADMIN"})
    assert {await LcbFtRepository(db, admin).get(i) is not None for i in (in_a.id, in_b.id)} == {True}
    assert await LcbFtRepository(db, None).get(in_b.id) is not None  # system jobs see every row


async def test_a_row_naming_a_member_is_not_theirs_unless_the_repository_is_personal(
        db: AsyncSession, factory: Factory) -> None:
    org = await factory.organisation()
    sujet = await factory.membre(org)
    row = await alerte(db, org.id, sujet.id)
    membre = caller(membre_id=sujet.id, memberships={org.id: frozenset({"MEMBRE"})})

    # The subject of an LCB-FT alert never reads it (no tipping-off): organisation-only by default.
    assert await LcbFtRepository(db, membre).get(row.id) is None
    assert await PersonalAlertes(db, membre).get(row.id) is not None
    stranger = caller(membre_id=uuid.uuid4(), memberships={org.id: frozenset({"MEMBRE"})})
    assert await PersonalAlertes(db, stranger).get(row.id) is None
