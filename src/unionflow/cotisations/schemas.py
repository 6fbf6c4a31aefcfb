from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

from pydantic import AwareDatetime, ConfigDict, Field, model_validator

from unionflow.adhesions.schemas import CURRENCY_PATTERN, RecuResponse
from unionflow.core.cache import ResultatCalcule
from unionflow.core.regles import UnSeul
from unionflow.core.schemas import InputModel, Montant, OutputModel, Taux, UpdateModel, regle_metier
from unionflow.cotisations.periodes import erreur_periode, schema_periode
from unionflow.models.cotisation import StatutCotisation, TypeCotisation
from unionflow.models.paiement import MethodePaiement
from unionflow.models.rappel_cotisation import StatutRappel
from unionflow.notifications.schemas import Canal
from unionflow.paiements.methodes import DESCRIPTION_TRANSACTION_WAVE, regles_reference
from unionflow.paiements.schemas import METHODE_DESCRIPTION, DeclarationPaiementResponse

Annee = Field(ge=2000, le=2100)
Mois = Field(default=None, ge=1, le=12)
MONTANT_POSITIF = Field(gt=0, max_digits=18, decimal_places=2)


ECHEANCE_PAR_DEFAUT = ("Absent: le jour cotisation.jour_echeance (configuration, 5 par défaut) du mois de la "
                       "période (janvier pour une période annuelle)")


class CreateCotisationRequest(InputModel):
    model_config = ConfigDict(json_schema_extra=schema_periode)

    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    type_cotisation: TypeCotisation
    libelle: str | None = Field(default=None, max_length=200)
    annee: int = Annee
    mois: int | None = Mois
    montant_du: Montant = MONTANT_POSITIF
    devise: str | None = Field(default=None, pattern=CURRENCY_PATTERN,
                               description="Par défaut la devise de l'organisation (XOF)")
    date_echeance: date | None = Field(default=None, description=ECHEANCE_PAR_DEFAUT)
    observations: str | None = Field(default=None, max_length=5000)

    @model_validator(mode="after")
    def _periode(self) -> CreateCotisationRequest:
        if (erreur := erreur_periode(self.type_cotisation, self.mois)) is not None:
            raise regle_metier(erreur)
        return self


class UpdateCotisationRequest(UpdateModel):
    nullable_fields = frozenset({"libelle", "observations"})
    type_cotisation: TypeCotisation | None = None
    libelle: str | None = Field(default=None, max_length=200)
    montant_du: Montant | None = Field(default=None, gt=0, max_digits=18, decimal_places=2)
    date_echeance: date | None = None
    observations: str | None = Field(default=None, max_length=5000)


class PaiementCotisationRequest(InputModel):
    # Only the new method is held to its reference here: the spec's methods keep their published behaviour.
    regles = regles_reference("methode_paiement", "reference_paiement", "referencePaiement",
                              frozenset({MethodePaiement.WAVE_TRANSFERT}))

    montant: Montant = MONTANT_POSITIF
    methode_paiement: MethodePaiement = Field(default=MethodePaiement.ESPECES, description=METHODE_DESCRIPTION)
    reference_paiement: str | None = Field(default=None, max_length=100, description=(
        "Obligatoire pour WAVE_TRANSFERT (400 sinon): " + DESCRIPTION_TRANSACTION_WAVE + "; gardée sur la "
        "déclaration du membre"))
    date_paiement: AwareDatetime | None = Field(default=None, description="Par défaut maintenant; jamais future")


def _schema_generation(schema: dict[str, Any]) -> None:
    schema_periode(schema)
    schema["allOf"].append({"if": {"properties": {"avantAdhesion": {"const": True}}, "required": ["avantAdhesion"]},
                            "then": {"required": ["motif"], "properties": {"motif": {"type": "string"}}}})


class GenererCotisationsRequest(InputModel):
    model_config = ConfigDict(json_schema_extra=_schema_generation)

    organisation_id: uuid.UUID
    type_cotisation: TypeCotisation
    annee: int = Annee
    mois: int | None = Mois
    montant: Montant = MONTANT_POSITIF
    date_echeance: date | None = Field(default=None, description=ECHEANCE_PAR_DEFAUT)
    libelle: str | None = Field(default=None, max_length=200)
    # Extension: dues follow the membership unless the treasurer asks otherwise, with a reason.
    avant_adhesion: bool = Field(default=False, description=(
        "Vrai: génère aussi pour les membres dont l'adhésion commence après la fin de la période (rattrapage "
        "décidé par l'organisation); exige `motif`, journalisé. Faux (défaut): seules les adhésions qui couvrent "
        "la période sont appelées."))
    motif: str | None = Field(default=None, min_length=3, max_length=500,
                              description="Raison d'une génération avant adhésion (obligatoire avec avantAdhesion)")

    @model_validator(mode="after")
    def _regles(self) -> GenererCotisationsRequest:
        if (erreur := erreur_periode(self.type_cotisation, self.mois)) is not None:
            raise regle_metier(erreur)
        if self.avant_adhesion and not (self.motif or "").strip():
            raise regle_metier("Générer avant l'adhésion exige un motif (champ motif)")
        return self


class CotisationPublicResponse(OutputModel):
    """Simplified: what is called, for which period and when; no amounts, no member."""

    id: uuid.UUID
    numero_reference: str
    organisation_id: uuid.UUID
    type_cotisation: TypeCotisation
    libelle: str | None
    annee: int
    mois: int | None
    date_echeance: date
    statut: StatutCotisation


