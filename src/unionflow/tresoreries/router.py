"""Treasuries (extension): docs/finance.md, "Trésoreries"."""

from __future__ import annotations

import uuid

from fastapi import Query
from fastapi.responses import JSONResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_ECRITURE_DECIDE, RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.models.approbation import TypeDecision
from unionflow.tresoreries import operations
from unionflow.tresoreries.ouverture_service import ANouveauxService
from unionflow.tresoreries.schemas import (
    ApprouverANouveauxRequest,
    CreateANouveauxRequest,
    CreateTresorerieRequest,
    CreateVirementInterneRequest,
    DemandeANouveauxResponse,
    RejeterANouveauxRequest,
    TresorerieResponse,
    UpdateTresorerieRequest,
    VirementInterneResponse,
)
from unionflow.tresoreries.service import TresorerieService

router = area_router("/api/tresoreries", "Comptabilité")

EXTENSION = "Extension: hors de l'interface publiée. "
GERER = ("Permission `tresorerie.gerer`: ADMIN, et l'ADMIN_ORGANISATION ou le TRESORIER de l'organisation (sinon "
         "403); une organisation invisible répond 404.")
SOLDE = ("`solde` = solde du compte de classe 5 de la trésorerie dans les livres (débit - crédit, toutes années). "
         "Une caisse ne passe jamais sous zéro; une banque seulement dans la limite de son découvert autorisé "
         "(`decouvertAutorise`; null = non contrôlé, cas des trésoreries créées par défaut).")


@router.get("", response_model=list[TresorerieResponse], responses=problems(404),
            summary="Lister les trésoreries d'une organisation",
            description=EXTENSION + "Caisses, banques et comptes mobile money déclarés, avec leur solde. " + SOLDE)
async def list_tresoreries(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                           organisation_id: uuid.UUID = Query(alias="organisationId")) -> list[TresorerieResponse]:
    return await TresorerieService(session, auth).lister(organisation_id)


@router.post("", status_code=201, response_model=TresorerieResponse, responses=problems(404, 409),
             summary="Déclarer une trésorerie",
             description=EXTENSION + "Type CAISSE (compte 57…), BANQUE (52…, hors 5215-5217), WAVE (552… ou "
                         "5215…), ORANGE_MONEY (552… ou 5216…), FREE_MONEY (552… ou 5217…); le compte est créé dans "
                         "le plan comptable s'il manque; un compte par trésorerie (409). `parDefaut`: la trésorerie "
                         "utilisée quand un mouvement n'en nomme pas (une par type). Sans déclaration, une caisse 571, "
                         "une banque 521 et un compte Wave 5521 (5215 s'il est déjà ouvert) sont créés à la première "
                         "utilisation. " + GERER)
async def create_tresorerie(data: CreateTresorerieRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_TRESORERIE)) -> TresorerieResponse:
    return await TresorerieService(session, auth).creer(data)


@router.post("/virements-internes", status_code=201, response_model=VirementInterneResponse,
             responses=problems(404), summary="Virer des fonds entre deux trésoreries",
             description=EXTENSION + "Dépôt de la caisse à la banque, retrait Wave vers la caisse… Deux écritures "
                         "par le compte 585 « Virements de fonds »: sortie (débit 585, crédit source) au journal de la "
                         "source, entrée (débit destination, crédit 585) au journal de la destination. La source ne "
                         "passe jamais sous zéro (400 avec le solde). En-tête `Idempotency-Key`. " + GERER)
async def create_virement_interne(data: CreateVirementInterneRequest, session: SessionDep,
                                  auth: AuthContext = authorize(RS_TRESORERIE),
                                  idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.virer(session, auth, idem, data))


A_NOUVEAUX_QUATRE_YEUX = (
    "Quatre yeux: des soldes saisis font entrer de l'argent dans les livres; la saisie est une demande (202) "
    "qu'une seconde personne détenant `ecriture.approuver` (trésorier, président, administrateur de "
    "l'organisation), jamais le demandeur, approuve; rien n'est passé avant. Les soldes d'un exercice clôturé "
    "n'ont pas à être saisis: les comptes de bilan gardent leur solde d'une année sur l'autre.")


