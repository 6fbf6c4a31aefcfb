"""Suggestions (docs/tickets-suggestions.md).

States: SOUMISE → EN_ETUDE → RETENUE → REALISEE, or → REJETEE from SOUMISE/EN_ETUDE. REJETEE and REALISEE
are final. Members vote (one vote each, toggled) while the idea is SOUMISE or EN_ETUDE.
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.membres.repository import nom_affiche
from unionflow.models import Suggestion, SuggestionVote
from unionflow.models.base import utcnow
from unionflow.models.suggestion import StatutSuggestion
from unionflow.organisations.repository import OrganisationRepository
from unionflow.suggestions.repository import SuggestionFilters, SuggestionRepository
from unionflow.suggestions.schemas import (
    CreateSuggestionRequest,
    ReponseSuggestionRequest,
    SuggestionResponse,
    UpdateSuggestionRequest,
    VoteResponse,
)

MODULE = "SUGGESTIONS"
S = StatutSuggestion
TRANSITIONS: dict[StatutSuggestion, frozenset[StatutSuggestion]] = {
    S.SOUMISE: frozenset({S.EN_ETUDE, S.RETENUE, S.REJETEE}),
    S.EN_ETUDE: frozenset({S.RETENUE, S.REJETEE}),
    S.RETENUE: frozenset({S.REALISEE}),
    S.REJETEE: frozenset(),
    S.REALISEE: frozenset(),
}
VOTING = frozenset({S.SOUMISE, S.EN_ETUDE})
FIELDS = ["statut", "titre", "description", "categorie", "nombre_votes", "reponse", "repondu_par"]


def to_response(suggestion: Suggestion, voted: bool) -> SuggestionResponse:
    data = {k: getattr(suggestion, k) for k in SuggestionResponse.model_fields if hasattr(suggestion, k)}
    return SuggestionResponse.model_validate({**data, "a_vote": voted,
                                              "votes_ouverts": suggestion.statut in VOTING})


class SuggestionService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = SuggestionRepository(session, auth)

    async def _get(self, suggestion_id: uuid.UUID, *, for_update: bool = False) -> Suggestion:
        suggestion = await self.repo.get(suggestion_id, for_update=for_update)
        if suggestion is None:
            raise NotFound("Suggestion introuvable")
        return suggestion

    async def _respond(self, suggestion: Suggestion) -> SuggestionResponse:
        return to_response(suggestion, suggestion.id in await self.repo.voted([suggestion.id]))

    async def creer(self, data: CreateSuggestionRequest) -> SuggestionResponse:
        if self.auth.membre_id is None:
            raise RegleMetier("Aucune fiche membre n'est liée à votre compte: impossible de proposer une idée")
        if not await OrganisationRepository(self.session, None).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        if data.organisation_id not in self.auth.member_organisations:
            raise RegleMetier("organisationId: vous n'êtes pas membre actif de cette organisation")
        name = await nom_affiche(self.session, self.auth)
        suggestion = Suggestion(organisation_id=data.organisation_id, membre_id=self.auth.membre_id,
                                auteur_nom=name, titre=data.titre, description=data.description,
                                categorie=data.categorie.value, statut=S.SOUMISE.value, nombre_votes=0)
        self.repo.add(suggestion)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Suggestion",
                           entite_id=suggestion.id, organisation_id=suggestion.organisation_id,
                           after=audit.snapshot(suggestion, FIELDS))
        return to_response(suggestion, False)

    async def obtenir(self, suggestion_id: uuid.UUID) -> SuggestionResponse:
        return await self._respond(await self._get(suggestion_id))

    async def lister(self, filters: SuggestionFilters, params: PageParams) -> Page[SuggestionResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        voted = await self.repo.voted([s.id for s in rows])
        return Page[SuggestionResponse].build([to_response(s, s.id in voted) for s in rows], params, total, exact)

    async def modifier(self, suggestion_id: uuid.UUID, data: UpdateSuggestionRequest) -> SuggestionResponse:
        suggestion = await self._get(suggestion_id, for_update=True)
        if suggestion.membre_id != self.auth.membre_id:
            raise Forbidden("Seul l'auteur modifie sa suggestion")
        if suggestion.statut != S.SOUMISE:
            raise InvalidState("La suggestion est déjà à l'étude ou décidée: elle n'est plus modifiable")
        changes = data.model_dump(exclude_unset=True)
        nulls = [k for k, v in changes.items() if v is None]
        if nulls:
            raise RegleMetier(f"{', '.join(nulls)}: null interdit")
        if not changes:
            return await self._respond(suggestion)
        before = audit.snapshot(suggestion, FIELDS)
        for key, value in changes.items():
            setattr(suggestion, key, getattr(value, "value", value))
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="Suggestion",
                           entite_id=suggestion.id, organisation_id=suggestion.organisation_id, before=before,
                           after=audit.snapshot(suggestion, FIELDS))
        return await self._respond(suggestion)

    async def basculer_vote(self, suggestion_id: uuid.UUID) -> VoteResponse:
        # The row lock serialises the votes of one idea: the stored count always equals the vote rows.
        suggestion = await self._get(suggestion_id, for_update=True)
        membre_id = self.auth.membre_id
        if membre_id is None or suggestion.organisation_id not in self.auth.member_organisations:
            raise Forbidden("Seuls les membres de l'organisation votent")
        if suggestion.statut not in VOTING:
            raise InvalidState(f"Suggestion {suggestion.statut}: les votes sont clos")
        removed = await self.repo.remove_vote(suggestion.id, membre_id)
        if not removed:
            self.repo.add(SuggestionVote(suggestion_id=suggestion.id, membre_id=membre_id))
            await self.session.flush()
        suggestion.nombre_votes = await self.repo.count_votes(suggestion.id)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="RETIRER_VOTE" if removed else "VOTER", module=MODULE,
                           entite_type="Suggestion", entite_id=suggestion.id,
                           organisation_id=suggestion.organisation_id,
                           after={"nombreVotes": suggestion.nombre_votes})
        return VoteResponse(suggestion_id=suggestion.id, a_vote=not removed, nombre_votes=suggestion.nombre_votes)

    async def repondre(self, suggestion_id: uuid.UUID, data: ReponseSuggestionRequest) -> SuggestionResponse:
        suggestion = await self._get(suggestion_id, for_update=True)
        self.auth.require(Permission.SUGGESTION_TRAITER, suggestion.organisation_id,
                          "Seul le bureau de l'organisation statue sur une suggestion")
        current = S(suggestion.statut)
        if data.statut not in TRANSITIONS[current]:
            allowed = ", ".join(sorted(TRANSITIONS[current])) or "aucun (statut final)"
            raise InvalidState(f"Transition {current.value} → {data.statut.value} impossible; possibles: {allowed}")
        if data.statut in (S.RETENUE, S.REJETEE) and not data.reponse:
            raise RegleMetier("reponse: expliquez la décision aux membres")
        before = audit.snapshot(suggestion, FIELDS)
        suggestion.statut = data.statut.value
        if data.reponse:
            suggestion.reponse = data.reponse
            suggestion.repondu_par = await nom_affiche(self.session, self.auth)
            suggestion.date_reponse = utcnow()
        await self.session.flush()
        await audit.record(self.session, self.auth, action=f"STATUT_{data.statut.value}", module=MODULE,
                           entite_type="Suggestion", entite_id=suggestion.id, before=before,
                           organisation_id=suggestion.organisation_id, after=audit.snapshot(suggestion, FIELDS))
        return await self._respond(suggestion)
