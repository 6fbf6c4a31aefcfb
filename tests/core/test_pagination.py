"""Paging mechanics shared by every list: totals of unfiltered lists and the deferred join of deep pages."""

from __future__ import annotations

from unionflow.core import pagination


async def _listing(client, admin, page: int, size: int) -> dict:
    response = await client.get("/api/organisations", params={"page": page, "size": size, "q": "Paging"},
                                headers=admin.headers)
    assert response.status_code == 200
    return response.json()


async def test_unfiltered_admin_list_counts_every_row(client, factory):
    # ADMIN's visibility filter is TRUE: the count must still read FROM the table (it used to say 1).
    for i in range(7):
        await factory.organisation(nom=f"Comptage {i}")
    admin = await factory.actor(["ADMIN"])
    response = await client.get("/api/organisations", params={"size": 2}, headers=admin.headers)
    body = response.json()
    assert body["totalElements"] >= 7
    assert body["totalPages"] == -(-body["totalElements"] // 2)
    assert body["last"] is False


async def test_deferred_join_pages_match_plain_offset(client, factory, monkeypatch):
    for i in range(9):
        await factory.organisation(nom=f"Paging {i:02d}")
    admin = await factory.actor(["ADMIN"])
    monkeypatch.setattr(pagination, "DEFERRED_JOIN_MIN_OFFSET", 10**9)
    plain = [await _listing(client, admin, page, 4) for page in range(3)]
    monkeypatch.setattr(pagination, "DEFERRED_JOIN_MIN_OFFSET", 1)
    deferred = [await _listing(client, admin, page, 4) for page in range(3)]
    assert [[o["nom"] for o in p["content"]] for p in deferred] == [
        [f"Paging {i:02d}" for i in range(0, 4)], [f"Paging {i:02d}" for i in range(4, 8)], ["Paging 08"]]
    assert deferred == plain
