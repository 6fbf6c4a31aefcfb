"""« Payer une cotisation » on USSD, through the real app and the loopback Wave server: the member's unpaid dues,
one dues with its payment code, then the Wave link by SMS (the outbox) — the public page's checkout for that code,
applied by the signed webhook to that dues. Every screen ≤ 182 GSM-7 characters."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from tests.factories.code_paiement import SECRET as WAVE_SECRET
from tests.factories.code_paiement import WEBHOOK, dues_avec_code
from tests.factories.cotisations import adhesion
from tests.ussd.passerelle import ussd
from tests.ussd.test_menu import PIN, _membre
from unionflow.core.code_paiement import afficher
from unionflow.models import Notification
from unionflow.ussd import ecrans
from unionflow.ussd.ecrans import francs
from unionflow.wave.simulateur import completed_event, signed_webhook


async def test_pay_a_dues_by_ussd_with_a_wave_link_by_sms(client, factory, db, wave):
    org = await factory.organisation(nom="Mutuelle de Joal")
    phone = "+221770000301"
    member = await _membre(client, factory, db, org, phone)
    today = date.today()
    december = await dues_avec_code(db, member.membre, org, 3000, echeance=today + timedelta(days=5), mois=12,
                                    annee=2026)
    january = await dues_avec_code(db, member.membre, org, 2500, echeance=today + timedelta(days=35), mois=1,
                                   annee=2027)
    await adhesion(db, member.membre, org, 1500)

    listing = await ussd(client, phone, f"{PIN}*2")
    assert listing == ecrans.con(f"A payer: {francs(Decimal(7000))}\n1 12/2026 3 000 F\n2 01/2027 2 500 F"), listing
    one = await ussd(client, phone, f"{PIN}*2*2")
    assert one.startswith("CON 01/2027\nA payer: 2 500 F") and afficher(january.code_paiement) in one, one
    assert await ussd(client, phone, f"{PIN}*2*3") == ecrans.CHOIX_INVALIDE
    assert await ussd(client, phone, f"{PIN}*2*1*9") == ecrans.CHOIX_INVALIDE

    sent = await ussd(client, phone, f"{PIN}*2*1*1")
    assert sent == ecrans.lien_envoye(december.code_paiement)
    assert len(wave.sessions) == 1
    session = next(iter(wave.sessions.values()))
    assert session["client_reference"] == december.code_paiement and session["amount"] == "3000"
    sms = (await db.execute(select(Notification).where(Notification.membre_id == member.membre.id,
                                                       Notification.canal == "SMS"))).scalars().all()
    assert len(sms) == 1 and sms[0].adresse == phone and session["wave_launch_url"] in sms[0].corps
    assert sms[0].statut == "EN_ATTENTE" and len(sms[0].corps) <= 160
    # Asked again (a redial): the same open session, one more SMS, no second checkout.
    assert await ussd(client, phone, f"{PIN}*2*1*1") == ecrans.lien_envoye(december.code_paiement)
    assert len(wave.sessions) == 1

    raw, headers = signed_webhook(WAVE_SECRET, completed_event(wave.complete(session["id"])))
    assert (await client.post(WEBHOOK, content=raw, headers=headers)).json()["resultat"] == "APPLIQUE"
    await db.refresh(december)
    assert december.statut == "PAYEE"
    assert await ussd(client, phone, f"{PIN}*2") == ecrans.con(f"A payer: {francs(Decimal(4000))}\n1 01/2027 2 500 F")


async def test_wave_down_and_nothing_to_pay(client, factory, db, wave):
    org = await factory.organisation()
    phone = "+221770000302"
    member = await _membre(client, factory, db, org, phone)
    dues = await dues_avec_code(db, member.membre, org, 2000)
    wave.fail_next.extend([503, 503, 503])
    down = await ussd(client, phone, f"{PIN}*2*1*1")
    assert down == ecrans.wave_indisponible(dues.code_paiement)
    assert not (await db.execute(select(Notification).where(Notification.membre_id == member.membre.id,
                                                            Notification.canal == "SMS"))).scalars().all()
    await db.refresh(dues)
    assert dues.statut == "EN_ATTENTE"
    wave.fail_next.clear()
    dues.statut, dues.montant_paye = "PAYEE", dues.montant_du
    await db.flush()
    assert await ussd(client, phone, f"{PIN}*2") == ecrans.end("Vous etes a jour: rien a payer.")
