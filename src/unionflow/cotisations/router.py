from __future__ import annotations

import uuid

from fastapi import Body, Depends, Query, Request, Response
from fastapi.responses import JSONResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import ReadConnection, ReadSession, SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging, set_total_header
from unionflow.core.roles import (
    RS_ADMIN,
    RS_COTISATION_GENERER,
    RS_COTISATION_PAYER,
    RS_ME,
    RS_READ,
    RS_TRESORERIE,
    RS_WRITE,
)
from unionflow.core.routing import area_router
from unionflow.cotisations import operations
from unionflow.cotisations.lectures import CotisationLecture
from unionflow.cotisations.organisation_service import CotisationOrganisationService
from unionflow.cotisations.periodes import REGLE
from unionflow.cotisations.repository import CotisationFilters
from unionflow.cotisations.schemas import (
    AnnulationResponse,
    AnnulerCotisationsRequest,
    CotisationPayeeResponse,
    CotisationPublicResponse,
    CotisationResponse,
    CotisationSummaryResponse,
    CreateCotisationRequest,
    GenerationResponse,
    GenererCotisationsRequest,
    PaiementCotisationRequest,
    RappelsGroupesResponse,
    StatistiquesDetailResponse,
    StatistiquesPeriodeResponse,
    StatistiquesResponse,
    SyntheseResponse,
    TypeCotisation,
    UpdateCotisationRequest,
)
from unionflow.cotisations.service import CotisationService
from unionflow.models.cotisation import StatutCotisation
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import accepted

router = area_router("/api/cotisations", "Cotisations")

_VIS = (" Visibilité: ADMIN voit tout; ADMIN_ORGANISATION/TRESORIER (et autres responsables) les cotisations de "
        "leurs organisations; MEMBRE/USER uniquement les leurs. `statut` vaut EN_RETARD dès l'échéance dépassée "
        "(cotisation non payée ni annulée), y compris dans les filtres et statistiques.")
_PAGE = "Réponse: une page (`content`, `totalElements`, ...) de CotisationSummaryResponse."
_STATS = (" Calculées sur les cotisations visibles par l'appelant, en une requête d'agrégation. montantDu exclut les "
          "cotisations annulées; tauxRecouvrement = montantCollecte / montantDu × 100.")


@router.get("", response_model=Page[CotisationSummaryResponse], summary="Lister les cotisations",
            description=_PAGE + " Les plus récentes d'abord." + _VIS)
async def list_cotisations(auth: AuthContext = authorize(RS_READ), *, connection: ReadConnection,
                           params: PageParams = Depends(paging(20))) -> Page[CotisationSummaryResponse]:
    return await CotisationLecture(connection, auth).search(CotisationFilters(), params)


@router.post("", status_code=201, response_model=CotisationResponse, responses=problems(404),
             summary="Créer une cotisation",
             description="Responsables de l'organisation pour tout membre actif de celle-ci; un membre peut "
                         "enregistrer une cotisation pour lui-même dans une de ses organisations (contribution "
                         "volontaire). 404 si le membre ou l'organisation n'existe pas; 400 si le membre n'est pas "
                         "membre actif de l'organisation. Période: " + REGLE)
async def create_cotisation(data: CreateCotisationRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_WRITE)) -> CotisationResponse:
    return await CotisationService(session, auth).creer(data)


@router.post("/generer", response_model=GenerationResponse, responses={**problems(404), 202: {
                 "model": TacheResponse, "description": "Confiée à une tâche de fond (voir `Location`)"}},
             summary="Générer les cotisations d'une période pour tous les membres actifs",
             description="Route propre à UnionFlow (absente de la spécification). Crée une cotisation par membre "
                         "actif (adhésion ACTIF et membre ACTIF) de l'organisation pour le type et la période "
                         "donnés. Idempotent: une seconde exécution ne crée rien (`creees`=0, `ignorees`=n). "
                         "Réservé aux ADMIN, ADMIN_ORGANISATION et TRESORIER de cette organisation (403 sinon). "
                         "Au-delà de `UNIONFLOW_TACHE_SEUIL_COTISATIONS` membres actifs (2000), la génération "
                         "devient une tâche de fond: 202, en-tête `Location: /api/jobs/{id}` et la tâche en corps "
                         "(progression, puis `resultat` = la réponse 200 ci-dessus). Extension: les "
                         "cotisations suivent l'adhésion — un membre n'est appelé que pour une période que son "
                         "adhésion couvre (commencée au plus tard le dernier jour de la période, pas terminée avant "
                         "son premier jour; `horsAdhesion` compte les autres); s'il a adhéré après l'échéance, "
                         "l'échéance de sa cotisation est le jour de son adhésion. `avantAdhesion`=true (avec "
                         "`motif`, journalisé) appelle aussi les adhésions commencées après la période. Période: "
                         + REGLE)
