"""The USSD gateway as the tests play it: its secret, the callback, every screen checked."""

from __future__ import annotations

from typing import Any

import httpx

from unionflow.notifications.gsm import septets

SECRET = "ussd-test-gateway-secret"
URL = "/api/ussd/callback"


def valide(ecran: str) -> str:
    """Every answer: CON/END, at most 182 characters, all GSM-7 (one septet each: no extension character)."""
    assert ecran.startswith(("CON ", "END ")), ecran
    assert len(ecran) <= 182, (len(ecran), ecran)
    assert septets(ecran) is not None, ecran
    return ecran


async def ussd(client: httpx.AsyncClient, telephone: str, text: str, *, session: str = "ATUid_1",
               secret: str | None = SECRET, **extra: Any) -> str:
    headers = {"X-USSD-Secret": secret} if secret else {}
    response = await client.post(URL, headers=headers, data={
        "sessionId": session, "serviceCode": "*384*31#", "phoneNumber": telephone, "text": text, **extra})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return valide(response.text)
