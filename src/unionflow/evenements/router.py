from __future__ import annotations

import uuid

from fastapi import Depends, Path, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging, set_total_header
from unionflow.core.roles import (
    RS_EVT_COUNT,
    RS_EVT_INSCRIPTION,
    RS_EVT_MODERATION,
    RS_EVT_READ,
    RS_EVT_READ2,
    RS_EVT_WRITE,
)
from unionflow.core.routing import area_router
from unionflow.evenements.inscription_service import InscriptionService
from unionflow.evenements.repository import EvenementFilters
from unionflow.evenements.schemas import (
    AnnulationEvenement,
    ConnectiviteResponse,
    Direction,
    Evenement,
    EvenementMobileDTO,
    EvenementsFeedbackResponse,
    EvenementsParticipantResponse,
    FeedbackRequest,
    FeedbacksEvenementResponse,
    InscriptionResponse,
    ModerationRequest,
    MonInscriptionResponse,
    PagedResponseEvenementMobileDTO,
    SortField,
    StatistiquesEvenements,
)
from unionflow.evenements.service import EvenementService
from unionflow.types_reference.schemas import code_du_domaine

router = area_router("/api/evenements", "Événements")

VISIBILITE = ("Visibilité: un événement PUBLIC est visible de tout appelant authentifié; un événement MEMBRES "
              "seulement des membres et responsables de l'organisation organisatrice (et ADMIN). ")
STATUTS = ("Statut: PLANIFIE à la création, CONFIRME par `POST /{id}/confirmer`, ANNULE par `DELETE /{id}`; "
           "EN_COURS et TERMINE sont déduits des dates. ")
# Cross-field rules JSON Schema cannot state (answered 400 `regle-metier`).
DATES = ("Règles métier (400 `regle-metier`): `dateFin` après `dateDebut`, `dateLimiteInscription` au plus tard à "
         "`dateFin`, `typeEvenement` actif dans les types de référence. ")


@router.get("", response_model=PagedResponseEvenementMobileDTO, summary="Lister les événements actifs",
            description="Événements actifs = non annulés et non terminés (dateFin future), visibles de "
                        "l'appelant. " + VISIBILITE + "`sort` parmi dateDebut, dateFin, titre, createdAt; "
                        "`direction` asc ou desc; sinon 400.")
async def list_evenements(
    session: SessionDep,
    auth: AuthContext = authorize(RS_EVT_READ),
    params: PageParams = Depends(paging(20)),
    sort: SortField = Query(SortField.dateDebut, description="Champ de tri"),
    direction: Direction = Query(Direction.asc, description="Sens du tri"),
) -> PagedResponseEvenementMobileDTO:
    return await EvenementService(session, auth).lister(EvenementFilters(only_active=True), params, sort.value,
                                                        direction.value)


@router.post("", status_code=201, response_model=EvenementMobileDTO, responses=problems(404),
             summary="Créer un événement",
             description="Réservé aux responsables (ADMIN_ORGANISATION, PRESIDENT, SECRETAIRE, "
                         "ORGANISATEUR_EVENEMENT) de l'organisation organisatrice, ou ADMIN. typeEvenement doit "
                         "être un type de référence TYPE_EVENEMENT actif (400 sinon). " + DATES + STATUTS)
async def create_evenement(data: Evenement, session: SessionDep,
                           auth: AuthContext = authorize(RS_EVT_WRITE)) -> EvenementMobileDTO:
    return await EvenementService(session, auth).creer(data)


@router.get("/a-venir", response_model=PagedResponseEvenementMobileDTO, summary="Événements à venir",
            description="Événements non annulés qui n'ont pas encore commencé, du plus proche au plus lointain.")
async def upcoming_evenements(session: SessionDep, auth: AuthContext = authorize(RS_EVT_READ2),
                              params: PageParams = Depends(paging(10))) -> PagedResponseEvenementMobileDTO:
    return await EvenementService(session, auth).lister(EvenementFilters(upcoming=True), params)


@router.get("/count", response_model=int, summary="Nombre d'événements",
            description="Nombre d'événements (tous statuts) visibles de l'appelant.")
async def count_evenements(session: SessionDep, auth: AuthContext = authorize(RS_EVT_COUNT)) -> int:
    return await EvenementService(session, auth).count()


@router.get("/mes-inscriptions", response_model=list[MonInscriptionResponse],
            summary="Inscriptions du membre connecté",
            description="Toutes les inscriptions du membre, y compris en attente et annulées (historique), "
                        "de l'événement le plus récent au plus ancien. Total dans X-Total-Count.")
async def my_registrations(response: Response, session: SessionDep,
                           auth: AuthContext = authorize(RS_EVT_READ)) -> list[MonInscriptionResponse]:
    rows = await InscriptionService(session, auth).mine()
    set_total_header(response, len(rows))
    return rows


