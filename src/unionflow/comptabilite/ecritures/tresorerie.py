"""Entries of the treasuries: accounts and journals of a declared treasury, the two entries of
an internal transfer through 585 "Virements de fonds", and the balance of a treasury's account.

SYSCOHADA books a transfer between two treasuries through 585 in two entries, one in each treasury's journal
(out: debit 585 / credit the source; in: debit the destination / credit 585), so each journal — the cash book,
the bank book — shows its own side and 585 is back to zero once both sides are booked.
"""

from __future__ import annotations

import uuid
from collections.abc import Container
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.comptabilite.service import MODULE, Ligne, classe_de, poster_ecriture
from unionflow.core import audit, reference
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable, Paiement

ZERO = Decimal("0")
COMPTE_VIREMENTS = ("585", "Virements de fonds")
# Treasury type → (journal code, label, journal type): the journals the automatic entries already use.
JOURNAUX_TRESORERIE = {
    "CAISSE": ("CAI", "Journal de caisse", "CAISSE"),
    "BANQUE": ("BQ", "Journal de banque", "BANQUE"),
    "WAVE": ("MM", "Journal mobile money", "MOBILE_MONEY"),
    "ORANGE_MONEY": ("MM", "Journal mobile money", "MOBILE_MONEY"),
    "FREE_MONEY": ("MM", "Journal mobile money", "MOBILE_MONEY"),
}


async def ouvrir_compte(session: AsyncSession, organisation_id: uuid.UUID, numero: str, libelle: str | None,
                        auth: AuthContext | None, *, raison: str = "une trésorerie y est rattachée") -> CompteComptable:
    """The organisation's account ``numero``, reactivated (visibly, with ``raison``) if found inactive, else created
    with ``libelle`` (None: an account only the organisation's chart can give — refused when absent)."""
    books = ComptabiliteSystemRepository(session)
    compte = await books.get_compte_by_numero(organisation_id, numero)
    if compte is not None:
        if not compte.actif:
            compte.actif = True
            await session.flush()
            await audit.record(session, auth, action="REACTIVER", module=MODULE, entite_type="CompteComptable",
                               entite_id=compte.id, organisation_id=organisation_id, severite="WARNING",
                               before={"actif": False}, after={"actif": True},
                               description=f"Compte {numero} réactivé: {raison}")
        return compte
    if libelle is None:
        raise InvalidState(f"Le compte {numero} n'existe pas dans le plan comptable de l'organisation")
    classe, type_compte = classe_de(numero)
    compte = CompteComptable(organisation_id=organisation_id, numero_compte=numero, libelle=libelle[:200],
                             classe=classe, type_compte=type_compte, actif=True)
    # Two first movements of an organisation may race to open the same account: the loser re-reads it.
    if not await books.ajouter_unique(compte):
        found = await books.get_compte_by_numero(organisation_id, numero)
        assert found is not None
        return found
    return compte


async def ouvrir_journal(session: AsyncSession, organisation_id: uuid.UUID, code: str, libelle: str,
                         type_journal: str) -> JournalComptable:
    books = ComptabiliteSystemRepository(session)
    journal = await books.journal_by_code(organisation_id, code)
    if journal is not None:
        return journal
    journal = JournalComptable(organisation_id=organisation_id, code=code, libelle=libelle,
                               type_journal=type_journal, actif=True)
    if not await books.ajouter_unique(journal):
        found = await books.journal_by_code(organisation_id, code)
        assert found is not None
        return found
    return journal


async def journal_tresorerie(session: AsyncSession, organisation_id: uuid.UUID, type_tresorerie: str
                             ) -> JournalComptable:
    code, libelle, type_journal = JOURNAUX_TRESORERIE[type_tresorerie]
    return await ouvrir_journal(session, organisation_id, code, libelle, type_journal)


