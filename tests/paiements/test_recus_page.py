"""The QR code of a receipt opens a page a person can read (issue 19, item 4): a browser gets French HTML
(organisation, number, amount, date, valid or cancelled; nothing about the member), a program JSON."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.paiements.test_recus import _pay, _setup
from tests.pdf import pdf_text
from unionflow.models import Paiement
from unionflow.paiements.recus.page import veut_html

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"


async def _link(client, factory, db, nom="Mutuelle de santé « Jàmm » de Thiès"):
    org, treasurer, member = await _setup(factory, nom=nom)
    dues = await cotisation(db, member.membre, org, 12500)
    paid = await _pay(client, treasurer, org, member, dues, "12500")
    text = pdf_text((await client.get(f"/api/paiements/{paid['id']}/recu", headers=member.headers)).content)
    link = next(line for line in text.splitlines() if "/api/recus/verifier/" in line).split(" : ", 1)[1].strip()
    return link.removeprefix("http://testserver"), paid, member


def test_accept_negotiation():
    assert veut_html(BROWSER)
    assert veut_html("text/html")
    assert not veut_html(None) and not veut_html("") and not veut_html("*/*")
    assert not veut_html("application/json")
    assert not veut_html("application/json, text/html;q=0.5")
    assert not veut_html("text/html;q=0")
    assert veut_html("text/html, application/json;q=0.9")


async def test_browser_gets_a_french_page_without_member_data(client, factory, db):
    path, paid, member = await _link(client, factory, db)
    page = await client.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 200, page.text
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src" not in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["vary"] == "Accept"
    html = page.text
    assert '<html lang="fr">' in html and "Reçu valide" in html
    assert "Mutuelle de santé « Jàmm » de Thiès" in html  # escaped only where HTML needs it
    assert paid["numeroRecu"] in html
    assert "12\u202f500\u00a0FCFA" in html
    assert "<script" not in html and "<link" not in html and "src=" not in html  # self-contained
    for secret in (member.membre.prenom, member.membre.nom, member.membre.numero_membre, member.membre.email):
        assert secret not in html

    as_json = await client.get(path, headers={"Accept": "application/json"})
    assert as_json.status_code == 200 and as_json.headers["content-type"].startswith("application/json")
    assert as_json.json()["numeroRecu"] == paid["numeroRecu"] and as_json.json()["valide"] is True
    assert as_json.headers["vary"] == "Accept"
    default = await client.get(path)  # no Accept header: JSON, as before
    assert default.json() == as_json.json()


async def test_cancelled_receipt_page_and_unknown_receipt(client, factory, db):
    path, paid, _ = await _link(client, factory, db, nom="Association <b>Test</b> & Cie")
    paiement = (await db.execute(select(Paiement).where(Paiement.id == uuid.UUID(paid["id"])))).scalar_one()
    paiement.statut = "ANNULE"  # however it was cancelled: the page reads the status
    await db.flush()
    page = await client.get(path, headers={"Accept": BROWSER})
    assert page.status_code == 200
    assert "Reçu annulé" in page.text and "ne vaut plus" in page.text and "Reçu valide" not in page.text
    assert "Association &lt;b&gt;Test&lt;/b&gt; &amp; Cie" in page.text and "<b>Test" not in page.text
    assert (await client.get(path, headers={"Accept": "application/json"})).json()["valide"] is False

    wrong = await client.get(path.split("?cle=")[0] + "?cle=AAAAAAAAAAAAAAAA", headers={"Accept": BROWSER})
    assert wrong.status_code == 404 and wrong.headers["content-type"].startswith("text/html")
    assert "Reçu introuvable" in wrong.text and paid["numeroRecu"] not in wrong.text
    problem = await client.get(path.split("?cle=")[0] + "?cle=AAAAAAAAAAAAAAAA",
                               headers={"Accept": "application/json"})
    assert problem.status_code == 404 and problem.headers["content-type"].startswith("application/problem+json")

    # For a look in a real browser (docs/decisions.md, issue 19): UNIONFLOW_KEEP_PAGES=<dir> keeps the pages.
    if os.environ.get("UNIONFLOW_KEEP_PAGES"):
        valid_path, _, _ = await _link(client, factory, db)
        valid = await client.get(valid_path, headers={"Accept": BROWSER})
        _keep({"recu-annule.html": page.text, "recu-introuvable.html": wrong.text, "recu-valide.html": valid.text})


def _keep(pages: dict[str, str]) -> None:
    folder = Path(os.environ["UNIONFLOW_KEEP_PAGES"])
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")
