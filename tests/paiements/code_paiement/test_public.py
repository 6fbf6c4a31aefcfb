"""Paying a member's dues by its code, with no account: the public page and API, the Wave checkout whose
client_reference is the code, the signed webhook applying it to that dues, the receipt to the member and the SMS to
the payer; wrong codes; the rate limit."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.code_paiement import PUBLIC, SECRET, WEBHOOK, dues_avec_code
from unionflow.core.code_paiement import afficher
from unionflow.models import Notification, Paiement
from unionflow.wave.simulateur import completed_event, signed_webhook

JSON = {"Accept": "application/json"}


async def _member(factory):
    org = await factory.organisation(nom="Mutuelle de Joal")
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    member.membre.prenom, member.membre.nom = "Aminata", "Sow"
    await factory.session.flush()
    return org, member


async def test_a_relative_pays_a_dues_by_its_code(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await dues_avec_code(db, member.membre, org, 4500)
    code = dues.code_paiement

    seen = await client.get(f"{PUBLIC}/{afficher(code).replace(' ', '%20')}", headers=JSON)
    assert seen.status_code == 200, seen.text
    body = seen.json()
    assert body == {"codePaiement": code, "initiales": "A. S.", "organisation": "Mutuelle de Joal",
                    "libelle": "Cotisation mensuelle", "dateEcheance": dues.date_echeance.isoformat(),
                    "montantRestant": "4500.00", "devise": "XOF", "payable": True}
    assert "Aminata" not in seen.text and "Sow" not in seen.text and str(member.membre.id) not in seen.text

    opened = await client.post(f"{PUBLIC}/{code}/wave", json={"telephonePayeur": "+33612345678"})
    assert opened.status_code == 201, opened.text
    session = next(s for s in wave.sessions.values() if s["wave_launch_url"] == opened.json()["waveLaunchUrl"])
    assert session["client_reference"] == code and session["amount"] == "4500"
    again = await client.post(f"{PUBLIC}/{code}/wave", json={})
    assert again.status_code == 201 and again.json()["waveLaunchUrl"] == opened.json()["waveLaunchUrl"]
    assert len(wave.sessions) == 1  # a second click gives the same session

    raw, headers = signed_webhook(SECRET, completed_event(wave.complete(session["id"])))
    applied = await client.post(WEBHOOK, content=raw, headers=headers)
    assert applied.status_code == 200 and applied.json()["resultat"] == "APPLIQUE", applied.text
    await db.refresh(dues)
    assert dues.statut == "PAYEE" and dues.montant_paye == 4500
    paiement = (await db.execute(select(Paiement).where(Paiement.membre_id == member.membre.id))).scalar_one()
    assert paiement.statut == "VALIDE" and paiement.numero_recu.startswith("REC-")
    notes = (await db.execute(select(Notification).where(Notification.source_id == paiement.id))).scalars().all()
    to_member = [n for n in notes if n.membre_id == member.membre.id]
    to_payer = [n for n in notes if n.membre_id is None]
    assert to_member and to_member[0].type_notification == "RECU_PAIEMENT"
    assert len(to_payer) == 1 and to_payer[0].adresse == "+33612345678" and to_payer[0].canal == "SMS"
    assert afficher(code) in to_payer[0].corps and paiement.numero_recu in to_payer[0].corps
    assert len(to_payer[0].corps) <= 160 and "Aminata" not in to_payer[0].corps

    settled = (await client.get(f"{PUBLIC}/{code}", headers=JSON)).json()
    assert settled["payable"] is False and settled["montantRestant"] == "0.00"
    refused = await client.post(f"{PUBLIC}/{code}/wave", json={})
    assert refused.status_code == 400 and len(wave.sessions) == 1


async def test_wrong_codes_and_the_browser_page(client, factory, db, wave):
    org, member = await _member(factory)
    dues = await dues_avec_code(db, member.membre, org, 2000)
    code = dues.code_paiement
    typo = code[:3] + str((int(code[3]) + 1) % 10) + code[4:]
    i = next(i for i in range(10) if code[i] != code[i + 1])
    swapped = code[:i] + code[i + 1] + code[i] + code[i + 2:]
    for wrong in (typo, swapped, "123", "abcdefghijk"):
        answer = await client.get(f"{PUBLIC}/{wrong}", headers=JSON)
        assert answer.status_code == 400, (wrong, answer.text)
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert (await client.post(f"{PUBLIC}/{wrong}/wave", json={})).status_code == 400
    from unionflow.core.code_paiement import nouveau_code
    unknown = nouveau_code()
    assert (await client.get(f"{PUBLIC}/{unknown}", headers=JSON)).status_code == 404
    assert not wave.sessions

    form = await client.get(PUBLIC, headers={"Accept": "text/html"})
    assert form.status_code == 200 and "Code de paiement" in form.text
    assert "form-action 'self'" in form.headers["content-security-policy"]
    jump = await client.get(PUBLIC, params={"code": afficher(code)}, headers={"Accept": "text/html"})
    assert jump.status_code == 303 and jump.headers["location"] == f"{PUBLIC}/{code}"
    page = await client.get(f"{PUBLIC}/{code}", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "A. S." in page.text and "2\u202f000" in page.text
    assert "Aminata" not in page.text and f'action="{PUBLIC}/{code}/wave"' in page.text
    bad = await client.get(f"{PUBLIC}/{typo}", headers={"Accept": "text/html"})
    assert bad.status_code == 400 and "clé de contrôle" in bad.text
    wrong_phone = await client.post(f"{PUBLIC}/{code}/wave", data={"telephonePayeur": "77 000"})
    assert wrong_phone.status_code == 400 and not wave.sessions
    go = await client.post(f"{PUBLIC}/{code}/wave", data={"telephonePayeur": "+221770000999"})
    assert go.status_code == 303 and go.headers["location"].startswith("https://pay.wave.com/c/")


async def test_public_routes_are_rate_limited_per_address(client, factory, db, app, monkeypatch):
    monkeypatch.setattr(app.state.settings, "login_max_attempts", 1)  # 10 calls per window and address
    org, member = await _member(factory)
    dues = await dues_avec_code(db, member.membre, org, 2000)
    statuses = [(await client.get(f"{PUBLIC}/{dues.code_paiement}", headers=JSON)).status_code for _ in range(11)]
    assert statuses == [200] * 10 + [429]
    over = await client.post(f"{PUBLIC}/{dues.code_paiement}/wave", json={})
    assert over.status_code == 429 and int(over.headers["retry-after"]) > 0
