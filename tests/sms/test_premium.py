"""Premium (on-demand) short codes with Africa's Talking: the answer to an inbound message that carried a
``linkId`` sends it back with ``bulkSMSMode=0`` (loopback gateway); other SMS leave without either."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.sms.passerelles import africastalking, sms
from unionflow.models import Notification
from unionflow.notifications.delivery import LivreurNotifications
from unionflow.sms import textes


async def _reponse(db, entrant_id: str) -> Notification:
    return (await db.execute(select(Notification).where(Notification.source_type == "SmsEntrant",
                                                        Notification.source_id == uuid.UUID(entrant_id)))).scalar_one()


async def test_the_answer_to_a_premium_message_carries_its_link_id(app, client, factory, db, settings):
    org = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    member = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    phone = "+221770000401"
    member.membre.telephone, member.membre.email = phone, None
    await db.flush()
    await cotisation(db, member.membre, org, 2500, echeance=date.today() - timedelta(days=2))

    premium = await sms(client, phone, "AIDE", lien="SampleLinkId123")
    assert (await _reponse(db, premium["id"])).lien_premium == "SampleLinkId123"
    standard = await sms(client, phone, "AIDE")
    assert (await _reponse(db, standard["id"])).lien_premium is None
    reminded = await client.post("/api/cotisations/rappels/groupes", headers=treasurer.headers,
                                 json=[str(member.membre.id)])
    assert reminded.status_code == 200 and reminded.json()["envoyes"] == 1

    tuned = settings.model_copy(update={"sms_passerelle": "africastalking", "sms_africastalking_username": "sandbox",
                                        "sms_africastalking_api_key": "at-key", "sms_gateway_sender": "21234"})
    with africastalking() as (gateway, url):
        bilan = await LivreurNotifications(app.state.sessionmaker,
                                           tuned.model_copy(update={"sms_africastalking_url": url})).run()
    assert bilan.echouees == 0
    sent = [m for m in gateway.recus if m["to"] == phone]
    assert len(sent) == 3
    [answer] = [m for m in sent if m.get("linkId")]
    assert answer == {"username": "sandbox", "to": phone, "message": textes.AIDE, "from": "21234",
                      "linkId": "SampleLinkId123", "bulkSMSMode": "0"}
    # The standard answer and the reminder: the sender pays, as for any bulk SMS (no linkId, default mode).
    assert all("linkId" not in m and "bulkSMSMode" not in m for m in sent if m is not answer)
    assert sorted(m["message"] == textes.AIDE for m in sent) == [False, True, True]
