"""The statistics cache: shared through the database, scoped by visibility, bounded in age."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import BaseModel
from sqlalchemy import update

from unionflow.config import get_settings
from unionflow.core.cache import cached, scope_key
from unionflow.models import ResultatCache


class Figures(BaseModel):
    total: int


async def test_result_is_reused_until_it_expires(app, factory, db, monkeypatch):
    monkeypatch.setattr(get_settings(), "statistics_cache_seconds", 30)
    auth = (await factory.actor(["ADMIN"], with_membre=False))
    from unionflow.core.auth import AuthContext

    ctx = AuthContext(sub=str(auth.user.id), email=None, username=None, realm_roles=frozenset({"ADMIN"}),
                      roles=frozenset({"ADMIN"}))
    calls = []

    async def compute() -> Figures:
        calls.append(1)
        return Figures(total=len(calls))

    assert (await cached(db, "t", ctx, Figures, compute)).total == 1
    assert (await cached(db, "t", ctx, Figures, compute)).total == 1, "second read served from the cache"
    await db.execute(update(ResultatCache).values(calcule_le=datetime.now(UTC) - timedelta(seconds=31)))
    assert (await cached(db, "t", ctx, Figures, compute)).total == 2, "an expired result is recomputed"


def test_scope_key_separates_what_callers_may_see():
    import uuid

    from unionflow.core.auth import AuthContext

    org_a, org_b = uuid.uuid4(), uuid.uuid4()

    def ctx(roles, memberships, active=None):
        return AuthContext(sub="s", email=None, username=None, realm_roles=frozenset(), roles=frozenset(roles),
                           membre_id=uuid.UUID(int=1), memberships=memberships, active_organisation_id=active)

    treasurer_a_admin_b = ctx({"TRESORIER", "ADMIN_ORGANISATION", "MEMBRE"},
                              {org_a: frozenset({"TRESORIER"}), org_b: frozenset({"ADMIN_ORGANISATION"})})
    admin_both = ctx({"ADMIN_ORGANISATION", "MEMBRE"},
                     {org_a: frozenset({"ADMIN_ORGANISATION"}), org_b: frozenset({"ADMIN_ORGANISATION"})})
    assert treasurer_a_admin_b.staff_organisations == admin_both.staff_organisations
    assert scope_key(treasurer_a_admin_b) != scope_key(admin_both)
    assert scope_key(ctx({"ADMIN"}, {})) == "global"
