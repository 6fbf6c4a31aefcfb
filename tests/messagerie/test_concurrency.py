from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from tests.factories.messagerie import conversation
from unionflow.models import Conversation


@pytest.mark.postgresql_only
async def test_both_sides_opening_at_once_share_one_direct_conversation(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    awa = await committed_factory.actor(["USER"], organisation=org)
    moussa = await committed_factory.actor(["USER"], organisation=org)
    responses = await asyncio.gather(*(conversation(client, a, org.id, b)
                                       for a, b in [(awa, moussa), (moussa, awa)] * 3))
    assert all(r.status_code in (200, 201) for r in responses), [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    assert sum(r.status_code == 201 for r in responses) == 1
    count = (await committed_db.execute(select(func.count()).select_from(Conversation).where(
        Conversation.organisation_id == org.id))).scalar_one()
    assert count == 1
