"""Adhesion workflow: EN_ATTENTE → APPROUVEE | REJETEE; APPROUVEE → PAYEE (fee covered); any but PAYEE → ANNULEE."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.adhesions.repository import AdhesionRepository
from unionflow.adhesions.schemas import (
    AdhesionPayeeResponse,
    AdhesionResponse,
    AdhesionStatsResponse,
    CreateAdhesionRequest,
    RecuResponse,
    UpdateAdhesionRequest,
)
from unionflow.config import Settings
from unionflow.core import acces_dossier, audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.lot import Lot
from unionflow.core.numbering import random_reference
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.roles import Role
from unionflow.donnees_personnelles.notices import rendre
from unionflow.membres.repository import MembreRepository
from unionflow.models import Adhesion, AuditLog, MembreOrganisation
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.donnees_personnelles import FinaliteConsentement
from unionflow.models.membre import StatutAppartenance
from unionflow.models.organisation import Organisation, StatutOrganisation
from unionflow.models.paiement import MethodePaiement
from unionflow.notifications import workflow as notices
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.declarations import DeclarationService
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService, outstanding
from unionflow.paiements.methodes import erreur_reference
from unionflow.webhooks import emission as webhooks

# How the member gives (or refuses) the consent the notice asks for.
CONSENTIR = ("Votre consentement est demandé (Loi 2008-12 art. 41): donnez-le ou refusez-le dans « Mes données » "
             "(application ou console), ou sur le formulaire papier au secrétariat.")
MODULE = "ADHESIONS"
ZERO = Decimal("0")
HUNDRED = Decimal("100")


def _now() -> datetime:
    return datetime.now(UTC)


_FIELDS = [f for f in AdhesionResponse.model_fields if f != "montant_restant"]


def _donnees_webhook(adhesion: Adhesion) -> dict[str, object]:
    return {"adhesionId": adhesion.id, "numeroReference": adhesion.numero_reference, "membreId": adhesion.membre_id,
            "statut": adhesion.statut}


class AdhesionService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = AdhesionRepository(session, auth)
        self.membres = MembreRepository(session, auth)

    @staticmethod
    def _response(adhesion: Adhesion) -> AdhesionResponse:
        return AdhesionResponse.model_validate({**{f: getattr(adhesion, f) for f in _FIELDS},
                                                "montant_restant": outstanding(adhesion)})

    async def _get(self, adhesion_id: uuid.UUID, *, for_update: bool = False) -> Adhesion:
        adhesion = await self.repo.get(adhesion_id, for_update=for_update)
        if adhesion is None:
            raise NotFound("Adhésion introuvable")
        return adhesion

    def _page(self, rows: tuple[list[Adhesion], int, bool], params: PageParams) -> Page[AdhesionResponse]:
        content, total, exact = rows
        return Page[AdhesionResponse].build([self._response(a) for a in content], params, total, exact)

    async def _audit(self, adhesion: Adhesion, action: str, before: dict[str, object] | None,
                     description: str | None = None) -> None:
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Adhesion",
                           entite_id=adhesion.id, organisation_id=adhesion.organisation_id, before=before,
                           after=audit.snapshot(adhesion), description=description)

    # --- creation and edition -------------------------------------------------------------------------------
    async def creer(self, data: CreateAdhesionRequest, settings: Settings) -> AdhesionResponse:
        organisation = await OrganisationRepository(self.session, None).get(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        # A member applies for himself; staff enrol only members they can see (404 otherwise, as
        # POST /api/membres/{id}/organisations): consent is not given on behalf of another organisation.
        if await self.membres.get(data.membre_id) is None:
            raise NotFound("Membre introuvable")
        if data.membre_id != self.auth.membre_id:
            self.auth.require(Permission.ADHESION_INSCRIRE, data.organisation_id,
                              "Seuls les administrateurs de l'organisation inscrivent un autre membre")
        if organisation.statut != StatutOrganisation.ACTIVE:
            raise InvalidState(f"L'organisation {organisation.nom} n'accepte pas d'adhésion (statut: "
                               f"{organisation.statut})")
        if await self.repo.open_for(data.membre_id, data.organisation_id) is not None:
            raise Conflict("Une demande d'adhésion de ce membre à cette organisation est déjà en cours")
        existing = await self.membres.membership(data.membre_id, data.organisation_id, for_update=True)
        if existing is not None and existing.statut == StatutAppartenance.ACTIF:
            raise Conflict("Ce membre est déjà membre actif de cette organisation")
        adhesion = Adhesion(
            numero_reference=random_reference("ADH", _now().year), membre_id=data.membre_id,
            organisation_id=data.organisation_id, statut=StatutAdhesion.EN_ATTENTE.value,
            date_demande=date.today(), frais_adhesion=data.frais_adhesion,
            montant_paye=ZERO, devise=data.devise or organisation.devise, observations=data.observations,
        )
        self.repo.add(adhesion)
        await self.session.flush()
        await self._audit(adhesion, "CREER", None, f"Demande d'adhésion {adhesion.numero_reference}")
        await notices.approbation_en_attente(
            self.session, adhesion.organisation_id, Permission.ADHESION_DECIDER,
            f"Demande d'adhésion {adhesion.numero_reference} à examiner",
            f"Une demande d'adhésion à {organisation.nom} attend votre décision.", ("Adhesion", adhesion.id),
            self.auth.actor_name, sauf=adhesion.membre_id)
        await self._informer(adhesion, organisation, settings)
        return self._response(adhesion)

    async def _informer(self, adhesion: Adhesion, organisation: Organisation, settings: Settings) -> None:
        """Loi 2008-12 art. 58: the organisation collects a trade-union membership, sensitive data (art. 40); the
        person is told at collection who processes it, why, for how long and his rights: the notice of the
        ADHESION_SYNDICALE consent, rendered for this organisation, in his inbox (the API's answer links to it;
        at the office the paper form is what he reads)."""
        texte = rendre(FinaliteConsentement.ADHESION_SYNDICALE, organisation, settings.donnees_radies_conservation_ans)
        await notices.information_donnees(
            self.session, adhesion.membre_id, adhesion.organisation_id,
            f"Vos données personnelles chez {organisation.nom}",
            f"{texte}\n{CONSENTIR}", ("Adhesion", adhesion.id), self.auth.actor_name)

    async def modifier(self, adhesion_id: uuid.UUID, data: UpdateAdhesionRequest) -> AdhesionResponse:
        adhesion = await self._get(adhesion_id, for_update=True)
        changes = data.model_dump(exclude_unset=True)
        manager = self.auth.can(Permission.ADHESION_INSCRIRE, adhesion.organisation_id)
        if not manager and ({"frais_adhesion", "devise"} & changes.keys()):
            raise Forbidden("Seuls les administrateurs de l'organisation modifient les frais et la devise")
        if adhesion.statut != StatutAdhesion.EN_ATTENTE:
            raise InvalidState(f"Une adhésion ne se modifie qu'en attente (statut actuel: {adhesion.statut})")
        for field in ("frais_adhesion", "devise"):
            if field in changes and changes[field] is None:
                raise RegleMetier(f"{field} ne peut pas être vide")
        before = audit.snapshot(adhesion)
        for field, value in changes.items():
            setattr(adhesion, field, value)
        await self.session.flush()
        await self._audit(adhesion, "MODIFIER", before)
        return self._response(adhesion)

    # --- workflow --------------------------------------------------------------------------------------------
    async def _managed_for_update(self, adhesion_id: uuid.UUID) -> Adhesion:
        adhesion = await self._get(adhesion_id, for_update=True)
        # Visible as one's own application, but deciding on it belongs to the organisation's administrators.
        self.auth.require(Permission.ADHESION_DECIDER, adhesion.organisation_id,
                          "Seuls les administrateurs de l'organisation décident d'une adhésion")
        return adhesion

    async def _organisation_active(self, adhesion: Adhesion, action: str) -> None:
        organisation = await OrganisationRepository(self.session, None).get(adhesion.organisation_id)
        if organisation is not None and organisation.statut != StatutOrganisation.ACTIVE:
            raise InvalidState(f"L'organisation {organisation.nom} est {organisation.statut}: l'adhésion ne peut "
                               f"pas être {action}")

    async def approuver(self, adhesion_id: uuid.UUID, approuve_par: str | None) -> AdhesionResponse:
        found = await self.repo.get_with_organisation(adhesion_id)
        if found is None:
            raise NotFound("Adhésion introuvable")
        adhesion, organisation = found
        self.auth.require(Permission.ADHESION_DECIDER, adhesion.organisation_id,
                          "Seuls les administrateurs de l'organisation décident d'une adhésion")
        if adhesion.statut != StatutAdhesion.EN_ATTENTE:
            raise InvalidState(f"Seule une adhésion en attente peut être approuvée (statut actuel: "
                               f"{adhesion.statut})")
        if organisation.statut != StatutOrganisation.ACTIVE:
            raise InvalidState(f"L'organisation {organisation.nom} est {organisation.statut}: l'adhésion ne peut "
                               f"pas être approuvée")
        before = audit.snapshot(adhesion)
        # Every write of the approval in one round trip (core/lot.py): the code knows every value.
        lot = Lot()
        lot.modifier(adhesion, statut=StatutAdhesion.APPROUVEE.value, date_approbation=_now(),
                     approuve_par=(approuve_par or "").strip() or self.auth.actor_name, updated_at=_now())
        activation = await self._activate_membership(adhesion, lot)
        abonnes = await webhooks.abonnements(self.session, adhesion.organisation_id)
        lot.ajouter(*webhooks.livraisons(abonnes, adhesion.organisation_id,
                                         webhooks.EvenementWebhook.ADHESION_APPROUVEE, _donnees_webhook(adhesion)))
        lot.ajouter(audit.entry(self.auth, action="APPROUVER", module=MODULE, entite_type="Adhesion",
                                entite_id=adhesion.id, organisation_id=adhesion.organisation_id, before=before,
                                after=audit.snapshot(adhesion),
                                description=f"Adhésion {adhesion.numero_reference} approuvée"), activation)
        await lot.envoyer(self.session)
        return self._response(adhesion)

    async def _activate_membership(self, adhesion: Adhesion, lot: Lot) -> AuditLog:
        """Make the applicant an active MEMBRE of the organisation (in ``lot``); returns the audit entry."""
        membership = await self.membres.membership(adhesion.membre_id, adhesion.organisation_id, for_update=True)
        before: dict[str, object] | None = None
        if membership is None:
            membership = MembreOrganisation(id=uuid.uuid4(), membre_id=adhesion.membre_id,
                                            organisation_id=adhesion.organisation_id, roles=[Role.MEMBRE.value],
                                            statut="ACTIF", date_debut=date.today())
            lot.ajouter(membership)
        else:
            before = audit.snapshot(membership, ["statut", "roles", "date_fin"])
            roles = list(membership.roles or [])
            lot.modifier(membership, roles=roles if Role.MEMBRE.value in roles else [*roles, Role.MEMBRE.value],
                         statut="ACTIF", date_fin=None, updated_at=_now())
        return audit.entry(self.auth, action="ACTIVER_ADHESION", module="MEMBRES", entite_type="MembreOrganisation",
                           entite_id=membership.id, organisation_id=adhesion.organisation_id, before=before,
                           after=audit.snapshot(membership, ["statut", "roles", "date_fin"]),
                           description=f"Membre actif suite à l'adhésion {adhesion.numero_reference}")

    async def rejeter(self, adhesion_id: uuid.UUID, motif: str) -> AdhesionResponse:
        motif = (motif or "").strip()
        if not motif:
            raise RegleMetier("motifRejet est obligatoire pour rejeter une adhésion")
        adhesion = await self._managed_for_update(adhesion_id)
        if adhesion.statut != StatutAdhesion.EN_ATTENTE:
            raise InvalidState(f"Seule une adhésion en attente peut être rejetée (statut actuel: {adhesion.statut})")
        before = audit.snapshot(adhesion)
        adhesion.statut = StatutAdhesion.REJETEE.value
        adhesion.date_rejet = _now()
        adhesion.motif_rejet = motif
        await self.session.flush()
        await self._audit(adhesion, "REJETER", before, f"Adhésion {adhesion.numero_reference} rejetée")
        await webhooks.emettre(self.session, adhesion.organisation_id, webhooks.EvenementWebhook.ADHESION_REJETEE,
                               {**_donnees_webhook(adhesion), "motifRejet": adhesion.motif_rejet})
        return self._response(adhesion)

    async def payer(self, adhesion_id: uuid.UUID, montant: Decimal, methode: MethodePaiement,
                  reference: str | None, settings: Settings | None = None) -> AdhesionPayeeResponse:
        if methode == MethodePaiement.WAVE_TRANSFERT and (
                erreur := erreur_reference(methode, reference, "referencePaiement")) is not None:
            raise RegleMetier(erreur)
        adhesion = await self._get(adhesion_id)
        if adhesion.statut != StatutAdhesion.APPROUVEE:
            raise InvalidState(f"Seule une adhésion approuvée reçoit un paiement (statut actuel: {adhesion.statut})")
        await self._organisation_active(adhesion, "payée")
        reste = outstanding(adhesion)
        if montant > reste:
            raise RegleMetier(f"Le montant ({montant}) dépasse le reste dû ({reste} {adhesion.devise})")
        if not self.auth.can_here(Permission.PAIEMENT_ENREGISTRER, adhesion.organisation_id):
            # Money a member declares is not money received: pending until Wave or the treasury confirms it.
            declaration = await DeclarationService(self.session, self.auth, settings).declarer(
                adhesion, montant, methode, reference)
            return AdhesionPayeeResponse.model_validate({**self._response(adhesion).model_dump(),
                                                         "declaration": declaration})
        # The settlement workflow locks the adhesion and re-checks state and balance under the lock.
        paiement = await EncaissementService(self.session, self.auth).enregistrer(
            membre_id=adhesion.membre_id, organisation_id=adhesion.organisation_id, montant=montant,
            methode=methode.value, cibles=[Cible(adhesion_id=adhesion.id)], devise=adhesion.devise,
            reference_externe=reference, commentaire=f"Frais d'adhésion {adhesion.numero_reference}")
        recu = RecuResponse(paiement_id=paiement.id, numero_recu=paiement.numero_recu, montant=paiement.montant,
                            methode=paiement.methode, date_paiement=paiement.date_paiement)
        return AdhesionPayeeResponse.model_validate({**self._response(adhesion).model_dump(), "recu": recu})

    async def annuler(self, adhesion_id: uuid.UUID) -> None:
        adhesion = await self._get(adhesion_id, for_update=True)
        self.auth.require(Permission.ADHESION_ANNULER, adhesion.organisation_id,
                          "Seuls les administrateurs annulent une adhésion")
        if adhesion.statut == StatutAdhesion.PAYEE:
            raise Conflict("Une adhésion payée ne peut pas être supprimée")
        if (adhesion.montant_paye or ZERO) > ZERO:
            raise Conflict(f"L'adhésion a reçu {adhesion.montant_paye} {adhesion.devise}: remboursez ou "
                           f"soldez-la avant de l'annuler")
        if adhesion.statut == StatutAdhesion.ANNULEE:
            return
        before = audit.snapshot(adhesion)
        if adhesion.statut == StatutAdhesion.APPROUVEE:
            await self._end_membership(adhesion)
        adhesion.statut = StatutAdhesion.ANNULEE.value
        adhesion.date_annulation = _now()
        await self.session.flush()
        await self._audit(adhesion, "ANNULER", before, f"Adhésion {adhesion.numero_reference} annulée")

    async def _end_membership(self, adhesion: Adhesion) -> None:
        """The approval made the person an active member; cancelling the unpaid adhesion undoes that (an
        approved adhesion is only created for someone not already active), so he may apply again later."""
        membership = await self.membres.membership(adhesion.membre_id, adhesion.organisation_id, for_update=True)
        if membership is None or membership.statut != StatutAppartenance.ACTIF:
            return
        before = audit.snapshot(membership, ["statut", "roles", "date_fin"])
        membership.statut = "TERMINE"
        membership.date_fin = date.today()
        await self.session.flush()
        await audit.record(self.session, self.auth, action="TERMINER_APPARTENANCE", module="MEMBRES",
                           entite_type="MembreOrganisation", entite_id=membership.id,
                           organisation_id=adhesion.organisation_id, before=before,
                           after=audit.snapshot(membership, ["statut", "roles", "date_fin"]),
                           description=f"Appartenance terminée: adhésion {adhesion.numero_reference} annulée "
                                       f"avant paiement")

    # --- reads -----------------------------------------------------------------------------------------------
    async def obtenir(self, adhesion_id: uuid.UUID) -> AdhesionResponse:
        return self._response(await self._get(adhesion_id))

    async def by_reference(self, numero: str) -> AdhesionResponse:
        adhesion = await self.repo.by_reference(numero)
        if adhesion is None:
            raise NotFound("Adhésion introuvable")
        return self._response(adhesion)

    async def lister(self, params: PageParams, *, statut: StatutAdhesion | None = None) -> Page[AdhesionResponse]:
        return self._page(await self.repo.search(params, statut=statut.value if statut else None), params)

    async def of_membre(self, membre_id: uuid.UUID, params: PageParams, ecran: str | None = None
                        ) -> Page[AdhesionResponse]:
        if await self.membres.get(membre_id) is None:
            raise NotFound("Membre introuvable")
        if ecran is not None:
            acces_dossier.noter(self.session, self.auth, membre_id, ecran)
        return self._page(await self.repo.search(params, membre_id=membre_id), params)

    async def of_organisation(self, organisation_id: uuid.UUID, params: PageParams) -> Page[AdhesionResponse]:
        if await OrganisationRepository(self.session, None).get(organisation_id) is None:
            raise NotFound("Organisation introuvable")
        return self._page(await self.repo.search(params, organisation_id=organisation_id), params)

    async def stats(self) -> AdhesionStatsResponse:
        rows = await self.repo.stats()
        counts = {r.statut: int(r.nombre) for r in rows}
        due = sum((Decimal(r.frais) for r in rows
                   if r.statut in (StatutAdhesion.APPROUVEE, StatutAdhesion.PAYEE)), ZERO)
        collected = sum((Decimal(r.paye) for r in rows), ZERO)
        approved = counts.get(StatutAdhesion.APPROUVEE, 0) + counts.get(StatutAdhesion.PAYEE, 0)
        decided = approved + counts.get(StatutAdhesion.REJETEE, 0)
        rate = (Decimal(approved) * HUNDRED / decided).quantize(Decimal("0.01")) if decided else ZERO
        return AdhesionStatsResponse(
            total=sum(counts.values()), par_statut=counts,
            en_attente=counts.get(StatutAdhesion.EN_ATTENTE, 0), approuvees=counts.get(StatutAdhesion.APPROUVEE, 0),
            rejetees=counts.get(StatutAdhesion.REJETEE, 0), payees=counts.get(StatutAdhesion.PAYEE, 0),
            annulees=counts.get(StatutAdhesion.ANNULEE, 0), montant_frais_du=due, montant_collecte=collected,
            montant_restant=max(due - collected, ZERO), taux_approbation=rate,
        )
