"""Accounting statements of an organisation for a period: trial balance, general ledger, journal, balance sheet
and income statement (SYCEBNL presentation: "excédent"/"déficit", "fonds associatifs").

Balance-sheet accounts (classes 1–5) are cumulative from the first entry; the income statement takes the
movements of classes 6–8 in the period, leaving out the year-end closing entries (``CLOTURE`` journal) that
transfer a closed year's result to 131/139 — so the balance sheet of a closed year shows its result in the
fund accounts and the income statement of that year still shows what happened in it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.tresorerie import ANCIENS_MOBILES
from unionflow.comptabilite.etats.repository import ZERO, EtatsRepository, Mouvement, SoldeCompte
from unionflow.comptabilite.etats.schemas import (
    AlerteBilan,
    ArreteEtat,
    BalanceGeneraleResponse,
    BilanResponse,
    CompteGrandLivre,
    CompteResultatResponse,
    EnteteEtat,
    GrandLivreResponse,
    JournalEtatResponse,
    LigneBalance,
    MouvementGrandLivre,
    PosteEtat,
    RubriqueEtat,
    TotauxBalance,
)
from unionflow.comptabilite.pieces.libelles import libelle_ligne, pieces
from unionflow.comptabilite.repository import ComptabiliteRepository, ComptabiliteSystemRepository
from unionflow.comptabilite.service import ecriture_response
from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, NotFound, RegleMetier
from unionflow.core.montants import format_montant
from unionflow.models import Organisation


def _net(s: SoldeCompte) -> Decimal:
    """Debit balance positive, credit balance negative."""
    return s.debit_avant + s.debit_periode - s.credit_avant - s.credit_periode


def _credit_net(s: SoldeCompte) -> Decimal:
    return -_net(s)


def _rubrique(titre: str, postes: Iterable[tuple[SoldeCompte, Decimal]]) -> RubriqueEtat:
    lignes = [PosteEtat(numero_compte=s.numero, libelle=s.libelle, montant=m) for s, m in postes if m != ZERO]
    return RubriqueEtat(rubrique=titre, postes=lignes, total=sum((p.montant for p in lignes), ZERO))


# Class-5 accounts whose credit balance is normal: short-term bank credit (SYSCOHADA 56 "Banques, crédits de
# trésorerie et d'escompte"). Cash, mobile money and bank accounts (57, 552 or a former 5215, 52) in credit are what
# an auditor flags.
CREDITEUR_NORMAL = ("56",)


def alertes_tresorerie(soldes: Iterable[SoldeCompte], devise: str,
                       decouverts: Mapping[str, Decimal] | None = None) -> list[AlerteBilan]:
    """A treasury account with a credit balance: money paid out that the books never saw come in. A bank within
    the overdraft its treasury declares (``decouverts``: account → authorised overdraft) is still listed, as
    authorised, so the auditor sees it and its limit."""
    alertes = []
    for s in soldes:
        solde = _net(s)
        if s.classe != 5 or solde >= ZERO or s.numero.startswith(CREDITEUR_NORMAL):
            continue
        plafond = (decouverts or {}).get(s.numero)
        if plafond is not None and -solde <= plafond:
            alertes.append(AlerteBilan(
                code="DECOUVERT_AUTORISE", numero_compte=s.numero, libelle=s.libelle, solde=solde,
                message=f"Découvert bancaire autorisé : {s.numero} {s.libelle} −{format_montant(-solde, devise)} "
                        f"(plafond déclaré {format_montant(plafond, devise)})"))
            continue
        message = f"Solde créditeur anormal : {s.numero} {s.libelle} −{format_montant(-solde, devise)}"
        if s.numero.startswith("52") and not s.numero.startswith(ANCIENS_MOBILES):
            message += " (découvert bancaire : joindre l'autorisation de la banque)"
        alertes.append(AlerteBilan(code="SOLDE_CREDITEUR_TRESORERIE", numero_compte=s.numero, libelle=s.libelle,
                                   solde=solde, message=message))
    return alertes


def _select(soldes: list[SoldeCompte], keep: Callable[[SoldeCompte], bool],
            amount: Callable[[SoldeCompte], Decimal]) -> list[tuple[SoldeCompte, Decimal]]:
    return [(s, amount(s)) for s in soldes if keep(s)]


class EtatsService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = EtatsRepository(session)
        self.compta = ComptabiliteRepository(session, auth)

    async def _entete(self, organisation_id: uuid.UUID, debut: date | None, fin: date | None
                      ) -> tuple[Organisation, dict[str, Any]]:
        organisation = await self.compta.organisation(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if not self.compta.can_see_entries(organisation_id):
            raise Forbidden("Les états comptables sont réservés au bureau de l'organisation")
        fin = fin or datetime.now(UTC).date()
        if debut is not None and debut > fin:
            raise RegleMetier("dateDebut doit précéder dateFin")
        arrete = None
        if (fin.month, fin.day) == (12, 31) and debut in (None, date(fin.year, 1, 1)):  # a year's statement
            arrete = ArreteEtat.de(await ClotureRepository(self.session).arrete(organisation_id, fin.year))
        return organisation, {"organisation_id": organisation.id, "organisation": organisation.nom,
                              "date_debut": debut, "date_fin": fin, "devise": organisation.devise,
                              "calcule_le": datetime.now(UTC), "arrete": arrete}

    @staticmethod
    def _periode(debut: date | None, fin: date | None) -> tuple[date, date]:
        fin = fin or datetime.now(UTC).date()
        return debut or date(fin.year, 1, 1), fin

    async def balance(self, organisation_id: uuid.UUID, debut: date | None, fin: date | None
                      ) -> BalanceGeneraleResponse:
        debut, fin = self._periode(debut, fin)
        _, entete = await self._entete(organisation_id, debut, fin)
        lignes = []
        for s in await self.repo.soldes(organisation_id, debut, fin):
            ouverture, cloture = s.debit_avant - s.credit_avant, _net(s)
            lignes.append(LigneBalance(
                compte_id=s.compte_id, numero_compte=s.numero, libelle=s.libelle, classe=s.classe,
                debit_ouverture=max(ouverture, ZERO), credit_ouverture=max(-ouverture, ZERO),
                debit_periode=s.debit_periode, credit_periode=s.credit_periode,
                solde_debiteur=max(cloture, ZERO), solde_crediteur=max(-cloture, ZERO)))
        totaux = TotauxBalance(**{name: sum((getattr(ligne, name) for ligne in lignes), ZERO)
                                  for name in TotauxBalance.model_fields})
        equilibree = (totaux.debit_ouverture == totaux.credit_ouverture
                      and totaux.debit_periode == totaux.credit_periode
                      and totaux.solde_debiteur == totaux.solde_crediteur)
        return BalanceGeneraleResponse(**entete, lignes=lignes, totaux=totaux, equilibree=equilibree)

    async def grand_livre(self, organisation_id: uuid.UUID, debut: date | None, fin: date | None,
                          compte_id: uuid.UUID | None) -> GrandLivreResponse:
        debut, fin = self._periode(debut, fin)
        _, entete = await self._entete(organisation_id, debut, fin)
        soldes = {s.compte_id: s for s in await self.repo.soldes(organisation_id, debut, fin)}
        mouvements = await self.repo.mouvements(organisation_id, debut, fin, compte_id)
        payes = await pieces(self.session, organisation_id, (m.paiement_id for m in mouvements))
        # Each account's lines, in the query's order, gathered in one pass (not one scan of every line per account).
        par_compte: dict[uuid.UUID, list[Mouvement]] = {}
        for m in mouvements:
            par_compte.setdefault(m.compte_id, []).append(m)
        comptes = []
        for cid, s in soldes.items():
            if compte_id is not None and cid != compte_id:
                continue
            solde = s.debit_avant - s.credit_avant
            ouverture, lignes = solde, []
            for m in par_compte.get(cid, []):
                solde += m.debit - m.credit
                piece = payes.get(m.paiement_id) if m.paiement_id else None
                lignes.append(MouvementGrandLivre(
                    date_ecriture=m.date_ecriture, numero_piece=m.numero_piece, code_journal=m.code_journal,
                    libelle=libelle_ligne(m.libelle, piece, s.classe), debit=m.debit, credit=m.credit, solde=solde,
                    piece_reference=m.piece_reference, membre=piece.membre if piece else None))
            comptes.append(CompteGrandLivre(compte_id=cid, numero_compte=s.numero, libelle=s.libelle,
                                            solde_ouverture=ouverture, mouvements=lignes,
                                            total_debit=s.debit_periode, total_credit=s.credit_periode,
                                            solde_cloture=solde))
        return GrandLivreResponse(**entete, comptes=comptes)

    async def journal(self, organisation_id: uuid.UUID, debut: date | None, fin: date | None,
                      journal_id: uuid.UUID | None) -> JournalEtatResponse:
        debut, fin = self._periode(debut, fin)
        _, entete = await self._entete(organisation_id, debut, fin)
        ecritures = await self.repo.ecritures(organisation_id, debut, fin, journal_id)
        comptes = await self.compta.comptes_by_ids({lg.compte_id for e in ecritures for lg in e.lignes})
        codes = await self.compta.journal_codes({e.journal_id for e in ecritures})
        reponses = [ecriture_response(e, comptes, codes[e.journal_id]) for e in ecritures]
        payes = await pieces(self.session, organisation_id, (e.paiement_id for e in ecritures))
        for e, r in zip(ecritures, reponses, strict=True):
            piece = payes.get(e.paiement_id) if e.paiement_id else None
            if piece is not None:
                r.libelle = f"{r.libelle} — {piece.membre}"
            for lg in r.lignes:
                if lg.libelle is not None or piece is not None:
                    lg.libelle = libelle_ligne(lg.libelle or lg.libelle_compte, piece,
                                               int(lg.numero_compte[:1]) if lg.numero_compte[:1].isdigit() else 0)
        return JournalEtatResponse(**entete, ecritures=reponses,
                                   total_debit=sum((r.total_debit for r in reponses), ZERO),
                                   total_credit=sum((r.total_credit for r in reponses), ZERO))

    async def bilan(self, organisation_id: uuid.UUID, fin: date | None) -> BilanResponse:
        _, entete = await self._entete(organisation_id, None, fin)
        soldes = await self.repo.soldes(organisation_id, None, entete["date_fin"])

        def classe(*classes: int) -> Callable[[SoldeCompte], bool]:
            return lambda s: s.classe in classes

        actif = [
            _rubrique("Actif immobilisé", _select(soldes, classe(2), _net)),
            _rubrique("Stocks", _select(soldes, classe(3), _net)),
            _rubrique("Créances", _select(soldes, lambda s: s.classe == 4 and _net(s) > 0, _net)),
            _rubrique("Trésorerie-actif", _select(soldes, lambda s: s.classe == 5 and _net(s) > 0, _net)),
        ]
        resultat = -sum((_net(s) for s in soldes if s.classe in (6, 7, 8)), ZERO)
        en_cours = RubriqueEtat(rubrique="Résultat de l'exercice en cours (excédent ou déficit)", postes=[],
                                total=resultat)
        passif = [
            _rubrique("Fonds associatifs, réserves et résultats affectés", _select(soldes, classe(1), _credit_net)),
            en_cours,
            _rubrique("Dettes", _select(soldes, lambda s: s.classe == 4 and _net(s) < 0, _credit_net)),
            _rubrique("Trésorerie-passif", _select(soldes, lambda s: s.classe == 5 and _net(s) < 0, _credit_net)),
        ]
        total_actif = sum((r.total for r in actif), ZERO)
        total_passif = sum((r.total for r in passif), ZERO)
        return BilanResponse(**entete, actif=[r for r in actif if r.postes],
                             passif=[r for r in passif if r.postes or r is en_cours], total_actif=total_actif,
                             total_passif=total_passif, equilibre=total_actif == total_passif,
                             alertes=alertes_tresorerie(soldes, entete["devise"],
                                                        await self._decouverts(organisation_id)))

    async def _decouverts(self, organisation_id: uuid.UUID) -> dict[str, Decimal]:
        """The authorised overdraft of each bank treasury the organisation declares (treasuries)."""
        return {t.numero_compte: t.decouvert_autorise
                for t in await ComptabiliteSystemRepository(self.session).tresoreries(organisation_id)
                if t.decouvert_autorise is not None}

    async def compte_resultat(self, organisation_id: uuid.UUID, debut: date | None, fin: date | None
                              ) -> CompteResultatResponse:
        debut, fin = self._periode(debut, fin)
        _, entete = await self._entete(organisation_id, debut, fin)
        soldes = await self.repo.soldes(organisation_id, debut, fin, sans_cloture=True)

        def mouvement(s: SoldeCompte) -> Decimal:
            return s.debit_periode - s.credit_periode

        charges = [
            _rubrique("Charges des activités", _select(soldes, lambda s: s.classe == 6, mouvement)),
            _rubrique("Charges hors activités ordinaires", _select(
                soldes, lambda s: s.classe == 8 and mouvement(s) > 0, mouvement)),
        ]
        produits = [
            _rubrique("Produits des activités (cotisations, dons, subventions...)", _select(
                soldes, lambda s: s.classe == 7, lambda s: -mouvement(s))),
            _rubrique("Produits hors activités ordinaires", _select(
                soldes, lambda s: s.classe == 8 and mouvement(s) < 0, lambda s: -mouvement(s))),
        ]
        total_charges = sum((r.total for r in charges), ZERO)
        total_produits = sum((r.total for r in produits), ZERO)
        return CompteResultatResponse(**entete, charges=[r for r in charges if r.postes],
                                      produits=[r for r in produits if r.postes], total_charges=total_charges,
                                      total_produits=total_produits, resultat=total_produits - total_charges)


__all__ = ["EnteteEtat", "EtatsService"]
