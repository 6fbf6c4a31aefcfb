"""The entries the system posts by itself, one function per kind of entry:

- a payment validated now: ``comptabiliser_paiement`` (joining the payment's lot: written with the payment in one
  statement, core/lot.py), with ``preparer_comptes_paiement`` / ``date_ecriture_paiement`` giving what it needs;
- the reversal of a cancelled or refunded payment: ``extourner_paiement``;
- a delivered payout: ``comptabiliser_versement``;
- the fee Wave kept on one transaction of its statement: ``comptabiliser_frais_wave``;
- the closing entry of a fiscal year is posted by clotures/exercice/service.py.

Each goes through ``poster_automatique`` (comptabilite/service.py), the payment's with the lot of its write path.

One entry per payment (``ecriture_comptable.paiement_id`` is unique): debit the treasury account of the payment
method, credit each allocation to the income account of its kind (comptabilite/produits/comptes.py: periodic dues,
exceptional and solidarity contributions, adhesion fees; an organisation may choose its own), a donation or an
event fee to its kind's account, and the unallocated remainder of a dues payment to members' advances. Default
accounts and journals are created on first use, SYSCOHADA-like, so an organisation that never opened its books
still gets correct ones.
A delivered payout is booked once: debit the expense of its object (aid, dues or fees passed on, other),
credit the treasury account it left from, so books and treasury agree in both directions.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.tresorerie import (
    TYPE_VERSEMENT,
    compte_de_type,
    compte_standard,
    journal_de_type,
    ouvrir_compte,
    ouvrir_journal,
    tresorerie_du_paiement,
    tresoreries_actives,
    type_de_methode,
)
from unionflow.comptabilite.produits.comptes import LIBELLE_NATURE, compte_produit, produits_organisation
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.comptabilite.service import (
    COMPTES_PAR_DEFAUT,
    JOURNAUX_PAR_DEFAUT,
    CompteRef,
    DansLot,
    JournalRef,
    Ligne,
    poster_automatique,
)
from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.core import reference
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState
from unionflow.core.libelles import METHODE_EN_MOTS
from unionflow.models import (
    CompteComptable,
    EcritureComptable,
    JournalComptable,
    Paiement,
    PaiementAllocation,
    Versement,
)
from unionflow.models.recette import NatureRecette
from unionflow.models.versement import StatutVersement

ZERO = Decimal("0")

# Payout: object → expense account (its treasury: ``TYPE_VERSEMENT`` of its mode, account ``compte_de_type``).
CHARGE_VERSEMENT = {"AIDE": "6581", "COTISATIONS": "6582", "ADHESIONS": "6583", "AUTRE": "6588",
                    "QUOTE_PART": "6584"}


async def compte_par_defaut(session: AsyncSession, organisation_id: uuid.UUID, numero: str,
                            auth: AuthContext | None = None) -> CompteComptable:
    """The organisation's account ``numero`` for an automatic entry: opened from the default chart on first use.
    Money received is never refused: a default account found inactive (created so before the rule that forbids
    it) is reactivated, visibly, rather than blocking the collection."""
    return await ouvrir_compte(session, organisation_id, numero, COMPTES_PAR_DEFAUT.get(numero), auth,
                               raison="il reçoit les écritures automatiques")


async def journal_par_defaut(session: AsyncSession, organisation_id: uuid.UUID, code: str) -> JournalComptable:
    return await ouvrir_journal(session, organisation_id, code, *JOURNAUX_PAR_DEFAUT[code])


@dataclass(frozen=True)
class ComptesPaiement:
    """What booking a payment reads of its organisation's books: cached per worker (core/reference.py)."""

    comptes: dict[str, CompteRef]
    journal: JournalRef
    verrou: date | None
    # the organisation's income account per kind (its choices only) and each allocation's kind.
    produits: Mapping[str, str] = field(default_factory=dict)
    natures: Mapping[uuid.UUID, str] = field(default_factory=dict)
    # the class-5 account of the treasury the money enters (None: the method's standard account).
    numero_tresorerie: str | None = None
    # The declared treasury the money enters (None: none declared for the method); the caller records it on the
    # payment, this lookup writes nothing.
    tresorerie_id: uuid.UUID | None = None


