"""SYCEBNL headings (rubriques) and the default mapping of account-number prefixes to them.

A heading says where an account's balance is printed: balance sheet (assets, liabilities, or either side for third
parties and treasury, by the sign of the balance), income statement (charges, produits), or off the balance sheet
(volunteer contributions in kind). It also says, for an account met as the counterpart of a cash movement, which
line of the cash-flow table (direct method) the movement belongs to.

The default mapping follows the SYSCOHADA chart the books already use (comptabilite/service.py); the account
numbers SYCEBNL gives to earmarked funds and to volunteer contributions were not read in the act (docs/conformite.md,
S9): the defaults below are those the project was asked for (165, 7925) and class 9, each one replaceable per
organisation (``correspondance_sycebnl``).

Each heading and each line of the cash-flow table also carries the reference (« REF ») of the line or lines of the
act's model statements it feeds — bilan AA…DZ, compte de résultat RA…XE, tableau des flux ZA…ZG — as public
transcriptions of the model give them (second hand, docs/conformite.md S4): an auditor finds each figure on the
official form. A heading that gathers several lines of the model says so (« RD–RE »).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Section(StrEnum):
    ACTIF = "ACTIF"
    PASSIF = "PASSIF"
    TIERS = "TIERS"  # receivable when in debit, payable when in credit
    TRESORERIE = "TRESORERIE"  # class 5: cash in debit, bank overdraft in credit
    CHARGE = "CHARGE"
    PRODUIT = "PRODUIT"
    HORS_BILAN = "HORS_BILAN"


class Flux(StrEnum):
    """Lines of the cash-flow table by the direct method (what the counterpart of the cash movement was)."""

    ENC_MEMBRES = "ENC_MEMBRES"
    ENC_DONS = "ENC_DONS"
    ENC_SUBVENTIONS = "ENC_SUBVENTIONS"
    DEC_FOURNISSEURS = "DEC_FOURNISSEURS"
    DEC_PERSONNEL = "DEC_PERSONNEL"
    DEC_BENEFICIAIRES = "DEC_BENEFICIAIRES"
    AUTRES_ACTIVITES = "AUTRES_ACTIVITES"
    INVESTISSEMENT = "INVESTISSEMENT"
    FINANCEMENT_FONDS = "FINANCEMENT_FONDS"
    FINANCEMENT_EMPRUNTS = "FINANCEMENT_EMPRUNTS"


FLUX_LIBELLES = {
    Flux.ENC_MEMBRES: "Encaissements reçus des membres (cotisations, droits d'adhésion)",
    Flux.ENC_DONS: "Dons et libéralités reçus (générosité du public)",
    Flux.ENC_SUBVENTIONS: "Subventions d'exploitation reçues",
    Flux.DEC_FOURNISSEURS: "Décaissements aux fournisseurs",
    Flux.DEC_PERSONNEL: "Décaissements au personnel",
    Flux.DEC_BENEFICIAIRES: "Aides et secours versés aux bénéficiaires",
    Flux.AUTRES_ACTIVITES: "Autres encaissements et décaissements des activités",
    Flux.INVESTISSEMENT: "Acquisitions et cessions d'immobilisations",
    Flux.FINANCEMENT_FONDS: "Apports, fonds dédiés et subventions d'investissement",
    Flux.FINANCEMENT_EMPRUNTS: "Emprunts reçus nets des remboursements",
}
# The model's lines each flow line feeds (ZA opening cash, ZF the year's change, ZG closing cash).
FLUX_REFERENCES = {
    Flux.ENC_MEMBRES: "FA", Flux.ENC_SUBVENTIONS: "FB", Flux.ENC_DONS: "FC", Flux.DEC_FOURNISSEURS: "FF",
    Flux.DEC_PERSONNEL: "FG", Flux.DEC_BENEFICIAIRES: "FH", Flux.AUTRES_ACTIVITES: "FD–FE, FH",
    Flux.INVESTISSEMENT: "FI–FL", Flux.FINANCEMENT_FONDS: "FM–FO", Flux.FINANCEMENT_EMPRUNTS: "FP–FQ",
}
SECTION_FLUX_REFERENCES = {"ACTIVITES": "ZB", "INVESTISSEMENT": "ZC", "FINANCEMENT": "ZD+ZE"}
FLUX_SECTIONS = (
    ("ACTIVITES", "Flux de trésorerie des activités", (Flux.ENC_MEMBRES, Flux.ENC_DONS, Flux.ENC_SUBVENTIONS,
                                         Flux.DEC_FOURNISSEURS, Flux.DEC_PERSONNEL, Flux.DEC_BENEFICIAIRES,
                                         Flux.AUTRES_ACTIVITES)),
    ("INVESTISSEMENT", "Flux de trésorerie des investissements", (Flux.INVESTISSEMENT,)),
    ("FINANCEMENT", "Flux de trésorerie des financements", (Flux.FINANCEMENT_FONDS, Flux.FINANCEMENT_EMPRUNTS)),
)


@dataclass(frozen=True)
class DefRubrique:
    libelle: str
    section: Section
    classes: tuple[int, ...]  # account classes the heading may receive (a prefix of another class is refused)
    flux: Flux
    reference: str | None = None  # the model's line(s) it feeds; third parties: receivable / payable side


class Rubrique(StrEnum):
    IMMOBILISATIONS = "IMMOBILISATIONS"
    STOCKS = "STOCKS"
    FONDS_ASSOCIATIFS = "FONDS_ASSOCIATIFS"
    RESERVES_REPORT = "RESERVES_REPORT"
    RESULTAT = "RESULTAT"
    SUBVENTIONS_INVESTISSEMENT = "SUBVENTIONS_INVESTISSEMENT"
    FONDS_DEDIES = "FONDS_DEDIES"
    EMPRUNTS = "EMPRUNTS"
    PROVISIONS = "PROVISIONS"
    MEMBRES = "MEMBRES"
    FOURNISSEURS = "FOURNISSEURS"
    PERSONNEL = "PERSONNEL"
    ETAT = "ETAT"
    AUTRES_TIERS = "AUTRES_TIERS"
    TRESORERIE = "TRESORERIE"
    ACHATS = "ACHATS"
    SERVICES_EXTERIEURS = "SERVICES_EXTERIEURS"
    IMPOTS_TAXES = "IMPOTS_TAXES"
    AIDES_BENEFICIAIRES = "AIDES_BENEFICIAIRES"
    AUTRES_CHARGES = "AUTRES_CHARGES"
    CHARGES_PERSONNEL = "CHARGES_PERSONNEL"
    CHARGES_FINANCIERES = "CHARGES_FINANCIERES"
    DOTATIONS = "DOTATIONS"
    CHARGES_HAO = "CHARGES_HAO"
    COTISATIONS = "COTISATIONS"
    PRESTATIONS = "PRESTATIONS"
    SUBVENTIONS_EXPLOITATION = "SUBVENTIONS_EXPLOITATION"
    DONS = "DONS"
    AUTRES_PRODUITS = "AUTRES_PRODUITS"
    PRODUITS_FINANCIERS = "PRODUITS_FINANCIERS"
    REPORT_FONDS_DEDIES = "REPORT_FONDS_DEDIES"
    REPRISES = "REPRISES"
    PRODUITS_HAO = "PRODUITS_HAO"
    CONTRIBUTIONS_NATURE = "CONTRIBUTIONS_NATURE"


R, S, F = Rubrique, Section, Flux
RUBRIQUES: dict[Rubrique, DefRubrique] = {
    R.IMMOBILISATIONS: DefRubrique("Actif immobilisé", S.ACTIF, (2,), F.INVESTISSEMENT, "AD–AY"),
    R.STOCKS: DefRubrique("Stocks", S.ACTIF, (3,), F.DEC_FOURNISSEURS, "BB"),
    R.FONDS_ASSOCIATIFS: DefRubrique("Fonds associatifs", S.PASSIF, (1,), F.FINANCEMENT_FONDS, "CA–CD"),
    R.RESERVES_REPORT: DefRubrique("Réserves et report à nouveau", S.PASSIF, (1,), F.FINANCEMENT_FONDS, "CF–CG"),
    R.RESULTAT: DefRubrique("Résultat net des exercices clos, en attente d'affectation", S.PASSIF, (1,),
                            F.FINANCEMENT_FONDS, "CH"),
    R.SUBVENTIONS_INVESTISSEMENT: DefRubrique("Subventions d'investissement", S.PASSIF, (1,), F.FINANCEMENT_FONDS,
                                              "CI"),
    R.FONDS_DEDIES: DefRubrique("Fonds affectés et reportés (ressources affectées non utilisées)", S.PASSIF, (1,),
                                F.FINANCEMENT_FONDS, "CW–CX"),
    R.EMPRUNTS: DefRubrique("Emprunts et dettes financières", S.PASSIF, (1,), F.FINANCEMENT_EMPRUNTS, "DA–DB"),
    R.PROVISIONS: DefRubrique("Provisions pour risques et charges", S.PASSIF, (1,), F.AUTRES_ACTIVITES, "DC"),
    R.MEMBRES: DefRubrique("Membres et usagers", S.TIERS, (4,), F.ENC_MEMBRES, "BD / DG"),
    R.FOURNISSEURS: DefRubrique("Fournisseurs", S.TIERS, (4,), F.DEC_FOURNISSEURS, "BC / DH"),
    R.PERSONNEL: DefRubrique("Personnel et organismes sociaux", S.TIERS, (4,), F.DEC_PERSONNEL, "BE / DI"),
    R.ETAT: DefRubrique("État et collectivités publiques", S.TIERS, (4,), F.ENC_SUBVENTIONS, "BE / DI"),
    R.AUTRES_TIERS: DefRubrique("Autres tiers", S.TIERS, (4,), F.AUTRES_ACTIVITES, "BE / DI"),
    R.TRESORERIE: DefRubrique("Trésorerie", S.TRESORERIE, (5,), F.AUTRES_ACTIVITES, "BU–BW / DW"),
    R.ACHATS: DefRubrique("Achats et variations de stocks", S.CHARGE, (6,), F.DEC_FOURNISSEURS, "TA–TE"),
    R.SERVICES_EXTERIEURS: DefRubrique("Transports et services extérieurs", S.CHARGE, (6,), F.DEC_FOURNISSEURS,
                                       "TF–TG"),
    R.IMPOTS_TAXES: DefRubrique("Impôts et taxes", S.CHARGE, (6,), F.AUTRES_ACTIVITES, "TH"),
    R.AIDES_BENEFICIAIRES: DefRubrique("Aides et secours accordés aux bénéficiaires", S.CHARGE, (6,),
                                       F.DEC_BENEFICIAIRES, "TI"),
    R.AUTRES_CHARGES: DefRubrique("Autres charges des activités", S.CHARGE, (6,), F.AUTRES_ACTIVITES, "TI"),
    R.CHARGES_PERSONNEL: DefRubrique("Charges de personnel", S.CHARGE, (6,), F.DEC_PERSONNEL, "TJ"),
    R.CHARGES_FINANCIERES: DefRubrique("Frais financiers", S.CHARGE, (6,), F.AUTRES_ACTIVITES, "TK"),
    R.DOTATIONS: DefRubrique("Dotations aux amortissements et provisions", S.CHARGE, (6,), F.AUTRES_ACTIVITES, "TL"),
    R.CHARGES_HAO: DefRubrique("Charges hors activités ordinaires", S.CHARGE, (8,), F.AUTRES_ACTIVITES, "TN"),
    R.COTISATIONS: DefRubrique("Cotisations et droits d'adhésion des membres", S.PRODUIT, (7,), F.ENC_MEMBRES, "RA"),
    R.PRESTATIONS: DefRubrique("Ventes, prestations et participations aux activités", S.PRODUIT, (7,),
                               F.AUTRES_ACTIVITES, "RD–RE"),
    R.SUBVENTIONS_EXPLOITATION: DefRubrique("Subventions d'exploitation", S.PRODUIT, (7,), F.ENC_SUBVENTIONS, "RF"),
    R.DONS: DefRubrique("Dons, legs et libéralités (générosité du public)", S.PRODUIT, (7,), F.ENC_DONS, "RC"),
    R.AUTRES_PRODUITS: DefRubrique("Autres produits des activités", S.PRODUIT, (7,), F.AUTRES_ACTIVITES, "RG"),
    R.PRODUITS_FINANCIERS: DefRubrique("Revenus financiers", S.PRODUIT, (7,), F.AUTRES_ACTIVITES, "RG"),
    R.REPORT_FONDS_DEDIES: DefRubrique("Report des ressources affectées non utilisées", S.PRODUIT, (7,),
                                       F.FINANCEMENT_FONDS, "RH"),
    R.REPRISES: DefRubrique("Reprises de provisions et transferts de charges", S.PRODUIT, (7,), F.AUTRES_ACTIVITES,
                            "RH"),
    R.PRODUITS_HAO: DefRubrique("Produits hors activités ordinaires", S.PRODUIT, (8,), F.INVESTISSEMENT, "TM"),
    R.CONTRIBUTIONS_NATURE: DefRubrique("Contributions volontaires en nature (bénévolat, dons en nature)",
                                        S.HORS_BILAN, (9,), F.AUTRES_ACTIVITES),
}

# Prefix → heading; the longest prefix matching an account number wins, so a class-wide prefix ("6") is the
# fall-back of its class and every account of classes 1–9 has a heading.
CORRESPONDANCE_DEFAUT: dict[str, Rubrique] = {
    "1": R.FONDS_ASSOCIATIFS, "10": R.FONDS_ASSOCIATIFS, "11": R.RESERVES_REPORT, "12": R.RESERVES_REPORT,
    # Class 1 as the SYCEBNL chart numbers it (docs/conformite.md S4): 16 fonds affectés, 17 fonds reportés, 18
    # emprunts et dettes assimilées — not SYSCOHADA's 16 emprunts / 17 location-acquisition.
    "13": R.RESULTAT, "14": R.SUBVENTIONS_INVESTISSEMENT, "16": R.FONDS_DEDIES, "17": R.FONDS_DEDIES,
    "18": R.EMPRUNTS, "19": R.PROVISIONS,
    "2": R.IMMOBILISATIONS, "3": R.STOCKS,
    "4": R.AUTRES_TIERS, "40": R.FOURNISSEURS, "41": R.MEMBRES, "4191": R.MEMBRES, "42": R.PERSONNEL,
    "43": R.PERSONNEL, "44": R.ETAT,
    "5": R.TRESORERIE,
    "6": R.AUTRES_CHARGES, "60": R.ACHATS, "61": R.SERVICES_EXTERIEURS, "62": R.SERVICES_EXTERIEURS,
    "63": R.SERVICES_EXTERIEURS, "64": R.IMPOTS_TAXES, "658": R.AUTRES_CHARGES, "6581": R.AIDES_BENEFICIAIRES,
    "66": R.CHARGES_PERSONNEL, "67": R.CHARGES_FINANCIERES, "68": R.DOTATIONS, "69": R.DOTATIONS,
    # 701 and 704 as the SYCEBNL chart numbers them (dues, « revenus liés à la générosité »; second hand,
    # docs/conformite.md S4), for an organisation that opened them.
    "7": R.AUTRES_PRODUITS, "70": R.PRESTATIONS, "701": R.COTISATIONS, "704": R.DONS, "7061": R.COTISATIONS,
    "7062": R.COTISATIONS,
    "7063": R.COTISATIONS, "7064": R.COTISATIONS, "71": R.SUBVENTIONS_EXPLOITATION, "7581": R.DONS,
    "77": R.PRODUITS_FINANCIERS, "79": R.REPRISES, "7925": R.REPORT_FONDS_DEDIES,
    "8": R.CHARGES_HAO, "82": R.PRODUITS_HAO, "84": R.PRODUITS_HAO, "86": R.PRODUITS_HAO, "88": R.PRODUITS_HAO,
    "9": R.CONTRIBUTIONS_NATURE,
}


def rubrique_de(numero: str, correspondance: dict[str, Rubrique]) -> Rubrique | None:
    """The heading of the longest prefix of ``numero`` in the mapping (None: the mapping leaves it out)."""
    for n in range(len(numero), 0, -1):
        rubrique = correspondance.get(numero[:n])
        if rubrique is not None:
            return rubrique
    return None
