"""Register of donations and bequests, earmarked funds and the register of volunteer time (extensions):
``/api/comptabilite/registre-dons``, ``/api/comptabilite/fonds-dedies``, ``/api/comptabilite/benevolat``."""

from __future__ import annotations

import uuid
from datetime import date
from typing import Any

from fastapi import Query
from fastapi.responses import JSONResponse

from unionflow.comptabilite.etats.schemas import FormatEtat
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.idempotence import IDEMPOTENT, IdempotentRequest
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_BUREAU, RS_MEMBRE_READ, RS_TRESORERIE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.core.tableaux import BINAIRES
from unionflow.dons import tableau
from unionflow.dons.benevolat import BenevolatService
from unionflow.dons.fonds import FondsDedieService
from unionflow.dons.nature import don_en_nature
from unionflow.dons.schemas import (
    AnnulerContributionBenevoleRequest,
    ContributionBenevoleResponse,
    CreateContributionBenevoleRequest,
    CreateDonNatureRequest,
    CreateEmploiFondsRequest,
    EtatFondsDediesResponse,
    FondsDedieResponse,
    LigneRegistreDonResponse,
    RegistreBenevolatResponse,
    RegistreDonsResponse,
    VerificationRegistreResponse,
)
from unionflow.dons.service import RegistreDonService

router = area_router("/api/comptabilite", "Comptabilité")

LECTURE = ("Lecture: trésorier, président, commissaire aux comptes, administrateur de l'organisation, ADMIN "
           "(RS-TRESORERIE-READ); une organisation invisible 404.")
ORG = Query(..., alias="organisationId")


@router.get("/registre-dons", response_model=RegistreDonsResponse, responses={**BINAIRES, **problems(404)},
            summary="Registre des dons et legs d'une période (extension)",
            description="Extension. Chaque don reçu (argent: les recettes DON du guichet; nature: "
                        "`POST /api/comptabilite/registre-dons/nature`), daté, numéroté sans trou, avec l'identité "
                        "du donateur (membre, personne physique, personne morale avec RCCM/NINEA, ou anonyme sous le "
                        "seuil LCB-FT), la forme, l'affectation et la référence du reçu ou de la pièce; "
                        "`seuilLcbftAtteint` marque les dons au moins égaux au seuil d'opération unique. "
                        "`format`: `json` (défaut), `pdf` (à signer par le président, représentant légal) ou "
                        "`xlsx`. 400 `regle-metier`: `debut` après `fin`. " + LECTURE)