def _repartition(paiement: Paiement, allocations: list[PaiementAllocation], produits: Mapping[str, str] | None = None,
                 natures: Mapping[uuid.UUID, str] | None = None) -> list[tuple[str, Decimal, str]]:
    """The credit lines: each allocation to the income account of its kind (``natures``: allocation id → kind,
    comptabilite/produits/comptes.py), the rest to the payment's own kind (a donation, an event fee) or, for a dues
    payment, to members' advances (4191). One line per account."""
    produits, natures = produits or {}, natures or {}
    lignes: dict[str, tuple[Decimal, str]] = {}

    def crediter(numero: str, montant: Decimal, libelle: str) -> None:
        before, libelle_avant = lignes.get(numero, (ZERO, ""))
        if libelle_avant and libelle not in libelle_avant:
            libelle = f"{libelle_avant} et {libelle[0].lower()}{libelle[1:]}"
        lignes[numero] = (before + montant, libelle)

    for allocation in allocations:
        nature = natures.get(allocation.id) or (
            NatureRecette.ADHESION if allocation.adhesion_id is not None else NatureRecette.COTISATION)
        crediter(compte_produit(produits, nature), allocation.montant, LIBELLE_NATURE[NatureRecette(nature)])
    reste = paiement.montant - sum((a.montant for a in allocations), ZERO)
    if reste > ZERO:
        if paiement.nature:
            crediter(compte_produit(produits, paiement.nature), reste, LIBELLE_NATURE[NatureRecette(paiement.nature)])
        else:
            crediter("4191", reste, "Trop-perçu en attente d'affectation")
    return [(numero, montant, libelle) for numero, (montant, libelle) in lignes.items() if montant > ZERO]


async def preparer_comptes_paiement(session: AsyncSession, paiement: Paiement, allocations: list[PaiementAllocation],
                           auth: AuthContext | None = None,
                           natures: Mapping[uuid.UUID, str] | None = None,
                           compte_nature: str | None = None) -> ComptesPaiement:
    """The accounts, journal and lock date a payment's entry needs, and the treasury the money enters: not a pure
    read (hence its name), it may open an account or a journal. Read from
    the worker's cache when they are all there and active; otherwise through ``compte_par_defaut`` /
    ``journal_par_defaut``, which open or reactivate them (a change of reference data: that transaction then
    bypasses the cache). ``natures``: each allocation's kind of income (default: dues COTISATION, adhesion
    ADHESION). ``compte_nature``: the account the payment's own kind is credited to instead of its income account
    (an earmarked gift: the fund account). The payment itself is not changed: the caller records ``tresorerie_id``
    on it."""
    org = paiement.organisation_id
    genre = type_de_methode(paiement.methode)
    code_journal = journal_de_type(genre)
    produits = await produits_organisation(session, org)
    if compte_nature is not None and paiement.nature:
        produits = {**produits, paiement.nature: compte_nature}
    tresoreries = await tresoreries_actives(session, org)
    tresorerie = tresorerie_du_paiement(tresoreries, paiement)
    credits = [numero for numero, _, _ in _repartition(paiement, allocations, produits, natures)]

    books = ComptabiliteSystemRepository(session)

    async def load_comptes() -> dict[str, CompteRef]:
        numeros = [*COMPTES_PAR_DEFAUT, *(t.numero_compte for t in tresoreries)]
        return {c.numero_compte: CompteRef(c.id, c.organisation_id, c.numero_compte, c.actif)
                for c in await books.comptes(org, [*numeros, *produits.values()])}

    async def load_journaux() -> dict[str, JournalRef]:
        return {j.code: JournalRef(j.id, j.organisation_id, j.code, j.actif) for j in await books.journaux(org)}

    async def load_verrou() -> date | None:
        verrou = await ClotureRepository(session).verrou(org)
        return verrou.date_verrouillage if verrou is not None else None

    def debite(comptes: Mapping[str, CompteRef]) -> str:
        # The payment's entry debits the account of the treasury it enters; without a declared one, the standard
        # account of its type in this chart (a former 5215 kept where it is open).
        return tresorerie.numero_compte if tresorerie is not None else compte_standard(genre, comptes)

    comptes = await reference.lire(session, ("comptes", org), load_comptes)
    numero_tresorerie = debite(comptes)
    needed = [numero_tresorerie, *credits]
    if any(numero not in comptes or not comptes[numero].actif for numero in needed):
        # Opened or reactivated since it was cached (an account being opened changes no version).
        comptes = await reference.rafraichir(session, ("comptes", org), load_comptes)
        numero_tresorerie = debite(comptes)
        needed = [numero_tresorerie, *credits]
    comptes = dict(comptes)
    for numero in needed:
        compte = comptes.get(numero)
        if compte is None or not compte.actif:
            found = await compte_par_defaut(session, org, numero, auth)
            comptes[numero] = CompteRef(found.id, found.organisation_id, found.numero_compte, found.actif)
    journal = (await reference.lire(session, ("journaux", org), load_journaux)).get(code_journal)
    if journal is None:
        journal = (await reference.rafraichir(session, ("journaux", org), load_journaux)).get(code_journal)
    if journal is None:
        found_journal = await journal_par_defaut(session, org, code_journal)
        journal = JournalRef(found_journal.id, found_journal.organisation_id, found_journal.code,
                             found_journal.actif)
    verrou = await reference.lire(session, ("verrou", org), load_verrou)
    return ComptesPaiement(comptes, journal, verrou, produits, dict(natures or {}), numero_tresorerie,
                           tresorerie.id if tresorerie is not None else None)


