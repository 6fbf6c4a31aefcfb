"""The connected member's financial account and dashboard, and the organisation treasury dashboard."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.etats.encaisse import encaisse_a_date
from unionflow.compte.repository import ZERO, CompteRepository
from unionflow.compte.schemas import (
    AdhesionLigne,
    CompteAdherentResponse,
    CotisationLigne,
    DashboardMembreResponse,
    DashboardOrganisationResponse,
    MembershipLigne,
    MembreResume,
    PaiementEnAttenteLigne,
    PaiementLigne,
    ReseauOrganisation,
    SyntheseCotisations,
)
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.visibility import staff_sees
from unionflow.cotisations.repository import SituationRepository
from unionflow.cotisations.service import today_utc
from unionflow.models import Adhesion, Cotisation, Membre
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.cotisation import STATUTS_DUS, StatutCotisation
from unionflow.organisations.repository import ArborescenceRepository
from unionflow.paiements.rapport_repository import PaiementRapportSystemRepository
from unionflow.paiements.repository import Reservation


def _ligne(c: Cotisation, today: date, reservation: Reservation | None = None) -> CotisationLigne:
    reste = max(c.montant_du - c.montant_paye, ZERO)
    overdue = c.statut in STATUTS_DUS and c.date_echeance < today
    en_attente = None if reservation is None else PaiementEnAttenteLigne(
        paiement_id=reservation.paiement_id, reference=reservation.reference, methode=reservation.methode)
    return CotisationLigne(id=c.id, numero_reference=c.numero_reference, organisation_id=c.organisation_id,
                           libelle=c.libelle, annee=c.annee, mois=c.mois, montant_du=c.montant_du,
                           montant_paye=c.montant_paye, reste_a_payer=reste, date_echeance=c.date_echeance,
                           statut=StatutCotisation.EN_RETARD if overdue else c.statut,
                           paiement_en_attente=en_attente, code_paiement=c.code_paiement)


def _adhesion(a: Adhesion) -> AdhesionLigne:
    reste = max(a.frais_adhesion - a.montant_paye, ZERO) if a.statut == StatutAdhesion.APPROUVEE else ZERO
    return AdhesionLigne(id=a.id, numero_reference=a.numero_reference, organisation_id=a.organisation_id,
                         statut=a.statut, frais_adhesion=a.frais_adhesion, montant_paye=a.montant_paye,
                         reste_a_payer=reste)


@dataclass(frozen=True)
class Soldes:
    """The figures of a member's account that make his balance (``CompteAdherentResponse``'s totals)."""

    jour: date
    cotisations: SyntheseCotisations
    adhesions: list[AdhesionLigne]
    total_paye: Decimal
    credit: Decimal
    paiements_en_attente: int

    @property
    def frais_adhesion_restants(self) -> Decimal:
        return sum((a.reste_a_payer for a in self.adhesions), ZERO)

    @property
    def solde(self) -> Decimal:
        return self.credit - self.cotisations.montant_restant - self.frais_adhesion_restants

    @property
    def a_jour(self) -> bool:
        return self.cotisations.nombre_en_retard == 0 and self.frais_adhesion_restants == ZERO


class CompteService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = CompteRepository(session)
        self.paiements = PaiementRapportSystemRepository(session)

    async def _membre(self) -> Membre:
        membre = await self.repo.membre(self.auth.membre_id) if self.auth.membre_id else None
        if membre is None:
            raise NotFound("Aucune fiche membre n'est liée à votre compte")
        return membre

    async def _membre_de(self, organisation_id: uuid.UUID | None) -> Membre:
        """The caller's member record, when ``organisation_id`` (if given) is one of his organisations."""
        membre = await self._membre()
        if organisation_id is not None and organisation_id not in self.auth.member_organisations:
            raise NotFound("Organisation introuvable")
        return membre

    async def compte(self, organisation_id: uuid.UUID | None) -> CompteAdherentResponse:
        membre, soldes = await self.soldes(organisation_id)
        dues = await self.repo.open_dues(membre.id, organisation_id)
        reservations = await self.paiements.reservations(membre.id, [c.id for c in dues])
        return CompteAdherentResponse(
            membre_id=membre.id, numero_membre=membre.numero_membre, nom_complet=f"{membre.prenom} {membre.nom}",
            organisation_id=organisation_id, devise="XOF", cotisations=soldes.cotisations,
            cotisations_a_payer=[_ligne(c, soldes.jour, reservations.get(c.id)) for c in dues],
            adhesions=soldes.adhesions, frais_adhesion_restants=soldes.frais_adhesion_restants,
            total_paye=soldes.total_paye, paiements_en_attente=soldes.paiements_en_attente, credit=soldes.credit,
            solde=soldes.solde, a_jour=soldes.a_jour,
            derniers_paiements=await self._derniers_paiements(membre, organisation_id, 10))

    async def soldes(self, organisation_id: uuid.UUID | None) -> tuple[Membre, Soldes]:
        """The account's balance figures alone (``compte`` without its lists): what the USSD and SMS balance
        screens show, computed by the same code as the member API's answer, to the franc."""
        membre = await self._membre_de(organisation_id)
        today = today_utc()
        totals = await SituationRepository(self.session).situation(membre.id, today, organisation_id)
        adhesions = [_adhesion(a) for a in await self.repo.adhesions(membre.id, organisation_id)]
        total_paye, credit, pending = await self.paiements.payment_totals(membre.id, organisation_id)
        return membre, Soldes(today, SyntheseCotisations(**totals), adhesions, total_paye, credit, pending)

    async def derniers_paiements(self, organisation_id: uuid.UUID | None, nombre: int) -> list[PaiementLigne]:
        """The account's last payments alone (``compte``'s list): the USSD receipts screen."""
        membre = await self._membre_de(organisation_id)
        return await self._derniers_paiements(membre, organisation_id, nombre)

    async def _derniers_paiements(self, membre: Membre, organisation_id: uuid.UUID | None,
                                  nombre: int) -> list[PaiementLigne]:
        return [PaiementLigne.model_validate(p)
                for p in await self.paiements.last_payments(membre.id, nombre, organisation_id)]

    async def dashboard_membre(self) -> DashboardMembreResponse:
        membre = await self._membre()
        today = today_utc()
        totals = await SituationRepository(self.session).situation(membre.id, today)
        dues = await self.repo.open_dues(membre.id, limit=200)
        reservations = await self.paiements.reservations(membre.id, [c.id for c in dues])
        open_dues = [_ligne(c, today, reservations.get(c.id)) for c in dues]
        adhesions = [_adhesion(a) for a in await self.repo.adhesions(membre.id)]
        _, credit, _ = await self.paiements.payment_totals(membre.id)
        return DashboardMembreResponse(
            membre=MembreResume.model_validate(membre),
            organisations=[MembershipLigne(organisation_id=o.id, nom=o.nom, roles=list(m.roles or []),
                                           statut=m.statut, date_debut=m.date_debut)
                           for m, o in await self.repo.memberships(membre.id)],
            adhesions=adhesions, cotisations=SyntheseCotisations(**totals),
            prochaines_echeances=[c for c in open_dues if c.date_echeance >= today][:5],
            cotisations_en_retard=[c for c in open_dues if c.statut == StatutCotisation.EN_RETARD][:20],
            derniers_paiements=[PaiementLigne.model_validate(p)
                                for p in await self.paiements.last_payments(membre.id, 5)],
            credit=credit,
            a_jour=totals["nombre_en_retard"] == 0 and all(a.reste_a_payer == ZERO for a in adhesions),
            genere_le=(now := datetime.now(UTC)), calcule_le=now)

    async def dashboard_organisation(self, organisation_id: uuid.UUID | None) -> DashboardOrganisationResponse:
        org_id = organisation_id or self.auth.active_organisation_id
        if org_id is None:
            raise RegleMetier("Précisez organisationId ou l'en-tête X-Active-Organisation-Id")
        organisation = await self.repo.organisation(org_id)
        if organisation is None or not staff_sees(self.auth, org_id):
            raise NotFound("Organisation introuvable")
        now = datetime.now(UTC)
        # One definition for the three figures (comptabilite/etats/encaisse.py): nested periods of the books.
        collected = await encaisse_a_date(self.session, org_id, now.date())
        dues = await self.repo.organisation_dues(org_id, now.year, now.date())
        rate = (dues["paye_echu"] * 100 / dues["du_echu"]).quantize(Decimal("0.01")) if dues["du_echu"] else ZERO
        return DashboardOrganisationResponse(
            organisation_id=org_id, nom=organisation.nom, devise=organisation.devise,
            nombre_membres=await self.repo.active_members(org_id),
            encaisse_cotisations_jour=collected.jour.cotisations, encaisse_cotisations_mois=collected.mois.cotisations,
            encaisse_cotisations_annee=collected.annee.cotisations,
            cotisations_extournees_mois=collected.mois.cotisations_extournees,
            encaisse_adhesions_annee=collected.annee.adhesions, taux_recouvrement=rate,
            nombre_cotisations_en_retard=dues["nombre_en_retard"], montant_en_retard=dues["montant_en_retard"],
            nombre_membres_en_retard=dues["membres_en_retard"],
            paiements_en_attente=await self.paiements.pending_payments(org_id), reseau=await self._reseau(org_id),
            genere_le=now, calcule_le=now)

    async def _reseau(self, organisation_id: uuid.UUID) -> ReseauOrganisation | None:
        """A federation's own figures stay its own (its books, its members); its network is counted beside them,
        with the path of the consolidated figures (docs/federation.md)."""
        descendants = [o.id for o in await ArborescenceRepository(self.session).descendants(organisation_id)]
        if not descendants:
            return None
        return ReseauOrganisation(
            nombre_organisations=len(descendants),
            nombre_membres=await self.repo.active_members_in([organisation_id, *descendants]),
            consolidation=f"/api/federations/{organisation_id}/consolidation")