class CotisationSummaryResponse(CotisationPublicResponse):
    membre_id: uuid.UUID
    montant_du: Montant
    montant_paye: Montant
    montant_restant: Montant
    devise: str
    code_paiement: str | None = Field(default=None, description=(
        "Extension: code de paiement de la cotisation (11 chiffres, les deux derniers de contrôle ISO 7064 "
        "MOD 97-10), unique; quiconque le connaît paie la cotisation par Wave depuis la page publique "
        "`/api/paiements/par-code`, ou l'écrit dans le message d'un transfert Wave (docs/paiements-wave.md)"))


class CotisationResponse(CotisationSummaryResponse):
    statut_enregistre: StatutCotisation = Field(
        description="Statut stocké; `statut` vaut EN_RETARD dès l'échéance dépassée")
    en_retard: bool
    jours_retard: int
    date_paiement: datetime | None
    methode_paiement: MethodePaiement | None
    reference_paiement: str | None
    observations: str | None
    created_at: datetime
    updated_at: datetime


class CotisationPayeeResponse(CotisationResponse):
    recu: RecuResponse | None = Field(default=None, description="Reçu du paiement encaissé (trésorerie seulement)")
    declaration: DeclarationPaiementResponse | None = Field(
        default=None, description="Paiement d'un membre en attente (session Wave ou déclaration à confirmer)")


class GenerationResponse(OutputModel):
    membres_actifs: int = Field(description="Membres actifs appelés pour la période (adhésion couvrant la période)")
    creees: int
    ignorees: int = Field(description="Cotisations déjà générées pour ce membre et cette période")
    hors_adhesion: int = Field(default=0, description=(
        "Membres actifs non appelés: adhésion commencée après la fin de la période ou terminée avant son début"))
    message: str


class RappelResponse(OutputModel):
    id: uuid.UUID
    membre_id: uuid.UUID
    canal: Canal
    destinataire: str | None
    cotisation_ids: list[uuid.UUID]
    montant_total: Montant
    devise: str
    statut: StatutRappel


class RappelsGroupesResponse(OutputModel):
    envoyes: int = Field(description="Rappels créés (notifications EN_ATTENTE de livraison)")
    deja_envoyes_aujourdhui: int = Field(description="Membres dont tous les impayés ont déjà été rappelés ce jour")
    sans_impaye: int
    rappels: list[RappelResponse]


class StatistiquesResponse(ResultatCalcule):
    nombre_total: int
    par_statut: dict[str, int] = Field(description="Les 5 statuts, EN_RETARD dérivé de l'échéance")
    montant_du: Montant = Field(description="Somme des montants dus hors cotisations annulées")
    montant_collecte: Montant = Field(
        description="Payé sur ces cotisations (celles de la période de la cotisation), quelle que soit la date du "
                    "paiement: un recouvrement, pas les « cotisations encaissées » d'une période du tableau de bord")
    montant_restant: Montant
    montant_en_retard: Montant = Field(description="Reste dû des cotisations en retard")
    taux_recouvrement: Taux = Field(description="montantCollecte / montantDu × 100, 2 décimales")


class StatistiquesTypeResponse(OutputModel):
    type_cotisation: TypeCotisation
    nombre: int
    montant_du: Montant
    montant_collecte: Montant


class StatistiquesDetailResponse(StatistiquesResponse):
    par_type: list[StatistiquesTypeResponse]


class StatistiquesPeriodeResponse(StatistiquesResponse):
    annee: int
    mois: int | None


class SyntheseResponse(ResultatCalcule):
    nombre_cotisations: int
    nombre_a_payer: int
    nombre_en_retard: int
    nombre_payees: int
    montant_du: Montant
    montant_paye: Montant
    montant_restant: Montant
    montant_en_retard: Montant
    prochaine_echeance: date | None


class LotGenereRequest(InputModel):
    """A batch made by POST /api/cotisations/generer: the organisation, the type and the period it was asked for."""

    organisation_id: uuid.UUID
    type_cotisation: TypeCotisation
    annee: int = Annee
    mois: int | None = Mois


class AnnulerCotisationsRequest(InputModel):
    """Exactly one of ``cotisation_ids`` (one dues or a selection) and ``lot`` (a whole generated batch)."""

    regles = (UnSeul(("cotisation_ids", "lot"), "Précisez soit cotisationIds (une ou plusieurs cotisations), soit "
                                                "lot (une génération entière), pas les deux"),)

    cotisation_ids: list[uuid.UUID] | None = Field(default=None, min_length=1, max_length=1000)
    lot: LotGenereRequest | None = None
    motif: str = Field(min_length=3, max_length=500, description="Raison de l'annulation, journalisée")

    @model_validator(mode="after")
    def _une_cible(self) -> AnnulerCotisationsRequest:
        if not self.motif.strip():
            raise regle_metier("Le motif de l'annulation est obligatoire")
        return self


class CotisationRefuseeResponse(OutputModel):
    """A dues the cancellation left alone, and why (extension)."""

    cotisation_id: uuid.UUID
    numero_reference: str
    paiement_id: uuid.UUID = Field(description="Le paiement en attente qui la réserve")
    motif: str


class AnnulationResponse(OutputModel):
    annulees: int = Field(description="Cotisations passées à ANNULEE par cet appel")
    deja_annulees: int = Field(description="Cotisations qui l'étaient déjà (rien de changé)")
    cotisation_ids: list[uuid.UUID] = Field(description="Cotisations annulées par cet appel")
    refusees: list[CotisationRefuseeResponse] = Field(default_factory=list, description=(
        "Extension: cotisations NON annulées parce qu'un paiement en attente (déclaration d'un membre, "
        "session Wave ouverte) les réserve, avec la raison; les autres cotisations visées sont annulées"))