@router.post("/a-nouveaux", status_code=202, response_model=DemandeANouveauxResponse, responses=problems(404, 409),
             summary="Saisir les soldes d'ouverture (à-nouveaux)",
             description=EXTENSION + "Pour une organisation qui démarre en cours d'année: une écriture équilibrée au "
                         "journal AN datée `dateDebut`, chaque trésorerie et compte de bilan (classes 1 à 5) à son "
                         "solde (débiteur > 0, créditeur < 0), la différence en report à nouveau (121 créditeur ou "
                         "129 débiteur). Une fois par organisation et exercice (409 ensuite: corriger par "
                         "contrepassation; 409 aussi si une saisie attend déjà); si l'exercice a déjà d'autres "
                         "écritures, `motif` est obligatoire (400). Une caisse n'ouvre jamais sous zéro, une banque "
                         "pas au-delà de son découvert. " + A_NOUVEAUX_QUATRE_YEUX + " En-tête `Idempotency-Key`. "
                         + GERER)
async def create_a_nouveaux(data: CreateANouveauxRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_TRESORERIE),
                            idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.saisir_a_nouveaux(session, auth, idem, data))


@router.get("/a-nouveaux", response_model=list[DemandeANouveauxResponse], responses=problems(404),
            summary="Saisies d'à-nouveaux d'une organisation",
            description=EXTENSION + "Plus récentes d'abord; bureau de l'organisation et commissaire aux comptes.")
async def list_a_nouveaux(session: SessionDep, organisation_id: uuid.UUID = Query(..., alias="organisationId"),
                          auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[DemandeANouveauxResponse]:
    return await ANouveauxService(session, auth).lister(organisation_id)


@router.get("/a-nouveaux/{id}", response_model=DemandeANouveauxResponse, responses=problems(404),
            summary="Consulter une saisie d'à-nouveaux", description=EXTENSION + A_NOUVEAUX_QUATRE_YEUX)
async def get_a_nouveaux(id: uuid.UUID, session: SessionDep,
                         auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> DemandeANouveauxResponse:
    return await ANouveauxService(session, auth).obtenir(id)


@router.post("/a-nouveaux/{id}/approuver", response_model=DemandeANouveauxResponse, responses=problems(404, 409),
             summary="Approuver une saisie d'à-nouveaux (l'écriture AN est alors passée)",
             description=EXTENSION + "Permission ecriture.approuver, jamais le demandeur (403); demande EN_ATTENTE "
                         "(400 sinon); 409 si des à-nouveaux ont été passés entre-temps. " + A_NOUVEAUX_QUATRE_YEUX)
async def approve_a_nouveaux(id: uuid.UUID, data: ApprouverANouveauxRequest, session: SessionDep,
                             auth: AuthContext = authorize(RS_ECRITURE_DECIDE),
                             idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    service = ANouveauxService(session, auth)
    return await idem.run(auth, lambda: service.decider(id, TypeDecision.APPROUVEE, data.commentaire))


@router.post("/a-nouveaux/{id}/rejeter", response_model=DemandeANouveauxResponse, responses=problems(404),
             summary="Rejeter une saisie d'à-nouveaux", description=EXTENSION + "Commentaire obligatoire.")
async def reject_a_nouveaux(id: uuid.UUID, data: RejeterANouveauxRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_ECRITURE_DECIDE)) -> DemandeANouveauxResponse:
    return await ANouveauxService(session, auth).decider(id, TypeDecision.REJETEE, data.commentaire)


@router.post("/a-nouveaux/{id}/retirer", response_model=DemandeANouveauxResponse, responses=problems(404),
             summary="Retirer sa saisie d'à-nouveaux", description=EXTENSION + "Le demandeur seul (403 sinon).")
async def withdraw_a_nouveaux(id: uuid.UUID, session: SessionDep,
                              auth: AuthContext = authorize(RS_TRESORERIE)) -> DemandeANouveauxResponse:
    return await ANouveauxService(session, auth).retirer(id)


@router.get("/{id}", response_model=TresorerieResponse, responses=problems(404),
            summary="Consulter une trésorerie", description=EXTENSION + SOLDE)
async def get_tresorerie(id: uuid.UUID, session: SessionDep,
                         auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> TresorerieResponse:
    return await TresorerieService(session, auth).obtenir(id)


@router.put("/{id}", response_model=TresorerieResponse, responses=problems(404, 409),
            summary="Modifier une trésorerie",
            description=EXTENSION + "Nom, découvert autorisé (banque), `actif`, `parDefaut`. Le compte ne change "
                        "jamais (les écritures y renvoient). Désactiver exige un solde nul (400). " + GERER)
async def update_tresorerie(id: uuid.UUID, data: UpdateTresorerieRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_TRESORERIE)) -> TresorerieResponse:
    return await TresorerieService(session, auth).modifier(id, data)
