"""Monthly closing: routes added to the spec (extension), docs/comptabilite-lcbft.md."""

from __future__ import annotations

import uuid

from fastapi import Path, Query
from fastapi.responses import Response

from unionflow.clotures.mensuelle.pdf import dossier
from unionflow.clotures.mensuelle.schemas import ClotureMensuelleResponse, CreateClotureMensuelleRequest
from unionflow.clotures.mensuelle.service import ClotureMensuelleService, reponse
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router

router = area_router("/api/comptabilite/clotures-mensuelles", "Comptabilité")

EXTENSION = "Extension, hors spécification. "
ID = Path(..., alias="id")


@router.get("", response_model=list[ClotureMensuelleResponse], responses=problems(404),
            summary="Mois clôturés d'une organisation",
            description=EXTENSION + "Plus récents d'abord; bureau de l'organisation et commissaire aux comptes.")
async def lister(session: SessionDep, organisation_id: uuid.UUID = Query(..., alias="organisationId"),
                 auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[ClotureMensuelleResponse]:
    return await ClotureMensuelleService(session, auth).lister(organisation_id)


@router.post("", response_model=ClotureMensuelleResponse, status_code=201, responses=problems(404, 409),
             summary="Clôturer un mois",
             description=EXTENSION + "Trésorier ou administrateur de l'organisation (`comptabilite.cloturer`, sinon "
             "403). Le mois doit être terminé (400) et pas déjà clôturé (409). Le service vérifie: espèces comptées "
             "= solde du 571 (sinon l'écart vers le compte `compteEcart`, avec `motifEcart`, devient une demande "
             "d'écriture à quatre yeux — extension, `demandeEcartId`, `statutEcart`: la clôture aboutit avec la "
             "demande en attente; une seconde personne l'approuve et l'écriture est passée au journal CAI le "
             "premier jour après le mois clôturé, jamais dans le mois verrouillé), aucun écart d'une clôture "
             "précédente encore en attente d'approbation (contrôle ECART_PRECEDENT), `soldeBanque` = solde du "
             "521, `soldeWave` = solde du compte Wave de l'organisation (celui de sa trésorerie Wave, sinon 5521, "
             "ou 5215 s'il est déjà ouvert), aucun paiement en "
             "attente depuis plus de `comptabilite.cloture.delai_declarations_jours` jours, aucune alerte LCB-FT "
             "ouverte, toutes les écritures du mois équilibrées. Un contrôle en échec: 400 `regle-metier` avec "
             "`controles` (code, libellé, ok, détail), rien n'est écrit. Sinon le mois est enregistré et verrouillé "
             "(date de verrouillage = dernier jour du mois); il ne se rouvre que par une demande de réouverture "
             "approuvée par une seconde personne.")
async def cloturer(data: CreateClotureMensuelleRequest, session: SessionDep,
                   auth: AuthContext = authorize(RS_TRESORERIE)) -> ClotureMensuelleResponse:
    return await ClotureMensuelleService(session, auth).cloturer(data)


@router.get("/{id}", response_model=ClotureMensuelleResponse, responses=problems(404),
            summary="Consulter une clôture mensuelle", description=EXTENSION)
async def consulter(session: SessionDep, cloture_id: uuid.UUID = ID,
                    auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> ClotureMensuelleResponse:
    return await reponse(session, await ClotureMensuelleService(session, auth).get(cloture_id))


@router.get("/{id}/dossier", response_class=Response, responses={
    **problems(404), 200: {"content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}},
    summary="Dossier de clôture du mois (PDF à signer)",
    description=EXTENSION + "Contrôles vérifiés, comptage de caisse, balance, journal, extrait du grand livre des "
    "comptes de trésorerie, annulations et remboursements du mois (qui, qui a approuvé, motif), cadres de signature "
    "du trésorier et du président.")
async def telecharger_dossier(session: SessionDep, cloture_id: uuid.UUID = ID,
                              auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Response:
    service = ClotureMensuelleService(session, auth)
    cloture = await service.get(cloture_id)
    content = await dossier(session, auth, cloture)
    name = f"cloture-{cloture.annee}-{cloture.mois:02d}.pdf"
    return Response(content, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})
