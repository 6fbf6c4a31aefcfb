"""Issue 20, item 7: a dues reminder fits one SMS (<= 160 GSM-7 characters) with the count, the total as
"2 500 FCFA" and a short link; the details go by e-mail and to the in-app inbox."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from tests.factories.cotisations import cotisation_a_venir, days, treasury
from tests.notifications.serveurs import sms_gateway
from unionflow.core.code_paiement import afficher
from unionflow.cotisations.rappels import LIEN_MEMBRE, montant_sms, texte_sms
from unionflow.models import Notification
from unionflow.notifications.delivery import LivreurNotifications
from unionflow.notifications.gsm import septets

BASES = st.sampled_from(["http://127.0.0.1:8000", "https://unionflow.sn", "https://app.mutuelle-des-enseignants.ci",
                         "https://gestion.federation-des-mutuelles-du-senegal.org"])
AMOUNTS = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("9999999999999999.99"), places=2,
                      allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None, print_blob=True)
@given(nombre=st.integers(1, 1_000_000), total=AMOUNTS, base=BASES)
@example(nombre=12, total=Decimal("28500.00"), base="http://127.0.0.1:8000")
@example(nombre=999_999, total=Decimal("9999999999999999.99"),
         base="https://gestion.federation-des-mutuelles-du-senegal.org")
def test_the_sms_reminder_fits_one_message(nombre, total, base):
    lien = base + LIEN_MEMBRE
    text = texte_sms(nombre, total, "XOF", lien)
    length = septets(text)
    note = f"nombre={nombre!r} total={total!r} base={base!r} text={text!r} septets={length}"
    assert length is not None and length <= 160, note
    assert f" {nombre} cotisation" in text and montant_sms(total, "XOF") in text, note
    assert "\u00a0" not in text and montant_sms(total, "XOF").endswith(" FCFA"), note
    if len(lien) <= 40:
        assert lien in text, note


@settings(max_examples=200, deadline=None, print_blob=True)
@given(total=AMOUNTS, base=BASES, graine=st.integers(0, 10**9))
@example(total=Decimal("9999999999999999.99"), graine=0,
         base="https://gestion.federation-des-mutuelles-du-senegal.org")
def test_the_reminder_of_one_dues_carries_its_payment_code_in_one_message(total, base, graine):
    code = f"{graine:09d}" + "00"
    text = texte_sms(1, total, "XOF", base + LIEN_MEMBRE, code)
    note = f"total={total!r} base={base!r} text={text!r}"
    assert septets(text) is not None and septets(text) <= 160, note
    assert afficher(code) in text, note  # the code always fits: it comes before the link


def test_amounts_read_as_elsewhere():
    assert montant_sms(Decimal("2500.00"), "XOF") == "2 500 FCFA"
    assert montant_sms(Decimal("1236500"), "XOF") == "1 236 500 FCFA"
    assert texte_sms(12, Decimal("28500.00"), "XOF", "https://u.sn/console/moi") == (
        "Rappel: 12 cotisations à régler, 28 500 FCFA au total. Détails et paiement: https://u.sn/console/moi")


async def test_reminder_by_sms_through_the_gateway_and_details_in_the_app(app, client, factory, db, settings):
    org, treasurer, a, _b = await treasury(factory)
    a.membre.email, a.membre.telephone = None, "+221781112233"
    await db.flush()
    for n in range(12):
        await cotisation_a_venir(factory, a.membre, org, montant="2375", echeance=days(-30 * (n + 1)))
    reminded = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                                 json=[str(a.membre.id)])
    assert reminded.status_code == 200, reminded.text
    assert reminded.json()["rappels"][0]["canal"] == "SMS"
    queued = (await db.execute(select(Notification).where(Notification.membre_id == a.membre.id,
                                                          Notification.canal == "SMS"))).scalar_one()
    tuned = settings.model_copy(update={"notification_backoff_seconds": 0, "notification_lot": 10})
    with sms_gateway() as (received, url):
        await LivreurNotifications(app.state.sessionmaker, tuned.model_copy(update={"sms_gateway_url": url})).run()
    mine = [r["body"]["message"] for r in received if r["body"]["reference"] == str(queued.id)]
    assert len(mine) == 1, received
    sms = mine[0]
    assert septets(sms) is not None and septets(sms) <= 160, sms
    assert "12 cotisations" in sms and "28 500 FCFA" in sms and f"{settings.public_base_url}/console/moi" in sms
    assert "COT-" not in sms and "EN_RETARD" not in sms
    # The reminder's record keeps the text sent; the audit keeps the details (references, dates, remainders).
    detail = (await client.get("/api/notifications/mes", headers=a.headers)).json()["content"]
    assert detail and detail[0]["corps"] == sms
