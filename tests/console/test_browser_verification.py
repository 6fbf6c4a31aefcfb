"""The QR code of a receipt, opened in a real Chromium (issue 19): a readable French page — organisation, number,
amount, date, valid or cancelled — and nothing about the member; the same URL answers JSON to an API client.

The payment is recorded through the API of the running server (the treasurer's password grant), like a phone
scanning the printed receipt would find it."""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.console import browser
from tests.console.connexion import PASSWORD

REASON = browser.missing_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def _cash_payment(world: browser.World) -> dict[str, Any]:
    with httpx.Client(base_url=world.base, timeout=30) as http:
        token = http.post("/api/auth/token", data={"grant_type": "password", "username": world.emails["tresorier"],
                                                   "password": PASSWORD})
        assert token.status_code == 200, token.text
        headers = {"Authorization": f"Bearer {token.json()['access_token']}", "Idempotency-Key": str(uuid.uuid4()),
                   "X-Active-Organisation-Id": world.ids["a"]}
        paid = http.post("/api/paiements", headers=headers, json={
            "membreId": world.ids["autre"], "organisationId": world.ids["a"], "montant": "5000",
            "methode": "ESPECES", "cibles": [{"cotisationId": world.ids["due_cash"]}]})
        assert paid.status_code == 201, paid.text
        recu = http.get(f"/api/paiements/{paid.json()['id']}/recu", headers=headers)
        assert recu.status_code == 200 and recu.content.startswith(b"%PDF")
        return dict(paid.json())


def _qr_url(world: browser.World, numero: str) -> str:
    """The URL the receipt's QR code holds: its number and verification key (read from the server's database, as
    the printed QR code would give it; the API never lists keys)."""
    with sqlite3.connect(world.downloads.parent / "console.db") as db:
        (cle,) = db.execute("SELECT cle_verification FROM paiement WHERE numero_recu = ?", (numero,)).fetchone()
    return f"{world.base}/api/recus/verifier/{quote(numero)}?cle={quote(cle)}"


def test_the_qr_code_opens_a_readable_french_page_and_json_for_a_client(driver, world):
    paiement = _cash_payment(world)
    numero = paiement["numeroRecu"]
    assert httpx.get(f"{world.base}/api/paiements/{paiement['id']}", timeout=30).status_code == 401  # private
    url = _qr_url(world, numero)
    driver.get(url)
    # French grouping uses a no-break space ("5 000 FCFA"): compare with plain spaces.
    text = driver.find_element("css selector", "main").text.replace("\u202f", " ").replace("\u00a0", " ")
    for expected in ("Mutuelle de Pikine", numero, "5 000", "FCFA", "Valide"):
        assert expected in text, (expected, text)
    assert "Faye" not in text and "Ibrahima" not in text  # nothing about the member
    assert driver.execute_script("return document.documentElement.lang") == "fr"
    browser.SHOTS.mkdir(parents=True, exist_ok=True)
    driver.set_window_size(360, 800)
    driver.save_screenshot(str(browser.SHOTS / "verification-recu-360.png"))
    as_json = httpx.get(url, headers={"Accept": "application/json"}, timeout=30)
    assert as_json.status_code == 200 and as_json.json()["numeroRecu"] == numero and as_json.json()["valide"]
