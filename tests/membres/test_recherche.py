"""Free-text search ignores accents and case on both back ends (issue 20, item 8): members (nom, prénom, e-mail,
numéro), organisations and events, through the one search key of models/texte.py."""

from __future__ import annotations

import uuid

from hypothesis import example, given
from hypothesis import strategies as st

from tests.factories.evenements import create_event
from unionflow.models.texte import cle_recherche


@given(st.text(max_size=30))
@example("Élodie Sèye")
@example("Lætitia Cœur")
def test_the_key_ignores_accents_and_case(texte):
    """Any text and its upper-cased, accent-stripped forms give the same key (the key is idempotent)."""
    cle = cle_recherche(texte)
    assert cle_recherche(cle) == cle, (texte, cle)
    assert cle_recherche(texte.upper()) == cle_recherche(texte.lower()) or not texte.isascii(), (texte, cle)


def test_the_key_of_french_names():
    assert cle_recherche("Élodie", "SÈYE", None, "+221771234567") == "elodie seye +221771234567"
    assert cle_recherche("Lætitia Cœur") == "laetitia coeur"


def _marqueur() -> str:
    """Letters only: a marker starting with a digit would join a number typed before it ("10 3fa…")."""
    return uuid.uuid4().hex[:8].translate(str.maketrans("0123456789", "ghijklmnop"))


async def _noms(client, headers, q, marker):
    response = await client.get("/api/membres", headers=headers, params={"q": f"{q} {marker}", "size": 50})
    assert response.status_code == 200, response.text
    return sorted(m["id"] for m in response.json()["content"])


async def test_elodie_is_found_however_it_is_typed(client, factory):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    marker = _marqueur()
    eux = [await factory.membre(org, prenom="Élodie", nom=f"Sèye{marker}"),
           await factory.membre(org, prenom="Elodie", nom=f"Faye{marker}"),
           await factory.membre(org, prenom="ÉLODIE", nom=f"Ndiaye{marker}")]
    await factory.membre(org, prenom="Mélanie", nom=f"Diallo{marker}")
    attendus = sorted(str(m.id) for m in eux)
    for q in ("Élodie", "élodie", "Elodie", "ELODIE", "eLoDiE"):
        assert await _noms(client, admin.headers, q, marker) == attendus, q
    # Several words: each must occur, in any field and order ("seye élodie" is Élodie Sèye).
    assert await _noms(client, admin.headers, "seye élodie", marker) == [str(eux[0].id)]


async def test_email_and_phone_are_searched_and_the_key_follows_updates(client, factory):
    org = await factory.organisation()
    admin = await factory.actor(["ADMIN"], with_membre=False)
    marker = _marqueur()
    created = await client.post("/api/membres", headers=admin.headers, json={
        "prenom": "Aïssatou", "nom": f"Guèye{marker}", "email": f"contact.{marker}@example.sn",
        "telephone": "+221776543210", "organisationId": str(org.id)})
    assert created.status_code == 201, created.text
    ident = [created.json()["id"]]
    assert await _noms(client, admin.headers, "AISSATOU GUEYE", marker) == ident
    assert await _noms(client, admin.headers, "776543210", marker) == ident
    assert await _noms(client, admin.headers, "77 654 32 10", marker) == ident
    assert await _noms(client, admin.headers, "+221 77-654-32-10", marker) == ident
    assert await _noms(client, admin.headers, f"CONTACT.{marker}@example", "") == ident
    renamed = await client.put(f"/api/membres/{ident[0]}", headers=admin.headers, json={"prenom": "Ndèye"})
    assert renamed.status_code == 200, renamed.text
    assert await _noms(client, admin.headers, "aissatou", marker) == []
    assert await _noms(client, admin.headers, "NDEYE", marker) == ident


async def test_organisations_and_events_ignore_accents_too(client, factory):
    marker = _marqueur()
    org = await factory.organisation(nom=f"Mutuelle de Thiès {marker}", ville="Kébémer")
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    for q in (f"THIES {marker}", f"thiès {marker}", f"kebemer {marker}"):
        listing = await client.get("/api/organisations", params={"q": q}, headers=member.headers)
        assert [o["id"] for o in listing.json()["content"]] == [str(org.id)], q
    event = await create_event(client, member.headers, org.id, titre=f"Atelier Épargne {marker}")
    for q in (f"epargne {marker}", f"ÉPARGNE {marker}", f"thies {marker}"):
        found = await client.get("/api/evenements/recherche", params={"q": q}, headers=member.headers)
        assert [e["id"] for e in found.json()["content"]] == [event["id"]], q
