"""Registrations (capacity, first-come waiting list, promotion) and feedback (participants only, after the
event, one per member, moderated). Every capacity decision happens under the event's row lock."""

from __future__ import annotations

import uuid
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.evenements.repository import EvenementRepository, FeedbackEvenementRepository, InscriptionRepository
from unionflow.evenements.schemas import (
    EvenementsFeedbackResponse,
    EvenementsParticipantResponse,
    FeedbackPublic,
    FeedbackRequest,
    FeedbacksEvenementResponse,
    InscriptionResponse,
    ModerationRequest,
    MonInscriptionResponse,
    StatutEvenement,
    StatutInscription,
    StatutModeration,
)
from unionflow.evenements.service import MODULE, closing_time, promote_waiting, statut_effectif, webhook_inscription
from unionflow.models import Evenement, FeedbackEvenement, InscriptionEvenement
from unionflow.models.base import utcnow
from unionflow.webhooks import emission as webhooks


class InscriptionService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.events = EvenementRepository(session, auth)
        self.repo = InscriptionRepository(session)
        self.feedbacks = FeedbackEvenementRepository(session)

    def _membre(self) -> uuid.UUID:
        if self.auth.membre_id is None:
            raise Forbidden("Seul un membre (dossier de membre lié au compte) peut effectuer cette action")
        return self.auth.membre_id

    async def _event(self, evenement_id: uuid.UUID, *, for_update: bool = False) -> Evenement:
        evt = await self.events.get(evenement_id, for_update=for_update)
        if evt is None:
            raise NotFound("Événement introuvable")
        return evt

    async def _response(self, ins: InscriptionEvenement) -> InscriptionResponse:
        out = InscriptionResponse.model_validate(ins)
        if ins.statut == StatutInscription.EN_ATTENTE:
            out.position_liste_attente = await self.repo.position(ins)
        return out

    async def inscrire(self, evenement_id: uuid.UUID) -> InscriptionResponse:
        # 404 before business rules: the event first, then who may register.
        evt = await self._event(evenement_id, for_update=True)
        membre_id = self._membre()
        now = utcnow()
        statut = statut_effectif(evt, now)
        if statut is StatutEvenement.ANNULE:
            raise InvalidState("Inscription impossible: l'événement est annulé")
        if statut is StatutEvenement.TERMINE:
            raise InvalidState("Inscription impossible: l'événement est terminé")
        if now >= closing_time(evt):
            raise InvalidState(f"Inscription impossible: les inscriptions sont closes depuis le "
                               f"{closing_time(evt).isoformat()}")
        if await self.repo.active_of(evt.id, membre_id) is not None:
            raise Conflict("Vous êtes déjà inscrit à cet événement")
        confirmed = await self.repo.count_confirmed(evt.id)
        full = evt.capacite_max is not None and confirmed >= evt.capacite_max
        if full and not evt.liste_attente_active:
            raise Conflict(f"Inscription impossible: l'événement est complet ({evt.capacite_max} places) et "
                           f"n'a pas de liste d'attente")
        ins = InscriptionEvenement(evenement_id=evt.id, membre_id=membre_id, date_inscription=now,
                                   statut=(StatutInscription.EN_ATTENTE if full else StatutInscription.CONFIRMEE).value,
                                   date_confirmation=None if full else now)
        # The same member racing themselves past the check meets the unique constraint.
        await flush_unique(self.session, "Vous êtes déjà inscrit à cet événement", ins)
        await audit.record(self.session, self.auth, action="INSCRIRE", module=MODULE,
                           entite_type="InscriptionEvenement", entite_id=ins.id,
                           after={"evenementId": evt.id, "membreId": membre_id, "statut": ins.statut},
                           organisation_id=evt.organisation_id)
        if ins.statut == StatutInscription.CONFIRMEE:
            await webhook_inscription(self.session, evt, ins, webhooks.EvenementWebhook.INSCRIPTION_CONFIRMEE)
        return await self._response(ins)

    async def desinscrire(self, evenement_id: uuid.UUID) -> None:
        evt = await self._event(evenement_id, for_update=True)
        membre_id = self._membre()
        ins = await self.repo.active_of(evt.id, membre_id)
        if ins is None:
            raise NotFound("Aucune inscription active à cet événement")
        if statut_effectif(evt, utcnow()) is StatutEvenement.TERMINE:
            raise InvalidState("Désinscription impossible: l'événement est terminé")
        before = ins.statut
        ins.statut = StatutInscription.ANNULEE.value
        ins.date_annulation = utcnow()
        ins.motif_annulation = "Désinscription du membre"
        await self.session.flush()
        if before == StatutInscription.CONFIRMEE:
            await promote_waiting(self.session, self.auth, evt)
        await audit.record(self.session, self.auth, action="DESINSCRIRE", module=MODULE,
                           entite_type="InscriptionEvenement", entite_id=ins.id, before={"statut": before},
                           after={"statut": ins.statut}, organisation_id=evt.organisation_id)
        await webhook_inscription(self.session, evt, ins, webhooks.EvenementWebhook.INSCRIPTION_ANNULEE)

    async def participants(self, evenement_id: uuid.UUID, params: PageParams) -> Page[EvenementsParticipantResponse]:
        await self._event(evenement_id)
        rows, total, exact = await self.repo.participants(evenement_id, params)
        content = [EvenementsParticipantResponse(inscription_id=i.id, membre_id=m.id, numero_membre=m.numero_membre,
                                       prenom=m.prenom, nom=m.nom, date_inscription=i.date_inscription,
                                       date_confirmation=i.date_confirmation) for i, m in rows]
        return Page[EvenementsParticipantResponse].build(content, params, total, exact)

    async def liste_attente(self, evenement_id: uuid.UUID) -> list[EvenementsParticipantResponse]:
        """The waiting list, in promotion order: for the organisers of the event (the console's event page;
        the API's participants route lists the confirmed ones only)."""
        evt = await self._event(evenement_id)
        self.auth.require(Permission.EVENEMENT_GERER, evt.organisation_id,
                          "Seuls les responsables de l'organisation organisatrice voient la liste d'attente")
        return [EvenementsParticipantResponse(inscription_id=i.id, membre_id=m.id, numero_membre=m.numero_membre,
                                    prenom=m.prenom, nom=m.nom, date_inscription=i.date_inscription,
                                    date_confirmation=i.date_confirmation)
                for i, m in await self.repo.waiting_with_members(evt.id)]

    async def mine(self) -> list[MonInscriptionResponse]:
        if self.auth.membre_id is None:
            return []
        now = utcnow()
        out = []
        for ins, evt in await self.repo.of_member(self.auth.membre_id):
            base = (await self._response(ins)).model_dump()
            out.append(MonInscriptionResponse(**base, evenement_titre=evt.titre, evenement_date_debut=evt.date_debut,
                                              evenement_lieu=evt.lieu, evenement_statut=statut_effectif(evt, now)))
        return out

    async def soumettre_feedback(self, evenement_id: uuid.UUID, data: FeedbackRequest) -> EvenementsFeedbackResponse:
        evt = await self._event(evenement_id)
        membre_id = self._membre()
        if evt.statut == StatutEvenement.ANNULE:
            raise InvalidState("Feedback impossible: l'événement a été annulé")
        if evt.date_fin > utcnow():
            raise InvalidState("Feedback possible seulement après la fin de l'événement")
        if not await self.repo.has_confirmed(evt.id, membre_id):
            raise InvalidState("Seuls les participants (inscription confirmée) peuvent donner leur avis")
        if await self.feedbacks.of_member(evt.id, membre_id) is not None:
            raise Conflict("Vous avez déjà donné votre avis sur cet événement")
        # A bare note carries nothing to moderate; free text waits for a moderator before being shown.
        statut = StatutModeration.EN_ATTENTE if data.commentaire else StatutModeration.PUBLIE
        feedback = FeedbackEvenement(evenement_id=evt.id, membre_id=membre_id, note=data.note,
                                     commentaire=data.commentaire or None, statut_moderation=statut.value)
        await flush_unique(self.session, "Vous avez déjà donné votre avis sur cet événement", feedback)
        await audit.record(self.session, self.auth, action="EVALUER", module=MODULE,
                           entite_type="FeedbackEvenement", entite_id=feedback.id,
                           after=audit.snapshot(feedback, ["note", "statut_moderation"]),
                           organisation_id=evt.organisation_id)
        return EvenementsFeedbackResponse.model_validate(feedback)

    async def published_feedbacks(self, evenement_id: uuid.UUID) -> FeedbacksEvenementResponse:
        await self._event(evenement_id)
        rows = await self.feedbacks.published(evenement_id)
        notes = Counter(f.note for f, _ in rows)
        average = None
        if rows:
            average = (Decimal(sum(f.note for f, _ in rows)) / Decimal(len(rows))).quantize(Decimal("0.01"),
                                                                                             ROUND_HALF_UP)
        return FeedbacksEvenementResponse(
            evenement_id=evenement_id, note_moyenne=average, nombre_feedbacks=len(rows),
            repartition={str(n): notes.get(n, 0) for n in range(1, 6)},
            feedbacks=[FeedbackPublic(id=f.id, note=f.note, commentaire=f.commentaire,
                                      auteur=f"{m.prenom} {m.nom[:1]}.", created_at=f.created_at) for f, m in rows],
        )

    def _may_moderate(self, evt: Evenement) -> None:
        self.auth.require(Permission.FEEDBACK_MODERER, evt.organisation_id,
                          "Seuls les modérateurs et les responsables de l'organisation organisatrice modèrent")

    async def pending_feedbacks(self, evenement_id: uuid.UUID) -> list[EvenementsFeedbackResponse]:
        evt = await self._event(evenement_id)
        self._may_moderate(evt)
        return [EvenementsFeedbackResponse.model_validate(f) for f in await self.feedbacks.pending(evt.id)]

    async def moderer(self, evenement_id: uuid.UUID, feedback_id: uuid.UUID,
                       data: ModerationRequest) -> EvenementsFeedbackResponse:
        evt = await self._event(evenement_id)
        self._may_moderate(evt)
        if data.statut is StatutModeration.REJETE and not data.motif:
            raise RegleMetier("motif requis pour rejeter un feedback")
        feedback = await self.feedbacks.lock_of_evenement(evt.id, feedback_id)
        if feedback is None:
            raise NotFound("Feedback introuvable")
        if feedback.statut_moderation == data.statut.value:
            raise InvalidState(f"Le feedback est déjà {data.statut.value}")
        before = audit.snapshot(feedback, ["statut_moderation", "motif_moderation"])
        feedback.statut_moderation = data.statut.value
        feedback.motif_moderation = data.motif
        feedback.modere_par = self.auth.actor_name
        feedback.date_moderation = utcnow()
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODERER", module=MODULE,
                           entite_type="FeedbackEvenement", entite_id=feedback.id, before=before,
                           after=audit.snapshot(feedback, ["statut_moderation", "motif_moderation"]),
                           organisation_id=evt.organisation_id)
        return EvenementsFeedbackResponse.model_validate(feedback)
