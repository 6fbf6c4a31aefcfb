"""Consolidated statements of a federation: Σ organisations − éliminations (docs/federation.md).

Pure computation over the balances each organisation's books give (comptabilite's EtatsRepository) and the
eliminated lines (federation's repository): for every account and column, consolidé = cumulé − éliminations.
A quote-part is 6584 at the payer and 7584 at the federation: eliminating both leaves the consolidated result
unchanged, which the response shows (the result's eliminations are zero) and the property test checks.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, date, datetime
from decimal import Decimal

from unionflow.comptabilite.etats.repository import SoldeCompte
from unionflow.comptabilite.etats.schemas import PosteEtat, RubriqueEtat
from unionflow.federation.repository import Elimination
from unionflow.federation.schemas import (
    BilanConsolide,
    EtatsConsolidesResponse,
    LigneConsolidee,
    PosteResultat,
    ResultatOrganisation,
    TotauxConsolides,
)
from unionflow.models import Organisation

ZERO = Decimal("0")


def _comptes(soldes: Iterable[list[SoldeCompte]]) -> dict[str, tuple[str, int, Decimal, Decimal]]:
    """Per account number: (label, class, Σ period debits, Σ period credits) over the organisations."""
    cumul: dict[str, tuple[str, int, Decimal, Decimal]] = {}
    for liste in soldes:
        for s in liste:
            libelle, classe, debit, credit = cumul.get(s.numero, (s.libelle, s.classe, ZERO, ZERO))
            cumul[s.numero] = (libelle, classe, debit + s.debit_periode, credit + s.credit_periode)
    return cumul


def balance_consolidee(soldes: Iterable[list[SoldeCompte]], eliminations: list[Elimination]
                       ) -> list[LigneConsolidee]:
    elim = {e.numero_compte: e for e in eliminations}
    lignes = []
    cumul = _comptes(soldes)
    for numero in sorted(cumul):
        libelle, classe, debit, credit = cumul[numero]
        e = elim.get(numero, Elimination(numero, ZERO, ZERO))
        lignes.append(LigneConsolidee(numero_compte=numero, libelle=libelle, classe=classe, debit_cumule=debit,
                                      credit_cumule=credit, debit_eliminations=e.debit, credit_eliminations=e.credit,
                                      debit_consolide=debit - e.debit, credit_consolide=credit - e.credit))
    return lignes


def _postes(cumul: dict[str, tuple[str, int, Decimal, Decimal]], elim: dict[str, Elimination],
            classes: tuple[int, ...], produits: bool) -> list[PosteResultat]:
    """Income-statement lines of ``classes``: charges are debit − credit, produits credit − debit."""
    postes = []
    for numero in sorted(n for n, v in cumul.items() if v[1] in classes):
        libelle, _, debit, credit = cumul[numero]
        e = elim.get(numero, Elimination(numero, ZERO, ZERO))
        montant, retire = (credit - debit, e.credit - e.debit) if produits else (debit - credit, e.debit - e.credit)
        if montant != ZERO or retire != ZERO:
            postes.append(PosteResultat(numero_compte=numero, libelle=libelle, cumule=montant, eliminations=retire,
                                        consolide=montant - retire))
    return postes


def _total(libelle: str, postes: list[PosteResultat]) -> PosteResultat:
    return PosteResultat(numero_compte="", libelle=libelle, cumule=sum((p.cumule for p in postes), ZERO),
                         eliminations=sum((p.eliminations for p in postes), ZERO),
                         consolide=sum((p.consolide for p in postes), ZERO))


def _resultat_organisation(organisation: Organisation, soldes: list[SoldeCompte]) -> ResultatOrganisation:
    charges = sum((s.debit_periode - s.credit_periode for s in soldes if s.classe in (6, 8)), ZERO)
    produits = sum((s.credit_periode - s.debit_periode for s in soldes if s.classe == 7), ZERO)
    return ResultatOrganisation(organisation_id=organisation.id, nom=organisation.nom, charges=charges,
                                produits=produits, resultat=produits - charges)


ACTIF = ("Actif immobilisé", "Stocks", "Créances", "Trésorerie-actif")
PASSIF = ("Fonds associatifs, réserves et résultats affectés", "Résultat de l'exercice en cours (excédent ou déficit)",
          "Dettes", "Trésorerie-passif")


def _rubrique_de(s: SoldeCompte, net: Decimal) -> tuple[str, Decimal] | None:
    """Where one organisation's account goes in its bilan (comptabilite/etats/service.py's rule), with its amount."""
    if s.classe == 1:
        return PASSIF[0], -net
    if s.classe in (2, 3):
        return ACTIF[s.classe - 2], net
    if s.classe in (4, 5):
        if net > 0:
            return ACTIF[s.classe - 2], net
        return (PASSIF[2] if s.classe == 4 else PASSIF[3]), -net
    return None  # classes 6-8: the result


def bilan_consolide(cumuls: Iterable[list[SoldeCompte]]) -> BilanConsolide:
    postes: dict[str, dict[str, tuple[str, Decimal]]] = {r: {} for r in (*ACTIF, *PASSIF)}
    resultat = ZERO
    for soldes in cumuls:
        for s in soldes:
            net = s.debit_avant + s.debit_periode - s.credit_avant - s.credit_periode
            if s.classe in (6, 7, 8):
                resultat -= net
                continue
            place = _rubrique_de(s, net)
            if place is None or place[1] == ZERO:
                continue
            libelle, montant = postes[place[0]].get(s.numero, (s.libelle, ZERO))
            postes[place[0]][s.numero] = (libelle, montant + place[1])

    def rubrique(titre: str) -> RubriqueEtat:
        lignes = [PosteEtat(numero_compte=n, libelle=lib, montant=m) for n, (lib, m) in sorted(postes[titre].items())]
        if titre == PASSIF[1]:
            return RubriqueEtat(rubrique=titre, postes=[], total=resultat)
        return RubriqueEtat(rubrique=titre, postes=lignes, total=sum((p.montant for p in lignes), ZERO))

    actif = [rubrique(t) for t in ACTIF]
    passif = [rubrique(t) for t in PASSIF]
    total_actif, total_passif = sum((r.total for r in actif), ZERO), sum((r.total for r in passif), ZERO)
    return BilanConsolide(actif=[r for r in actif if r.postes], passif=[r for r in passif if r.postes
                                                                       or r.rubrique == PASSIF[1]],
                          total_actif=total_actif, total_passif=total_passif, equilibre=total_actif == total_passif)


def etats_consolides(federation: Organisation, organisations: list[Organisation],
                     balances: dict[uuid.UUID, list[SoldeCompte]], resultats: dict[uuid.UUID, list[SoldeCompte]],
                     cumuls: dict[uuid.UUID, list[SoldeCompte]], eliminations: list[Elimination],
                     numeros: list[str], *, debut: date, fin: date) -> EtatsConsolidesResponse:
    """The trial balance takes every entry of the period; the income statement leaves out the year-end closing
    entries (as each organisation's own statement does). Class 8 (hors activités ordinaires) is read as a charge
    when debit, which the per-organisation results follow too."""
    balance = balance_consolidee(balances.values(), eliminations)
    totaux = TotauxConsolides(**{name: sum((getattr(lg, name) for lg in balance), ZERO)
                                 for name in TotauxConsolides.model_fields})
    cumul = _comptes(resultats.values())
    elim = {e.numero_compte: e for e in eliminations}
    charges = _postes(cumul, elim, (6, 8), False)
    produits = _postes(cumul, elim, (7,), True)
    total_charges = _total("Total des charges", charges)
    total_produits = _total("Total des produits", produits)
    resultat = PosteResultat(numero_compte="", libelle="Résultat (excédent ou déficit)",
                             cumule=total_produits.cumule - total_charges.cumule,
                             eliminations=total_produits.eliminations - total_charges.eliminations,
                             consolide=total_produits.consolide - total_charges.consolide)
    return EtatsConsolidesResponse(
        federation_id=federation.id, federation=federation.nom, date_debut=debut, date_fin=fin,
        devise=federation.devise, perimetre=[o.id for o in organisations], balance=balance, totaux_balance=totaux,
        charges=charges, produits=produits, total_charges=total_charges, total_produits=total_produits,
        resultat=resultat, resultats_par_organisation=[_resultat_organisation(o, resultats[o.id])
                                                      for o in organisations],
        bilan=bilan_consolide(cumuls.values()), pieces_eliminees=numeros, calcule_le=datetime.now(UTC))
