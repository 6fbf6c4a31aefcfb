"""A batch that outlives its lease: the worker extends it by compare-and-set before each send once half of it has
passed, so a row another worker leased meanwhile is sent by that worker only (notifications/delivery.py,
``_tient_bail``). Transports are the worker's injected collaborators, as the gateways of test_delivery.py are."""

from __future__ import annotations

import asyncio
import uuid

from sqlalchemy import select

from unionflow.models import Notification
from unionflow.notifications.delivery import LivreurNotifications


class Transport:
    """Records what it sends; the first send waits for ``relache`` when one is given (a slow SMTP server)."""

    def __init__(self, relache: asyncio.Event | None = None, pause: float = 0.0) -> None:
        self.relache, self.pause = relache, pause
        self.commence = asyncio.Event()
        self.envoyes: list[uuid.UUID] = []

    async def send(self, row: Notification) -> str | None:
        self.commence.set()
        if self.relache is not None and not self.envoyes:
            await self.relache.wait()
        await asyncio.sleep(self.pause)
        self.envoyes.append(row.id)
        return None


async def _en_attente(factory, db, nombre: int) -> list[uuid.UUID]:
    org = await factory.organisation()
    rows = []
    for _ in range(nombre):
        m = await factory.membre(org)
        rows.append(Notification(membre_id=m.id, organisation_id=org.id, type_notification="INFORMATION",
                                 canal="EMAIL", adresse=m.email, sujet="Test", corps="Bonjour", statut="EN_ATTENTE",
                                 tentatives=0))
    db.add_all(rows)
    await db.commit()
    return [r.id for r in rows]


def _livreur(app, settings, transport: Transport) -> LivreurNotifications:
    config = settings.model_copy(update={"notification_bail_seconds": 1, "notification_lot": 10})
    return LivreurNotifications(app.state.sessionmaker, config, transports={"EMAIL": transport, "SMS": transport})


async def test_a_row_leased_by_another_worker_after_ours_passed_is_not_sent_again(app, committed_factory,
                                                                                   committed_db, settings):
    ids = await _en_attente(committed_factory, committed_db, 3)
    relache = asyncio.Event()
    lent, rapide = Transport(relache), Transport()
    premier = asyncio.create_task(_livreur(app, settings, lent).run(max_lots=1))
    await asyncio.wait_for(lent.commence.wait(), 10)
    await asyncio.sleep(1.2)  # the first worker's lease has passed while its SMTP server holds the first message
    await _livreur(app, settings, rapide).run()
    relache.set()
    await premier

    assert sorted(rapide.envoyes) == sorted(ids)
    # Only the message in flight when the lease passed went twice; the rest of the batch was left to the other.
    assert len(lent.envoyes) == 1
    statuts = (await committed_db.execute(select(Notification.statut, Notification.tentatives)
                                          .where(Notification.id.in_(ids)))).all()
    assert [tuple(s) for s in statuts] == [("ENVOYEE", 1)] * 3


async def test_a_slow_batch_alone_keeps_its_lease_and_sends_each_row_once(app, committed_factory, committed_db,
                                                                            settings):
    ids = await _en_attente(committed_factory, committed_db, 4)
    lent = Transport(pause=0.4)  # the batch takes 1.6 s against a 1 s lease
    bilan = await _livreur(app, settings, lent).run()

    assert sorted(lent.envoyes) == sorted(ids) and bilan.envoyees == 4
    restants = (await committed_db.execute(select(Notification.id).where(
        Notification.id.in_(ids), Notification.verrouillee_jusqua.is_not(None)))).all()
    assert restants == []
