from __future__ import annotations

import uuid

from fastapi import Depends, Query, Response

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.roles import RS_NOTIFICATION_ENVOI, RS_NOTIFICATION_MES, RS_NOTIFICATION_MODELE
from unionflow.core.routing import area_router
from unionflow.notifications.modele_service import ModeleService
from unionflow.notifications.repository import NotificationFilters
from unionflow.notifications.schemas import (
    CODE_PATTERN,
    Canal,
    CreateModeleRequest,
    EnvoiGroupe,
    EnvoiResultat,
    MarquageResponse,
    ModeleResponse,
    NonLuesResponse,
    NotificationEnvoi,
    NotificationResponse,
    StatutNotification,
    TypeNotification,
    UpdateModeleRequest,
)
from unionflow.notifications.service import NotificationService

router = area_router("/api/notifications", "Notifications")

ENVOI = ("Une ligne par membre et par canal, EN_ATTENTE jusqu'à sa livraison par `unionflow jobs "
         "envoyer-notifications` (IN_APP: ENVOYEE dès la création). Canaux: préférences du membre pour ce type, "
         "sinon `canaux`, sinon EMAIL > SMS > IN_APP selon ses coordonnées. Un membre qui refuse les "
         "notifications non obligatoires (INFORMATION, INVITATION_EVENEMENT), ou qui s'est opposé au traitement "
         "COMMUNICATIONS (Loi n° 2008-12, droit d'opposition: `POST /api/moi/donnees/oppositions`), est compté dans "
         "`refuseesParPreference`. Sans adresse pour un canal: ligne ECHOUEE (`sansAdresse`). `codeModele`: "
         "modèle de l'organisation, sinon global; variables {prenom} {nom} {nomComplet} {numeroMembre} "
         "{organisation} {date} plus `variables`. Membres: membres ACTIFS de l'organisation (404 sinon); "
         "l'appelant doit gérer l'organisation (403). 400 `regle-metier`: donner soit `membreIds`, soit "
         "`tousMembresActifs: true` (l'un des deux); `codeModele` exclut `sujet` et `corps`, sans `codeModele` "
         "`sujet` et `corps` sont requis; une variable du modèle sans valeur est refusée.")


@router.post("", status_code=201, response_model=EnvoiResultat, responses=problems(404),
             summary="Envoyer une notification à des membres ou à tous les membres actifs", description=ENVOI)
async def envoyer(data: NotificationEnvoi, session: SessionDep,
                  auth: AuthContext = authorize(RS_NOTIFICATION_ENVOI)) -> EnvoiResultat:
    return await NotificationService(session, auth).envoyer(data)


@router.post("/groupees", status_code=201, response_model=list[EnvoiResultat], responses=problems(404),
             summary="Envoyer plusieurs notifications en une fois",
             description="`envois`: 1 à 50 envois (même forme que POST /api/notifications), traités dans une seule "
                         "transaction: un envoi invalide annule tout le lot. Réponse: un bilan par envoi, dans "
                         "l'ordre. Chaque envoi suit les règles de POST /api/notifications (400 `regle-metier`: "
                         "`membreIds` ou `tousMembresActifs`; `codeModele` exclut `sujet` et `corps`).")
async def envoyer_groupees(data: EnvoiGroupe, session: SessionDep,
                           auth: AuthContext = authorize(RS_NOTIFICATION_ENVOI)) -> list[EnvoiResultat]:
    return await NotificationService(session, auth).envoyer_groupe(data.envois)


@router.get("", response_model=Page[NotificationResponse], summary="Boîte d'envoi des organisations gérées",
            description="Toutes les notifications des organisations de l'appelant (toutes pour ADMIN), les plus "
                        "récentes d'abord: c'est ici qu'un trésorier voit qu'un rappel est ECHOUEE et pourquoi.")
async def lister(session: SessionDep, auth: AuthContext = authorize(RS_NOTIFICATION_ENVOI),
                 params: PageParams = Depends(paging(20)),
                 statut: StatutNotification | None = None, canal: Canal | None = None,
                 type_notification: TypeNotification | None = Query(None, alias="typeNotification"),
                 membre_id: uuid.UUID | None = Query(None, alias="membreId"),
                 organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                 ) -> Page[NotificationResponse]:
    filters = NotificationFilters(statut=statut, canal=canal, type_notification=type_notification,
                                  membre_id=membre_id, organisation_id=organisation_id)
    return await NotificationService(session, auth).lister(filters, params)


@router.get("/mes", response_model=Page[NotificationResponse], summary="Mes notifications",
            description="Notifications du membre connecté, tous canaux, les plus récentes d'abord; "
                        "`nonLues=true` pour les seules non lues. Appelant sans fiche membre: liste vide.")
