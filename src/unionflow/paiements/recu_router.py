"""Public verification of a receipt from its QR code (no account needed: whoever holds the receipt)."""

from __future__ import annotations

from fastapi import Query, Request

from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.routing import area_router
from unionflow.paiements.recu_service import RecuService
from unionflow.paiements.schemas import VerificationRecuResponse

router = area_router("/api/recus", "Paiements")


@router.get("/verifier/{numero}", response_model=VerificationRecuResponse, responses=problems(404),
            summary="Vérifier l'authenticité d'un reçu",
            description="Route publique ouverte par le QR code du reçu. Avec la clé imprimée, confirme le numéro, "
                        "le montant, la date, l'organisation et si le paiement tient toujours (ni annulé ni "
                        "remboursé); ne donne aucune information sur le membre. Numéro inconnu ou clé incorrecte: "
                        "404, sans distinction.")
async def verifier_recu(numero: str, request: Request, session: SessionDep,
                        cle: str = Query(..., min_length=8, max_length=64,
                                         description="Clé de vérification imprimée dans le QR code")
                        ) -> VerificationRecuResponse:
    return await RecuService(session, None, request.app.state.settings).verifier(numero, cle)