async def generate_cotisations(request: Request, data: GenererCotisationsRequest, session: SessionDep,
                               auth: AuthContext = authorize(RS_COTISATION_GENERER)
                               ) -> GenerationResponse | JSONResponse:
    seuil = request.app.state.settings.tache_seuil_cotisations
    result = await CotisationOrganisationService(session, auth).generer(data, seuil)
    if isinstance(result, TacheResponse):
        return accepted(result)
    return result


@router.post("/annulation", response_model=AnnulationResponse, responses=problems(404, 409),
             summary="Annuler des cotisations (une, une sélection ou une génération)",
             description="Route propre à UnionFlow (docs/decisions.md). Corps: `motif` (obligatoire) et "
                         "soit `cotisationIds` (1 à 1000), soit `lot` (`organisationId`, `typeCotisation`, `annee`, "
                         "`mois`: toutes les cotisations créées par POST /api/cotisations/generer pour cette "
                         "période). Permission cotisation.annuler (trésorier, administrateur de l'organisation; "
                         "403 sinon). Une cotisation annulée ne doit plus rien (`montantRestant` 0) et sort des "
                         "retards, taux de recouvrement et statistiques. Tout ou rien pour l'argent reçu: 409 avec la "
                         "raison si une cotisation visée a reçu de l'argent (le paiement s'annule ou se rembourse "
                         "d'abord). Extension: une cotisation réservée par un paiement en attente "
                         "(déclaration, session Wave ouverte) n'est pas annulée mais listée dans `refusees` avec la "
                         "raison, les autres le sont; 404 si une cotisation est invisible ou si le "
                         "lot est vide. Déjà annulées: comptées dans `dejaAnnulees`, rien ne change. Journal: "
                         "ANNULER_COTISATION, une entrée par cotisation d'une sélection, une pour un lot. "
                         "`Idempotency-Key` accepté. Ni l'un ni l'autre, ou les deux: 400 `regle-metier`.")
async def cancel_cotisations(data: AnnulerCotisationsRequest, session: SessionDep,
                             auth: AuthContext = authorize(RS_TRESORERIE),
                             idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.annuler(session, auth, idem, data))


@router.get("/en-retard", response_model=Page[CotisationSummaryResponse], summary="Cotisations en retard",
            description=_PAGE + " Échéance la plus ancienne d'abord." + _VIS)
async def overdue_cotisations(auth: AuthContext = authorize(RS_READ), *, session: ReadSession,
                              params: PageParams = Depends(paging(20))) -> Page[CotisationSummaryResponse]:
    return await CotisationService(session, auth).lister_en_retard(params)


@router.get("/membre/{membreId}", response_model=Page[CotisationSummaryResponse], responses=problems(404),
            summary="Cotisations d'un membre",
            description=_PAGE + " 404 si le membre n'existe pas ou n'est pas visible (un membre ne voit que lui).")
async def cotisations_of_membre(membreId: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_READ),
                                params: PageParams = Depends(paging(20))) -> Page[CotisationSummaryResponse]:
    # A write session: the read is logged in the member's access log (core/acces_dossier.py).
    return await CotisationService(session, auth).lister_du_membre(membreId, params,
                                                                   ecran="GET /api/cotisations/membre/{membreId}")


@router.get("/mes-cotisations", response_model=Page[CotisationSummaryResponse],
            summary="Mes cotisations", description=_PAGE + " Uniquement les cotisations du membre connecté.")
async def my_cotisations(auth: AuthContext = authorize(RS_ME), *, connection: ReadConnection,
                         params: PageParams = Depends(paging(50))) -> Page[CotisationSummaryResponse]:
    return await CotisationLecture(connection, auth).mine(params)


@router.get("/mes-cotisations/en-attente", response_model=list[CotisationSummaryResponse],
            summary="Mes cotisations à payer",
            description="Tableau des cotisations non réglées du membre connecté (en attente, partiellement payées, "
                        "en retard), échéance la plus proche d'abord; total dans `X-Total-Count`.")
async def my_unpaid_cotisations(response: Response, auth: AuthContext = authorize(RS_ME),
                                *, session: ReadSession) -> list[CotisationSummaryResponse]:
    rows = await CotisationService(session, auth).lister_mes_impayees()
    set_total_header(response, len(rows))
    return rows


@router.get("/mes-cotisations/synthese", response_model=SyntheseResponse, summary="Ma synthèse de cotisations")
async def my_synthesis(auth: AuthContext = authorize(RS_ME), *, session: ReadSession) -> SyntheseResponse:
    return await CotisationOrganisationService(session, auth).synthese()