@router.get("/publics", response_model=PagedResponseEvenementMobileDTO,
            summary="Événements publics (sans authentification)",
            description="Événements PUBLIC non annulés et non terminés, triés par date de début.")
async def public_evenements(session: SessionDep,
                            params: PageParams = Depends(paging(20))) -> PagedResponseEvenementMobileDTO:
    return await EvenementService(session, None).lister(EvenementFilters(only_active=True, public_only=True),
                                                        params)


@router.get("/recherche", response_model=PagedResponseEvenementMobileDTO, summary="Rechercher des événements",
            description="Recherche `q` (sans tenir compte des accents ni de la casse; chaque mot doit y figurer) "
                        "dans titre, description et lieu, sur tous les "
                        "événements visibles (y compris passés et annulés), triés par date de début.")
async def search_evenements(session: SessionDep, auth: AuthContext = authorize(RS_EVT_READ2),
                            q: str | None = Query(None, max_length=100),
                            params: PageParams = Depends(paging(20))) -> PagedResponseEvenementMobileDTO:
    return await EvenementService(session, auth).lister(EvenementFilters(q=q), params)


@router.get("/statistiques", response_model=StatistiquesEvenements, summary="Statistiques des événements",
            description="Sur les événements des organisations gérées par l'appelant (tous pour ADMIN): nombre "
                        "par statut effectif et par type, inscriptions, taux de remplissage (confirmés / "
                        "capacité des événements limités non annulés), note moyenne des feedbacks publiés.")
async def statistics(session: SessionDep,
                     auth: AuthContext = authorize(RS_EVT_WRITE)) -> StatistiquesEvenements:
    return await EvenementService(session, auth).statistics()


@router.get("/test", response_model=ConnectiviteResponse, summary="Test de connectivité (sans authentification)",
            description="Répond UP quand le service et sa base de données répondent.")
async def connectivity(session: SessionDep) -> ConnectiviteResponse:
    return await EvenementService(session, None).connectivity()


@router.get("/type/{type}", response_model=PagedResponseEvenementMobileDTO, summary="Événements d'un type",
            description="Type inconnu des types de référence TYPE_EVENEMENT (table modifiable): 400 "
                        "`regle-metier`. Tous statuts, par date.")
async def evenements_by_type(session: SessionDep, auth: AuthContext = authorize(RS_EVT_READ2),
                             params: PageParams = Depends(paging(20)),
                             type: str = Path(max_length=50, description=code_du_domaine("TYPE_EVENEMENT")),
                             ) -> PagedResponseEvenementMobileDTO:
    return await EvenementService(session, auth).lister(EvenementFilters(type_evenement=type), params)


@router.get("/{id}", response_model=EvenementMobileDTO, responses=problems(404), summary="Consulter un événement",
            description=VISIBILITE)
async def get_evenement(id: uuid.UUID, session: SessionDep,
                        auth: AuthContext = authorize(RS_EVT_READ2)) -> EvenementMobileDTO:
    return await EvenementService(session, auth).obtenir(id)


@router.put("/{id}", response_model=EvenementMobileDTO, responses=problems(404),
            summary="Modifier un événement",
            description="Remplacement complet par les responsables de l'organisation organisatrice (ou ADMIN). "
                        "Refusé (400 `invalid-state`) pour un événement annulé ou terminé, ou une capacité inférieure "
                        "aux "
                        "inscrits confirmés; une capacité augmentée confirme la liste d'attente dans l'ordre. " + DATES)
async def update_evenement(id: uuid.UUID, data: Evenement, session: SessionDep,
                           auth: AuthContext = authorize(RS_EVT_WRITE)) -> EvenementMobileDTO:
    return await EvenementService(session, auth).modifier(id, data)


@router.delete("/{id}", status_code=204, responses=problems(404), summary="Annuler un événement",
               description="Annulation (suppression logique): l'événement passe ANNULE et reste consultable; "
                           "toutes ses inscriptions actives sont annulées et chaque inscrit reçoit une "
                           "notification enregistrée. Réservé aux responsables de l'organisation organisatrice "
                           "(RS-EVT-WRITE) ou ADMIN. Corps optionnel `{motif}`. 204. Un événement déjà "
                           "annulé: 400 `invalid-state`.")
async def delete_evenement(id: uuid.UUID, session: SessionDep, data: AnnulationEvenement | None = None,
                           auth: AuthContext = authorize(RS_EVT_WRITE)) -> Response:
    await EvenementService(session, auth).annuler(id, data.motif if data else None)
    return Response(status_code=204)


@router.post("/{id}/confirmer", response_model=EvenementMobileDTO, responses=problems(404),
             summary="Confirmer un événement planifié",
             description="PLANIFIE → CONFIRME, avant le début de l'événement; sinon 400 `invalid-state`.")
