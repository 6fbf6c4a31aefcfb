"""The federation's roll-up (docs/federation.md). Extensions to the published interface."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from fastapi import Depends, Query, Request
from fastapi.responses import JSONResponse

from unionflow.comptabilite.etats.schemas import FormatEtat
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest, as_response
from unionflow.core.openapi import problems
from unionflow.core.pagination import Page, PageParams, paging
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_FINANCE_READ, RS_TRESORERIE
from unionflow.core.routing import area_router
from unionflow.core.tableaux import BINAIRES
from unionflow.federation import operations, pdf
from unionflow.federation.schemas import ConsolidationResponse, CreateQuotePartRequest, EtatsConsolidesResponse
from unionflow.federation.service import FederationService
from unionflow.paiements.versements.schemas import VersementResponse

router = area_router("/api/federations", "Organisations")

LECTEURS = (" Extension. Périmètre: la fédération et toutes les organisations sous elle (`parentId`, "
            "récursivement). Lu par ADMIN/SUPER_ADMIN et par qui agit dans la fédération, ou une organisation "
            "au-dessus, comme administrateur, président, trésorier ou commissaire aux comptes; le bureau d'une "
            "mutuelle membre reçoit 403 (la consolidation montre ses mutuelles sœurs); une organisation invisible "
            "404. Période par défaut: du 1er janvier de l'année de `dateFin` à `dateFin` (aujourd'hui); 400 "
            "`regle-metier` si `dateDebut` suit `dateFin`.")
DEBUT = Query(None, alias="dateDebut", description="Premier jour inclus (AAAA-MM-JJ)")
FIN = Query(None, alias="dateFin", description="Dernier jour inclus (AAAA-MM-JJ); défaut: aujourd'hui")


@router.get("/{id}/consolidation", response_model=ConsolidationResponse, responses=problems(403, 404),
            summary="Chiffres consolidés d'une fédération",
            description="Par organisation du périmètre et au total: adhésions actives, cotisations et droits "
                        "d'adhésion encaissés sur la période (crédits des comptes de produits datés de la "
                        "période, la définition du tableau de bord: un mois clôturé garde son chiffre), "
                        "cotisations en retard à "
                        "`dateFin` (ou aujourd'hui), soldes des comptes de trésorerie (classe 5) à `dateFin`."
                        + LECTEURS)
async def get_consolidation(id: uuid.UUID, session: ReplicaSession, auth: AuthContext = authorize(RS_FINANCE_READ),
                            date_debut: date | None = DEBUT, date_fin: date | None = FIN) -> ConsolidationResponse:
    return await FederationService(session, auth).consolidation(id, date_debut, date_fin)


@router.get("/{id}/etats-consolides", response_model=EtatsConsolidesResponse,
            responses={**BINAIRES, **problems(403, 404)},
            summary="Balance, compte de résultat et bilan consolidés d'une fédération",
            description="Σ des organisations du périmètre − éliminations = consolidé, pour chaque compte et chaque "
                        "colonne. Éliminations: les lignes hors trésorerie des écritures des quotes-parts versées "
                        "ET reçues dans le périmètre (6584 chez le payeur, 7584 chez la fédération) et de leurs "
                        "annulations; leur effet sur le résultat est nul. Le compte de résultat exclut les "
                        "écritures de clôture. `bilan`: à `dateFin`, les comptes de chaque organisation classés "
                        "comme dans son propre bilan puis sommés (aucune créance ni dette entre organisations: rien "
                        "à éliminer). `format`: `json` (défaut), `pdf` (paysage, à signer) ou `xlsx`."
                        + LECTEURS)
async def get_etats_consolides(id: uuid.UUID, session: ReplicaSession, auth: AuthContext = authorize(RS_FINANCE_READ),
                               date_debut: date | None = DEBUT, date_fin: date | None = FIN,
                               fmt: FormatEtat = Query(FormatEtat.JSON, alias="format")) -> Any:
    etat = await FederationService(session, auth).etats(id, date_debut, date_fin)
    if fmt is FormatEtat.JSON:
        return etat
    return tableaux.fichier(*pdf.rendre(etat, fmt.value, auth.actor_name))


@router.get("/{id}/quotes-parts", response_model=Page[VersementResponse], responses=problems(403, 404),
            summary="Quotes-parts reçues par une fédération",
            description="Les versements QUOTE_PART dont elle est la destinataire, tous statuts (EN_COURS: annoncées; "
                        "REUSSI: reçues, avec leur reçu `numeroRecuDestinataire`; ANNULE), du plus récent au plus "
                        "ancien." + LECTEURS.split(" Période")[0])
async def list_quotes_parts(id: uuid.UUID, session: SessionDep, auth: AuthContext = authorize(RS_FINANCE_READ),
                            params: PageParams = Depends(paging(20))) -> Page[VersementResponse]:
    return await FederationService(session, auth).quotes_parts_recues(id, params)


@router.post("/quotes-parts", status_code=201, response_model=VersementResponse, responses=problems(404, 422),
             summary="Préparer la quote-part versée à la fédération",
             description="Extension. Un versement (objet QUOTE_PART) de l'organisation membre à son "
                         "organisation parente, préparé par sa trésorerie (`versement.initier`), puis confirmé par "
                         "une autre personne (`POST /api/versements/{id}/confirmer`, approbation au-delà du seuil "
                         "`finance.approbation.seuil_versement`) comme tout versement. À la confirmation, une seule "
                         "opération comptabilisée des deux côtés: chez le payeur débit 6584 « Quotes-parts versées "
                         "à la fédération » / crédit sa trésorerie (521 manuel, compte Wave en Wave); chez la "
                         "fédération un reçu de sa propre série QPR-<code>-<année>-NNNNNN (`numeroRecuDestinataire`) "
                         "et débit de sa trésorerie / crédit 7584 "
                         "« Quotes-parts reçues des organisations membres ». `tresorerieId` (extension, comme pour "
                         "tout versement): la trésorerie d'où l'argent sort chez le payeur (défaut: la banque pour "
                         "un versement manuel, le compte Wave pour Wave). Les deux écritures portent le numéro "
                         "du versement en référence de pièce. Annulation après exécution: "
                         "`POST /api/versements/{id}/annuler` (quatre yeux), qui contrepasse les deux côtés. 400 "
                         "`regle-metier`: organisation sans parente, versement Wave sans numéro de la fédération.")
async def create_quote_part(data: CreateQuotePartRequest, session: SessionDep, request: Request,
                            auth: AuthContext = authorize(RS_TRESORERIE),
                            idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return as_response(await operations.verser_quote_part(session, auth, request.app.state.settings, idem, data))
