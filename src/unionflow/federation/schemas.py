"""The federation's roll-up (docs/federation.md): consolidated figures and statements, and the
quote-part a member organisation pays its federation. Extensions to the published interface."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.comptabilite.etats.schemas import RubriqueEtat
from unionflow.core.regles import Si
from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.models.organisation import TypeOrganisation
from unionflow.models.versement import ModeVersement
from unionflow.paiements.versements.schemas import PHONE_PATTERN


class CreateQuotePartRequest(InputModel):
    """A quote-part paid by ``organisationId`` to its federation (its parent organisation)."""

    regles = (Si("mode", ModeVersement.WAVE, "un versement Wave est un montant entier en XOF",
                 fixes=(("devise", "XOF"),), entiers=("montant",)),)

    organisation_id: uuid.UUID = Field(description="L'organisation membre qui verse (la fédération est sa parente)")
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2)
    devise: str = Field(default="XOF", pattern=r"^[A-Z]{3}$")
    mode: ModeVersement
    motif: str = Field(min_length=3, max_length=500, description="Ex. « Quote-part 2026, 1er trimestre »")
    beneficiaire_telephone: str | None = Field(default=None, pattern=PHONE_PATTERN,
                                               description="Numéro Wave de la fédération (défaut: son téléphone)")
    tresorerie_id: uuid.UUID | None = Field(
        default=None, description="Extension: la trésorerie d'où l'argent sort (une trésorerie active de "
                                  "l'organisation qui verse; défaut comme pour tout versement)")


class TresorerieOrganisation(OutputModel):
    numero_compte: str
    libelle: str
    solde: Montant = Field(description="Débit − crédit à `dateFin` (négatif: découvert)")


class ChiffresOrganisation(OutputModel):
    """One organisation's figures, or the total (``organisationId`` null)."""

    organisation_id: uuid.UUID | None
    nom: str
    type_organisation: TypeOrganisation | None
    parent_id: uuid.UUID | None
    membres_actifs: int
    cotisations_encaissees: Montant = Field(
        description="Crédits des comptes de produits des cotisations datés de la période (écritures de clôture "
                    "exclues): l'avoir imputé compte à sa date d'imputation; même chiffre que le tableau de bord")
    adhesions_encaissees: Montant = Field(description="Crédits du compte de produits des adhésions, période")
    cotisations_en_retard: int = Field(description="Cotisations ouvertes échues avant `dateFin` (ou aujourd'hui)")
    montant_en_retard: Montant
    membres_en_retard: int
    tresorerie: list[TresorerieOrganisation] = Field(description="Comptes de classe 5 et leur solde")
    tresorerie_totale: Montant


class ConsolidationResponse(OutputModel):
    federation_id: uuid.UUID
    federation: str
    date_debut: date
    date_fin: date
    devise: str
    organisations: list[ChiffresOrganisation] = Field(description="La fédération puis chaque descendante")
    total: ChiffresOrganisation
    calcule_le: datetime


class LigneConsolidee(OutputModel):
    """One account of the consolidated trial balance: Σ organisations − éliminations = consolidé."""

    numero_compte: str
    libelle: str
    classe: int
    debit_cumule: Montant = Field(description="Σ des organisations, débits de la période")
    credit_cumule: Montant
    debit_eliminations: Montant = Field(description="Flux entre organisations du périmètre retirés")
    credit_eliminations: Montant
    debit_consolide: Montant
    credit_consolide: Montant


class TotauxConsolides(OutputModel):
    debit_cumule: Montant
    credit_cumule: Montant
    debit_eliminations: Montant
    credit_eliminations: Montant
    debit_consolide: Montant
    credit_consolide: Montant


class ResultatOrganisation(OutputModel):
    organisation_id: uuid.UUID
    nom: str
    charges: Montant
    produits: Montant
    resultat: Montant


class PosteResultat(OutputModel):
    numero_compte: str
    libelle: str
    cumule: Montant
    eliminations: Montant
    consolide: Montant


class BilanConsolide(OutputModel):
    """Balance sheet of the network at `dateFin`: each organisation's accounts classified as in its own bilan (a
    bank overdraft of one is not netted against another's cash), summed per heading and account. No elimination:
    a quote-part leaves no claim nor debt between organisations (both sides are booked at once), and its charge and
    product cancel out in the result."""

    actif: list[RubriqueEtat]
    passif: list[RubriqueEtat]
    total_actif: Montant
    total_passif: Montant
    equilibre: bool


class EtatsConsolidesResponse(OutputModel):
    """Consolidated trial balance and income statement of a federation for a period (SYCEBNL: « excédent » or
    « déficit »)."""

    federation_id: uuid.UUID
    federation: str
    date_debut: date
    date_fin: date
    devise: str
    perimetre: list[uuid.UUID]
    balance: list[LigneConsolidee]
    totaux_balance: TotauxConsolides
    charges: list[PosteResultat]
    produits: list[PosteResultat]
    total_charges: PosteResultat
    total_produits: PosteResultat
    resultat: PosteResultat = Field(description="Produits − charges: excédent si positif; ses éliminations sont "
                                                "nulles (une quote-part est une charge ici, un produit là)")
    resultats_par_organisation: list[ResultatOrganisation]
    bilan: BilanConsolide
    pieces_eliminees: list[str] = Field(description="Numéros des quotes-parts internes au périmètre (pièces)")
    calcule_le: datetime