async def solde_compte(session: AsyncSession, organisation_id: uuid.UUID, numero: str) -> Decimal:
    """Debit minus credit of every line posted to the organisation's account (all years)."""
    return await ComptabiliteSystemRepository(session).solde_numero(organisation_id, numero)


@dataclass(frozen=True)
class CoteVirement:
    """One side of an internal transfer: the treasury's account and its type (which journal books it)."""

    numero_compte: str
    type_tresorerie: str
    nom: str


async def comptabiliser_virement_interne(
        session: AsyncSession, *, organisation_id: uuid.UUID, numero: str, source: CoteVirement,
        destination: CoteVirement, montant: Decimal, date_operation: date, libelle: str,
        auth: AuthContext) -> tuple[EcritureComptable, EcritureComptable]:
    """The two entries of an internal transfer (out of the source's journal, into the destination's), both with
    the transfer's number as piece reference. A date in a closed period is refused (a transfer is not money
    received: it can wait for the right date)."""
    transit = await ouvrir_compte(session, organisation_id, *COMPTE_VIREMENTS, auth)
    compte_source = await ouvrir_compte(session, organisation_id, source.numero_compte, source.nom, auth)
    compte_destination = await ouvrir_compte(session, organisation_id, destination.numero_compte, destination.nom,
                                             auth)
    cree_par = auth.actor_name
    sortie = await poster_ecriture(
        session, journal=await journal_tresorerie(session, organisation_id, source.type_tresorerie),
        date_ecriture=date_operation, libelle=f"Virement {numero} vers {destination.nom}: {libelle}"[:300],
        lignes=[Ligne(transit, debit=montant, credit=ZERO, libelle=f"Virement {numero} en cours"),
                Ligne(compte_source, debit=ZERO, credit=montant, libelle=f"{libelle}"[:300])],
        piece_reference=numero, cree_par=cree_par, strict=True)
    entree = await poster_ecriture(
        session, journal=await journal_tresorerie(session, organisation_id, destination.type_tresorerie),
        date_ecriture=date_operation, libelle=f"Virement {numero} depuis {source.nom}: {libelle}"[:300],
        lignes=[Ligne(compte_destination, debit=montant, credit=ZERO, libelle=f"{libelle}"[:300]),
                Ligne(transit, debit=ZERO, credit=montant, libelle=f"Virement {numero} reçu")],
        piece_reference=numero, cree_par=cree_par, strict=True)
    for ecriture in (sortie, entree):
        await audit.record(session, auth, action="CREER", module=MODULE, entite_type="EcritureComptable",
                           entite_id=ecriture.id, organisation_id=organisation_id, after=audit.snapshot(ecriture),
                           description=f"Comptabilisation du virement interne {numero}")
    return sortie, entree


# Payment method → the type of treasury the money enters (its ``compte_standard`` when the organisation declared
# none of that type).
TYPE_PAR_METHODE = {"ESPECES": "CAISSE", "AUTRE": "CAISSE", "VIREMENT": "BANQUE", "CHEQUE": "BANQUE",
                    "CARTE": "BANQUE", "WAVE": "WAVE", "WAVE_TRANSFERT": "WAVE",
                    "ORANGE_MONEY": "ORANGE_MONEY", "FREE_MONEY": "FREE_MONEY"}
# Payout mode → the type of treasury it leaves when it names none.
TYPE_VERSEMENT = {"WAVE": "WAVE", "MANUEL": "BANQUE"}


def type_de_methode(methode: str) -> str:
    """The type of treasury a payment method's money enters (cash for a method without one)."""
    return TYPE_PAR_METHODE.get(methode, "CAISSE")


@dataclass(frozen=True)
class TresorerieRef:
    """What the payment path needs of an active treasury, as a plain value (cached, core/reference.py)."""

    id: uuid.UUID
    type_tresorerie: str
    numero_compte: str
    par_defaut: bool


