"""Documents uploaded through the API."""

from __future__ import annotations

from typing import Any

import httpx


async def upload(client: httpx.AsyncClient, headers: dict[str, str], content: bytes, filename: str = "recu.pdf",
                 mime: str = "application/pdf", **fields: Any) -> httpx.Response:
    data = {"description": "Reçu de cotisation", "typeDocument": "RECU", **fields}
    return await client.post("/api/documents/upload", headers=headers, data=data,
                             files={"file": (filename, content, mime)})
