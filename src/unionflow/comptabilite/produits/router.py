"""Income account per kind of income (extension): ``/api/comptabilite/comptes-produits``."""

from __future__ import annotations

import uuid

from fastapi import Query

from unionflow.comptabilite.produits.schemas import CompteProduitResponse, UpdateComptesProduitsRequest
from unionflow.comptabilite.produits.service import CompteProduitService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router

router = area_router("/api/comptabilite", "Comptabilité")

NATURES = ("Natures: COTISATION (cotisations périodiques: mensuelle à annuelle, défaut 7061), ADHESION (droits "
           "d'adhésion, 7062), COTISATION_EXCEPTIONNELLE (7063), SOLIDARITE (7064), EVENEMENT (participations aux "
           "événements, 7066), DON (dons et libéralités, 7581).")


@router.get("/comptes-produits", response_model=list[CompteProduitResponse], responses=problems(404),
            summary="Comptes de produits par nature de recette (extension)",
            description="Extension. Le compte de classe 7 crédité pour chaque nature de recette de "
                        "l'organisation: son choix, sinon le compte par défaut. " + NATURES)
async def lire_comptes_produits(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                                organisation_id: uuid.UUID = Query(alias="organisationId"),
                                ) -> list[CompteProduitResponse]:
    return await CompteProduitService(session, auth).lire(organisation_id)


@router.put("/comptes-produits", response_model=list[CompteProduitResponse], responses=problems(404),
            summary="Choisir les comptes de produits par nature de recette (extension)",
            description="Extension. Pour chaque nature listée, un compte de produits (classe 7) actif du "
                        "plan de l'organisation, ou null pour revenir au compte par défaut; les natures non listées "
                        "ne changent pas. Les encaissements suivants créditent le compte choisi (les écritures déjà "
                        "passées ne changent pas). Réservé à l'administrateur et au trésorier de l'organisation "
                        "(sinon 403); audité. 400 `regle-metier`: une nature listée deux fois; compte absent du plan, "
                        "hors classe 7 ou inactif. " + NATURES)
async def definir_comptes_produits(data: UpdateComptesProduitsRequest, session: SessionDep,
                                   auth: AuthContext = authorize(RS_TRESORERIE),
                                   organisation_id: uuid.UUID = Query(alias="organisationId"),
                                   ) -> list[CompteProduitResponse]:
    return await CompteProduitService(session, auth).definir(organisation_id, data)
