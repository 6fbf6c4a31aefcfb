"""SYCEBNL statements and the account-to-heading mapping (extension): JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.comptabilite.etats.schemas import ArreteEtat
from unionflow.comptabilite.sycebnl.rubriques import Flux, Rubrique, Section
from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.configuration import Referentiel


class LigneCorrespondance(OutputModel):
    prefixe: str
    rubrique: Rubrique
    libelle_rubrique: str
    section: Section
    flux: Flux = Field(description="Ligne du tableau des flux où va un encaissement ou décaissement dont ce "
                                   "compte est la contrepartie")


class CorrespondanceResponse(OutputModel):
    organisation_id: uuid.UUID
    par_defaut: bool = Field(description="true: l'organisation n'a pas de table propre, celle livrée s'applique")
    lignes: list[LigneCorrespondance]


class LigneCorrespondanceRequest(InputModel):
    prefixe: str = Field(pattern=r"^[1-9][0-9]{0,11}$", description="Début de numéro de compte (1 à 12 chiffres)")
    rubrique: Rubrique


class CorrespondanceRequest(InputModel):
    lignes: list[LigneCorrespondanceRequest] = Field(max_length=500, description=(
        "La table complète qui remplace celle de l'organisation, chaque préfixe une fois (sinon 400 "
        "`regle-metier`); vide: retour à la table livrée"))


class EnteteSycebnl(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    exercice: int
    date_fin: date = Field(description="Dernier jour de l'exercice N pris en compte (31 décembre, ou aujourd'hui "
                                       "pour l'exercice en cours)")
    date_fin_precedent: date
    devise: str
    calcule_le: datetime
    arrete: ArreteEtat = Field(description="Date d'arrêté des états de l'exercice N (AUDCIF art. 23) ou « projet "
                                           "— non arrêté » tant que l'exercice n'est pas clôturé")
    referentiel: Referentiel = Field(description=(
        "Référentiel comptable en vigueur pour l'exercice N, choisi par l'organisation (GET "
        "/api/configuration/organisations/{id}/referentiel-comptable; SYCEBNL_NORMAL sans choix)"))
    alertes: list[str] = Field(description=(
        "Ce que le lecteur doit savoir avant de signer: quand le référentiel en vigueur n'est pas le système normal "
        "SYCEBNL (PCMS d'une mutuelle sociale agréée, système minimal de trésorerie), ces états sont fournis à "
        "titre d'information et l'alerte dit quels états sont ceux de l'organisation; imprimée sur le PDF"))


class PosteSycebnl(OutputModel):
    numero_compte: str | None
    libelle: str
    reference: str | None = Field(default=None, description=(
        "Ligne(s) du modèle d'état de l'Acte uniforme SYCEBNL que ce montant alimente (« REF » du modèle: bilan "
        "AA…DZ, compte de résultat RA…XE, tableau des flux ZA…ZG; « RD–RE »: plusieurs lignes), d'après des "
        "transcriptions publiques du modèle (seconde main, docs/conformite.md S4)"))
    montant_n: Montant
    montant_n1: Montant


class RubriqueSycebnl(OutputModel):
    code: str
    rubrique: str
    reference: str | None = Field(default=None, description=(
        "Ligne(s) du modèle d'état de l'Acte uniforme SYCEBNL que ce montant alimente (« REF » du modèle: bilan "
        "AA…DZ, compte de résultat RA…XE, tableau des flux ZA…ZG; « RD–RE »: plusieurs lignes), d'après des "
        "transcriptions publiques du modèle (seconde main, docs/conformite.md S4)"))
    postes: list[PosteSycebnl]
    total_n: Montant
    total_n1: Montant


class BilanSycebnlResponse(EnteteSycebnl):
    actif: list[RubriqueSycebnl]
    passif: list[RubriqueSycebnl]
    total_actif_n: Montant
    total_actif_n1: Montant
    total_passif_n: Montant
    total_passif_n1: Montant
    equilibre: bool = Field(description="Total actif = total passif, pour N et pour N−1")


class CompteResultatSycebnlResponse(EnteteSycebnl):
    charges: list[RubriqueSycebnl]
    produits: list[RubriqueSycebnl]
    total_charges_n: Montant
    total_charges_n1: Montant
    total_produits_n: Montant
    total_produits_n1: Montant
    resultat_n: Montant = Field(description="Produits − charges: excédent (positif) ou déficit (négatif)")
    resultat_n1: Montant
    contributions_nature: list[RubriqueSycebnl] = Field(description="Hors bilan: contributions volontaires en "
                                                                   "nature, hors du résultat")


class FluxTresorerieResponse(EnteteSycebnl):
    tresorerie_ouverture_n: Montant = Field(description="Soldes des comptes de classe 5 au 1er janvier de N")
    tresorerie_ouverture_n1: Montant
    sections: list[RubriqueSycebnl] = Field(description="Activités, investissements, financements: chaque ligne "
                                                        "positive encaisse, négative décaisse")
    variation_n: Montant
    variation_n1: Montant
    tresorerie_cloture_n: Montant = Field(description="Ouverture + variation")
    tresorerie_cloture_n1: Montant
    soldes_classe5_n: Montant = Field(description="Soldes des comptes de classe 5 à la fin de l'exercice, lus "
                                                  "dans les livres: égal à la trésorerie de clôture")
    soldes_classe5_n1: Montant
    concordance: bool = Field(description="Trésorerie de clôture = soldes de classe 5, pour N et N−1")


class NoteSycebnl(OutputModel):
    numero: int
    titre: str
    colonnes: list[str]
    montants: list[bool] = Field(description="Par colonne: true si elle porte des montants (chaînes à deux "
                                             "décimales)")
    lignes: list[list[str | None]]
    commentaire: str | None = Field(description="Ce que la note dit quand les livres ne portent pas la donnée")


class NotesSycebnlResponse(EnteteSycebnl):
    notes: list[NoteSycebnl]