def date_ecriture_paiement(refs: ComptesPaiement, paiement: Paiement) -> date:
    """The payment's date, moved to the first open day when its period is closed (money is never refused)."""
    wanted = (paiement.date_paiement or paiement.created_at).date()
    return wanted if refs.verrou is None or wanted > refs.verrou else refs.verrou + timedelta(days=1)


async def comptabiliser_paiement(session: AsyncSession, refs: ComptesPaiement, paiement: Paiement,
                                 allocations: list[PaiementAllocation], date_ecriture: date, dans: DansLot,
                                 auth: AuthContext | None = None) -> EcritureComptable:
    """Book a payment being validated now (it has none: it was new or pending): debit its treasury, credit each
    allocation's income (``_repartition``). The entry joins the payment's lot (``dans``), numbered by the caller."""
    assert refs.numero_tresorerie is not None, "preparer_comptes_paiement names the treasury account"
    lignes = [Ligne(refs.comptes[refs.numero_tresorerie], debit=paiement.montant, credit=ZERO,
                    libelle=f"Reçu {paiement.numero_recu} ({METHODE_EN_MOTS.get(paiement.methode, paiement.methode)})")]
    lignes += [Ligne(refs.comptes[numero], debit=ZERO, credit=montant, libelle=libelle)
               for numero, montant, libelle in _repartition(paiement, allocations, refs.produits, refs.natures)]
    return await poster_automatique(
        session, auth, journal=refs.journal, date_ecriture=date_ecriture,
        libelle=f"Encaissement {paiement.numero_recu}", lignes=lignes, piece_reference=paiement.numero_recu,
        paiement_id=paiement.id, dans=dans,
        description=f"Comptabilisation du paiement {paiement.numero_recu}")


async def extourner_paiement(session: AsyncSession, paiement: Paiement, motif: str,
                             auth: AuthContext | None = None) -> EcritureComptable | None:
    """Book the reversal of a cancelled or refunded payment: the mirror of its entry (debits and credits
    swapped), dated today, so the books keep both movements instead of an edited history."""
    books = ComptabiliteSystemRepository(session)
    original = await books.ecriture_du_paiement(paiement.id)
    if original is None:
        return None
    lignes = [Ligne(compte, debit=ligne.credit, credit=ligne.debit, libelle=f"Extourne: {ligne.libelle or ''}")
              for ligne, compte in await books.lignes_avec_comptes(original.id)]
    journal = await books.journal(original.journal_id)
    assert journal is not None
    return await poster_automatique(
        session, auth, journal=journal, date_ecriture=datetime.now(UTC).date(),
        libelle=f"Extourne {paiement.numero_recu} ({paiement.statut}): {motif}", lignes=lignes,
        piece_reference=f"EXT-{paiement.numero_recu}", severite="WARNING",
        description=f"Extourne du paiement {paiement.numero_recu}")


async def comptabiliser_versement(session: AsyncSession, versement: Versement, auth: AuthContext | None = None,
                                  *, tresorerie: tuple[str, str] | None = None) -> EcritureComptable:
    """Book a delivered payout (REUSSI): debit the expense of its object (or the counterpart account chosen at its
    creation, ``versement.compte_charge``), credit the treasury it left from (``tresorerie``: its account and
    journal code; by default the account of its mode). Called once, on the transition to REUSSI under
    the payout's row lock; the piece reference is the payout number, so a second call returns the entry already
    booked."""
    if versement.statut != StatutVersement.REUSSI:
        raise InvalidState(f"Seul un versement réussi est comptabilisé (statut: {versement.statut})")
    org = versement.organisation_id
    existing = await ComptabiliteSystemRepository(session).premiere_ecriture_de_piece(org, versement.numero)
    if existing is not None:
        return existing
    if tresorerie is None:
        genre = TYPE_VERSEMENT.get(versement.mode, "BANQUE")
        tresorerie = (await compte_de_type(session, org, genre), journal_de_type(genre))
    numero_tresorerie, code_journal = tresorerie
    charge = versement.compte_charge or CHARGE_VERSEMENT.get(versement.objet_type, CHARGE_VERSEMENT["AUTRE"])
    lignes = [
        Ligne(await compte_par_defaut(session, org, charge, auth), debit=versement.montant, credit=ZERO,
              libelle=f"{versement.beneficiaire_nom}: {versement.motif}"[:300]),
        Ligne(await compte_par_defaut(session, org, numero_tresorerie, auth), debit=ZERO, credit=versement.montant,
              libelle=f"Versement {versement.numero} ({versement.mode})"),
    ]
    return await poster_automatique(
        session, auth, journal=await journal_par_defaut(session, org, code_journal),
        date_ecriture=(versement.date_execution or datetime.now(UTC)).date(),
        libelle=f"Versement {versement.numero}: {versement.motif}", lignes=lignes, piece_reference=versement.numero,
        description=f"Comptabilisation du versement {versement.numero}")


