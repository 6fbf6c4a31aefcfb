"""SYCEBNL système minimal de trésorerie: eligibility and cash-basis statements (JSON, PDF, XLSX)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import Query

from unionflow.comptabilite.etats.router import FORMAT, ORG, _rendre
from unionflow.comptabilite.etats.schemas import FormatEtat
from unionflow.comptabilite.smt import tableaux
from unionflow.comptabilite.smt.schemas import (
    EligibiliteSmtResponse,
    JournauxTresorerieResponse,
    RecettesDepensesResponse,
    SituationTresorerieResponse,
)
from unionflow.comptabilite.smt.service import SmtService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.openapi import problems
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.core.tableaux import BINAIRES

router = area_router("/api/comptabilite", "Comptabilité")

SMT = ("Extension (SYCEBNL, système minimal de trésorerie). Trésorier, président, administrateur de "
       "l'organisation, commissaire aux comptes, ADMIN (RS-TRESORERIE-READ); une organisation invisible 404. "
       "`exercice`: l'année (défaut: l'année en cours, jusqu'à aujourd'hui); règle métier (400 `regle-metier`): "
       "pas un exercice à venir. `format`: `json` (défaut), `pdf` (à signer) ou `xlsx`.")
EXERCICE = Query(None, ge=2000, le=2100, description="Exercice (année); défaut: l'année en cours")


@router.get("/etats/smt/eligibilite", response_model=EligibiliteSmtResponse, responses={**BINAIRES, **problems(404)},
            summary="Éligibilité au système minimal de trésorerie",
            description="Ressources de l'exercice (produits de classe 7, hors clôture) par catégorie — cotisations "
            "et droits d'adhésion, dons, subventions, autres — face aux seuils (configuration "
            "`comptabilite.smt.*`, NON VÉRIFIÉS sur le texte: `seuilsVerifies: false`); éligible oui/non; le "
            "référentiel en vigueur et une alerte si le SMT est choisi sans être ouvert. " + SMT)
async def eligibilite(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int | None = EXERCICE,
                      fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SmtService(session, auth).eligibilite(organisation_id, exercice)
    return _rendre(etat, fmt, "smt-eligibilite", tableaux.eligibilite, auth)


@router.get("/etats/smt/recettes-depenses", response_model=RecettesDepensesResponse,
            responses={**BINAIRES, **problems(404)}, summary="État des recettes et des dépenses",
            description="Encaissements et décaissements de l'exercice (mouvements de classe 5) par nature de la "
            "contrepartie; les virements entre trésoreries et les à-nouveaux n'y figurent pas; recettes − "
            "dépenses = trésorerie de fin − trésorerie de début. " + SMT)
async def recettes_depenses(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int | None = EXERCICE,
                            fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SmtService(session, auth).recettes_depenses(organisation_id, exercice)
    return _rendre(etat, fmt, "smt-recettes-depenses", tableaux.recettes_depenses, auth)


@router.get("/etats/smt/tresorerie", response_model=SituationTresorerieResponse,
            responses={**BINAIRES, **problems(404)}, summary="Situation de trésorerie",
            description="Par trésorerie (et par compte de classe 5 sans trésorerie déclarée): ouverture "
            "(à-nouveaux compris), entrées, sorties, clôture, et le contrôle clôture = solde du compte de classe 5 "
            "(`concorde`). " + SMT)
async def tresorerie(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int | None = EXERCICE,
                     fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SmtService(session, auth).tresorerie(organisation_id, exercice)
    return _rendre(etat, fmt, "smt-situation-tresorerie", tableaux.tresorerie, auth)


@router.get("/etats/smt/journal", response_model=JournauxTresorerieResponse,
            responses={**BINAIRES, **problems(404)}, summary="Journaux de trésorerie",
            description="Un journal par caisse, banque et compte de mobile money (ou la seule `tresorerieId`, 404 "
            "si elle n'est pas de l'organisation): mouvements dans l'ordre chronologique, contrepartie, solde "
            "cumulé; le solde de clôture est celui du compte de classe 5. " + SMT)
async def journal(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int | None = EXERCICE,
                  tresorerie_id: uuid.UUID | None = Query(None, alias="tresorerieId"), fmt: FormatEtat = FORMAT,
                  auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SmtService(session, auth).journaux(organisation_id, exercice, tresorerie_id)
    return _rendre(etat, fmt, "smt-journal-tresorerie", tableaux.journal, auth)
