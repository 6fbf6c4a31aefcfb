"""What the internal-controls property checks after every step, read straight from the database (the test's
transaction sees what the app wrote): see test_proprietes_controles.py for the rules (a) to (d)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from unionflow.comptabilite.service import compteur_ecriture
from unionflow.models import (
    ClotureMensuelle,
    CompteComptable,
    Compteur,
    Cotisation,
    DemandeApprobation,
    EcritureComptable,
    JournalComptable,
    LigneEcriture,
    Organisation,
    Paiement,
    VerrouComptable,
    Versement,
)
from unionflow.models.annulation import VueAnnulation
from unionflow.paiements.recus.numerotation import compteur_recus

FRESH = {"populate_existing": True}
# Where the steps' money must land, stated here and not read from the code under test: cash in the cash box,
# transfers in the bank, manual payouts out of the bank.
COMPTE_METHODE = {"ESPECES": "571", "VIREMENT": "521"}
COMPTE_VERSEMENT = {"MANUEL": "521"}


@dataclass
class Org:
    org: Organisation
    people: list[Any]
    dues: list[Cotisation]
    journal_id: str
    comptes: list[str]
    paid: list[str] = field(default_factory=list)
    declared: list[str] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)
    payouts: list[str] = field(default_factory=list)
    reopenings: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)  # manual entries on the cash box asked (ECRITURE requests)
    last: tuple[str, int] | None = None  # the step just run and its status
    lock: date | None = None  # the lock date after the previous step
    closed: dict[Any, dict[Any, tuple[Decimal, Decimal]]] = field(default_factory=dict)  # month totals


@dataclass
class Monde:
    orgs: list[Org]


async def _rows(db, model, org_id) -> list[Any]:
    return list((await db.execute(select(model).where(model.organisation_id == org_id)
                                  .execution_options(**FRESH))).scalars())


async def _lock(db, org_id) -> date | None:
    return (await db.execute(select(VerrouComptable.date_verrouillage).where(
        VerrouComptable.organisation_id == org_id).execution_options(**FRESH))).scalar_one_or_none()


async def etat(db, w: Org) -> tuple[Any, ...]:
    """Everything a write could change, to prove that a refused attempt changed nothing."""
    org_id = w.org.id
    paiements = sorted((str(p.id), p.statut, p.numero_recu) for p in await _rows(db, Paiement, org_id))
    demandes = sorted((str(d.id), d.statut) for d in await _annulations(db, org_id))
    versements = sorted((str(v.id), v.statut) for v in await _rows(db, Versement, org_id))
    reouvertures = sorted((str(d.id), d.statut) for d in await _rows(db, DemandeApprobation, org_id)
                          if d.genre in ("REOUVERTURE", "ECRITURE"))
    clotures = sorted(str(c.id) for c in await _rows(db, ClotureMensuelle, org_id))
    ecritures = len(await _rows(db, EcritureComptable, org_id))
    return paiements, demandes, versements, reouvertures, clotures, ecritures, await _lock(db, org_id)


async def _annulations(db, org_id) -> list[VueAnnulation]:
    """Undo requests: the ANNULATION kind of four-eyes requests, seen with their kind's fields."""
    return [VueAnnulation(r) for r in await _rows(db, DemandeApprobation, org_id) if r.genre == "ANNULATION"]


async def _reouvertures(db, org_id) -> list[DemandeApprobation]:
    """Reopening requests: the REOUVERTURE kind of four-eyes requests."""
    return [r for r in await _rows(db, DemandeApprobation, org_id) if r.genre == "REOUVERTURE"]


async def _counter(db, name: str) -> int:
    return (await db.execute(select(Compteur.valeur).where(Compteur.nom == name)
                             .execution_options(**FRESH))).scalar_one_or_none() or 0


def _approved(demandes, **key) -> VueAnnulation:
    (attr, value), = key.items()
    approved = [d for d in demandes if getattr(d, attr) == value and d.statut == "APPROUVEE"]
    assert len(approved) == 1, (key, [(d.statut, d.type_annulation) for d in demandes])
    return approved[0]


