from __future__ import annotations

from typing import Any

import httpx

OGG_OPUS = b"OggS\x00\x02" + b"\x00" * 20 + b"\x01\x13OpusHead\x01\x01" + b"\x00" * 64
MP3_ID3 = b"ID3\x04\x00\x00\x00\x00\x00\x21" + b"\x00" * 64
MP3_FRAME = b"\xff\xfb\x90\x64" + b"\x00" * 64
M4A = b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom" + b"\x00" * 64
AAC_ADTS = b"\xff\xf1\x50\x80\x02\x1f\xfc" + b"\x00" * 64
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00" + b"\x00" * 64


async def conversation(client: httpx.AsyncClient, actor: Any, organisation_id: Any, *others: Any,
                       **values: Any) -> httpx.Response:
    body = {"organisationId": str(organisation_id), "participantIds": [str(o.membre.id) for o in others], **values}
    return await client.post("/api/messagerie/conversations", headers=actor.headers, json=body)


async def send(client: httpx.AsyncClient, actor: Any, conversation_id: str, **body: Any) -> httpx.Response:
    return await client.post(f"/api/messagerie/conversations/{conversation_id}/messages", headers=actor.headers,
                             json=body)
