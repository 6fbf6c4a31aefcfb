from __future__ import annotations

import uuid
from datetime import date

from fastapi import Depends, Query, Response

from unionflow.comptabilite.schemas import (
    CompteComptableResponse,
    CreateCompteComptableRequest,
    CreateJournalComptableRequest,
    EcritureComptableResponse,
    JournalComptableResponse,
    UpdateCompteComptableRequest,
)
from unionflow.comptabilite.service import ComptabiliteService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import PageParams, paging, set_total_header
from unionflow.core.roles import RS_READ, RS_WRITE
from unionflow.core.routing import area_router

router = area_router("/api/comptabilite", "Comptabilité")

VISIBILITE = ("Visibilité: ADMIN toutes les organisations; le bureau (ADMIN_ORGANISATION, TRESORIER, PRESIDENT, "
              "SECRETAIRE...) la comptabilité de ses organisations; un MEMBRE/USER le plan comptable et les journaux "
              "de ses organisations, en lecture seule, jamais les écritures.")
ECRITURE_REGLES = ("Partie double: au moins deux lignes, chacune soit au débit soit au crédit (montant > 0), total "
                   "débit = total crédit > 0, comptes actifs de l'organisation du journal; sinon 400. Numéro de pièce "
                   "séquentiel par journal et par année (`BQ-2026-000001`). Une écriture est immuable: on corrige par "
                   "une écriture de contrepassation (lignes inversées) puis une nouvelle écriture.")
ECRITURES_LISTE = ("Tableau d'écritures (ordre date puis numéro de pièce), total dans `X-Total-Count`; `page` (0) et "
                   "`size` (50) optionnels, filtres `dateDebut`/`dateFin` (AAAA-MM-JJ). Réservé au bureau de "
                   "l'organisation: un simple membre reçoit 403.")
ECRITURE_WRITE = "Écriture réservée à ADMIN, et à l'ADMIN_ORGANISATION ou au TRESORIER de l'organisation (sinon 403)."


@router.get("/comptes", response_model=list[CompteComptableResponse], summary="Plan comptable",
            description="Comptes visibles, triés par organisation puis numéro. " + VISIBILITE)
async def list_comptes(session: SessionDep, auth: AuthContext = authorize(RS_READ),
                       organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                       classe: int | None = Query(None, ge=1, le=9)) -> list[CompteComptableResponse]:
    return await ComptabiliteService(session, auth).lister_comptes(organisation_id, classe)


@router.post("/comptes", response_model=CompteComptableResponse, responses=problems(404, 409),
             summary="Créer un compte comptable",
             description="`classe` (1 à 9) et `type` sont déduits du premier chiffre du numéro (SYSCOHADA). Numéro "
                         "unique par organisation (409). Les comptes des écritures automatiques (571, 521, 5521-5523, "
                         "5215-5217, 4191, 7061-7066, 7581, 7011-7014, 7041, 7060, 6581-6588) ne peuvent pas être "
                         "créés inactifs (400): l'argent reçu n'est jamais refusé. " + ECRITURE_WRITE)
async def create_compte(data: CreateCompteComptableRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_WRITE)) -> CompteComptableResponse:
    return await ComptabiliteService(session, auth).creer_compte(data)


@router.get("/comptes/{id}", response_model=CompteComptableResponse, summary="Consulter un compte",
            description=VISIBILITE)
async def get_compte(id: uuid.UUID, session: SessionDep,
                     auth: AuthContext = authorize(RS_READ)) -> CompteComptableResponse:
    return await ComptabiliteService(session, auth).obtenir_compte(id)