async def _four_eyes(db, w: Org) -> tuple[list[Paiement], list[VueAnnulation], list[Versement]]:
    """(a) nothing undone by one person."""
    org_id = w.org.id
    paiements = await _rows(db, Paiement, org_id)
    demandes = await _annulations(db, org_id)
    versements = await _rows(db, Versement, org_id)
    for p in paiements:
        if p.a_un_recu and p.statut in {"ANNULE", "REMBOURSE"}:
            d = _approved(demandes, paiement_id=p.id)
            assert d.decide_par_sub != d.demande_par_sub, p.numero_recu
            assert d.decide_par not in {p.enregistre_par, p.recu_par}, (p.numero_recu, d.decide_par)
            assert (d.type_annulation == "REMBOURSEMENT_PAIEMENT") == (p.statut == "REMBOURSE"), p.numero_recu
    for v in versements:
        if v.statut == "ANNULE" and v.confirme_par:
            d = _approved(demandes, versement_id=v.id)
            assert d.decide_par_sub != d.demande_par_sub and d.decide_par not in {v.cree_par, v.confirme_par}
    by_id = {p.id: p for p in paiements} | {v.id: v for v in versements}
    for d in demandes:
        if d.statut != "APPROUVEE":  # a request not approved has moved nothing
            undone = by_id[d.paiement_id or d.versement_id]
            assert undone.statut in {"VALIDE", "REUSSI"} and d.numero_remboursement is None, d.reference
    reouvertures = await _reouvertures(db, org_id)
    for r in reouvertures:
        if r.statut == "APPROUVEE":
            decision = r.decisions[-1]
            assert decision.decideur_sub != r.demande_par_sub and decision.role != r.role_demandeur, r.id
    lock = await _lock(db, org_id)
    assert lock is None or lock <= datetime.now(UTC).date(), lock
    if w.lock is not None and (lock is None or lock < w.lock):
        assert w.last == ("decider_reouverture", 200), (w.last, w.lock, lock)
        assert any(r.statut == "APPROUVEE" and r.details["date_demandee"] == lock.isoformat()
                   for r in reouvertures), lock
    w.lock = lock
    return paiements, demandes, versements


async def tresor(db, org_id, ecritures: list[Any] | None = None) -> Decimal:
    """The ledger's treasury (class 5): debit minus credit (of the given entries only, when given)."""
    stmt = (select(func.coalesce(func.sum(LigneEcriture.debit), 0) - func.coalesce(func.sum(LigneEcriture.credit), 0))
            .join(CompteComptable, CompteComptable.id == LigneEcriture.compte_id)
            .where(CompteComptable.organisation_id == org_id, CompteComptable.numero_compte.like("5%")))
    if ecritures is not None:
        stmt = stmt.where(LigneEcriture.ecriture_id.in_(ecritures))
    return Decimal((await db.execute(stmt.execution_options(**FRESH))).scalar_one())


async def _par_compte(db, org_id, ecritures: list[Any] | None = None) -> dict[str, Decimal]:
    """Class-5 account → debit minus credit (of the given entries only, when given); zero balances left out."""
    stmt = (select(CompteComptable.numero_compte,
                   func.coalesce(func.sum(LigneEcriture.debit - LigneEcriture.credit), 0))
            .join(LigneEcriture, LigneEcriture.compte_id == CompteComptable.id)
            .where(CompteComptable.organisation_id == org_id, CompteComptable.numero_compte.like("5%"))
            .group_by(CompteComptable.numero_compte))
    if ecritures is not None:
        stmt = stmt.where(LigneEcriture.ecriture_id.in_(ecritures))
    rows = (await db.execute(stmt.execution_options(**FRESH))).all()
    return {numero: Decimal(solde) for numero, solde in rows if Decimal(solde) != 0}


async def _books(db, w: Org, paiements: list[Paiement], versements: list[Versement]) -> None:
    """(b) books = treasury = receipts − payouts ± the manual entries a second person approved, per treasury (the
    cash box 571 for cash, the bank 521 for transfers and payouts); a request never approved moved nothing (its
    requester is never its approver); no cash box below zero."""
    saisies = [d for d in await _rows(db, DemandeApprobation, w.org.id) if d.genre == "ECRITURE"]
    for d in saisies:
        assert (d.statut == "APPROUVEE") == (d.objet_id is not None), d.id
        if d.statut == "APPROUVEE":
            assert d.decisions[-1].decideur_sub != d.demande_par_sub, d.id
    attendu: dict[str, Decimal] = defaultdict(Decimal)
    for p in paiements:
        if p.statut == "VALIDE":
            attendu[COMPTE_METHODE[p.methode]] += p.montant
    for v in versements:
        if v.statut == "REUSSI":
            attendu[COMPTE_VERSEMENT[v.mode]] -= v.montant
    for numero, montant in (await _par_compte(db, w.org.id, [d.objet_id for d in saisies if d.objet_id])).items():
        attendu[numero] += montant
    livres = await _par_compte(db, w.org.id)
    assert livres == {k: v for k, v in attendu.items() if v != 0}, (livres, dict(attendu))
    # No cash box under its floor: whatever the steps, every cash account (57…) stays at or above zero.
    assert all(solde >= 0 for numero, solde in livres.items() if numero.startswith("57")), livres


