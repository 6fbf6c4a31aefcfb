"""Voice notes: audio documents accepted by magic bytes, sent in a conversation, heard by its participants."""

from __future__ import annotations

import pytest

from tests.documents.fichiers import PDF_BYTES
from tests.factories.documents import upload
from tests.factories.messagerie import conversation, send
from tests.messagerie.sons import AAC_ADTS, M4A, MP3_FRAME, MP3_ID3, OGG_OPUS, WAV


@pytest.mark.parametrize(("content", "filename", "mime"), [
    (OGG_OPUS, "note.opus", "audio/ogg"), (OGG_OPUS, "note.ogg", "audio/ogg"), (MP3_ID3, "note.mp3", "audio/mpeg"),
    (MP3_FRAME, "note.mp3", "audio/mpeg"), (M4A, "note.m4a", "audio/mp4"), (AAC_ADTS, "note.aac", "audio/aac"),
    (WAV, "note.wav", "audio/wav"), (OGG_OPUS, "vocal", "audio/ogg"),
])
async def test_audio_formats_are_detected_by_content(client, factory, content, filename, mime):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await upload(client, member.headers, content, filename=filename, mime="application/octet-stream",
                            typeDocument="AUTRE")
    assert response.status_code == 200, response.text
    assert response.json()["typeMime"] == mime


@pytest.mark.parametrize(("content", "filename"), [
    (b"\xff\xfe" + "bonjour".encode("utf-16-le"), "note.mp3"),  # UTF-16 text is not an MPEG frame
    (b"\x00\x00\x00\x18ftypqt  \x00\x00\x02\x00qt  " + b"\x00" * 32, "film.m4a"),  # QuickTime video
    (OGG_OPUS, "note.mp3"),  # misleading extension
])
async def test_non_audio_or_mislabelled_content_is_refused(client, factory, content, filename):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await upload(client, member.headers, content, filename=filename, mime="audio/mpeg",
                            typeDocument="AUTRE")
    assert response.status_code == 400


async def test_voice_note_is_heard_by_participants_only(client, factory):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    moussa = await factory.actor(["USER"], organisation=org)
    neighbour = await factory.actor(["USER"], organisation=org)
    conv = (await conversation(client, awa, org.id, moussa)).json()
    note = (await upload(client, awa.headers, OGG_OPUS, filename="note.opus", typeDocument="AUTRE")).json()

    assert (await client.get(f"/api/documents/{note['id']}", headers=moussa.headers)).status_code == 404
    sent = await send(client, awa, conv["id"], documentId=note["id"], dureeSecondes=12)
    assert sent.status_code == 201, sent.text
    assert sent.json()["type"] == "VOCAL" and sent.json()["contenu"] is None and sent.json()["dureeSecondes"] == 12

    ticket = await client.post(f"/api/documents/{note['id']}/telechargement", headers=moussa.headers)
    assert ticket.status_code == 200, ticket.text
    audio = await client.get(ticket.json()["url"], headers=moussa.headers)
    assert audio.status_code == 200 and audio.content == OGG_OPUS
    assert (await client.get(f"/api/documents/{note['id']}", headers=neighbour.headers)).status_code == 404


async def test_voice_note_must_be_own_audio_document(client, factory):
    org = await factory.organisation()
    awa = await factory.actor(["USER"], organisation=org)
    moussa = await factory.actor(["USER"], organisation=org)
    conv = (await conversation(client, awa, org.id, moussa)).json()
    pdf = (await upload(client, awa.headers, PDF_BYTES)).json()
    assert (await send(client, awa, conv["id"], documentId=pdf["id"])).status_code == 400
    theirs = (await upload(client, moussa.headers, WAV, filename="n.wav", typeDocument="AUTRE",
                           organisationId=str(org.id))).json()
    # Visible to nobody but its owner and staff: as good as missing for Awa.
    assert (await send(client, awa, conv["id"], documentId=theirs["id"])).status_code == 404
