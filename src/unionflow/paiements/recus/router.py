"""Public verification of a receipt from its QR code (no account needed: whoever holds the receipt)."""

from __future__ import annotations

from fastapi import Query, Request, Response
from fastapi.responses import HTMLResponse

from unionflow.core.db import SessionDep
from unionflow.core.errors import NotFound
from unionflow.core.openapi import problems
from unionflow.core.routing import area_router
from unionflow.paiements.recus import page as recus_page
from unionflow.paiements.recus.service import RecuService
from unionflow.paiements.schemas import VerificationRecuResponse

router = area_router("/api/recus", "Paiements")


_HTML = {"content": {"text/html": {"schema": {"type": "string"}}}}


@router.get("/verifier/{numero}", response_model=VerificationRecuResponse,
            responses={**problems(404), 200: _HTML, 404: _HTML},
            summary="Vérifier l'authenticité d'un reçu",
            description="Route publique ouverte par le QR code du reçu. Avec la clé imprimée, confirme le numéro, "
                        "le montant, la date, l'organisation et si le paiement tient toujours (ni annulé ni "
                        "remboursé); ne donne aucune information sur le membre. Numéro inconnu ou clé incorrecte: "
                        "404, sans distinction. Négociation de contenu: un navigateur (`Accept` "
                        "nommant `text/html` avant `application/json`) reçoit une page HTML en français lisible "
                        "sur téléphone (organisation, numéro, montant, date, valide ou annulé/remboursé), 404 "
                        "compris; `Accept: application/json`, `*/*` ou sans en-tête: le JSON ci-dessous.")
async def verifier_recu(numero: str, request: Request, response: Response, session: SessionDep,
                        cle: str = Query(..., min_length=8, max_length=64,
                                         description="Clé de vérification imprimée dans le QR code")
                        ) -> VerificationRecuResponse | HTMLResponse:
    service = RecuService(session, None, request.app.state.settings)
    if not recus_page.veut_html(request.headers.get("accept")):
        response.headers["Vary"] = "Accept"  # the same URL answers a page to browsers: caches keep both apart
        return await service.verifier(numero, cle)
    headers = {"Content-Security-Policy": recus_page.CSP, "Cache-Control": "no-store", "Vary": "Accept",
               "Referrer-Policy": "no-referrer"}
    try:
        recu = await service.verifier(numero, cle)
    except NotFound:
        return HTMLResponse(recus_page.page_introuvable(), status_code=404, headers=headers)
    return HTMLResponse(recus_page.page_recu(recu), headers=headers)
