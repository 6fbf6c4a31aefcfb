"""The livre d'inventaire and the general-assembly pack: JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from pydantic import Field

from unionflow.comptabilite.etats.schemas import ArreteEtat
from unionflow.core.schemas import Montant, OutputModel


class DetailInventaire(OutputModel):
    libelle: str = Field(description="Trésorerie, membre ou fonds")
    nombre: int | None = Field(None, description="Nombre de cotisations (détail des impayés)")
    montant: Montant


class CompteInventaire(OutputModel):
    numero_compte: str | None
    libelle: str
    solde: Montant = Field(description="Montant présenté au bilan (positif du côté où il figure)")
    details: list[DetailInventaire] = []
    details_concordent: bool | None = Field(None, description="Le détail totalise le solde du compte (null: pas "
                                                              "de détail tenu pour ce compte)")


class RubriqueInventaire(OutputModel):
    code: str
    rubrique: str
    comptes: list[CompteInventaire]
    total: Montant


class SectionHorsBilan(OutputModel):
    titre: str
    commentaire: str
    details: list[DetailInventaire]
    total: Montant


class InventaireResponse(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    exercice: int
    date_inventaire: date = Field(description="31 décembre de l'exercice (aujourd'hui pour l'exercice en cours)")
    devise: str
    calcule_le: datetime
    actif: list[RubriqueInventaire]
    passif: list[RubriqueInventaire]
    total_actif: Montant = Field(description="Égal au total actif N du bilan SYCEBNL du même exercice")
    total_passif: Montant
    equilibre: bool
    hors_bilan: list[SectionHorsBilan] = Field(description="Ce que l'organisation suit hors de ses comptes à la "
                                                           "même date: cotisations échues impayées, fonds dédiés")
    arrete: ArreteEtat = Field(description="Date d'arrêté de l'exercice (AUDCIF art. 23), celle du bilan SYCEBNL")


class NatureChiffre(StrEnum):
    NOMBRE = "NOMBRE"
    MONTANT = "MONTANT"
    TAUX = "TAUX"  # in %, one decimal; "—" when nothing was called


class ChiffreActivite(OutputModel):
    code: str
    libelle: str
    nature: NatureChiffre
    valeur_n: str
    valeur_n1: str


class TotalDons(OutputModel):
    forme: str
    nombre_n: int
    montant_n: Montant
    nombre_n1: int
    montant_n1: Montant


class DossierAssembleeResponse(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    exercice: int
    date_assemblee: date
    devise: str
    pret_le: date = Field(description="Jour où le dossier a été produit")
    jours_avant_assemblee: int
    delai_minimum_jours: int = Field(description="45 jours (règle non vérifiée sur le texte SYCEBNL, "
                                                 "docs/conformite.md)")
    delai_respecte: bool = Field(description="dateAssemblee − prêtLe ≥ 45 jours")
    activite: list[ChiffreActivite]
    dons: list[TotalDons] = Field(description="Registre des dons et legs: nombre et montant par forme, N et N−1")
    total_actif_n: Montant
    total_actif_n1: Montant
    resultat_n: Montant
    resultat_n1: Montant
    etats: list[str] = Field(description="Ce que contient le PDF, dans l'ordre")
    arrete: ArreteEtat = Field(description="Date d'arrêté des états de l'exercice (AUDCIF art. 23) ou « projet — "
                                           "non arrêté » tant que l'exercice n'est pas clôturé")
