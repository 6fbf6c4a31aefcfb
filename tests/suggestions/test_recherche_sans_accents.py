"""Issue 20, item 8: the free text of the suggestions and feedback lists ignores accents and case on both back
ends, as the members' does (models/texte.py, migration 0022_recherche_listes)."""

from __future__ import annotations

import uuid

from tests.suggestions.test_feedback import send
from tests.suggestions.test_suggestions import propose


async def _ids(client, actor, url, q):
    response = await client.get(url, headers=actor.headers, params={"q": q})
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()["content"]]


async def test_suggestions_are_found_whatever_the_accents_and_case(client, factory):
    org = await factory.organisation()
    author = await factory.actor(["USER"], organisation=org)
    tag = uuid.uuid4().hex[:6]
    fete = await propose(client, author, org.id, titre=f"Fête des Élèves {tag}")
    autre = await propose(client, author, org.id, titre=f"Caisse de solidarité {tag}")
    for q in ("élèves", "ELEVES", "eleves", "Élèves fête", "fete"):
        assert await _ids(client, author, "/api/suggestions", q) == [fete["id"]], q
    assert await _ids(client, author, "/api/suggestions", "SOLIDARITE") == [autre["id"]]
    assert await _ids(client, author, "/api/suggestions", "élèves solidarité") == []


async def test_feedback_is_found_whatever_the_accents_and_case(client, factory):
    user = await factory.actor(["USER"], with_membre=False)
    moderator = await factory.actor(["MODERATEUR"], with_membre=False)
    tag = uuid.uuid4().hex[:6]
    recu = await send(client, user, message=f"Le reçu {tag} n'est pas téléchargé", contexte="Écran Paiements")
    for q in (f"RECU {tag}", f"reçu {tag}", f"{tag} telecharge", f"{tag} écran paiements"):
        assert await _ids(client, moderator, "/api/feedback", q) == [recu["id"]], q
