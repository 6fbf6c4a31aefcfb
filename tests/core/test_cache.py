"""The statistics cache: shared through the database, scoped by visibility, bounded in age."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from unionflow.config import get_settings
from unionflow.core.cache import ResultatCalcule, cached, scope_key
from unionflow.models import ResultatCache


class Figures(ResultatCalcule):
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

    first = await cached(db, "t", ctx, Figures, compute)
    assert first.total == 1
    second = await cached(db, "t", ctx, Figures, compute)
    assert second.total == 1, "second read served from the cache"
    assert second.calcule_le == first.calcule_le, "with the time the figures were computed"
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


async def test_every_statistics_response_declares_calcule_le(client):
    spec = (await client.get("/openapi.json")).json()
    statistics = [(path, op) for path, ops in spec["paths"].items() for method, op in ops.items()
                  if method == "get" and re.search(r"/(stats|statistiques|dashboard|analytics)\b|/synthese$", path)]
    assert len(statistics) >= 15, [p for p, _ in statistics]
    missing = []
    for path, op in statistics:
        schema = op["responses"]["200"]["content"]["application/json"]["schema"]
        if "$ref" not in schema:
            continue  # a list of rows (e.g. /statut/{statut} pages), not a statistics object
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name.startswith("Page"):
            continue
        if "calculeLe" not in spec["components"]["schemas"][name]["properties"]:
            missing.append(f"{path} → {name}")
    assert not missing, missing
