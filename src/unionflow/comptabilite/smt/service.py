"""SYCEBNL système minimal de trésorerie (SMT): the eligibility test and the cash-basis statements, read from the
books (class 5 and the counterparts of the entries that move it).

- Receipts and payments: within each entry that moves class 5, each counterpart account's net is a receipt
  (credit) or a payment (debit) in that account's category (categories.py) — gross, so a Wave fee is a payment
  and not netted off the dues. Entries between class-5 accounts only (transfers, via 585) are neither. By double
  entry, receipts − payments = the change in class 5 over the period.
- Opening balances (journal AN, dated in the year) are part of the opening, not a receipt.
- A treasury's closing (opening + in − out, from its journal) is checked against its class-5 account's balance in
  the trial balance (``concorde``).
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from itertools import groupby
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.etats.encaisse import comptes_encaisse
from unionflow.comptabilite.etats.repository import EtatsRepository, SoldeCompte
from unionflow.comptabilite.etats.schemas import ArreteEtat
from unionflow.comptabilite.produits.comptes import (
    COMPTE_FONDS_AFFECTES,
    COMPTE_REPRISE_FONDS_AFFECTES,
    compte_produit,
    produits_organisation,
)
from unionflow.comptabilite.repository import ComptabiliteRepository, ComptabiliteSystemRepository
from unionflow.comptabilite.smt import schemas as s
from unionflow.comptabilite.smt.categories import LIBELLES, RESSOURCES, Categorie, ComptesRessources
from unionflow.comptabilite.smt.repository import CLASSE_TRESORERIE, LigneCaisse, SmtRepository
from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.configuration.referentiel import referentiel_de
from unionflow.configuration.service import valeurs
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, NotFound, RegleMetier
from unionflow.models.configuration import Referentiel
from unionflow.models.recette import NatureRecette
from unionflow.models.tresorerie import TypeTresorerie

ZERO = Decimal("0.00")
JOURNAL_A_NOUVEAUX = "AN"
SEUIL_TOTAL = "comptabilite.smt.seuil_ressources"
SEUILS_CATEGORIE = {c: f"comptabilite.smt.seuil_{c.value.lower()}" for c in RESSOURCES}


@dataclass
class _Compte:
    """One class-5 account over the year: its treasury (if declared), opening, movements."""

    numero: str
    nom: str
    tresorerie_id: uuid.UUID | None = None
    type_tresorerie: TypeTresorerie | None = None
    ouverture: Decimal = ZERO
    solde_comptable: Decimal = ZERO
    mouvements: list[s.MouvementJournalTresorerie] = field(default_factory=list)


def _net(sc: SoldeCompte) -> Decimal:
    return sc.debit_avant + sc.debit_periode - sc.credit_avant - sc.credit_periode


class SmtService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.compta = ComptabiliteRepository(session, auth)

    async def _entete(self, organisation_id: uuid.UUID, exercice: int | None) -> dict[str, Any]:
        organisation = await self.compta.organisation(organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if not self.compta.can_see_entries(organisation_id):
            raise Forbidden("Les états comptables sont réservés au bureau de l'organisation")
        today = datetime.now(UTC).date()
        annee = exercice or today.year
        if annee > today.year:
            raise RegleMetier(f"exercice: {annee} n'est pas encore ouvert")
        arrete = await ClotureRepository(self.session).arrete(organisation_id, annee)
        return {"organisation_id": organisation.id, "organisation": organisation.nom, "exercice": annee,
                "date_debut": date(annee, 1, 1), "date_fin": min(date(annee, 12, 31), today),
                "devise": organisation.devise, "calcule_le": datetime.now(UTC), "arrete": ArreteEtat.de(arrete)}

    async def _ressources(self, organisation_id: uuid.UUID) -> ComptesRessources:
        cotisations, adhesions = await comptes_encaisse(self.session, organisation_id)
        dons = compte_produit(await produits_organisation(self.session, organisation_id), NatureRecette.DON)
        # An earmarked gift is a gift: received on 165, income on 7925 as it is used (dons/fonds.py).
        return ComptesRessources(cotisations=frozenset(cotisations | adhesions),
                                 dons=frozenset({dons, COMPTE_FONDS_AFFECTES, COMPTE_REPRISE_FONDS_AFFECTES}))

    # -- eligibility --------------------------------------------------------------------------------------------

    async def eligibilite(self, organisation_id: uuid.UUID, exercice: int | None) -> s.EligibiliteSmtResponse:
        entete = await self._entete(organisation_id, exercice)
        comptes = await self._ressources(organisation_id)
        soldes = await EtatsRepository(self.session).soldes(organisation_id, entete["date_debut"],
                                                           entete["date_fin"], sans_cloture=True)
        montants = dict.fromkeys(RESSOURCES, ZERO)
        for sc in soldes:
            if sc.classe == 7:
                categorie = comptes.categorie(sc.numero, sc.classe)
                montants[categorie if categorie in montants else Categorie.AUTRES] += sc.credit_periode \
                    - sc.debit_periode
        seuils = await valeurs(self.session, SEUIL_TOTAL, *SEUILS_CATEGORIE.values())
        lignes = []
        for categorie, montant in montants.items():
            seuil = Decimal(str(seuils[SEUILS_CATEGORIE[categorie]]))
            propre = seuil if seuil > 0 else None
            lignes.append(s.RessourceCategorie(categorie=categorie, libelle=LIBELLES[categorie], montant=montant,
                                               seuil=propre, depasse=propre is not None and montant > propre))
        total = sum(montants.values(), ZERO)
        seuil_total = Decimal(str(seuils[SEUIL_TOTAL]))
        eligible = total <= seuil_total and not any(lg.depasse for lg in lignes)
        referentiel = await referentiel_de(self.session, organisation_id, entete["exercice"])
        alertes = ["Seuils non vérifiés sur le texte de l'Acte uniforme SYCEBNL : paramètres de l'installation "
                   "(comptabilite.smt.*), à confirmer par l'expert-comptable."]
        if referentiel is Referentiel.SYCEBNL_SMT and not eligible:
            alertes.insert(0, "Le système minimal de trésorerie est choisi pour cet exercice alors que les "
                              "ressources dépassent le seuil : le système normal s'impose.")
        return s.EligibiliteSmtResponse(**entete, ressources=lignes, total_ressources=total,
                                        seuil_ressources=seuil_total, eligible=eligible, seuils_verifies=False,
                                        referentiel=referentiel, alertes=alertes)

    # -- cash-basis statements ----------------------------------------------------------------------------------

    async def _comptes(self, organisation_id: uuid.UUID, entete: dict[str, Any]
                       ) -> tuple[dict[str, _Compte], list[LigneCaisse]]:
        """Every class-5 account with a balance or a movement, and every declared treasury, with its journal."""
        debut, fin = entete["date_debut"], entete["date_fin"]
        soldes = [sc for sc in await EtatsRepository(self.session).soldes(organisation_id, debut, fin)
                  if sc.classe == CLASSE_TRESORERIE]
        comptes = {sc.numero: _Compte(sc.numero, sc.libelle, ouverture=sc.debit_avant - sc.credit_avant,
                                      solde_comptable=_net(sc)) for sc in soldes}
        for t in await ComptabiliteSystemRepository(self.session).tresoreries(organisation_id, inactives=True):
            compte = comptes.setdefault(t.numero_compte, _Compte(t.numero_compte, t.nom))
            compte.nom, compte.tresorerie_id, compte.type_tresorerie = t.nom, t.id, TypeTresorerie(t.type_tresorerie)
        lignes = await SmtRepository(self.session).lignes_de_caisse(organisation_id, debut, fin)
        for _, groupe in groupby(lignes, key=lambda lg: lg.ecriture_id):
            _journaliser(comptes, list(groupe))
        return dict(sorted(comptes.items())), lignes

    async def tresorerie(self, organisation_id: uuid.UUID, exercice: int | None) -> s.SituationTresorerieResponse:
        entete = await self._entete(organisation_id, exercice)
        lignes = [_situation(c) for c in (await self._comptes(organisation_id, entete))[0].values()]

        def total(nom: str) -> Decimal:
            return sum((getattr(lg, nom) for lg in lignes), ZERO)

        return s.SituationTresorerieResponse(
            **entete, tresoreries=lignes, total_ouverture=total("ouverture"), total_entrees=total("entrees"),
            total_sorties=total("sorties"), total_cloture=total("cloture"),
            concorde=all(lg.concorde for lg in lignes))

    async def journaux(self, organisation_id: uuid.UUID, exercice: int | None,
                       tresorerie_id: uuid.UUID | None) -> s.JournauxTresorerieResponse:
        entete = await self._entete(organisation_id, exercice)
        comptes = list((await self._comptes(organisation_id, entete))[0].values())
        if tresorerie_id is not None:
            comptes = [c for c in comptes if c.tresorerie_id == tresorerie_id]
            if not comptes:
                raise NotFound("Trésorerie introuvable")
        return s.JournauxTresorerieResponse(**entete, journaux=[_journal(c) for c in comptes])

    async def recettes_depenses(self, organisation_id: uuid.UUID, exercice: int | None
                                ) -> s.RecettesDepensesResponse:
        entete = await self._entete(organisation_id, exercice)
        comptes, lignes = await self._comptes(organisation_id, entete)
        ressources = await self._ressources(organisation_id)
        recettes: dict[tuple[str, str, int], Decimal] = defaultdict(lambda: ZERO)
        depenses: dict[tuple[str, str, int], Decimal] = defaultdict(lambda: ZERO)
        for _, groupe in groupby(lignes, key=lambda lg: lg.ecriture_id):
            for cle, net in _contreparties(list(groupe)).items():
                (recettes if net > 0 else depenses)[cle] += abs(net)
        total_recettes = sum(recettes.values(), ZERO)
        total_depenses = sum(depenses.values(), ZERO)
        situations = [_situation(c) for c in comptes.values()]
        return s.RecettesDepensesResponse(
            **entete, recettes=_rubriques(recettes, ressources), depenses=_rubriques(depenses, ressources),
            total_recettes=total_recettes, total_depenses=total_depenses, solde=total_recettes - total_depenses,
            tresorerie_ouverture=sum((lg.ouverture for lg in situations), ZERO),
            tresorerie_cloture=sum((lg.cloture for lg in situations), ZERO))


def _contreparties(lignes: list[LigneCaisse]) -> dict[tuple[str, str, int], Decimal]:
    """Net credit (+) or debit (−) of each counterpart account of one entry that moves class 5; nothing for the
    opening balances."""
    if lignes[0].code_journal == JOURNAL_A_NOUVEAUX:
        return {}
    nets: dict[tuple[str, str, int], Decimal] = defaultdict(lambda: ZERO)
    for lg in lignes:
        if lg.classe != CLASSE_TRESORERIE:
            nets[(lg.numero_compte, lg.libelle_compte, lg.classe)] += lg.credit - lg.debit
    return {cle: net for cle, net in nets.items() if net != 0}


def _journaliser(comptes: dict[str, _Compte], lignes: list[LigneCaisse]) -> None:
    """One entry's effect on each class-5 account it moves: a line of that treasury's journal, or, for opening
    balances, part of its opening."""
    nets: dict[str, Decimal] = defaultdict(lambda: ZERO)
    libelles: dict[str, str] = {}
    for lg in lignes:
        if lg.classe == CLASSE_TRESORERIE:
            nets[lg.numero_compte] += lg.debit - lg.credit
            libelles.setdefault(lg.numero_compte, lg.libelle)
            comptes.setdefault(lg.numero_compte, _Compte(lg.numero_compte, lg.libelle_compte))
    for numero, net in nets.items():
        compte = comptes[numero]
        if lignes[0].code_journal == JOURNAL_A_NOUVEAUX:
            compte.ouverture += net
            continue
        if net == 0:
            continue
        autres = sorted({lg.numero_compte for lg in lignes if lg.numero_compte != numero})
        solde = (compte.mouvements[-1].solde if compte.mouvements else compte.ouverture) + net
        e = lignes[0]
        compte.mouvements.append(s.MouvementJournalTresorerie(
            date_ecriture=e.date_ecriture, numero_piece=e.numero_piece, code_journal=e.code_journal,
            libelle=libelles[numero], contrepartie=", ".join(autres), entree=max(net, ZERO),
            sortie=max(-net, ZERO), solde=solde))


def _journal(c: _Compte) -> s.JournalTresorerie:
    entrees = sum((m.entree for m in c.mouvements), ZERO)
    sorties = sum((m.sortie for m in c.mouvements), ZERO)
    return s.JournalTresorerie(tresorerie_id=c.tresorerie_id, nom=c.nom, type_tresorerie=c.type_tresorerie,
                               numero_compte=c.numero, solde_ouverture=c.ouverture, mouvements=c.mouvements,
                               total_entrees=entrees, total_sorties=sorties,
                               solde_cloture=c.ouverture + entrees - sorties)


def _situation(c: _Compte) -> s.SituationTresorerie:
    j = _journal(c)
    return s.SituationTresorerie(tresorerie_id=c.tresorerie_id, nom=c.nom, type_tresorerie=c.type_tresorerie,
                                 numero_compte=c.numero, ouverture=c.ouverture, entrees=j.total_entrees,
                                 sorties=j.total_sorties, cloture=j.solde_cloture, solde_comptable=c.solde_comptable,
                                 concorde=j.solde_cloture == c.solde_comptable)


def _rubriques(montants: dict[tuple[str, str, int], Decimal], ressources: ComptesRessources
               ) -> list[s.RubriqueCaisse]:
    par_categorie: dict[Categorie, list[s.PosteCaisse]] = defaultdict(list)
    for (numero, libelle, classe), montant in sorted(montants.items()):
        par_categorie[ressources.categorie(numero, classe)].append(
            s.PosteCaisse(numero_compte=numero, libelle=libelle, montant=montant))
    return [s.RubriqueCaisse(categorie=c, libelle=LIBELLES[c], postes=postes,
                             total=sum((p.montant for p in postes), ZERO))
            for c, postes in _ordonnees(par_categorie.items())]


def _ordonnees(items: Iterable[tuple[Categorie, list[s.PosteCaisse]]]
               ) -> list[tuple[Categorie, list[s.PosteCaisse]]]:
    ordre = list(Categorie)
    return sorted(items, key=lambda item: ordre.index(item[0]))