async def tresoreries_actives(session: AsyncSession, organisation_id: uuid.UUID) -> tuple[TresorerieRef, ...]:
    async def load() -> tuple[TresorerieRef, ...]:
        rows = sorted(await ComptabiliteSystemRepository(session).tresoreries(organisation_id),
                      key=lambda t: (t.created_at, t.numero_compte))
        return tuple(TresorerieRef(t.id, t.type_tresorerie, t.numero_compte, t.par_defaut) for t in rows)
    return await reference.lire(session, ("tresoreries", organisation_id), load)


async def compte_tresorerie_par_defaut(session: AsyncSession, organisation_id: uuid.UUID, type_tresorerie: str
                                      ) -> str | None:
    """The account of the organisation's default active treasury of a type (None: none declared)."""
    candidates = [t for t in await tresoreries_actives(session, organisation_id)
                  if t.type_tresorerie == type_tresorerie]
    choisie = next((t for t in candidates if t.par_defaut), candidates[0] if candidates else None)
    return choisie.numero_compte if choisie is not None else None


# The account of a type of money while the organisation declared no treasury of that type: the first number, unless
# the organisation's chart already holds one of the former ones. Electronic money is the chart's 552 « instruments de
# monnaie électronique : téléphone portable » (SYSCOHADA révisé and SYCEBNL, docs/conformite.md S4); 5215–5217, where
# UnionFlow first opened Wave, Orange Money and Free Money, are « banques en devises » in both charts: an
# organisation whose books are already there keeps them (docs/decisions.md, « Mobile money on 552 »).
COMPTE_STANDARD: dict[str, tuple[str, ...]] = {
    "CAISSE": ("571",), "BANQUE": ("521",), "WAVE": ("5521", "5215"), "ORANGE_MONEY": ("5522", "5216"),
    "FREE_MONEY": ("5523", "5217")}
ANCIENS_MOBILES = tuple(ancien for numeros in COMPTE_STANDARD.values() for ancien in numeros[1:])


def compte_standard(type_tresorerie: str, ouverts: Container[str]) -> str:
    """The standard account of ``type_tresorerie`` given the numbers ``ouverts`` in the organisation's chart."""
    numero, *anciens = COMPTE_STANDARD[type_tresorerie]
    return next((ancien for ancien in anciens if ancien in ouverts), numero)


async def compte_standard_organisation(session: AsyncSession, organisation_id: uuid.UUID,
                                       type_tresorerie: str) -> str:
    """``compte_standard`` read from the organisation's chart."""
    anciens = list(COMPTE_STANDARD[type_tresorerie][1:])
    if not anciens:  # cash and bank: one number, nothing to read
        return compte_standard(type_tresorerie, ())
    ouverts = {c.numero_compte for c in await ComptabiliteSystemRepository(session).comptes(organisation_id, anciens)}
    return compte_standard(type_tresorerie, ouverts)


async def compte_de_type(session: AsyncSession, organisation_id: uuid.UUID, type_tresorerie: str) -> str:
    """The account the organisation's money of a type is on: its default declared treasury's, else the standard
    one."""
    declaree = await compte_tresorerie_par_defaut(session, organisation_id, type_tresorerie)
    return declaree or await compte_standard_organisation(session, organisation_id, type_tresorerie)


def journal_de_type(type_tresorerie: str) -> str:
    return JOURNAUX_TRESORERIE[type_tresorerie][0]


def tresorerie_du_paiement(tresoreries: tuple[TresorerieRef, ...], paiement: Paiement) -> TresorerieRef | None:
    """The treasury a payment enters: the one it names (still active), else the default active one of its
    method's type (marked default, else the oldest); None when the organisation declared none of that type (the
    method's standard account is debited, the one its default treasury will map to)."""
    if paiement.tresorerie_id is not None:
        named = next((t for t in tresoreries if t.id == paiement.tresorerie_id), None)
        if named is not None:
            return named
    genre = type_de_methode(paiement.methode)
    candidates = [t for t in tresoreries if t.type_tresorerie == genre]
    return next((t for t in candidates if t.par_defaut), candidates[0] if candidates else None)


