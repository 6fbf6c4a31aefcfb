from __future__ import annotations

import time

import pytest
from sqlalchemy import text

ROWS = 300_000


@pytest.mark.postgresql_only
async def test_statistics_stay_fast_on_a_large_journal(client, committed_factory, committed_db):
    """Row-loading statistics take tens of seconds here; aggregates over indexes well under the bound."""
    await committed_db.execute(text(f"""
        INSERT INTO audit_log (id, date_heure, type_action, module, severite, utilisateur, ip_address)
        SELECT gen_random_uuid(), now() - (g || ' minutes')::interval,
               (ARRAY['CREATE','UPDATE','DELETE','LOGIN'])[1 + g % 4],
               (ARRAY['MEMBRES','COTISATIONS','PAIEMENTS','EVENEMENTS','ADHESIONS'])[1 + g % 5],
               (ARRAY['INFO','INFO','INFO','WARNING','ERROR'])[1 + g % 5],
               'volume@example.sn', '10.1.' || (g % 250) || '.1'
        FROM generate_series(1, {ROWS}) AS g"""))
    await committed_db.commit()
    await committed_db.execute(text("ANALYZE audit_log"))
    admin = await committed_factory.actor(["ADMIN"], with_membre=False)

    started = time.perf_counter()
    response = await client.get("/api/audit/statistiques", headers=admin.headers)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    stats = response.json()
    assert stats["total"] >= ROWS and stats["dernieres24h"] >= 24 * 60 - 1
    assert sum(stats["parModule"].values()) == stats["total"]
    print(f"statistiques: {elapsed:.3f}s")
    assert elapsed < 3.0, f"statistiques: {elapsed:.2f}s"

    started = time.perf_counter()
    page = await client.post("/api/audit/rechercher", headers=admin.headers,
                             params={"module": "COTISATIONS", "severite": "INFO", "size": 50})
    assert page.status_code == 200 and len(page.json()["content"]) == 50
    assert time.perf_counter() - started < 3.0
