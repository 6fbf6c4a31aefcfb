"""Accounting statements (SYCEBNL presentation of the SYSCOHADA chart): JSON shapes."""

from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from pydantic import Field

from unionflow.comptabilite.schemas import EcritureComptableResponse
from unionflow.core.pdf_etats import Arrete
from unionflow.core.schemas import Montant, OutputModel


class FormatEtat(StrEnum):
    JSON = "json"
    PDF = "pdf"
    XLSX = "xlsx"


class StatutArrete(StrEnum):
    ARRETE = "ARRETE"
    PROJET = "PROJET"


class ArreteEtat(OutputModel):
    """The date d'arrêté of a year's statements (AUDCIF art. 23), as the PDF and the workbook print it."""

    statut: StatutArrete = Field(description="ARRETE: l'exercice est clôturé; PROJET: non arrêté (exercice ouvert)")
    date_arrete: date | None = Field(description="Jour de la clôture de l'exercice (`POST /api/comptabilite/"
                                                 "exercices/{annee}/cloture`); null tant qu'il est ouvert")
    date_limite: date = Field(description="Dernier jour des quatre mois qui suivent la clôture au 31 décembre "
                                          "(AUDCIF art. 23): le 30 avril de l'année suivante")
    hors_delai: bool = Field(description="Arrêté après la date limite")
    mention: str
    avertissement: str | None

    @classmethod
    def de(cls, arrete: Arrete) -> ArreteEtat:
        return cls(statut=StatutArrete.PROJET if arrete.le is None else StatutArrete.ARRETE,
                   date_arrete=arrete.le, date_limite=arrete.limite, hors_delai=arrete.hors_delai,
                   mention=arrete.mention, avertissement=arrete.avertissement)

    def en_arrete(self, exercice: int) -> Arrete:
        return Arrete(exercice, self.date_arrete)


class EnteteEtat(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    date_debut: date | None
    date_fin: date
    devise: str
    calcule_le: datetime
    arrete: ArreteEtat | None = Field(None, description="Un état d'un exercice entier (du 1er janvier, ou sans "
                                                        "début, au 31 décembre): sa date d'arrêté (AUDCIF art. 23) "
                                                        "ou « projet — non arrêté »; null pour une autre période")


class LigneBalance(OutputModel):
    compte_id: uuid.UUID
    numero_compte: str
    libelle: str
    classe: int
    debit_ouverture: Montant
    credit_ouverture: Montant
    debit_periode: Montant
    credit_periode: Montant
    solde_debiteur: Montant
    solde_crediteur: Montant


class TotauxBalance(OutputModel):
    debit_ouverture: Montant
    credit_ouverture: Montant
    debit_periode: Montant
    credit_periode: Montant
    solde_debiteur: Montant
    solde_crediteur: Montant


class BalanceGeneraleResponse(EnteteEtat):
    lignes: list[LigneBalance]
    totaux: TotauxBalance
    equilibree: bool = Field(description="Σ débits = Σ crédits pour l'ouverture, la période et les soldes")


class MouvementGrandLivre(OutputModel):
    date_ecriture: date
    numero_piece: str
    code_journal: str
    libelle: str
    debit: Montant
    credit: Montant
    solde: Montant = Field(description="Solde cumulé après la ligne (débiteur positif, créditeur négatif)")
    piece_reference: str | None = Field(None, description="Extension: référence de la pièce (numéro du reçu d'un "
                                                          "encaissement)")
    membre: str | None = Field(None, description="Extension: le membre qui a payé (écriture d'un encaissement)")


class CompteGrandLivre(OutputModel):
    compte_id: uuid.UUID
    numero_compte: str
    libelle: str
    solde_ouverture: Montant
    mouvements: list[MouvementGrandLivre]
    total_debit: Montant
    total_credit: Montant
    solde_cloture: Montant


class GrandLivreResponse(EnteteEtat):
    comptes: list[CompteGrandLivre]


class JournalEtatResponse(EnteteEtat):
    ecritures: list[EcritureComptableResponse]
    total_debit: Montant
    total_credit: Montant


class PosteEtat(OutputModel):
    numero_compte: str
    libelle: str
    montant: Montant


class RubriqueEtat(OutputModel):
    rubrique: str
    postes: list[PosteEtat]
    total: Montant


class AlerteBilan(OutputModel):
    code: str = Field(description="SOLDE_CREDITEUR_TRESORERIE: un compte de classe 5 (caisse, banque, Wave) au "
                                  "solde créditeur; DECOUVERT_AUTORISE: une banque à découvert dans la limite que "
                                  "sa trésorerie déclare (listée pour le commissaire aux comptes)")
    numero_compte: str
    libelle: str
    solde: Montant = Field(description="Solde du compte (négatif: créditeur)")
    message: str


class BilanResponse(EnteteEtat):
    actif: list[RubriqueEtat]
    passif: list[RubriqueEtat]
    total_actif: Montant
    total_passif: Montant
    equilibre: bool
    alertes: list[AlerteBilan] = Field(
        default_factory=list,
        description="Extension: anomalies qu'un commissaire aux comptes relève (une caisse ou un compte Wave ne "
                    "peut être créditeur; un découvert bancaire doit être autorisé), aussi imprimées sur le PDF")


class CompteResultatResponse(EnteteEtat):
    charges: list[RubriqueEtat]
    produits: list[RubriqueEtat]
    total_charges: Montant
    total_produits: Montant
    resultat: Montant = Field(description="Produits − charges: excédent (> 0) ou déficit (< 0)")
