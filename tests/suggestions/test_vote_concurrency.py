from __future__ import annotations

import asyncio
import uuid

import pytest
from sqlalchemy import func, select

from tests.suggestions.test_suggestions import propose
from unionflow.models import Suggestion, SuggestionVote


@pytest.mark.postgresql_only
async def test_concurrent_votes_keep_the_count_exact(client, committed_factory, committed_db):
    org = await committed_factory.organisation()
    author = await committed_factory.actor(["USER"], organisation=org)
    voters = [await committed_factory.actor(["USER"], organisation=org) for _ in range(12)]
    idea = await propose(client, author, org.id)
    url = f"/api/suggestions/{idea['id']}/vote"
    responses = await asyncio.gather(*(client.post(url, headers=v.headers) for v in voters))
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses]
    assert sorted(r.json()["nombreVotes"] for r in responses) == list(range(1, 13))
    suggestion_id = uuid.UUID(idea["id"])
    stored = (await committed_db.execute(select(Suggestion.nombre_votes).where(
        Suggestion.id == suggestion_id))).scalar_one()
    rows = (await committed_db.execute(select(func.count()).select_from(SuggestionVote).where(
        SuggestionVote.suggestion_id == suggestion_id))).scalar_one()
    assert stored == rows == 12
