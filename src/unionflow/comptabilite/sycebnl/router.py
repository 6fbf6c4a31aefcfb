"""SYCEBNL statements and the account-to-heading mapping (extension): ``/api/comptabilite/etats/sycebnl/*`` and
``/api/comptabilite/sycebnl/correspondance``."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import Query

from unionflow.comptabilite.etats.router import FORMAT, ORG
from unionflow.comptabilite.etats.schemas import FormatEtat
from unionflow.comptabilite.sycebnl import tableaux as sycebnl_tableaux
from unionflow.comptabilite.sycebnl.correspondance import CorrespondanceService
from unionflow.comptabilite.sycebnl.notes import NotesService
from unionflow.comptabilite.sycebnl.schemas import (
    BilanSycebnlResponse,
    CompteResultatSycebnlResponse,
    CorrespondanceRequest,
    CorrespondanceResponse,
    EnteteSycebnl,
    FluxTresorerieResponse,
    NotesSycebnlResponse,
)
from unionflow.comptabilite.sycebnl.service import SycebnlService
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.core.tableaux import BINAIRES

router = area_router("/api/comptabilite", "Comptabilité")

EXERCICE = Query(..., ge=1900, le=9999, description="Année de l'exercice N (du 1er janvier au 31 décembre)")
ETATS = ("Extension (présentation SYCEBNL). Colonnes N et N−1 (l'exercice précédent, calculé comme le serait son "
         "propre N). Chaque compte va à la rubrique de la table de correspondance de l'organisation "
         "(`GET /api/comptabilite/sycebnl/correspondance`). Trésorier, président, administrateur de "
         "l'organisation, commissaire aux comptes, ADMIN (RS-TRESORERIE-READ); une organisation invisible 404. "
         "`format`: `json` (défaut), `pdf` (à signer: trésorier, président, commissaire aux comptes) ou `xlsx`. "
         "Date d'arrêté (`arrete`, AUDCIF art. 23) dans les trois formats: le jour de la clôture de l'exercice "
         "(`POST /api/comptabilite/exercices/{annee}/cloture`), « projet — non arrêté » tant qu'il est ouvert, "
         "avertissement au-delà du 30 avril qui suit. "
         "Règle métier (400 `regle-metier`): un exercice pas encore commencé.")
CORRESPONDANCE = ("Extension. Table préfixe de compte → rubrique SYCEBNL (le plus long préfixe l'emporte; un compte "
                  "que la table de l'organisation ne couvre pas va, s'il est le compte de produits choisi pour une "
                  "nature de recette (`/api/comptabilite/comptes-produits`), sous la rubrique de cette nature "
                  "(cotisations, dons, participations), sinon suit la table livrée). La rubrique dit où le solde "
                  "est présenté (actif, passif, tiers ou trésorerie selon le sens du solde, charges, produits, hors "
                  "bilan) et à quelle ligne du tableau des flux va un mouvement de trésorerie dont le compte est la "
                  "contrepartie.")


def _rendre(etat: EnteteSycebnl, fmt: FormatEtat, nom: str, tableau: Any, auth: AuthContext) -> Any:
    """The statement in ``fmt``, a file named after the statement and its year."""
    return tableaux.reponse_etat(etat, fmt, tableau, auth.actor_name, f"sycebnl-{nom}-{etat.exercice}")


@router.get("/etats/sycebnl/bilan", response_model=BilanSycebnlResponse, responses={**BINAIRES, **problems(404)},
            summary="Bilan SYCEBNL (N et N−1)", description="Situation au 31 décembre de N (aujourd'hui pour "
            "l'exercice en cours) et de N−1: actif (immobilisations, stocks, créances, trésorerie-actif), passif "
            "(fonds associatifs, réserves, fonds dédiés, emprunts, résultat de l'exercice, dettes, trésorerie-"
            "passif); contrôle total actif = total passif. " + ETATS)
async def bilan(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int = EXERCICE,
                fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SycebnlService(session, auth).bilan(organisation_id, exercice)
    return _rendre(etat, fmt, "bilan", sycebnl_tableaux.bilan, auth)


@router.get("/etats/sycebnl/compte-resultat", response_model=CompteResultatSycebnlResponse,
            responses={**BINAIRES, **problems(404)}, summary="Compte de résultat SYCEBNL (N et N−1)",
            description="Charges et produits de chaque exercice par rubrique (cotisations, dons, subventions, "
            "aides aux bénéficiaires...), hors écritures de clôture; résultat = produits − charges; les "
            "contributions volontaires en nature sont présentées à part, hors résultat. " + ETATS)
async def compte_resultat(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int = EXERCICE,
                          fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SycebnlService(session, auth).compte_resultat(organisation_id, exercice)
    return _rendre(etat, fmt, "compte-de-resultat", sycebnl_tableaux.compte_resultat, auth)


@router.get("/etats/sycebnl/flux-tresorerie", response_model=FluxTresorerieResponse,
            responses={**BINAIRES, **problems(404)}, summary="Tableau des flux de trésorerie SYCEBNL (méthode "
            "directe, N et N−1)", description="Trésorerie d'ouverture (classe 5 au 1er janvier), encaissements et "
            "décaissements classés selon le compte de contrepartie de chaque écriture qui touche la classe 5 "
            "(membres, dons, subventions, fournisseurs, personnel, bénéficiaires, investissements, financements), "
            "trésorerie de clôture, égale aux soldes de classe 5 (`concordance`). " + ETATS)
async def flux_tresorerie(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int = EXERCICE,
                          fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await SycebnlService(session, auth).flux_tresorerie(organisation_id, exercice)
    return _rendre(etat, fmt, "flux-de-tresorerie", sycebnl_tableaux.flux_tresorerie, auth)


@router.get("/etats/sycebnl/notes", response_model=NotesSycebnlResponse, responses={**BINAIRES, **problems(404)},
            summary="Notes annexes SYCEBNL", description="Les notes que les livres permettent: immobilisations, "
            "créances et dettes, fonds dédiés, dons reçus (par compte et par moyen de paiement), exécution du "
            "budget de l'exercice, charges de personnel, contributions volontaires en nature; une note sans donnée "
            "le dit en une phrase (`commentaire`). " + ETATS)
async def notes(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int = EXERCICE,
                fmt: FormatEtat = FORMAT, auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await NotesService(session, auth).notes(organisation_id, exercice)
    if fmt is not FormatEtat.PDF:
        return _rendre(etat, fmt, "notes", sycebnl_tableaux.notes, auth)
    return tableaux.fichier(sycebnl_tableaux.notes_pdf(etat, auth.actor_name), tableaux.PDF_MEDIA_TYPE,
                            f"sycebnl-notes-{exercice}.pdf")


@router.get("/sycebnl/correspondance", response_model=CorrespondanceResponse, responses=problems(404),
            summary="Table de correspondance SYCEBNL de l'organisation (extension)",
            description=CORRESPONDANCE + " La table de l'organisation, sinon la table livrée (`parDefaut`). "
            "Lecture: RS-TRESORERIE-READ (le commissaire aux comptes compris).")
async def lire_correspondance(session: SessionDep, organisation_id: uuid.UUID = ORG,
                              auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> CorrespondanceResponse:
    return await CorrespondanceService(session, auth).lire(organisation_id)


@router.put("/sycebnl/correspondance", response_model=CorrespondanceResponse, responses=problems(404),
            summary="Remplacer la table de correspondance SYCEBNL (extension)",
            description=CORRESPONDANCE + " La table envoyée remplace toute celle de l'organisation; une liste vide "
            "rétablit la table livrée. Les états suivants l'appliquent à tous les exercices (rien n'est stocké). "
            "Réservé à l'administrateur et au trésorier de l'organisation (sinon 403); audité. 400 "
            "`regle-metier`: un préfixe répété, ou un préfixe d'une classe que la rubrique ne reçoit pas (ex. un "
            "compte de classe 6 en rubrique de produits).")
async def remplacer_correspondance(data: CorrespondanceRequest, session: SessionDep,
                                   organisation_id: uuid.UUID = ORG, auth: AuthContext = authorize(RS_TRESORERIE),
                                   ) -> CorrespondanceResponse:
    return await CorrespondanceService(session, auth).remplacer(organisation_id, data)