async def registre_dons(session: SessionDep, organisation_id: uuid.UUID = ORG,
                        debut: date = Query(..., description="Premier jour inclus (AAAA-MM-JJ)"),
                        fin: date = Query(..., description="Dernier jour inclus (AAAA-MM-JJ)"),
                        fmt: FormatEtat = Query(FormatEtat.JSON, alias="format"),
                        auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> Any:
    registre = await RegistreDonService(session, auth).registre(organisation_id, debut, fin)
    return tableaux.reponse_etat(registre, fmt, tableau.registre, auth.actor_name,
                                 f"registre-dons-{debut:%Y-%m-%d}-{fin:%Y-%m-%d}")


@router.get("/registre-dons/verifier", response_model=VerificationRegistreResponse, responses=problems(404),
            summary="Vérifier le scellement du registre des dons (extension)",
            description="Extension. Parcourt tout le registre de l'organisation dans l'ordre des numéros: "
                        "numéros 1, 2, 3… sans trou, chaque ligne liée à l'empreinte de la précédente, chaque "
                        "empreinte (SHA-256 de l'empreinte précédente et du contenu de la ligne) recalculée. "
                        "`intact` false nomme la première ligne qui ne tient pas (audité CRITICAL). " + LECTURE)
async def verifier_registre(session: SessionDep, organisation_id: uuid.UUID = ORG,
                            auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> VerificationRegistreResponse:
    return await RegistreDonService(session, auth).verifier(organisation_id)


@router.post("/registre-dons/nature", status_code=201, response_model=LigneRegistreDonResponse,
             responses=problems(404), summary="Inscrire un don en nature (extension)",
             description="Extension. Un bien ou un service donné, inscrit au registre à sa valeur (`montant`, "
                         "`baseEvaluation`) et comptabilisé par une écriture manuelle: débit `compteDebitId` (le "
                         "compte qui reçoit le bien), crédit `compteCreditId` (défaut: le compte des dons de "
                         "l'organisation, 7581 sauf choix). Comme toute écriture manuelle: passée aussitôt, ou "
                         "demande d'approbation à deux personnes si un compte sous contrôle est touché (la ligne "
                         "porte alors la référence de la demande). `affectation` alimente le fonds dédié de cet "
                         "objet. Trésorier ou administrateur de l'organisation (sinon 403). 400 `regle-metier`: "
                         "don anonyme au seuil LCB-FT ou au-delà, date future, journal d'une autre organisation, "
                         "période close, écriture refusée. En-tête Idempotency-Key recommandé.")
async def creer_don_nature(data: CreateDonNatureRequest, session: SessionDep,
                           auth: AuthContext = authorize(RS_TRESORERIE),
                           idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return await idem.run(auth, lambda: don_en_nature(session, auth, data), 201)


@router.get("/fonds-dedies", response_model=list[FondsDedieResponse], responses=problems(404),
            summary="Fonds dédiés de l'organisation (extension)",
            description="Extension. Chaque fonds (un objet auquel des dons ont été affectés), son solde non "
                        "employé et ses mouvements (reçus: les dons affectés; emplois: les dépenses affectées). "
                        + LECTURE)
async def lister_fonds(session: SessionDep, organisation_id: uuid.UUID = ORG,
                       auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> list[FondsDedieResponse]:
    return await FondsDedieService(session, auth).lister(organisation_id)


@router.get("/fonds-dedies/etat", response_model=EtatFondsDediesResponse, responses=problems(404),
            summary="État des fonds dédiés d'un exercice (extension)",
            description="Extension. Par fonds: ouverture (non employé reporté des exercices précédents), reçu et "
                        "employé dans l'année, clôture (reportée à l'exercice suivant); et le côté des livres: "
                        "`soldeCompte`, ce que le 165 porte au 31 décembre, et `ecart` (0 quand les fonds tiennent "
                        "aux livres). " + LECTURE)
async def etat_fonds(session: SessionDep, organisation_id: uuid.UUID = ORG,
                     annee: int = Query(..., ge=2000, le=2100),
                     auth: AuthContext = authorize(RS_TRESORERIE_READ)) -> EtatFondsDediesResponse:
    return await FondsDedieService(session, auth).etat(organisation_id, annee)


@router.post("/fonds-dedies/{id}/emplois", status_code=201, response_model=FondsDedieResponse,
             responses=problems(404), summary="Affecter un emploi à un fonds dédié (extension)",
             description="Extension. Une dépense ou un versement fait pour l'objet du fonds, avec sa pièce "
                         "(`reference`). Jamais au-delà du solde non employé (400 `regle-metier`), sous le verrou du "
                         "fonds: deux emplois simultanés ne dépensent pas deux fois le même franc. Comptabilisé "
                         "le jour de l'emploi au journal OD: débit 165 « Fonds affectés à un projet spécifique », "
                         "crédit 7925 « Reprises de fonds affectés » (SYCEBNL, Guide d'application, application 4), "
                         "par le chemin des écritures manuelles (quatre yeux si l'organisation a mis l'un de ces "
                         "comptes sous contrôle: la référence devient celle de la demande); refusé (400) si le 165 "
                         "porte moins que le montant (un don affecté comptabilisé ailleurs y est d'abord passé par "
                         "une écriture). Trésorier ou administrateur de l'organisation (sinon 403); audité. En-tête "
                         "Idempotency-Key recommandé.")
async def employer_fonds(id: uuid.UUID, data: CreateEmploiFondsRequest, session: SessionDep,
                         auth: AuthContext = authorize(RS_TRESORERIE),
                         idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return await idem.run(auth, lambda: FondsDedieService(session, auth).employer(id, data), 201)


BUREAU = ("Président, secrétaire, trésorier ou administrateur de l'organisation (`benevolat.enregistrer`, sinon 403); "
          "une organisation invisible 404; audité.")


@router.get("/benevolat", response_model=RegistreBenevolatResponse, responses=problems(404),
            summary="Registre du bénévolat d'une période (extension)",
            description="Extension. Le temps donné par les membres, valorisé au taux horaire choisi par "
                        "l'organisation: une contribution volontaire en nature, montrée hors bilan dans les notes "
                        "SYCEBNL (note 8), jamais comptabilisée. Toutes les lignes de la période, annulées "
                        "comprises; les totaux ne comptent que les lignes enregistrées. 400 `regle-metier`: `debut` "
                        "après `fin`. Lecture: le bureau, l'administrateur et le commissaire aux comptes "
                        "(RS-MEMBRE-READ); une organisation invisible 404.")
async def registre_benevolat(session: SessionDep, organisation_id: uuid.UUID = ORG,
                             debut: date = Query(..., description="Premier jour inclus (AAAA-MM-JJ)"),
                             fin: date = Query(..., description="Dernier jour inclus (AAAA-MM-JJ)"),
                             auth: AuthContext = authorize(RS_MEMBRE_READ)) -> RegistreBenevolatResponse:
    return await BenevolatService(session, auth).registre(organisation_id, debut, fin)


@router.post("/benevolat", status_code=201, response_model=ContributionBenevoleResponse, responses=problems(404),
             summary="Enregistrer du bénévolat (extension)",
             description="Extension. Un membre actif de l'organisation a donné `heures` à `activite` le "
                         "`dateContribution`; `valeur` = heures × `tauxHoraire`, arrondi au franc, calculée par le "
                         "serveur. 400 `regle-metier`: date future, plus de 744 heures, bénévole qui n'est pas "
                         "membre actif, exercice clos (arrêté). " + BUREAU + " En-tête Idempotency-Key "
                         "recommandé.")
async def enregistrer_benevolat(data: CreateContributionBenevoleRequest, session: SessionDep,
                                auth: AuthContext = authorize(RS_BUREAU),
                                idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return await idem.run(auth, lambda: BenevolatService(session, auth).enregistrer(data), 201)


@router.post("/benevolat/{id}/annuler", response_model=ContributionBenevoleResponse, responses=problems(404, 409),
             summary="Annuler une ligne du registre du bénévolat (extension)",
             description="Extension. Une ligne saisie par erreur est annulée avec son motif: gardée, barrée, avec "
                         "qui l'a annulée et quand; elle ne compte plus dans les totaux ni les notes. 409: déjà "
                         "annulée. 400 `regle-metier`: exercice clos (arrêté). " + BUREAU)
async def annuler_benevolat(id: uuid.UUID, data: AnnulerContributionBenevoleRequest, session: SessionDep,
                            auth: AuthContext = authorize(RS_BUREAU),
                            idem: IdempotentRequest = IDEMPOTENT) -> JSONResponse:
    return await idem.run(auth, lambda: BenevolatService(session, auth).annuler(id, data), 200)