# Opening balances ("à-nouveaux"): journal AN, the net of the balances against the report à nouveau
# (SYSCOHADA/SYCEBNL 121 créditeur when the opening assets exceed the debts, 129 débiteur otherwise).
JOURNAL_A_NOUVEAUX = ("AN", "Journal des à-nouveaux", "OPERATIONS_DIVERSES")
REPORT_CREDITEUR = ("121", "Report à nouveau créditeur")
REPORT_DEBITEUR = ("129", "Report à nouveau débiteur")


@dataclass(frozen=True)
class SoldeOuverture:
    numero_compte: str
    libelle: str
    montant: Decimal  # debit balance > 0, credit balance < 0


def piece_a_nouveaux(annee: int) -> str:
    return f"AN-{annee}"


async def autres_ecritures_de_l_exercice(session: AsyncSession, organisation_id: uuid.UUID, jour: date
                                         ) -> list[EcritureComptable]:
    """Entries of the fiscal year of ``jour`` (calendar year) other than its opening entry."""
    rows = await ComptabiliteSystemRepository(session).ecritures_entre(
        organisation_id, date(jour.year, 1, 1), date(jour.year, 12, 31))
    return [e for e in rows if e.piece_reference != piece_a_nouveaux(jour.year)]


async def a_nouveaux_existants(session: AsyncSession, organisation_id: uuid.UUID, annee: int
                               ) -> EcritureComptable | None:
    return await ComptabiliteSystemRepository(session).premiere_ecriture_de_piece(organisation_id,
                                                                                  piece_a_nouveaux(annee))


async def comptabiliser_a_nouveaux(session: AsyncSession, *, organisation_id: uuid.UUID, jour: date,
                                   soldes: list[SoldeOuverture], motif: str | None,
                                   auth: AuthContext, cree_par: str) -> EcritureComptable:
    """One balanced entry in journal AN dated ``jour``: each account at its opening balance, the net against the
    report à nouveau (121 or 129). A closed period is refused (strict). ``cree_par``: who typed the balances
    (``auth``, who approved them, is named in the audit line)."""
    lignes: list[Ligne] = []
    for s in soldes:
        compte = await ouvrir_compte(session, organisation_id, s.numero_compte, s.libelle, auth)
        sens = (s.montant, ZERO) if s.montant > ZERO else (ZERO, -s.montant)
        lignes.append(Ligne(compte, debit=sens[0], credit=sens[1], libelle=f"À-nouveau {s.libelle}"[:300]))
    net = sum((s.montant for s in soldes), ZERO)
    if net != ZERO:
        numero, libelle = REPORT_CREDITEUR if net > ZERO else REPORT_DEBITEUR
        report = await ouvrir_compte(session, organisation_id, numero, libelle, auth)
        lignes.append(Ligne(report, debit=-net if net < ZERO else ZERO, credit=net if net > ZERO else ZERO,
                            libelle=libelle))
    journal = await ouvrir_journal(session, organisation_id, *JOURNAL_A_NOUVEAUX)
    ecriture = await poster_ecriture(
        session, journal=journal, date_ecriture=jour, libelle=f"À-nouveaux au {jour:%d/%m/%Y}"
        + (f": {motif}" if motif else ""), lignes=lignes, piece_reference=piece_a_nouveaux(jour.year),
        cree_par=cree_par, strict=True)
    await audit.record(session, auth, action="CREER", module=MODULE, entite_type="EcritureComptable",
                       entite_id=ecriture.id, organisation_id=organisation_id, after=audit.snapshot(ecriture),
                       severite="WARNING",
                       description=f"À-nouveaux de l'exercice {jour.year} au {jour:%d/%m/%Y} saisis par {cree_par}, "
                                   f"approuvés par {auth.actor_name}" + (f" (motif: {motif})" if motif else ""))
    return ecriture