async def mes_notifications(session: SessionDep, auth: AuthContext = authorize(RS_NOTIFICATION_MES),
                            params: PageParams = Depends(paging(20)),
                            non_lues: bool = Query(False, alias="nonLues")) -> Page[NotificationResponse]:
    return await NotificationService(session, auth).mine(params, non_lues)


@router.get("/mes/non-lues/count", response_model=NonLuesResponse, summary="Nombre de mes notifications non lues")
async def non_lues(session: SessionDep, auth: AuthContext = authorize(RS_NOTIFICATION_MES)) -> NonLuesResponse:
    return await NotificationService(session, auth).unread()


@router.put("/mes/lues", response_model=MarquageResponse, summary="Marquer toutes mes notifications comme lues")
async def toutes_lues(session: SessionDep, auth: AuthContext = authorize(RS_NOTIFICATION_MES)) -> MarquageResponse:
    return await NotificationService(session, auth).toutes_lues()


@router.get("/modeles", response_model=Page[ModeleResponse], summary="Modèles de notification",
            description="Modèles globaux et ceux des organisations administrées (tous pour ADMIN).")
async def lister_modeles(session: SessionDep, auth: AuthContext = authorize(RS_NOTIFICATION_MODELE),
                         params: PageParams = Depends(paging(20)),
                         code: str | None = Query(None, pattern=CODE_PATTERN),
                         organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                         ) -> Page[ModeleResponse]:
    return await ModeleService(session, auth).lister(code, organisation_id, params)


@router.post("/modeles", status_code=201, response_model=ModeleResponse, responses=problems(404, 409),
             summary="Créer un modèle de notification",
             description="`organisationId` vide: modèle global (ADMIN/SUPER_ADMIN). Un code par canal et par "
                         "portée (409). Variables `{nom}` simples uniquement (pas de format ni d'accès: 400); "
                         "`{{` et `}}` pour des accolades littérales.")
async def creer_modele(data: CreateModeleRequest, session: SessionDep,
                       auth: AuthContext = authorize(RS_NOTIFICATION_MODELE)) -> ModeleResponse:
    return await ModeleService(session, auth).creer(data)


@router.get("/modeles/{id}", response_model=ModeleResponse, summary="Consulter un modèle de notification")
async def get_modele(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_NOTIFICATION_MODELE)) -> ModeleResponse:
    return await ModeleService(session, auth).obtenir(id)


@router.put("/modeles/{id}", response_model=ModeleResponse, summary="Modifier un modèle de notification",
            description="Libellé, sujet, corps, actif; le code, le canal et la portée ne changent pas.")
async def modifier_modele(id: uuid.UUID, data: UpdateModeleRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_NOTIFICATION_MODELE)) -> ModeleResponse:
    return await ModeleService(session, auth).modifier(id, data)


@router.delete("/modeles/{id}", status_code=204, summary="Supprimer un modèle de notification",
               description="Les notifications déjà créées gardent leur texte.")
async def supprimer_modele(id: uuid.UUID, session: SessionDep,
                           auth: AuthContext = authorize(RS_NOTIFICATION_MODELE)) -> Response:
    await ModeleService(session, auth).supprimer(id)
    return Response(status_code=204)


@router.get("/{id}", response_model=NotificationResponse, summary="Consulter une notification",
            description="La sienne, ou une de l'organisation gérée.")
async def get_notification(id: uuid.UUID, session: SessionDep,
                           auth: AuthContext = authorize(RS_NOTIFICATION_MES)) -> NotificationResponse:
    return await NotificationService(session, auth).obtenir(id)


@router.put("/{id}/lue", response_model=NotificationResponse, summary="Marquer une de mes notifications comme lue",
            description="Idempotent; statut LUE et dateLecture. Seulement ses propres notifications (404 sinon); "
                        "une notification EN_ATTENTE lue dans l'application n'est plus envoyée.")
async def marquer_lue(id: uuid.UUID, session: SessionDep,
                      auth: AuthContext = authorize(RS_NOTIFICATION_MES)) -> NotificationResponse:
    return await NotificationService(session, auth).lue(id)


@router.post("/{id}/renvoyer", response_model=NotificationResponse, summary="Relancer une notification ECHOUEE",
             description="Remet la notification EN_ATTENTE avec zéro tentative et l'adresse actuelle du membre "
                         "(corrigée entre-temps, sinon 400).")
async def renvoyer(id: uuid.UUID, session: SessionDep,
                   auth: AuthContext = authorize(RS_NOTIFICATION_ENVOI)) -> NotificationResponse:
    return await NotificationService(session, auth).renvoyer(id)