async def confirm_evenement(id: uuid.UUID, session: SessionDep,
                            auth: AuthContext = authorize(RS_EVT_WRITE)) -> EvenementMobileDTO:
    return await EvenementService(session, auth).confirmer(id)


@router.post("/{id}/inscriptions", status_code=201, response_model=InscriptionResponse,
             responses=problems(404, 409), summary="S'inscrire à un événement",
             description="Inscrit le membre connecté: CONFIRMEE tant qu'il reste des places. Événement complet: "
                         "409 (refus, spec §8), sauf si l'événement a listeAttenteActive: EN_ATTENTE (liste "
                         "d'attente, premier arrivé premier servi, promotion automatique). Désactiver la liste "
                         "d'attente refuse les nouveaux venus mais garde les membres déjà en attente. 409 si déjà "
                         "inscrit; 400 si l'événement est annulé, terminé ou les inscriptions closes "
                         "(dateLimiteInscription, à défaut dateDebut). 403 sans dossier de membre.")
async def register(id: uuid.UUID, session: SessionDep,
                   auth: AuthContext = authorize(RS_EVT_INSCRIPTION)) -> InscriptionResponse:
    return await InscriptionService(session, auth).inscrire(id)


@router.delete("/{id}/inscriptions", status_code=204, responses=problems(404),
               summary="Se désinscrire d'un événement",
               description="L'inscription passe ANNULEE (conservée pour l'historique); la première inscription "
                           "en attente est alors confirmée et notifiée. 404 sans inscription active.")
async def unregister(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_EVT_INSCRIPTION)) -> Response:
    await InscriptionService(session, auth).desinscrire(id)
    return Response(status_code=204)


@router.get("/{id}/participants", response_model=Page[EvenementsParticipantResponse], responses=problems(404),
            summary="Participants confirmés", description="Inscriptions CONFIRMEE, par nom. " + VISIBILITE)
async def participants(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_EVT_READ2),
                       params: PageParams = Depends(paging(50))) -> Page[EvenementsParticipantResponse]:
    return await InscriptionService(session, auth).participants(id, params)


@router.post("/{id}/feedback", status_code=201, response_model=EvenementsFeedbackResponse, responses=problems(404, 409),
             summary="Donner son avis sur un événement",
             description="Note 1 à 5 et commentaire. Seulement un participant confirmé, après la fin de "
                         "l'événement (400 sinon), une fois (409). Une note seule est publiée (PUBLIE); avec un "
                         "commentaire elle attend la modération (EN_ATTENTE).")
async def submit_feedback(id: uuid.UUID, data: FeedbackRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_EVT_INSCRIPTION)) -> EvenementsFeedbackResponse:
    return await InscriptionService(session, auth).soumettre_feedback(id, data)


@router.get("/{id}/feedbacks", response_model=FeedbacksEvenementResponse, responses=problems(404),
            summary="Feedbacks publiés et statistiques",
            description="Feedbacks PUBLIE avec note moyenne, nombre et répartition des notes 1 à 5.")
async def feedbacks(id: uuid.UUID, session: SessionDep,
                    auth: AuthContext = authorize(RS_EVT_READ)) -> FeedbacksEvenementResponse:
    return await InscriptionService(session, auth).published_feedbacks(id)


@router.get("/{id}/feedbacks/moderation", response_model=list[EvenementsFeedbackResponse], responses=problems(404),
            summary="Feedbacks en attente de modération",
            description="Pour les MODERATEUR (rôle de l'union), ADMIN et responsables de l'organisation.")
async def pending_feedbacks(id: uuid.UUID, response: Response, session: SessionDep,
                            auth: AuthContext = authorize(RS_EVT_MODERATION)) -> list[EvenementsFeedbackResponse]:
    rows = await InscriptionService(session, auth).pending_feedbacks(id)
    set_total_header(response, len(rows))
    return rows


@router.put("/{id}/feedbacks/{feedbackId}/moderation", response_model=EvenementsFeedbackResponse,
            responses=problems(404),
            summary="Modérer un feedback",
            description="statut PUBLIE, REJETE ou EN_ATTENTE; règle métier (400 `regle-metier`): `motif` est "
                        "requis pour REJETE. Pour les MODERATEUR (rôle de "
                        "l'union), ADMIN et responsables de l'organisation organisatrice.")
async def moderate_feedback(id: uuid.UUID, feedbackId: uuid.UUID, data: ModerationRequest,
                            session: SessionDep,
                            auth: AuthContext = authorize(RS_EVT_MODERATION)) -> EvenementsFeedbackResponse:
    return await InscriptionService(session, auth).moderer(id, feedbackId, data)
