"""Consents given straight in the database (the notice of the current version, rendered for the organisation, stored
once), for tests whose subject is not the consent itself (an aid request of type MALADIE needs SANTE_AIDE)."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.donnees_personnelles.notices import VERSION, rendre
from unionflow.models import Consentement, NoticeInformation, Organisation
from unionflow.models.donnees_personnelles import FinaliteConsentement


async def consentement(db: AsyncSession, membre_id: uuid.UUID, organisation_id: uuid.UUID,
                       finalite: FinaliteConsentement = FinaliteConsentement.SANTE_AIDE) -> Consentement:
    version, organisation = VERSION, await db.get(Organisation, organisation_id)
    assert organisation is not None
    texte = rendre(finalite, organisation, Settings.model_fields["donnees_radies_conservation_ans"].default)
    empreinte = hashlib.sha256(texte.encode()).hexdigest()
    notice = (await db.execute(select(NoticeInformation).where(NoticeInformation.finalite == finalite,
                                                               NoticeInformation.version == version,
                                                               NoticeInformation.empreinte == empreinte))
              ).scalar_one_or_none()
    if notice is None:
        notice = NoticeInformation(finalite=finalite.value, version=version, texte=texte, empreinte=empreinte)
        db.add(notice)
        await db.flush()
    row = Consentement(membre_id=membre_id, organisation_id=organisation_id, finalite=finalite.value,
                       notice_id=notice.id, notice_version=version, canal="PAPIER", donne_le=datetime.now(UTC),
                       recueilli_par="test", recueilli_par_nom="Secrétariat (test)")
    db.add(row)
    await db.flush()
    return row
