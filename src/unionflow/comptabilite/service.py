"""Chart of accounts, journals and balanced entries.

Entries are immutable: no update, no delete. A mistake is corrected by posting a reversal entry (same
lines, debit and credit swapped) and then the right one, as SYSCOHADA and every auditor expect.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.produits.repository import CompteProduitRepository
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.schemas import (
    TYPE_PAR_CLASSE,
    CompteComptableResponse,
    CreateCompteComptableRequest,
    CreateEcritureComptableRequest,
    CreateJournalComptableRequest,
    EcritureComptableResponse,
    JournalComptableResponse,
    LigneEcritureResponse,
    UpdateCompteComptableRequest,
)
from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.lot import Lot, defauts
from unionflow.core.numbering import next_value
from unionflow.core.pagination import PageParams
from unionflow.core.permissions import Permission
from unionflow.models import CompteComptable, EcritureComptable, JournalComptable, LigneEcriture

MODULE = "COMPTABILITE"
ZERO = Decimal("0")
CENT = Decimal("0.01")


# The default chart (SYSCOHADA-like) the automatic entries open on first use (comptabilite/ecritures/service.py).
COMPTES_PAR_DEFAUT = {
    "571": "Caisse",
    "521": "Banque",
    # Mobile money: 552 « monnaie électronique : téléphone portable » (comptabilite/ecritures/tresorerie.py,
    # COMPTE_STANDARD); 5215–5217 where an organisation's books already hold them.
    "5521": "Wave",
    "5522": "Orange Money",
    "5523": "Free Money",
    "5215": "Wave",
    "5216": "Orange Money",
    "5217": "Free Money",
    "4191": "Membres, avances reçues",
    "7061": "Cotisations",
    "7062": "Droits d'adhésion",
    # income per kind (comptabilite/produits/comptes.py, the defaults an organisation may change).
    "7063": "Cotisations exceptionnelles",
    "7064": "Cotisations de solidarité",
    "7066": "Participations aux manifestations",
    "7581": "Dons et libéralités reçus",
    # The same kinds in the SYCEBNL numbering new organisations start with (comptabilite/produits/comptes.py).
    "7011": "Cotisations des adhérents : cotisations périodiques",
    "7012": "Cotisations des adhérents : droits d'adhésion",
    "7013": "Cotisations des adhérents : cotisations exceptionnelles",
    "7014": "Cotisations des adhérents : cotisations de solidarité",
    "7041": "Revenus liés à la générosité : dons",
    "7060": "Revenus des manifestations",
    # Earmarked funds as the SYCEBNL Guide d'application books them (application 4, docs/conformite.md S9): a gift
    # for a purpose is credited to 165, and released to 7925 as it is used (dons/fonds.py).
    "165": "Fonds affectés à un projet spécifique",
    "7925": "Reprises de fonds affectés à un projet spécifique",
    "131": "Résultat net : excédent",
    "139": "Résultat net : déficit",
    "6581": "Aides et secours accordés",
    "6582": "Cotisations reversées",
    "6583": "Droits d'adhésion reversés",
    "6588": "Autres charges diverses",
    # SYSCOHADA révisé 631 Frais bancaires → 6317: the fees Wave keeps on each transaction.
    "6317": "Frais sur instruments monnaie électronique",
    # Federation: the quote-part a member organisation pays its federation, on both sides
    # (docs/federation.md); dedicated accounts so that consolidation finds and eliminates them.
    "6584": "Quotes-parts versées à la fédération",
    "7584": "Quotes-parts reçues des organisations membres",
}
JOURNAUX_PAR_DEFAUT = {
    "CAI": ("Journal de caisse", "CAISSE"),
    "BQ": ("Journal de banque", "BANQUE"),
    "MM": ("Journal mobile money", "MOBILE_MONEY"),
    "CLO": ("Journal de clôture", "CLOTURE"),
    # Entries that move no money: the release of an earmarked fund as it is used (dons/fonds.py).
    "OD": ("Journal des opérations diverses", "OPERATIONS_DIVERSES"),
}


def _q(value: Decimal) -> Decimal:
    """Amounts leave as 2-decimal strings on both databases (SQLite hands back what was given)."""
    return value.quantize(CENT)


@dataclass(frozen=True)
class CompteRef:
    """What posting needs of an account, as a plain value (cached across requests, core/reference.py)."""

    id: uuid.UUID
    organisation_id: uuid.UUID
    numero_compte: str
    actif: bool


@dataclass(frozen=True)
class JournalRef:
    id: uuid.UUID
    organisation_id: uuid.UUID
    code: str
    actif: bool


@dataclass(frozen=True)
class Ligne:
    compte: CompteComptable | CompteRef
    debit: Decimal
    credit: Decimal
    libelle: str | None = None


def classe_de(numero: str) -> tuple[int, str]:
    classe = int(numero[0])
    return classe, TYPE_PAR_CLASSE[classe]


async def date_comptable(session: AsyncSession, organisation_id: uuid.UUID, date_ecriture: date, *,
                         strict: bool) -> date:
    """The date an entry may carry given the organisation's lock date (closed periods).

    A manual entry dated in a closed period is refused (``strict``); an automatic posting of a money movement is
    never refused — money received is never turned away — so it is dated the first open day instead."""
    verrou = await ClotureRepository(session).verrou(organisation_id)
    if verrou is None or date_ecriture > verrou.date_verrouillage:
        return date_ecriture
    if strict:
        raise InvalidState(f"Période comptable close jusqu'au {verrou.date_verrouillage:%d/%m/%Y}: aucune écriture "
                           f"ne peut être datée du {date_ecriture:%d/%m/%Y}")
    return verrou.date_verrouillage + timedelta(days=1)


def verifier_ecriture(journal: JournalComptable | JournalRef, lignes: list[Ligne]) -> Decimal:
    """Double-entry rules of an entry; returns its total."""
    if len(lignes) < 2:
        raise RegleMetier("Une écriture comporte au moins deux lignes")
    for i, ligne in enumerate(lignes):
        if ligne.debit < ZERO or ligne.credit < ZERO:
            raise RegleMetier(f"lignes[{i}]: montants négatifs interdits")
        if (ligne.debit > ZERO) == (ligne.credit > ZERO):
            raise RegleMetier(f"lignes[{i}]: une ligne porte soit un débit, soit un crédit (un seul des deux)")
        if ligne.compte.organisation_id != journal.organisation_id:
            raise RegleMetier(f"lignes[{i}]: le compte {ligne.compte.numero_compte} n'appartient pas à "
                               "l'organisation du journal")
        if not ligne.compte.actif:
            raise RegleMetier(f"lignes[{i}]: le compte {ligne.compte.numero_compte} est inactif")
    total_debit = sum((ligne.debit for ligne in lignes), ZERO)
    total_credit = sum((ligne.credit for ligne in lignes), ZERO)
    if total_debit != total_credit:
        raise RegleMetier(f"Écriture déséquilibrée: débit {total_debit} ≠ crédit {total_credit}")
    if total_debit == ZERO:
        raise RegleMetier("Écriture de montant nul")
    if not journal.actif:
        raise InvalidState(f"Le journal {journal.code} est clos")
    return total_debit


def compteur_ecriture(journal: JournalComptable | JournalRef, annee: int) -> str:
    """Gap-free numbering per journal and fiscal year (the counter row is locked until commit)."""
    return f"ECR-{journal.id}-{annee}"


def construire_ecriture(*, journal: JournalComptable | JournalRef, date_ecriture: date, sequence: int,
                        libelle: str, lignes: list[Ligne], total: Decimal, piece_reference: str | None = None,
                        paiement_id: uuid.UUID | None = None, cree_par: str | None = None,
                        ) -> tuple[EcritureComptable, list[LigneEcriture]]:
    """The entry and its lines, checked and numbered, not yet added to any session."""
    annee = date_ecriture.year
    ecriture = EcritureComptable(
        id=uuid.uuid4(), organisation_id=journal.organisation_id, journal_id=journal.id, annee=annee,
        sequence=sequence, numero_piece=f"{journal.code}-{annee}-{sequence:06d}", date_ecriture=date_ecriture,
        libelle=libelle, piece_reference=piece_reference, montant_total=total, paiement_id=paiement_id,
        cree_par=cree_par)
    rows = [LigneEcriture(id=uuid.uuid4(), ecriture_id=ecriture.id, compte_id=lg.compte.id, ordre=i,
                          debit=lg.debit, credit=lg.credit, libelle=lg.libelle) for i, lg in enumerate(lignes)]
    return ecriture, rows


async def poster_ecriture(session: AsyncSession, *, journal: JournalComptable | JournalRef, date_ecriture: date,
                          libelle: str, lignes: list[Ligne], piece_reference: str | None = None,
                          paiement_id: uuid.UUID | None = None, cree_par: str | None = None,
                          strict: bool = False, ignorer_verrou: bool = False) -> EcritureComptable:
    """Check double-entry rules and write the entry with the next number of its journal and year.

    ``strict``: refuse a date in a closed period (manual entries) instead of moving it to the first open day;
    ``ignorer_verrou``: the closing entry of a fiscal year, dated on its last day."""
    total = verifier_ecriture(journal, lignes)
    if not ignorer_verrou:
        date_ecriture = await date_comptable(session, journal.organisation_id, date_ecriture, strict=strict)
    sequence = await next_value(session, compteur_ecriture(journal, date_ecriture.year))
    ecriture, rows = construire_ecriture(
        journal=journal, date_ecriture=date_ecriture, sequence=sequence, libelle=libelle, lignes=lignes,
        total=total, piece_reference=piece_reference, paiement_id=paiement_id, cree_par=cree_par)
    ecriture.lignes = rows
    session.add(ecriture)
    await session.flush()
    return ecriture


@dataclass(frozen=True)
class DansLot:
    """An automatic entry written with the rest of a hot write path in one statement (core/lot.py): the caller
    numbered it (``sequence``, taken with its own counters in one statement) and moved its date out of a closed
    period from cached data; the entry, its lines and its audit entry join ``lot``, which the caller sends."""

    lot: Lot
    sequence: int


async def poster_automatique(session: AsyncSession, auth: AuthContext | None, *,
                             journal: JournalComptable | JournalRef, date_ecriture: date, libelle: str,
                             lignes: list[Ligne], piece_reference: str, description: str, severite: str = "INFO",
                             paiement_id: uuid.UUID | None = None, dans: DansLot | None = None) -> EcritureComptable:
    """An entry the system posts on someone's behalf (a payment validated, a reversal, a payout, Wave's fee, a
    credit applied…) and the audit entry naming who caused it: every automatic entry is written here.

    By default the entry takes the first open day and the journal's next number and is written at once. ``dans``:
    it joins a caller's lot instead (a payment: one statement for every row, docs/architecture.md "Payment write
    path"); nothing is then read or written here, the caller sends the lot."""
    cree_par = auth.actor_name if auth else "systeme"
    if dans is None:
        ecriture = await poster_ecriture(session, journal=journal, date_ecriture=date_ecriture, libelle=libelle[:300],
                                         lignes=lignes, piece_reference=piece_reference[:100], paiement_id=paiement_id,
                                         cree_par=cree_par)
        await audit.record(session, auth, action="CREER", module=MODULE, entite_type="EcritureComptable",
                           entite_id=ecriture.id, organisation_id=ecriture.organisation_id, severite=severite,
                           after=audit.snapshot(ecriture), description=description)
        return ecriture
    ecriture, rows = construire_ecriture(
        journal=journal, date_ecriture=date_ecriture, sequence=dans.sequence, libelle=libelle[:300], lignes=lignes,
        total=verifier_ecriture(journal, lignes), piece_reference=piece_reference[:100], paiement_id=paiement_id,
        cree_par=cree_par)
    dans.lot.ajouter(ecriture, *rows)
    dans.lot.relation(ecriture, "lignes", rows)
    dans.lot.journaliser(audit.entry(auth, action="CREER", module=MODULE, entite_type="EcritureComptable",
                                     entite_id=ecriture.id, organisation_id=ecriture.organisation_id,
                                     severite=severite, after=audit.snapshot(defauts(ecriture)),
                                     description=description))
    return ecriture


