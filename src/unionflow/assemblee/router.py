"""The livre d'inventaire and the general-assembly pack (extension): ``/api/comptabilite/etats/inventaire`` and
``/api/comptabilite/assemblee``."""

from __future__ import annotations

import uuid
from datetime import date
from enum import StrEnum
from typing import Any

from fastapi import Query

from unionflow.assemblee import tableaux as documents
from unionflow.assemblee.inventaire import InventaireService
from unionflow.assemblee.schemas import DossierAssembleeResponse, InventaireResponse
from unionflow.assemblee.service import AssembleeService
from unionflow.comptabilite.etats.schemas import FormatEtat
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.openapi import problems
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.core.tableaux import BINAIRES

router = area_router("/api/comptabilite", "Comptabilité")

ORG = Query(..., alias="organisationId")
EXERCICE = Query(..., ge=1900, le=9999, description="Année de l'exercice (du 1er janvier au 31 décembre)")
LECTEURS = ("Trésorier, président, administrateur de l'organisation, commissaire aux comptes, ADMIN "
            "(RS-TRESORERIE-READ); un membre 403, une organisation invisible 404. Règle métier (400 "
            "`regle-metier`): un exercice pas encore commencé.")


class FormatDossier(StrEnum):
    JSON = "json"
    PDF = "pdf"


@router.get("/etats/inventaire", response_model=InventaireResponse, responses={**BINAIRES, **problems(404)},
            summary="Livre d'inventaire de l'exercice (extension)",
            description="Inventaire détaillé de l'actif et du passif au 31 décembre de l'exercice (aujourd'hui pour "
            "l'exercice en cours): chaque compte de bilan (classes 1 à 5) à son solde, classé comme au bilan "
            "SYCEBNL dont il reprend les totaux; la trésorerie de chaque compte de classe 5; l'avoir de chaque "
            "membre (4191); à part, hors bilan, les cotisations échues impayées par membre et le solde de chaque "
            "fonds dédié du registre des dons. `format`: `json` (défaut), `pdf` (à signer: trésorier, président, "
            "commissaire aux comptes) ou `xlsx`. " + LECTEURS)
async def inventaire(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int = EXERCICE,
                     fmt: FormatEtat = Query(FormatEtat.JSON, alias="format"),
                     auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    etat = await InventaireService(session, auth).inventaire(organisation_id, exercice)
    return tableaux.reponse_etat(etat, fmt, documents.inventaire, auth.actor_name, f"livre-inventaire-{exercice}")


@router.get("/assemblee", response_model=DossierAssembleeResponse,
            responses={200: {"content": {"application/pdf": {}}}, **problems(404)},
            summary="Dossier de l'assemblée générale (extension)",
            description="Le dossier que le bureau présente à l'assemblée qui approuve l'exercice: couverture "
            "(organisation, exercice, date de l'assemblée, date où le dossier est prêt), les quatre états SYCEBNL "
            "avec N et N−1 et leurs notes (dont l'exécution du budget), les chiffres d'activité de N et N−1 "
            "(membres actifs au 31 décembre, nouvelles adhésions, cotisations appelées et encaissées, taux de "
            "recouvrement, aides accordées et versées, événements et inscriptions), les totaux du registre des "
            "dons et les blocs de signature (trésorier, président, commissaire aux comptes). `pretLe` est le jour "
            "où il est produit; `delaiRespecte`: au moins 45 jours avant `dateAssemblee` (règle dont la source "
            "SYCEBNL n'est pas vérifiée). `format`: `json` (défaut: le résumé et les chiffres) ou `pdf`. 400 "
            "`regle-metier`: une assemblée datée au plus tard le 31 décembre de l'exercice. " + LECTEURS)
async def dossier_assemblee(session: ReplicaSession, organisation_id: uuid.UUID = ORG, exercice: int = EXERCICE,
                            date_assemblee: date = Query(..., alias="dateAssemblee"),
                            fmt: FormatDossier = Query(FormatDossier.JSON, alias="format"),
                            auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    dossier = await AssembleeService(session, auth).dossier(organisation_id, exercice, date_assemblee)
    if fmt is FormatDossier.JSON:
        return dossier.resume
    return tableaux.fichier(documents.dossier_pdf(dossier, auth.actor_name), tableaux.PDF_MEDIA_TYPE,
                            f"dossier-assemblee-generale-{exercice}.pdf")
