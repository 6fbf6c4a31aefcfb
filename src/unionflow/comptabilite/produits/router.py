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
           "événements, 7066), DON (dons et libéralités, 7581). Une organisation créée depuis l'adoption du SYCEBNL "
           "par UnionFlow part de la numérotation de son plan des comptes, choisie pour elle à la création: 7011, "
           "7012, 7013, 7014 (sous 701 « Cotisations des adhérents »), 7060 (sous 706 « Revenus des "
           "manifestations »), 7041 (sous 704 « Revenus liés à la générosité »).")


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


@router.post("/comptes-produits/numerotation-sycebnl", response_model=list[CompteProduitResponse],
             responses=problems(404), summary="Adopter la numérotation SYCEBNL des comptes de produits (extension)",
             description="Extension. Ouvre dans le plan de l'organisation les comptes de produits numérotés comme le "
                         "plan des comptes SYCEBNL (7011 cotisations périodiques, 7012 droits d'adhésion, 7013 "
                         "cotisations exceptionnelles, 7014 cotisations de solidarité sous 701 « Cotisations des "
                         "adhérents »; 7041 dons sous 704 « Revenus liés à la générosité »; 7060 sous 706 « Revenus "
                         "des manifestations ») et les choisit pour chaque nature. Les encaissements suivants les "
                         "créditent; les écritures déjà passées ne changent pas (à faire de préférence au début d'un "
                         "exercice). Une organisation créée par l'API ou la console part déjà de cette numérotation. "
                         "Réservé à l'administrateur et au trésorier de l'organisation (sinon 403); audité "
                         "(ADOPTER). Sans corps; rejouer ne change rien.")
async def adopter_numerotation_sycebnl(session: SessionDep, auth: AuthContext = authorize(RS_TRESORERIE),
                                       organisation_id: uuid.UUID = Query(alias="organisationId"),
                                       ) -> list[CompteProduitResponse]:
    return await CompteProduitService(session, auth).adopter_sycebnl(organisation_id)
