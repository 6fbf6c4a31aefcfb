"""Consents given straight in the database (the notice of the current version stored once), for tests whose subject
is not the consent itself (an aid request of type MALADIE needs SANTE_AIDE)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.donnees_personnelles.notices import NOTICES
from unionflow.models import Consentement, NoticeInformation
from unionflow.models.donnees_personnelles import FinaliteConsentement


async def consentement(db: AsyncSession, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                       finalite: FinaliteConsentement = FinaliteConsentement.SANTE_AIDE) -> Consentement:
    version, texte = NOTICES[finalite]
    notice = (await db.execute(select(NoticeInformation).where(NoticeInformation.finalite == finalite,
                                                               NoticeInformation.version == version))
              ).scalar_one_or_none()
    if notice is None:
        notice = NoticeInformation(finalite=finalite.value, version=version, texte=texte)
        db.add(notice)
        await db.flush()
    row = Consentement(membre_id=membre_id, organisation_id=organisation_id, finalite=finalite.value,
                       notice_id=notice.id, notice_version=version, canal="PAPIER", donne_le=datetime.now(UTC),
                       recueilli_par="test", recueilli_par_nom="Secrétariat (test)")
    db.add(row)
    await db.flush()
    return row
