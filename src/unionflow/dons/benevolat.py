"""The register of volunteer time (bénévolat): a voluntary contribution in kind, valued at an hourly rate the
organisation chooses, shown off the balance sheet in the SYCEBNL notes and never booked (docs/conformite.md S10;
docs/decisions.md « Le registre du bénévolat »).

A line is recorded by the bureau (``benevolat.enregistrer``) for an active member of the organisation; a line
entered by mistake is cancelled with a reason, kept and shown struck through, never deleted. A year whose
statements are arrêtés (closed) takes no new line and no cancellation: its notes must stay as signed."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.dons.benevolat_repository import BenevolatRepository
from unionflow.dons.schemas import (
    AnnulerContributionBenevoleRequest,
    ContributionBenevoleResponse,
    CreateContributionBenevoleRequest,
    RegistreBenevolatResponse,
)
from unionflow.dons.service import bornes, organisation_visible
from unionflow.membres.repository import MembreRepository
from unionflow.models.don import ContributionBenevole, StatutContribution

MODULE = "DONS"
HEURES_MAX = Decimal("744")
FRANC = Decimal("1")
REFUS = "Seuls le président, le secrétaire, le trésorier et l'administrateur de l'organisation tiennent le registre " \
        "du bénévolat"


def valeur(heures: Decimal, taux_horaire: Decimal) -> Decimal:
    """heures × taux, to the franc (XOF has no subunit), half up."""
    return (heures * taux_horaire).quantize(FRANC, rounding=ROUND_HALF_UP)


class BenevolatService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = BenevolatRepository(session)

    async def _annee_ouverte(self, organisation_id: uuid.UUID, jour: date) -> None:
        arrete = await ClotureRepository(self.session).arrete(organisation_id, jour.year)
        if arrete.le is not None:
            raise RegleMetier(f"L'exercice {jour.year} est clos (arrêté le {arrete.le:%d/%m/%Y}): son registre du "
                              "bénévolat ne change plus")

    async def enregistrer(self, data: CreateContributionBenevoleRequest) -> ContributionBenevoleResponse:
        await organisation_visible(self.session, self.auth, data.organisation_id)
        self.auth.require(Permission.BENEVOLAT_ENREGISTRER, data.organisation_id, REFUS)
        if data.date_contribution > datetime.now(UTC).date():
            raise RegleMetier("dateContribution ne peut pas être dans le futur")
        if data.heures > HEURES_MAX:
            raise RegleMetier(f"Au plus {HEURES_MAX} heures par ligne (un mois entier)")
        membres = MembreRepository(self.session, None)
        if not await membres.has_active_membership(data.membre_id, data.organisation_id):
            raise RegleMetier("Le bénévole n'est pas membre actif de cette organisation")
        await self._annee_ouverte(data.organisation_id, data.date_contribution)
        ligne = ContributionBenevole(
            id=uuid.uuid4(), organisation_id=data.organisation_id, membre_id=data.membre_id,
            date_contribution=data.date_contribution, heures=data.heures, taux_horaire=data.taux_horaire,
            valeur=valeur(data.heures, data.taux_horaire), activite=data.activite,
            statut=StatutContribution.ENREGISTREE.value, enregistre_par=self.auth.actor_name,
            created_at=datetime.now(UTC))
        self.repo.add(ligne)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ENREGISTRER", module=MODULE,
                           entite_type="ContributionBenevole", entite_id=ligne.id,
                           organisation_id=ligne.organisation_id,
                           description=f"Bénévolat du {ligne.date_contribution:%d/%m/%Y}: {ligne.heures} h × "
                                       f"{ligne.taux_horaire} = {ligne.valeur} XOF")
        return await self._reponse(ligne)

    async def annuler(self, contribution_id: uuid.UUID,
                      data: AnnulerContributionBenevoleRequest) -> ContributionBenevoleResponse:
        ligne = await self.repo.get_for_update(contribution_id)
        if ligne is None:
            raise NotFound("Contribution introuvable")
        await organisation_visible(self.session, self.auth, ligne.organisation_id)
        self.auth.require(Permission.BENEVOLAT_ENREGISTRER, ligne.organisation_id, REFUS)
        if ligne.statut == StatutContribution.ANNULEE.value:
            raise Conflict("Cette contribution est déjà annulée")
        await self._annee_ouverte(ligne.organisation_id, ligne.date_contribution)
        ligne.statut = StatutContribution.ANNULEE.value
        ligne.annule_par, ligne.motif_annulation = self.auth.actor_name, data.motif
        ligne.date_annulation = datetime.now(UTC)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ANNULER", module=MODULE,
                           entite_type="ContributionBenevole", entite_id=ligne.id,
                           organisation_id=ligne.organisation_id, severite="WARNING",
                           description=f"Bénévolat du {ligne.date_contribution:%d/%m/%Y} annulé: {data.motif}")
        return await self._reponse(ligne)

    async def registre(self, organisation_id: uuid.UUID, debut: date, fin: date) -> RegistreBenevolatResponse:
        nom = await organisation_visible(self.session, self.auth, organisation_id)
        bornes(debut, fin)  # debut after fin: 400
        lignes = await self.repo.periode(organisation_id, debut, fin)
        noms = await MembreRepository(self.session, None).noms({ligne.membre_id for ligne in lignes})
        nombre, heures, total = await self.repo.totaux(organisation_id, debut, fin)
        return RegistreBenevolatResponse(
            organisation_id=organisation_id, organisation=nom, debut=debut, fin=fin, contributions=nombre,
            total_heures=heures, total_valeur=total,
            lignes=[ContributionBenevoleResponse.model_validate(ligne, from_attributes=True)
                    .model_copy(update={"membre": noms.get(ligne.membre_id)}) for ligne in lignes])

    async def _reponse(self, ligne: ContributionBenevole) -> ContributionBenevoleResponse:
        noms = await MembreRepository(self.session, None).noms({ligne.membre_id})
        return ContributionBenevoleResponse.model_validate(ligne, from_attributes=True).model_copy(
            update={"membre": noms.get(ligne.membre_id)})
