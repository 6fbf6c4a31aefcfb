"""The organisation's accounting referential: a recorded choice, effective from a fiscal year on, with its history.

SYCEBNL_NORMAL (the OHADA non-profit act's normal system) until a choice says otherwise — for a mutual too: only a
*mutuelle sociale* approved under UEMOA Règlement n° 07/2009 keeps the PCMS, so PCMS is chosen, by a mutual, citing
its approval (docs/conformite.md S3). SYCEBNL_SMT (the minimal cash system) is open to small entities; the
eligibility test (comptabilite/smt) says whether the year's resources allow it and warns when they do not.
Choosing is the bureau's head's act (``referentiel_comptable.choisir``), audited (CHOISIR_REFERENTIEL); rows are
never changed, so the history is the table."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.repository import ConfigurationOrganisationRepository, ReferentielComptableRepository
from unionflow.configuration.schemas import (
    ChoisirReferentielRequest,
    ChoixReferentielResponse,
    ReferentielComptableResponse,
)
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import ReferentielComptable
from unionflow.models.configuration import Referentiel
from unionflow.models.organisation import TypeOrganisation

MODULE = "CONFIGURATION"
DEFAUT = Referentiel.SYCEBNL_NORMAL


def en_vigueur(historique: list[ReferentielComptable], exercice: int) -> ReferentielComptable | None:
    """The choice in force for ``exercice``: the latest recorded among those effective at most that year."""
    valables = [c for c in historique if c.exercice <= exercice]
    return valables[-1] if valables else None


async def referentiel_de(session: AsyncSession, organisation_id: uuid.UUID, exercice: int) -> Referentiel:
    """For other areas (the SMT eligibility test): the referential in force, the default without a choice."""
    choix = en_vigueur(await ReferentielComptableRepository(session).historique(organisation_id), exercice)
    return Referentiel(choix.referentiel) if choix else DEFAUT


def _choix(row: ReferentielComptable) -> ChoixReferentielResponse:
    return ChoixReferentielResponse(id=row.id, referentiel=Referentiel(row.referentiel), exercice=row.exercice,
                                    reference_agrement=row.reference_agrement, motif=row.motif,
                                    choisi_par=row.choisi_par, date_choix=row.created_at)


class ReferentielService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ReferentielComptableRepository(session)

    async def _type(self, organisation_id: uuid.UUID) -> str:
        type_organisation = await ConfigurationOrganisationRepository(self.session).type_organisation(organisation_id)
        if type_organisation is None or not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        return type_organisation

    async def _response(self, organisation_id: uuid.UUID, exercice: int) -> ReferentielComptableResponse:
        historique = await self.repo.historique(organisation_id)
        choix = en_vigueur(historique, exercice)
        return ReferentielComptableResponse(
            organisation_id=organisation_id, exercice=exercice,
            referentiel=Referentiel(choix.referentiel) if choix else DEFAUT, par_defaut=choix is None,
            choix=_choix(choix) if choix else None, historique=[_choix(c) for c in historique])

    async def obtenir(self, organisation_id: uuid.UUID, exercice: int | None) -> ReferentielComptableResponse:
        await self._type(organisation_id)
        return await self._response(organisation_id, exercice or datetime.now(UTC).year)

    async def choisir(self, organisation_id: uuid.UUID, data: ChoisirReferentielRequest
                      ) -> ReferentielComptableResponse:
        type_organisation = await self._type(organisation_id)
        self.auth.require(Permission.REFERENTIEL_CHOISIR, organisation_id,
                          "Seuls le président et l'administrateur de l'organisation choisissent son référentiel "
                          "comptable")
        if data.referentiel is Referentiel.PCMS:
            if type_organisation != TypeOrganisation.MUTUELLE:
                raise RegleMetier("Le PCMS est le référentiel des mutuelles sociales: l'organisation n'est pas "
                                  "une mutuelle")
            if not data.reference_agrement:
                raise RegleMetier("referenceAgrement: l'agrément de la mutuelle sociale (Règlement n° "
                                  "07/2009/CM/UEMOA) est obligatoire pour choisir le PCMS")
        elif data.reference_agrement:
            raise RegleMetier("referenceAgrement: seulement pour le PCMS")
        avant = await self._response(organisation_id, data.exercice)
        row = ReferentielComptable(organisation_id=organisation_id, referentiel=data.referentiel.value,
                                   exercice=data.exercice, reference_agrement=data.reference_agrement,
                                   motif=data.motif, choisi_par=self.auth.actor_name)
        self.repo.add(row)
        await self.session.flush()
        apres = await self._response(organisation_id, data.exercice)
        await audit.record(self.session, self.auth, action="CHOISIR_REFERENTIEL", module=MODULE,
                           entite_type="ReferentielComptable", entite_id=row.id, organisation_id=organisation_id,
                           severite="WARNING", before={"referentiel": avant.referentiel.value},
                           after={"referentiel": data.referentiel.value, "exercice": data.exercice,
                                  "referenceAgrement": data.reference_agrement, "motif": data.motif},
                           description=f"Référentiel comptable {data.referentiel.value} à partir de l'exercice "
                                       f"{data.exercice}")
        return apres
