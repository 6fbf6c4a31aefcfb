"""SYCEBNL statements of an organisation for a year N, with the N−1 column: balance sheet, income statement and
cash-flow table by the direct method.

The year is the calendar year (the closing entry is dated 31 December, clotures/exercice). Each account goes to the
heading its organisation's mapping gives it (rubriques.py); the N−1 column is computed exactly as the N column of
year N−1, so the two always agree. The balance sheet reads every entry up to the year end, closing entries
included; the income statement leaves the closing entries out (etats/service.py says why).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.etats.repository import ZERO, EtatsRepository, SoldeCompte
from unionflow.comptabilite.etats.schemas import ArreteEtat
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.sycebnl.correspondance import CorrespondanceService, TableSycebnl
from unionflow.comptabilite.sycebnl.repository import FluxRepository
from unionflow.comptabilite.sycebnl.rubriques import (
    FLUX_LIBELLES,
    FLUX_REFERENCES,
    FLUX_SECTIONS,
    RUBRIQUES,
    SECTION_FLUX_REFERENCES,
    Rubrique,
    Section,
)
from unionflow.comptabilite.sycebnl.schemas import (
    BilanSycebnlResponse,
    CompteResultatSycebnlResponse,
    FluxTresorerieResponse,
    PosteSycebnl,
    RubriqueSycebnl,
)
from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.configuration.referentiel import referentiel_de
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, NotFound, RegleMetier
from unionflow.models.configuration import Referentiel

Montants = dict[str, dict[str | None, tuple[str, Decimal]]]  # heading code → account → (label, amount)


def net(s: SoldeCompte) -> Decimal:
    """Debit balance positive, credit balance negative, at the end of the period."""
    return s.debit_avant + s.debit_periode - s.credit_avant - s.credit_periode


def _ajouter(montants: Montants, code: str, numero: str | None, libelle: str, montant: Decimal) -> None:
    comptes = montants.setdefault(code, {})
    ancien = comptes.get(numero, (libelle, ZERO))[1]
    comptes[numero] = (libelle, ancien + montant)


def fusionner(titres: Iterable[tuple[str, str, str | None]], n: Montants, n1: Montants,
              toujours: frozenset[str] = frozenset()) -> list[RubriqueSycebnl]:
    """Headings in the given order (code, title, the model's reference), each with its accounts' N and N−1
    amounts; a heading with nothing in either year is left out (unless listed in ``toujours``)."""
    result = []
    for code, titre, reference in titres:
        a, b = n.get(code, {}), n1.get(code, {})
        postes = [PosteSycebnl(numero_compte=k, libelle=(a.get(k) or b[k])[0],
                               montant_n=a.get(k, ("", ZERO))[1], montant_n1=b.get(k, ("", ZERO))[1])
                  for k in sorted(set(a) | set(b), key=lambda k: k or "")]
        postes = [p for p in postes if p.montant_n != ZERO or p.montant_n1 != ZERO]
        if postes or code in toujours:
            result.append(RubriqueSycebnl(code=code, rubrique=titre, reference=reference, postes=postes,
                                          total_n=sum((p.montant_n for p in postes), ZERO),
                                          total_n1=sum((p.montant_n1 for p in postes), ZERO)))
    return result


def _total(rubriques: list[RubriqueSycebnl]) -> tuple[Decimal, Decimal]:
    return sum((r.total_n for r in rubriques), ZERO), sum((r.total_n1 for r in rubriques), ZERO)


RESULTAT_EXERCICE = "RESULTAT_EXERCICE"
RESULTATS_ANTERIEURS = "RESULTATS_ANTERIEURS"


Titres = list[tuple[str, str, str | None]]


def _titres(section: Section) -> Titres:
    return [(r.value, d.libelle, d.reference) for r, d in RUBRIQUES.items() if d.section is section]


def _ordre_du_modele(titres: Titres) -> Titres:
    """In the model's order (its references are alphabetical down each statement); stable, so two headings
    feeding one line keep the order written here."""
    return sorted(titres, key=lambda t: (t[2] or "ZZ")[:2])


# Third parties and treasury go to a side by the sign of their balance: their model lines are those of that side.
TITRES_ACTIF = [*_titres(Section.ACTIF), ("CREANCES", "Créances", "BA, BC–BE"),
                ("TRESORERIE_ACTIF", "Trésorerie-actif", "BU–BW")]
TITRES_PASSIF = _ordre_du_modele([
    *_titres(Section.PASSIF), (RESULTATS_ANTERIEURS, "Résultats d'exercices antérieurs non clôturés", "CG"),
    (RESULTAT_EXERCICE, "Résultat de l'exercice (excédent ou déficit)", "CH"), ("DETTES", "Dettes", "DF–DI"),
    ("TRESORERIE_PASSIF", "Trésorerie-passif", "DW")])
TITRES_CHARGES = _ordre_du_modele(_titres(Section.CHARGE))
TITRES_PRODUITS = _ordre_du_modele(_titres(Section.PRODUIT))
# Volunteer contributions are off the result: the model lines read for them were not found (S10).
TITRES_NATURE: Titres = [
    ("CONTRIBUTIONS_RECUES", "Contributions volontaires en nature reçues", None),
    ("CONTRIBUTIONS_EMPLOIS", "Emplois des contributions volontaires en nature", None)]


def alertes_referentiel(referentiel: Referentiel, annee: int) -> list[str]:
    """What a signatory must read when the organisation's referential for the year is not SYCEBNL's normal system:
    the statements are still computed (a federation compares its members, an auditor reconciles), but they are not
    that organisation's statements (docs/conformite.md S3 and S6)."""
    if referentiel is Referentiel.PCMS:
        return [f"Pour l'exercice {annee}, l'organisation tient le Plan comptable des mutuelles sociales (PCMS, "
                "UEMOA) : ces états au format SYCEBNL sont fournis à titre d'information et ne remplacent pas ses "
                "états financiers PCMS (bilan, compte de résultat, TAFIRE, état annexé), que UnionFlow ne produit "
                "pas."]
    if referentiel is Referentiel.SYCEBNL_SMT:
        return [f"Pour l'exercice {annee}, l'organisation a choisi le système minimal de trésorerie : ses états "
                "sont l'état des recettes et des dépenses et la situation de trésorerie (/api/comptabilite/etats/"
                "smt/) ; ces états du système normal sont fournis à titre d'information."]
    return []


@dataclass
class Exercice:
    organisation_id: uuid.UUID
    annee: int
    fin: date
    correspondance: TableSycebnl
    entete: dict[str, Any] = field(default_factory=dict)

    @property
    def debut(self) -> date:
        return date(self.annee, 1, 1)

    @property
    def debut_precedent(self) -> date:
        return date(self.annee - 1, 1, 1)

    @property
    def fin_precedent(self) -> date:
        return date(self.annee - 1, 12, 31)


class SycebnlService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.etats = EtatsRepository(session)
        self.flux = FluxRepository(session)

    async def exercice(self, organisation_id: uuid.UUID, annee: int) -> Exercice:
        compta = ComptabiliteRepository(self.session, self.auth)
        organisation = await compta.organisation(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if not compta.can_see_entries(organisation_id):
            raise Forbidden("Les états comptables sont réservés au bureau de l'organisation")
        today = datetime.now(UTC).date()
        if annee > today.year:
            raise RegleMetier(f"L'exercice {annee} n'est pas commencé")
        fin = min(date(annee, 12, 31), today)
        correspondance = await CorrespondanceService(self.session, self.auth).effective(organisation_id)
        arrete = await ClotureRepository(self.session).arrete(organisation_id, annee)
        referentiel = await referentiel_de(self.session, organisation_id, annee)
        return Exercice(organisation_id, annee, fin, correspondance, {
            "organisation_id": organisation.id, "organisation": organisation.nom, "exercice": annee,
            "date_fin": fin, "date_fin_precedent": date(annee - 1, 12, 31), "devise": organisation.devise,
            "calcule_le": datetime.now(UTC), "arrete": ArreteEtat.de(arrete), "referentiel": referentiel,
            "alertes": alertes_referentiel(referentiel, annee)})

    # Balance sheet --------------------------------------------------------------------------------------------
    def _bilan(self, soldes: list[SoldeCompte], corr: TableSycebnl) -> Montants:
        """``soldes``: balances before the year and movements of the year, so that the year's result (classes
        6–8 moved in the year) is apart from the results of earlier years never closed."""
        montants: Montants = {}
        resultat = anterieurs = ZERO
        for s in soldes:
            section = RUBRIQUES[corr.rubrique(s.numero)].section
            solde = net(s)
            if section in (Section.CHARGE, Section.PRODUIT):
                resultat -= s.debit_periode - s.credit_periode
                anterieurs -= s.debit_avant - s.credit_avant
            elif section is Section.ACTIF:
                _ajouter(montants, corr.rubrique(s.numero).value, s.numero, s.libelle, solde)
            elif section is Section.PASSIF:
                _ajouter(montants, corr.rubrique(s.numero).value, s.numero, s.libelle, -solde)
            elif section in (Section.TIERS, Section.TRESORERIE):
                tiers = section is Section.TIERS
                if solde > ZERO:
                    _ajouter(montants, "CREANCES" if tiers else "TRESORERIE_ACTIF", s.numero, s.libelle, solde)
                elif solde < ZERO:
                    _ajouter(montants, "DETTES" if tiers else "TRESORERIE_PASSIF", s.numero, s.libelle, -solde)
            # HORS_BILAN: off the balance sheet by definition.
        _ajouter(montants, RESULTATS_ANTERIEURS, None, "Excédents (+) ou déficits (−) d'exercices non clôturés",
                 anterieurs)
        _ajouter(montants, RESULTAT_EXERCICE, None, "Excédent (+) ou déficit (−) de l'exercice", resultat)
        return montants

    async def bilan(self, organisation_id: uuid.UUID, annee: int) -> BilanSycebnlResponse:
        ex = await self.exercice(organisation_id, annee)
        n = self._bilan(await self.etats.soldes(organisation_id, ex.debut, ex.fin), ex.correspondance)
        n1 = self._bilan(await self.etats.soldes(organisation_id, ex.debut_precedent, ex.fin_precedent),
                         ex.correspondance)
        actif = fusionner(TITRES_ACTIF, n, n1)
        passif = fusionner(TITRES_PASSIF, n, n1, frozenset({RESULTAT_EXERCICE}))
        (an, an1), (pn, pn1) = _total(actif), _total(passif)
        return BilanSycebnlResponse(**ex.entete, actif=actif, passif=passif, total_actif_n=an, total_actif_n1=an1,
                                    total_passif_n=pn, total_passif_n1=pn1, equilibre=an == pn and an1 == pn1)

    # Income statement -----------------------------------------------------------------------------------------
    def _resultat(self, soldes: list[SoldeCompte], corr: TableSycebnl) -> Montants:
        montants: Montants = {}
        for s in soldes:
            rubrique = corr.rubrique(s.numero)
            section = RUBRIQUES[rubrique].section
            mouvement = s.debit_periode - s.credit_periode
            if section is Section.CHARGE:
                _ajouter(montants, rubrique.value, s.numero, s.libelle, mouvement)
            elif section is Section.PRODUIT:
                _ajouter(montants, rubrique.value, s.numero, s.libelle, -mouvement)
            elif section is Section.HORS_BILAN and mouvement != ZERO:
                code = "CONTRIBUTIONS_EMPLOIS" if mouvement > ZERO else "CONTRIBUTIONS_RECUES"
                _ajouter(montants, code, s.numero, s.libelle, abs(mouvement))
        return montants

    async def compte_resultat(self, organisation_id: uuid.UUID, annee: int) -> CompteResultatSycebnlResponse:
        ex = await self.exercice(organisation_id, annee)
        corr = ex.correspondance
        n = self._resultat(await self.etats.soldes(organisation_id, ex.debut, ex.fin, sans_cloture=True), corr)
        n1 = self._resultat(await self.etats.soldes(organisation_id, ex.debut_precedent, ex.fin_precedent,
                                                    sans_cloture=True), corr)
        charges, produits = fusionner(TITRES_CHARGES, n, n1), fusionner(TITRES_PRODUITS, n, n1)
        (cn, cn1), (pn, pn1) = _total(charges), _total(produits)
        return CompteResultatSycebnlResponse(
            **ex.entete, charges=charges, produits=produits, total_charges_n=cn, total_charges_n1=cn1,
            total_produits_n=pn, total_produits_n1=pn1, resultat_n=pn - cn, resultat_n1=pn1 - cn1,
            contributions_nature=fusionner(TITRES_NATURE, n, n1))

    # Cash-flow table (direct method) --------------------------------------------------------------------------
    async def _flux(self, ex: Exercice, debut: date, fin: date) -> tuple[Montants, Decimal, Decimal]:
        """Flows by line, opening cash (class 5 before ``debut``) and class-5 balances at ``fin``."""
        montants: Montants = {}
        for numero, (_, montant) in (await self.flux.contreparties_tresorerie(ex.organisation_id, debut,
                                                                              fin)).items():
            ligne = RUBRIQUES[ex.correspondance.rubrique(numero)].flux
            _ajouter(montants, "FLUX", ligne.value, FLUX_LIBELLES[ligne], montant)
        soldes = [s for s in await self.etats.soldes(ex.organisation_id, debut, fin) if s.classe == 5]
        ouverture = sum((s.debit_avant - s.credit_avant for s in soldes), ZERO)
        return montants, ouverture, sum((net(s) for s in soldes), ZERO)

    async def flux_tresorerie(self, organisation_id: uuid.UUID, annee: int) -> FluxTresorerieResponse:
        ex = await self.exercice(organisation_id, annee)
        n, ouv_n, classe5_n = await self._flux(ex, ex.debut, ex.fin)
        n1, ouv_n1, classe5_n1 = await self._flux(ex, ex.debut_precedent, ex.fin_precedent)
        sections = []
        for code, titre, lignes in FLUX_SECTIONS:
            a, b = n.get("FLUX", {}), n1.get("FLUX", {})
            postes = [PosteSycebnl(numero_compte=None, libelle=FLUX_LIBELLES[f], reference=FLUX_REFERENCES[f],
                                   montant_n=a.get(f.value, ("", ZERO))[1], montant_n1=b.get(f.value, ("", ZERO))[1])
                      for f in lignes]
            sections.append(RubriqueSycebnl(code=code, rubrique=titre, reference=SECTION_FLUX_REFERENCES[code],
                                            postes=postes,
                                            total_n=sum((p.montant_n for p in postes), ZERO),
                                            total_n1=sum((p.montant_n1 for p in postes), ZERO)))
        var_n, var_n1 = _total(sections)
        return FluxTresorerieResponse(
            **ex.entete, tresorerie_ouverture_n=ouv_n, tresorerie_ouverture_n1=ouv_n1, sections=sections,
            variation_n=var_n, variation_n1=var_n1, tresorerie_cloture_n=ouv_n + var_n,
            tresorerie_cloture_n1=ouv_n1 + var_n1, soldes_classe5_n=classe5_n, soldes_classe5_n1=classe5_n1,
            concordance=ouv_n + var_n == classe5_n and ouv_n1 + var_n1 == classe5_n1)


__all__ = ["Rubrique", "SycebnlService", "net"]