def _gap_free(numbers: list[str], prefix: str) -> None:
    assert sorted(numbers) == [f"{prefix}-{n:06d}" for n in range(1, len(numbers) + 1)], (prefix, numbers)


async def _series(db, w: Org, paiements: list[Paiement], demandes: list[VueAnnulation]) -> None:
    """(c) every number of every series: valid, cancelled or refunded; no gap, no reuse."""
    year = datetime.now(UTC).year
    code = (await db.execute(select(Organisation.code_serie).where(Organisation.id == w.org.id))).scalar_one()
    receipts = [p.numero_recu for p in paiements if p.a_un_recu]
    _gap_free(receipts, f"REC-{code}-{year}")
    assert await _counter(db, compteur_recus(w.org.id, year)) == len(receipts)
    for p in paiements:
        if p.a_un_recu:
            assert p.statut in {"VALIDE", "ANNULE", "REMBOURSE"} and p.recu_par, p.numero_recu
        else:  # pending or rejected declaration: its own reference, never a receipt number
            assert p.statut in {"EN_ATTENTE", "ANNULE"} and p.numero_recu.startswith("DEC-"), p.numero_recu
    references = [p.numero_recu for p in paiements] + [p.reference_declaration for p in paiements
                                                        if p.reference_declaration and p.a_un_recu]
    assert len(references) == len(set(references)), references
    refunds = [d.numero_remboursement for d in demandes if d.numero_remboursement]
    assert all(d.statut == "APPROUVEE" and d.type_annulation == "REMBOURSEMENT_PAIEMENT"
               for d in demandes if d.numero_remboursement)
    _gap_free(refunds, f"RMB-{code}-{year}")
    per_journal: dict[tuple[Any, int], list[int]] = defaultdict(list)
    for e in await _rows(db, EcritureComptable, w.org.id):
        per_journal[(e.journal_id, e.annee)].append(e.sequence)
    journaux = {j.id: j for j in await _rows(db, JournalComptable, w.org.id)}
    for (journal_id, annee), sequences in per_journal.items():
        assert sorted(sequences) == list(range(1, len(sequences) + 1)), (journal_id, sorted(sequences))
        counter = await _counter(db, compteur_ecriture(journaux[journal_id], annee))
        assert counter == len(sequences), (journaux[journal_id].code, annee, counter, len(sequences))


async def _month_totals(db, w: Org, cloture: ClotureMensuelle) -> dict[Any, tuple[Decimal, Decimal]]:
    rows = (await db.execute(
        select(LigneEcriture.compte_id, func.sum(LigneEcriture.debit), func.sum(LigneEcriture.credit))
        .join(EcritureComptable, EcritureComptable.id == LigneEcriture.ecriture_id)
        .where(EcritureComptable.organisation_id == w.org.id,
               EcritureComptable.date_ecriture >= cloture.date_fin.replace(day=1),
               EcritureComptable.date_ecriture <= cloture.date_fin)
        .group_by(LigneEcriture.compte_id))).all()
    return {compte: (Decimal(d), Decimal(c)) for compte, d, c in rows}


async def _closed_months(db, w: Org) -> None:
    """(d) a closed month's totals never change while the lock covers it (it reopens only by two people)."""
    for cloture in await _rows(db, ClotureMensuelle, w.org.id):
        if w.lock is None or w.lock < cloture.date_fin:
            w.closed.pop(cloture.id, None)  # reopened (checked in (a)): its figures may change
            continue
        totals = await _month_totals(db, w, cloture)
        assert w.closed.setdefault(cloture.id, totals) == totals, (cloture.mois, w.closed[cloture.id], totals)


async def verifier(db, w: Org) -> None:
    paiements, demandes, versements = await _four_eyes(db, w)
    await _books(db, w, paiements, versements)
    await _series(db, w, paiements, demandes)
    await _closed_months(db, w)
