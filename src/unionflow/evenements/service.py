"""Events: creation, update, cancellation, lists and statistics. Registrations and feedback live in
``inscriptions.py``."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import PageParams
from unionflow.core.permissions import Permission
from unionflow.evenements.repository import (
    Counts,
    EvenementFilters,
    EvenementRepository,
    InscriptionRepository,
    effective_status,
)
from unionflow.evenements.schemas import (
    TYPE_EVENEMENT_DOMAINE,
    ConnectiviteResponse,
    Evenement,
    EvenementMobileDTO,
    InscriptionsStats,
    PagedResponseEvenementMobileDTO,
    StatistiquesEvenements,
)
from unionflow.membres.repository import MembreRepository
from unionflow.models import Evenement as EvenementRow
from unionflow.models import InscriptionEvenement, NotificationEvenement
from unionflow.models.base import utcnow
from unionflow.models.evenement import StatutEvenement, StatutInscription
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.sources import NOTIFICATION_EVENEMENT
from unionflow.organisations.repository import OrganisationRepository
from unionflow.types_reference.service import require_code
from unionflow.webhooks import emission as webhooks

FIELDS = ["titre", "type_evenement", "date_debut", "date_fin", "lieu", "capacite_max", "liste_attente_active", "prix",
          "visibilite", "organisation_id", "statut", "date_limite_inscription", "inscription_requise"]


MODULE = "EVENEMENTS"


def statut_effectif(evt: EvenementRow, now: datetime) -> StatutEvenement:
    if evt.statut == StatutEvenement.ANNULE:
        return StatutEvenement.ANNULE
    if evt.date_fin <= now:
        return StatutEvenement.TERMINE
    if evt.date_debut <= now:
        return StatutEvenement.EN_COURS
    return StatutEvenement(evt.statut)


def closing_time(evt: EvenementRow) -> datetime:
    """Registrations close at dateLimiteInscription, or when the event starts if none is set."""
    return evt.date_limite_inscription or evt.date_debut


_SUJETS = {"EVENEMENT_ANNULE": "Événement annulé", "INSCRIPTION_CONFIRMEE": "Inscription confirmée"}


async def notifier(session: AsyncSession, evt: EvenementRow, membre_id: uuid.UUID, kind: str, message: str) -> None:
    """Record the notice (this area's history) and queue its delivery in the Notifications outbox."""
    repo = InscriptionRepository(session)
    notice = NotificationEvenement(id=uuid.uuid4(), evenement_id=evt.id, membre_id=membre_id,
                                   type_notification=kind, message=message)
    repo.add(notice)
    membre = await MembreRepository(session, None).get(membre_id)
    assert membre is not None
    await Emetteur(session, None).emettre(membre, kind, f"{_SUJETS.get(kind, 'Événement')}: {evt.titre}", message,
                                          organisation_id=evt.organisation_id,
                                          source=(NOTIFICATION_EVENEMENT, notice.id))


async def promote_waiting(session: AsyncSession, auth: AuthContext, evt: EvenementRow) -> list[InscriptionEvenement]:
    """Confirm waiting registrations, first come first served, while places are free. The caller holds the
    event's row lock."""
    if statut_effectif(evt, utcnow()) in (StatutEvenement.ANNULE, StatutEvenement.TERMINE):
        return []
    repo = InscriptionRepository(session)
    if evt.capacite_max is None:
        promoted = await repo.waiting(evt.id)
    else:
        free = evt.capacite_max - await repo.count_confirmed(evt.id)
        promoted = await repo.waiting(evt.id, limit=free) if free > 0 else []
    now = utcnow()
    for ins in promoted:
        ins.statut = StatutInscription.CONFIRMEE.value
        ins.date_confirmation = now
        await notifier(session, evt, ins.membre_id, "INSCRIPTION_CONFIRMEE",
                       f"Une place s'est libérée: votre inscription à « {evt.titre} » est confirmée.")
        await audit.record(session, auth, action="PROMOUVOIR", module=MODULE, entite_type="InscriptionEvenement",
                           entite_id=ins.id, before={"statut": "EN_ATTENTE"}, after={"statut": "CONFIRMEE"},
                           organisation_id=evt.organisation_id)
        await webhook_inscription(session, evt, ins, webhooks.EvenementWebhook.INSCRIPTION_CONFIRMEE)
    await session.flush()
    return promoted


async def webhook_inscription(session: AsyncSession, evt: EvenementRow, ins: InscriptionEvenement,
                              evenement: webhooks.EvenementWebhook) -> None:
    await webhooks.emettre(session, evt.organisation_id, evenement, {
        "inscriptionId": ins.id, "evenementId": evt.id, "titre": evt.titre, "membreId": ins.membre_id,
        "statut": ins.statut})


def to_dto(evt: EvenementRow, counts: Counts, now: datetime, org_name: str | None = None) -> EvenementMobileDTO:
    statut = statut_effectif(evt, now)
    remaining = None if evt.capacite_max is None else max(evt.capacite_max - counts.confirmees, 0)
    open_ = statut in (StatutEvenement.PLANIFIE, StatutEvenement.CONFIRME) and now < closing_time(evt)
    return EvenementMobileDTO(
        id=evt.id, titre=evt.titre, description=evt.description, type_evenement=evt.type_evenement,
        date_debut=evt.date_debut, date_fin=evt.date_fin, lieu=evt.lieu, adresse=evt.adresse,
        capacite_max=evt.capacite_max, liste_attente_active=evt.liste_attente_active, prix=evt.prix,
        devise=evt.devise, inscription_requise=evt.inscription_requise,
        date_limite_inscription=evt.date_limite_inscription, visibilite=evt.visibilite,
        organisation_id=evt.organisation_id, organisation_nom=org_name, statut=statut,
        nombre_inscrits=counts.confirmees, nombre_en_attente=counts.en_attente, places_restantes=remaining,
        inscriptions_ouvertes=open_, motif_annulation=evt.motif_annulation, created_at=evt.created_at,
        updated_at=evt.updated_at,
    )


class EvenementService:
    def __init__(self, session: AsyncSession, auth: AuthContext | None) -> None:
        self.session = session
        self.auth = auth
        self.repo = EvenementRepository(session, auth)

    async def _get(self, evenement_id: uuid.UUID, *, for_update: bool = False) -> EvenementRow:
        evt = await self.repo.get(evenement_id, for_update=for_update)
        if evt is None:
            raise NotFound("Événement introuvable")
        return evt

    async def dto(self, evt: EvenementRow) -> EvenementMobileDTO:
        counts = (await self.repo.counts([evt.id])).get(evt.id, Counts())
        names = await OrganisationRepository(self.session, None).noms({evt.organisation_id})
        return to_dto(evt, counts, utcnow(), names.get(evt.organisation_id))

    async def _page(self, rows: list[EvenementRow], params: PageParams, total: int,
                    exact: bool) -> PagedResponseEvenementMobileDTO:
        counts = await self.repo.counts([r.id for r in rows])
        names = await OrganisationRepository(self.session, None).noms({r.organisation_id for r in rows})
        now = utcnow()
        content = [to_dto(r, counts.get(r.id, Counts()), now, names.get(r.organisation_id)) for r in rows]
        return PagedResponseEvenementMobileDTO.build(content, params, total, exact)  # type: ignore[return-value]

    async def _check_type(self, code: str) -> None:
        await require_code(self.session, TYPE_EVENEMENT_DOMAINE, code, "typeEvenement")

    async def _organiser(self, requested: uuid.UUID | None) -> uuid.UUID:
        assert self.auth is not None
        organisation_id = requested or self.auth.active_organisation_id
        if organisation_id is None:
            raise RegleMetier("organisationId requis (aucune organisation active)")
        if not await OrganisationRepository(self.session, None).exists(organisation_id):
            raise NotFound("Organisation organisatrice introuvable")
        self.auth.require(Permission.EVENEMENT_GERER, organisation_id,
                          "Vous n'organisez pas d'événements pour cette organisation")
        return organisation_id

    async def creer(self, data: Evenement) -> EvenementMobileDTO:
        assert self.auth is not None
        await self._check_type(data.type_evenement)
        organisation_id = await self._organiser(data.organisation_id)
        values = data.model_dump(exclude={"organisation_id"})
        evt = EvenementRow(**values, organisation_id=organisation_id, statut=StatutEvenement.PLANIFIE.value,
                           cree_par=self.auth.actor_name)
        self.repo.add(evt)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Evenement",
                           entite_id=evt.id, after=audit.snapshot(evt, FIELDS), organisation_id=organisation_id,
                           description=f"Création de l'événement {evt.titre}")
        return await self.dto(evt)

    async def obtenir(self, evenement_id: uuid.UUID) -> EvenementMobileDTO:
        return await self.dto(await self._get(evenement_id))

    async def _managed(self, evenement_id: uuid.UUID) -> EvenementRow:
        assert self.auth is not None
        evt = await self._get(evenement_id, for_update=True)
        self.auth.require(Permission.EVENEMENT_GERER, evt.organisation_id,
                          "Seuls les responsables de l'organisation organisatrice gèrent cet événement")
        return evt

    async def modifier(self, evenement_id: uuid.UUID, data: Evenement) -> EvenementMobileDTO:
        assert self.auth is not None
        evt = await self._managed(evenement_id)
        now = utcnow()
        if statut_effectif(evt, now) in (StatutEvenement.ANNULE, StatutEvenement.TERMINE):
            raise InvalidState("Un événement annulé ou terminé ne peut plus être modifié")
        await self._check_type(data.type_evenement)
        organisation_id = evt.organisation_id
        if data.organisation_id is not None and data.organisation_id != evt.organisation_id:
            organisation_id = await self._organiser(data.organisation_id)
        confirmed = await InscriptionRepository(self.session).count_confirmed(evt.id)
        if data.capacite_max is not None and data.capacite_max < confirmed:
            raise InvalidState(f"capaciteMax ({data.capacite_max}) inférieure aux {confirmed} inscrits confirmés")
        before = audit.snapshot(evt, FIELDS)
        for key, value in data.model_dump(exclude={"organisation_id"}).items():
            setattr(evt, key, value)
        evt.organisation_id = organisation_id
        await self.session.flush()
        # A larger capacity lets the waiting list move up at once.
        await promote_waiting(self.session, self.auth, evt)
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="Evenement",
                           entite_id=evt.id, before=before, after=audit.snapshot(evt, FIELDS),
                           organisation_id=evt.organisation_id)
        return await self.dto(evt)

    async def confirmer(self, evenement_id: uuid.UUID) -> EvenementMobileDTO:
        assert self.auth is not None
        evt = await self._managed(evenement_id)
        if statut_effectif(evt, utcnow()) is not StatutEvenement.PLANIFIE:
            raise InvalidState("Seul un événement PLANIFIE (pas encore commencé) peut être confirmé")
        evt.statut = StatutEvenement.CONFIRME.value
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CONFIRMER", module=MODULE, entite_type="Evenement",
                           entite_id=evt.id, before={"statut": "PLANIFIE"}, after={"statut": "CONFIRME"},
                           organisation_id=evt.organisation_id)
        return await self.dto(evt)

    async def annuler(self, evenement_id: uuid.UUID, motif: str | None) -> None:
        assert self.auth is not None
        evt = await self._managed(evenement_id)
        statut = statut_effectif(evt, utcnow())
        if statut in (StatutEvenement.ANNULE, StatutEvenement.TERMINE):
            raise InvalidState(f"Un événement {statut.value} ne peut pas être annulé")
        evt.statut = StatutEvenement.ANNULE.value
        evt.motif_annulation = motif
        inscriptions = InscriptionRepository(self.session)
        now = utcnow()
        registrants = await inscriptions.all_active(evt.id)
        message = f"L'événement « {evt.titre} » du {evt.date_debut:%d/%m/%Y} est annulé."
        if motif:
            message += f" Motif: {motif}"
        for ins in registrants:
            ins.statut = StatutInscription.ANNULEE
            ins.date_annulation = now
            ins.motif_annulation = "Événement annulé"
            await notifier(self.session, evt, ins.membre_id, "EVENEMENT_ANNULE", message)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ANNULER", module=MODULE, entite_type="Evenement",
                           entite_id=evt.id, before={"statut": statut.value},
                           after={"statut": "ANNULE", "motif": motif, "inscriptionsAnnulees": len(registrants)},
                           organisation_id=evt.organisation_id, severite="WARNING")

    async def lister(self, filters: EvenementFilters, params: PageParams, sort: str = "dateDebut",
                     direction: str = "asc") -> PagedResponseEvenementMobileDTO:
        if filters.type_evenement:
            await self._check_type(filters.type_evenement)
        rows, total, exact = await self.repo.search(filters, params, utcnow(), sort, direction)
        return await self._page(rows, params, total, exact)

    async def count(self) -> int:
        return await self.repo.count()

    async def statistics(self) -> StatistiquesEvenements:
        now = utcnow()
        par_statut = await self.repo.stats_by(effective_status(now))
        par_type = await self.repo.stats_by(EvenementRow.type_evenement)
        registrations = await self.repo.stats_registrations()
        capacity, filled = await self.repo.stats_fill()
        avg, n_feedback = await self.repo.stats_feedback()
        rate = (Decimal(filled * 100) / Decimal(capacity)).quantize(Decimal("0.01"), ROUND_HALF_UP) if capacity \
            else None
        return StatistiquesEvenements(
            total=sum(par_statut.values()),
            par_statut={s.value: par_statut.get(s.value, 0) for s in StatutEvenement},
            par_type=par_type,
            inscriptions=InscriptionsStats(confirmees=registrations.get("CONFIRMEE", 0),
                                           en_attente=registrations.get("EN_ATTENTE", 0),
                                           annulees=registrations.get("ANNULEE", 0)),
            capacite_totale=capacity, taux_remplissage=rate,
            note_moyenne_feedback=(Decimal(str(avg)).quantize(Decimal("0.01"), ROUND_HALF_UP)
                                   if avg is not None else None),
            nombre_feedbacks=n_feedback,
        )

    async def connectivity(self) -> ConnectiviteResponse:
        try:
            await self.repo.ping()
            database = "UP"
        except Exception:
            database = "DOWN"
        return ConnectiviteResponse(status="UP" if database == "UP" else "DEGRADED", service="evenements",
                                    database=database, horodatage=datetime.now(UTC))