@router.get("/public", response_model=Page[CotisationPublicResponse], summary="Liste simplifiée des cotisations",
            description="Page de cotisations visibles réduites à la référence, au type, à la période, à "
                        "l'échéance et au statut (ni montants ni membre)." + _VIS)
async def public_cotisations(auth: AuthContext = authorize(RS_READ), *, session: ReadSession,
                             params: PageParams = Depends(paging(20))) -> Page[CotisationPublicResponse]:
    return await CotisationService(session, auth).lister_publiques(params)


@router.post("/rappels/groupes", response_model=RappelsGroupesResponse, responses=problems(404),
             summary="Rappels groupés aux membres",
             description="Corps: tableau d'identifiants de membres (1 à 500). Un rappel par membre listant ses "
                         "cotisations impayées visibles par l'appelant, enregistré comme notification EN_ATTENTE "
                         "de livraison (canal EMAIL, sinon SMS, sinon IN_APP; IN_APP seulement pour un membre "
                         "opposé au traitement RAPPELS_COTISATION, Loi n° 2008-12). Une cotisation n'est "
                         "rappelée qu'une fois par jour: un second appel le même jour ne renvoie rien deux fois. "
                         "404 si un membre est inconnu ou hors périmètre (un MEMBRE ne peut se rappeler qu'à "
                         "lui-même). "
                         "Extension: le SMS tient en un message (au plus 160 caractères GSM-7): "
                         "nombre de cotisations, total au format « 2 500 FCFA » et lien court vers la page du "
                         "membre (/console/moi); le détail (référence, échéance jj/mm/aaaa, reste, statut en "
                         "clair) va par e-mail et dans l'application.")
async def grouped_reminders(request: Request, session: SessionDep, auth: AuthContext = authorize(RS_WRITE),
                            membre_ids: list[uuid.UUID] = Body(min_length=1, max_length=500),
                            ) -> RappelsGroupesResponse:
    base_url = request.app.state.settings.public_base_url
    return await CotisationOrganisationService(session, auth).rappels(membre_ids, base_url)


@router.get("/recherche", response_model=Page[CotisationSummaryResponse], summary="Rechercher des cotisations",
            description=_PAGE + " Filtres combinables; `statut` ou `typeCotisation` inconnu: 400." + _VIS)
async def search_cotisations(
    auth: AuthContext = authorize(RS_READ), *, connection: ReadConnection,
    params: PageParams = Depends(paging(20)),
    annee: int | None = Query(None, ge=2000, le=2100),
    mois: int | None = Query(None, ge=1, le=12),
    membre_id: uuid.UUID | None = Query(None, alias="membreId"),
    statut: StatutCotisation | None = None,
    type_cotisation: TypeCotisation | None = Query(None, alias="typeCotisation"),
) -> Page[CotisationSummaryResponse]:
    filters = CotisationFilters(annee=annee, mois=mois, membre_id=membre_id, statut=statut,
                                type_cotisation=type_cotisation)
    return await CotisationLecture(connection, auth).search(filters, params)


@router.get("/reference/{numeroReference}", response_model=CotisationResponse, responses=problems(404),
            summary="Cotisation par numéro de référence")
async def cotisation_by_reference(numeroReference: str, auth: AuthContext = authorize(RS_READ),
                                  *, session: ReadSession) -> CotisationResponse:
    return await CotisationService(session, auth).obtenir_par_reference(numeroReference)


@router.get("/statistiques", response_model=StatistiquesDetailResponse, summary="Statistiques des cotisations",
            description="Comptes par statut, montants dus/collectés/restants/en retard, taux de recouvrement, et "
                        "répartition par type." + _STATS)
async def statistics(auth: AuthContext = authorize(RS_READ),
                     *, connection: ReadConnection) -> StatistiquesDetailResponse:
    return await CotisationLecture(connection, auth).statistiques()


@router.get("/statistiques/periode", response_model=StatistiquesPeriodeResponse,
            summary="Statistiques d'une période", description="`annee` obligatoire, `mois` facultatif." + _STATS)
async def statistics_of_period(auth: AuthContext = authorize(RS_READ), *, session: ReadSession,
                               annee: int = Query(ge=2000, le=2100),
                               mois: int | None = Query(None, ge=1, le=12)) -> StatistiquesPeriodeResponse:
    return await CotisationOrganisationService(session, auth).periode(annee, mois)


@router.get("/stats", response_model=StatistiquesResponse, summary="Statistiques globales (compactes)",
            description="Mêmes indicateurs que /statistiques, sans la répartition par type." + _STATS)