@router.put("/comptes/{id}", response_model=CompteComptableResponse, responses=problems(404),
             summary="Modifier un compte comptable",
             description="Modifie `libelle` et/ou `actif`; le numéro (donc la classe et le type) ne change jamais: "
                         "les écritures passées y renvoient. Désactiver est refusé (400) tant que le solde du compte "
                         "(débit - crédit, toutes années) n'est pas nul, et pour les comptes des écritures "
                         "automatiques (571, 521, 5521-5523, 5215-5217, 4191, 7061-7066, 7581, 7011-7014, 7041, "
                         "7060, 131, 139, 6581-6588). "
                         "Réactiver est toujours permis. Un compte inactif garde ses écritures et reste dans les "
                         "états; il refuse seulement les nouvelles écritures. " + ECRITURE_WRITE)
async def update_compte(id: uuid.UUID, data: UpdateCompteComptableRequest, session: SessionDep,
                        auth: AuthContext = authorize(RS_WRITE)) -> CompteComptableResponse:
    return await ComptabiliteService(session, auth).modifier_compte(id, data)


@router.get("/ecritures/journal/{journalId}", response_model=list[EcritureComptableResponse],
            summary="Écritures d'un journal", description=ECRITURES_LISTE)
async def ecritures_journal(journalId: uuid.UUID, response: Response, session: SessionDep,
                            auth: AuthContext = authorize(RS_READ), params: PageParams = Depends(paging(50)),
                            date_debut: date | None = Query(None, alias="dateDebut"),
                            date_fin: date | None = Query(None, alias="dateFin")) -> list[EcritureComptableResponse]:
    rows, total = await ComptabiliteService(session, auth).lister_ecritures_du_journal(journalId, params, date_debut,
                                                                                date_fin)
    set_total_header(response, total)
    return rows


@router.get("/ecritures/organisation/{organisationId}", response_model=list[EcritureComptableResponse],
            summary="Écritures d'une organisation", description=ECRITURES_LISTE)
async def ecritures_organisation(organisationId: uuid.UUID, response: Response, session: SessionDep,
                                 auth: AuthContext = authorize(RS_READ), params: PageParams = Depends(paging(50)),
                                 date_debut: date | None = Query(None, alias="dateDebut"),
                                 date_fin: date | None = Query(None, alias="dateFin"),
                                 ) -> list[EcritureComptableResponse]:
    rows, total = await ComptabiliteService(session, auth).lister_ecritures_de_organisation(
        organisationId, params, date_debut, date_fin)
    set_total_header(response, total)
    return rows


@router.get("/ecritures/{id}", response_model=EcritureComptableResponse, summary="Consulter une écriture",
            description="Réservé au bureau de l'organisation et à ADMIN; sinon 404.")
async def get_ecriture(id: uuid.UUID, session: SessionDep,
                       auth: AuthContext = authorize(RS_READ)) -> EcritureComptableResponse:
    return await ComptabiliteService(session, auth).obtenir_ecriture(id)


@router.get("/journaux", response_model=list[JournalComptableResponse], summary="Journaux comptables",
            description="Journaux visibles, triés par organisation puis code. " + VISIBILITE)
async def list_journaux(session: SessionDep, auth: AuthContext = authorize(RS_READ),
                        organisation_id: uuid.UUID | None = Query(None, alias="organisationId"),
                        ) -> list[JournalComptableResponse]:
    return await ComptabiliteService(session, auth).lister_journaux(organisation_id)


@router.post("/journaux", response_model=JournalComptableResponse, responses=problems(404, 409),
             summary="Créer un journal comptable",
             description="Code unique par organisation (409), ex. CAI (caisse), BQ (banque), MM (mobile money), "
                         "VT (ventes), OD (opérations diverses). " + ECRITURE_WRITE)
async def create_journal(data: CreateJournalComptableRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_WRITE)) -> JournalComptableResponse:
    return await ComptabiliteService(session, auth).creer_journal(data)


@router.get("/journaux/{id}", response_model=JournalComptableResponse, summary="Consulter un journal",
            description=VISIBILITE)
async def get_journal(id: uuid.UUID, session: SessionDep,
                      auth: AuthContext = authorize(RS_READ)) -> JournalComptableResponse:
    return await ComptabiliteService(session, auth).obtenir_journal(id)
