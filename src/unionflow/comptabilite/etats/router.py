"""Accounting statements (JSON, PDF, XLSX) of an organisation."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date
from typing import Any

from fastapi import Query

from unionflow.comptabilite.etats import tableaux as etats_tableaux
from unionflow.comptabilite.etats.schemas import (
    BalanceGeneraleResponse,
    BilanResponse,
    CompteResultatResponse,
    FormatEtat,
    GrandLivreResponse,
    JournalEtatResponse,
)
from unionflow.comptabilite.etats.service import EtatsService
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.openapi import problems
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.core.schemas import OutputModel
from unionflow.core.tableaux import BINAIRES

router = area_router("/api/comptabilite", "Comptabilité")

ETATS = ("Trésorier, président, administrateur de l'organisation, ADMIN (RS-TRESORERIE-READ); une organisation "
         "invisible 404. "
         "`format`: `json` (défaut), `pdf` (à imprimer et signer) ou `xlsx` (Excel: en-tête figé avec filtres, "
         "montants en FCFA). Période par défaut: du 1er janvier de l'année de `dateFin` à `dateFin` (aujourd'hui). "
         "`calculeLe` date le calcul. Règle métier (400 `regle-metier`): `dateDebut` ne peut pas suivre `dateFin` "
         "(aujourd'hui par défaut).")
ORG = Query(..., alias="organisationId")
DEBUT = Query(None, alias="dateDebut", description="Premier jour inclus (AAAA-MM-JJ)")
FIN = Query(None, alias="dateFin", description="Dernier jour inclus (AAAA-MM-JJ); défaut: aujourd'hui")
FORMAT = Query(FormatEtat.JSON, alias="format")


def _rendre(etat: OutputModel, fmt: FormatEtat, nom: str, tableau: Callable[[Any], tableaux.Tableau],
            auth: AuthContext) -> Any:
    """The statement in ``fmt``, a file named after the statement and its last day (today without one)."""
    return tableaux.reponse_etat(etat, fmt, tableau, auth.actor_name,
                                 f"{nom}-{getattr(etat, 'date_fin', date.today()):%Y-%m-%d}")


@router.get("/etats/balance", response_model=BalanceGeneraleResponse, responses={**BINAIRES, **problems(404)},
            summary="Balance générale", description="Par compte: soldes d'ouverture, mouvements de la période, "
            "soldes de clôture; totaux et contrôle Σ débit = Σ crédit. " + ETATS)
async def balance(session: ReplicaSession, organisation_id: uuid.UUID = ORG, date_debut: date | None = DEBUT,
                  date_fin: date | None = FIN, fmt: FormatEtat = FORMAT,
                  auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await EtatsService(session, auth).balance(organisation_id, date_debut, date_fin)
    return _rendre(etat, fmt, "balance-generale", etats_tableaux.balance, auth)


@router.get("/etats/grand-livre", response_model=GrandLivreResponse, responses={**BINAIRES, **problems(404)},
            summary="Grand livre", description="Par compte (ou le seul `compteId`): solde d'ouverture, chaque "
            "ligne d'écriture de la période avec le solde cumulé, totaux et solde de clôture. " + ETATS)
async def grand_livre(session: ReplicaSession, organisation_id: uuid.UUID = ORG, date_debut: date | None = DEBUT,
                      date_fin: date | None = FIN, fmt: FormatEtat = FORMAT,
                      compte_id: uuid.UUID | None = Query(None, alias="compteId"),
                      auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await EtatsService(session, auth).grand_livre(organisation_id, date_debut, date_fin, compte_id)
    return _rendre(etat, fmt, "grand-livre", etats_tableaux.grand_livre, auth)


@router.get("/etats/journal", response_model=JournalEtatResponse, responses={**BINAIRES, **problems(404)},
            summary="Journal des écritures", description="Écritures de la période (d'un seul journal avec "
            "`journalId`), dans l'ordre des dates et des pièces, avec leurs lignes et les totaux. " + ETATS)
async def journal(session: ReplicaSession, organisation_id: uuid.UUID = ORG, date_debut: date | None = DEBUT,
                  date_fin: date | None = FIN, fmt: FormatEtat = FORMAT,
                  journal_id: uuid.UUID | None = Query(None, alias="journalId"),
                  auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await EtatsService(session, auth).journal(organisation_id, date_debut, date_fin, journal_id)
    return _rendre(etat, fmt, "journal", etats_tableaux.journal, auth)


@router.get("/etats/bilan", response_model=BilanResponse, responses={**BINAIRES, **problems(404)},
            summary="Bilan", description="Situation à `dateFin`: actif (immobilisations, stocks, créances, "
            "trésorerie) et passif (fonds associatifs et résultats affectés, résultat de l'exercice en cours, "
            "dettes, trésorerie-passif); contrôle total actif = total passif. " + ETATS)
async def bilan(session: ReplicaSession, organisation_id: uuid.UUID = ORG, date_fin: date | None = FIN,
                fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await EtatsService(session, auth).bilan(organisation_id, date_fin)
    return _rendre(etat, fmt, "bilan", etats_tableaux.bilan, auth)


@router.get("/etats/compte-resultat", response_model=CompteResultatResponse,
            responses={**BINAIRES, **problems(404)}, summary="Compte de résultat",
            description="Charges et produits de la période (classes 6, 7 et 8), hors écritures de clôture; "
            "résultat = produits − charges (excédent ou déficit). " + ETATS)
async def compte_resultat(session: ReplicaSession, organisation_id: uuid.UUID = ORG, date_debut: date | None = DEBUT,
                          date_fin: date | None = FIN, fmt: FormatEtat = FORMAT,
                          auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await EtatsService(session, auth).compte_resultat(organisation_id, date_debut, date_fin)
    return _rendre(etat, fmt, "compte-de-resultat", etats_tableaux.compte_resultat, auth)