async def stats(auth: AuthContext = authorize(RS_READ), *, connection: ReadConnection) -> StatistiquesResponse:
    return await CotisationLecture(connection, auth).stats()


@router.get("/statut/{statut}", response_model=Page[CotisationSummaryResponse],
            summary="Cotisations par statut", description=_PAGE + " Statut inconnu: 400." + _VIS)
async def cotisations_by_status(statut: StatutCotisation, auth: AuthContext = authorize(RS_READ),
                                *, connection: ReadConnection,
                                params: PageParams = Depends(paging(20))) -> Page[CotisationSummaryResponse]:
    return await CotisationLecture(connection, auth).search(CotisationFilters(statut=statut), params)


@router.get("/{id}", response_model=CotisationResponse, responses=problems(404), summary="Consulter une cotisation")
async def get_cotisation(id: uuid.UUID, auth: AuthContext = authorize(RS_READ),
                         *, connection: ReadConnection) -> CotisationResponse:
    return await CotisationLecture(connection, auth).get(id)


@router.put("/{id}", response_model=CotisationResponse, responses=problems(404),
            summary="Modifier une cotisation",
            description="Responsables de l'organisation seulement (403 sinon); cotisation ni payée ni annulée "
                        "(400 `invalid-state`). Le montant dû doit rester supérieur au montant déjà payé.")
async def update_cotisation(id: uuid.UUID, data: UpdateCotisationRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_WRITE)) -> CotisationResponse:
    return await CotisationService(session, auth).modifier(id, data)


@router.delete("/{id}", response_model=CotisationResponse, responses=problems(404, 409),
               summary="Annuler une cotisation",
               description="Passe la cotisation à ANNULEE (200, la cotisation est renvoyée). 409 si elle a reçu un "
                           "paiement (payée ou partiellement): l'argent encaissé se rembourse, il ne s'efface pas. "
                           "Répéter l'appel sur une cotisation annulée ne change rien.")
async def cancel_cotisation(id: uuid.UUID, session: SessionDep,
                            auth: AuthContext = authorize(RS_ADMIN)) -> CotisationResponse:
    return await CotisationService(session, auth).annuler(id)


@router.put("/{id}/payer", response_model=CotisationPayeeResponse, responses=problems(404, 409, 422, 502, 503),
            summary="Payer une cotisation",
            description="Objet JSON: `montant` (obligatoire, > 0, au plus le reste dû), `methodePaiement` (ESPECES "
                        "par défaut), `referencePaiement`, `datePaiement` (ISO 8601 avec fuseau, jamais future). "
                        "400 `invalid-state` si la cotisation est payée ou annulée. Trésorerie de l'organisation "
                        "(permission "
                        "paiement.enregistrer): paiement encaissé, paiements partiels possibles "
                        "(PARTIELLEMENT_PAYEE puis PAYEE), un reçu est émis (`recu`). Membre payant sa propre "
                        "cotisation: rien n'est encaissé — WAVE ouvre une session Wave "
                        "(`declaration.waveLaunchUrl`; Wave non configuré ou injoignable → 503, en erreur → 502), "
                        "les autres méthodes enregistrent une déclaration EN_ATTENTE que la trésorerie confirme "
                        "(POST /api/paiements/{id}/confirmer) ou rejette; ni reçu ni changement de statut avant "
                        "(`recu` nul, `declaration` renseignée). Un paiement en attente à la fois par cotisation "
                        "(pas de double paiement): 409, avec `paiementId`, si une déclaration y attend déjà la "
                        "trésorerie (WAVE "
                        "compris: pas de session Wave sur une cotisation déclarée) ou si une session Wave y est en "
                        "cours (pas de déclaration avant son issue; une session expirée chez Wave est close). La "
                        "cotisation d'un autre membre: 404 hors visibilité, 403 sans la permission. Avec "
                        "`Idempotency-Key`, un nouvel essai après une réponse perdue renvoie la réponse enregistrée "
                        "sans second paiement. Extension: `methodePaiement` WAVE_TRANSFERT, un transfert Wave direct "
                        "au numéro Wave de l'organisation (jamais de session Wave, Wave non configuré compris), "
                        "encaissé ou déclaré comme les autres méthodes et porté à la trésorerie Wave; 400 "
                        "`regle-metier` sans `referencePaiement` au format d'un identifiant de transaction Wave.")
async def pay_cotisation(id: uuid.UUID, data: PaiementCotisationRequest, session: SessionDep, request: Request,
                         auth: AuthContext = authorize(RS_COTISATION_PAYER),
                         idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.payer(session, auth, request.app.state.settings, idem, id, data))