def ecriture_response(ecriture: EcritureComptable, comptes: dict[uuid.UUID, CompteComptable],
                      code_journal: str) -> EcritureComptableResponse:
    lignes = [LigneEcritureResponse(id=lg.id, compte_id=lg.compte_id, numero_compte=comptes[lg.compte_id].numero_compte,
                                    libelle_compte=comptes[lg.compte_id].libelle, debit=_q(lg.debit),
                                    credit=_q(lg.credit), libelle=lg.libelle) for lg in ecriture.lignes]
    return EcritureComptableResponse(
        id=ecriture.id, organisation_id=ecriture.organisation_id, journal_id=ecriture.journal_id,
        code_journal=code_journal, numero_piece=ecriture.numero_piece, date_ecriture=ecriture.date_ecriture,
        libelle=ecriture.libelle, piece_reference=ecriture.piece_reference, paiement_id=ecriture.paiement_id,
        total_debit=_q(sum((lg.debit for lg in ecriture.lignes), ZERO)),
        total_credit=_q(sum((lg.credit for lg in ecriture.lignes), ZERO)),
        cree_par=ecriture.cree_par, created_at=ecriture.created_at, lignes=lignes)


class ComptabiliteService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ComptabiliteRepository(session, auth)

    def _check_bookkeeper(self, organisation_id: uuid.UUID) -> None:
        self.auth.require(Permission.COMPTABILITE_ECRIRE, organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation tiennent sa comptabilité")

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        if await self.repo.organisation(organisation_id) is None:
            raise NotFound("Organisation introuvable")

    # Chart of accounts

    async def creer_compte(self, data: CreateCompteComptableRequest) -> CompteComptableResponse:
        await self._organisation(data.organisation_id)
        self._check_bookkeeper(data.organisation_id)
        if not data.actif and data.numero_compte in COMPTES_PAR_DEFAUT:
            raise RegleMetier(f"Le compte {data.numero_compte} reçoit les écritures automatiques des encaissements "
                               "et des versements: il ne peut pas être inactif, sinon l'argent reçu serait refusé")
        if await self.repo.get_compte_by_numero(data.organisation_id, data.numero_compte) is not None:
            raise Conflict(f"Le compte {data.numero_compte} existe déjà dans cette organisation")
        classe, type_compte = classe_de(data.numero_compte)
        compte = CompteComptable(organisation_id=data.organisation_id, numero_compte=data.numero_compte,
                                 libelle=data.libelle, classe=classe, type_compte=type_compte, actif=data.actif,
                                 sous_controle=data.sous_controle)
        await flush_unique(self.session, f"Le compte {data.numero_compte} existe déjà dans cette organisation", compte)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="CompteComptable",
                           entite_id=compte.id, after=audit.snapshot(compte), organisation_id=compte.organisation_id,
                           description=f"Compte {compte.numero_compte} {compte.libelle}")
        return CompteComptableResponse.model_validate(compte)

    async def obtenir_compte(self, compte_id: uuid.UUID) -> CompteComptableResponse:
        compte = await self.repo.compte(compte_id)
        if compte is None:
            raise NotFound("Compte comptable introuvable")
        return CompteComptableResponse.model_validate(compte)

    async def modifier_compte(self, compte_id: uuid.UUID,
                              data: UpdateCompteComptableRequest) -> CompteComptableResponse:
        compte = await self.repo.compte_pour_modification(compte_id)
        if compte is None:
            raise NotFound("Compte comptable introuvable")
        changes = data.model_dump(exclude_unset=True)
        # The president or the organisation's administrator may lift (or set) a control without keeping the books.
        if set(changes) != {"sous_controle"} or not self.auth.can(Permission.FINANCE_DECIDER, compte.organisation_id):
            self._check_bookkeeper(compte.organisation_id)
        if data.actif is False and compte.actif:
            await self._check_desactivable(compte)
        if data.sous_controle is False and compte.sous_controle:
            # Lifting a control is a governance act, not the bookkeeper's: otherwise the person the control is
            # about could lift it, post alone, and mark it again.
            self.auth.require(Permission.FINANCE_DECIDER, compte.organisation_id,
                              "Seuls le président et l'administrateur de l'organisation lèvent le contrôle d'un compte")
        before = audit.snapshot(compte)
        for key, value in changes.items():
            setattr(compte, key, value)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="CompteComptable",
                           entite_id=compte.id, before=before, after=audit.snapshot(compte),
                           organisation_id=compte.organisation_id,
                           description=f"Compte {compte.numero_compte} {compte.libelle}")
        return CompteComptableResponse.model_validate(compte)

    async def _check_desactivable(self, compte: CompteComptable) -> None:
        if compte.numero_compte in COMPTES_PAR_DEFAUT:
            raise RegleMetier(f"Le compte {compte.numero_compte} reçoit les écritures automatiques des encaissements "
                               "et des versements: il ne peut pas être désactivé, sinon l'argent reçu serait refusé")
        natures = [nature for nature, numero in (await CompteProduitRepository(self.session).choix(
            compte.organisation_id)).items() if numero == compte.numero_compte]
        if natures:
            raise RegleMetier(f"Le compte {compte.numero_compte} reçoit les recettes de nature {', '.join(natures)}: "
                              "choisissez d'abord un autre compte (PUT /api/comptabilite/comptes-produits)")
        solde = await self.repo.solde(compte.id)
        if solde != ZERO:
            raise RegleMetier(f"Le compte {compte.numero_compte} a un solde de {_q(solde)}: soldez-le par une "
                               "écriture avant de le désactiver")

    async def lister_comptes(self, organisation_id: uuid.UUID | None,
                           classe: int | None) -> list[CompteComptableResponse]:
        return [CompteComptableResponse.model_validate(c) for c in await self.repo.comptes(organisation_id, classe)]

    # Journals

    async def creer_journal(self, data: CreateJournalComptableRequest) -> JournalComptableResponse:
        await self._organisation(data.organisation_id)
        self._check_bookkeeper(data.organisation_id)
        if await self.repo.journal_by_code(data.organisation_id, data.code) is not None:
            raise Conflict(f"Le journal {data.code} existe déjà dans cette organisation")
        journal = JournalComptable(organisation_id=data.organisation_id, code=data.code, libelle=data.libelle,
                                   type_journal=data.type.value, actif=True)
        await flush_unique(self.session, f"Le journal {data.code} existe déjà dans cette organisation", journal)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="JournalComptable",
                           entite_id=journal.id, after=audit.snapshot(journal), organisation_id=journal.organisation_id,
                           description=f"Journal {journal.code} {journal.libelle}")
        return JournalComptableResponse.model_validate(journal)

    async def _journal(self, journal_id: uuid.UUID) -> JournalComptable:
        journal = await self.repo.journal(journal_id)
        if journal is None:
            raise NotFound("Journal comptable introuvable")
        return journal

    async def obtenir_journal(self, journal_id: uuid.UUID) -> JournalComptableResponse:
        return JournalComptableResponse.model_validate(await self._journal(journal_id))

    async def lister_journaux(self, organisation_id: uuid.UUID | None) -> list[JournalComptableResponse]:
        return [JournalComptableResponse.model_validate(j) for j in await self.repo.journaux(organisation_id)]

    # Entries

    async def creer_ecriture(self, data: CreateEcritureComptableRequest) -> EcritureComptableResponse:
        journal = await self._journal(data.journal_id)
        self._check_bookkeeper(journal.organisation_id)
        comptes = await self.repo.comptes_by_ids({lg.compte_id for lg in data.lignes})
        lignes: list[Ligne] = []
        for i, lg in enumerate(data.lignes):
            compte = comptes.get(lg.compte_id)
            if compte is None:
                raise RegleMetier(f"lignes[{i}]: compte comptable introuvable")
            lignes.append(Ligne(compte=compte, debit=lg.debit or ZERO, credit=lg.credit or ZERO, libelle=lg.libelle))
        ecriture = await poster_ecriture(self.session, journal=journal, date_ecriture=data.date_ecriture,
                                         libelle=data.libelle, lignes=lignes, piece_reference=data.piece_reference,
                                         cree_par=self.auth.actor_name, strict=True)
        response = ecriture_response(ecriture, comptes, journal.code)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="EcritureComptable",
                           entite_id=ecriture.id, organisation_id=ecriture.organisation_id,
                           after=response.model_dump(mode="json", by_alias=True),
                           description=f"Écriture {ecriture.numero_piece} ({ecriture.montant_total})")
        return response

    async def _responses(self, ecritures: list[EcritureComptable]) -> list[EcritureComptableResponse]:
        comptes = await self.repo.comptes_by_ids({lg.compte_id for e in ecritures for lg in e.lignes})
        codes = await self.repo.journal_codes({e.journal_id for e in ecritures})
        return [ecriture_response(e, comptes, codes[e.journal_id]) for e in ecritures]

    async def obtenir_ecriture(self, ecriture_id: uuid.UUID) -> EcritureComptableResponse:
        ecriture = await self.repo.ecriture(ecriture_id)
        if ecriture is None:
            raise NotFound("Écriture comptable introuvable")
        return (await self._responses([ecriture]))[0]

    async def lister_ecritures_du_journal(self, journal_id: uuid.UUID, params: PageParams, date_debut: date | None,
                                          date_fin: date | None) -> tuple[list[EcritureComptableResponse], int]:
        journal = await self._journal(journal_id)
        if not self.repo.can_see_entries(journal.organisation_id):
            raise Forbidden("Les écritures sont réservées au bureau de l'organisation")
        rows, total, _ = await self.repo.ecritures(params, journal_id=journal_id, date_debut=date_debut,
                                                   date_fin=date_fin)
        return await self._responses(rows), total

    async def lister_ecritures_de_organisation(
            self, organisation_id: uuid.UUID, params: PageParams, date_debut: date | None,
            date_fin: date | None) -> tuple[list[EcritureComptableResponse], int]:
        await self._organisation(organisation_id)
        if not self.repo.can_see_entries(organisation_id):
            raise Forbidden("Les écritures sont réservées au bureau de l'organisation")
        rows, total, _ = await self.repo.ecritures(params, organisation_id=organisation_id, date_debut=date_debut,
                                                   date_fin=date_fin)
        return await self._responses(rows), total