# Wave's fees: SYSCOHADA révisé 6317 "Frais sur instruments monnaie électronique" (under 631 Frais
# bancaires), against the Wave treasury account.
CHARGE_FRAIS_WAVE = "6317"


async def comptabiliser_frais_wave(session: AsyncSession, *, organisation_id: uuid.UUID, transaction_id: str,
                                   frais: Decimal, date_operation: date, libelle: str,
                                   auth: AuthContext | None = None) -> EcritureComptable:
    """Book the fee Wave kept on one transaction of its statement: debit 6317, credit the Wave account (a fee Wave
    gives back, negative, is booked the other way). The piece reference names the Wave transaction, so booking the
    same transaction again returns the entry already booked."""
    if frais == ZERO:
        raise InvalidState("Aucun frais à comptabiliser")
    piece = f"FRAIS-WAVE-{transaction_id}"[:100]
    existing = await ComptabiliteSystemRepository(session).premiere_ecriture_de_piece(organisation_id, piece)
    if existing is not None:
        return existing
    # The organisation's Wave treasury when it declared one, else the standard Wave account.
    numero_tresorerie, code_journal = await compte_de_type(session, organisation_id, "WAVE"), journal_de_type("WAVE")
    charge = await compte_par_defaut(session, organisation_id, CHARGE_FRAIS_WAVE, auth)
    tresorerie = await compte_par_defaut(session, organisation_id, numero_tresorerie, auth)
    montant = abs(frais)
    debit, credit = (charge, tresorerie) if frais > ZERO else (tresorerie, charge)
    lignes = [Ligne(debit, debit=montant, credit=ZERO, libelle=libelle[:300]),
              Ligne(credit, debit=ZERO, credit=montant, libelle=f"Wave {transaction_id}"[:300])]
    return await poster_automatique(
        session, auth, journal=await journal_par_defaut(session, organisation_id, code_journal),
        date_ecriture=date_operation, libelle=f"Frais Wave {transaction_id}: {libelle}", lignes=lignes,
        piece_reference=piece, description=f"Frais Wave de la transaction {transaction_id}: {frais}")


async def contrepasser(session: AsyncSession, original: EcritureComptable, libelle: str, piece: str,
                       auth: AuthContext | None) -> EcritureComptable:
    """The mirror of ``original`` (debits and credits swapped), dated today in the same journal: the undoing of a
    delivered payout or of a manual entry, approved by a second person (paiements/annulations/service.py)."""
    books = ComptabiliteSystemRepository(session)
    lignes = [Ligne(compte, debit=ligne.credit, credit=ligne.debit, libelle=f"Contrepassation: {ligne.libelle or ''}"
                    [:300]) for ligne, compte in await books.lignes_avec_comptes(original.id)]
    journal = await books.journal(original.journal_id)
    assert journal is not None
    return await poster_automatique(session, auth, journal=journal, date_ecriture=datetime.now(UTC).date(),
                                    libelle=libelle, lignes=lignes, piece_reference=piece, severite="WARNING",
                                    description=f"Contrepassation de {original.numero_piece}")


async def extourner_versement(session: AsyncSession, versement: Versement, motif: str,
                              auth: AuthContext | None) -> EcritureComptable | None:
    """Book the cancellation of a delivered payout: the mirror of its entry (the money is back in the treasury)."""
    original = await ComptabiliteSystemRepository(session).premiere_ecriture_de_piece(versement.organisation_id,
                                                                                      versement.numero)
    if original is None:
        return None
    return await contrepasser(session, original, f"Annulation du versement {versement.numero}: {motif}",
                              f"ANN-{versement.numero}", auth)
