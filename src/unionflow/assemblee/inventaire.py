"""Livre d'inventaire of an organisation at the end of a year: every balance-sheet item of the SYCEBNL bilan of
that year, account by account, with the detail the books and the registers hold — each treasury of a class-5
account, each member's credit (4191), each fund of the register of donations — and, apart, what the organisation
follows outside its accounts at that date (dues fallen due and unpaid: dues are income when paid, docs/
comptabilite-lcbft.md; earmarked funds of the register, with no year-end entry yet, docs/conformite.md S9).

The items and totals are the bilan's (``SycebnlService.bilan``, column N): the inventory ties to it by
construction, and a detail that does not add up to its account says so (``detailsConcordent``)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.assemblee.schemas import (
    CompteInventaire,
    DetailInventaire,
    InventaireResponse,
    RubriqueInventaire,
    SectionHorsBilan,
)
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.comptabilite.sycebnl.schemas import RubriqueSycebnl
from unionflow.comptabilite.sycebnl.service import SycebnlService
from unionflow.core.auth import AuthContext
from unionflow.cotisations.repository import BilanCotisationsRepository
from unionflow.dons.repository import FondsDedieRepository
from unionflow.membres.repository import MembreRepository
from unionflow.paiements.avoirs.repository import MouvementAvoirRepository
from unionflow.paiements.ports_repository import PayeDepuisRepository

ZERO = Decimal("0")
AVANCES_MEMBRES = "4191"
LIBELLES_TRESORERIE = {"CAISSE": "caisse", "BANQUE": "banque", "WAVE": "Wave", "ORANGE_MONEY": "Orange Money",
                       "FREE_MONEY": "Free Money"}


class InventaireService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def inventaire(self, organisation_id: uuid.UUID, annee: int) -> InventaireResponse:
        bilan = await SycebnlService(self.session, self.auth).bilan(organisation_id, annee)
        jour = bilan.date_fin
        fin = datetime.combine(jour + timedelta(days=1), time(), UTC)  # movements recorded up to that day
        details, tresoreries = await self._avoirs(organisation_id, fin), await self._tresoreries(organisation_id)
        actif = [self._rubrique(r, details, tresoreries) for r in bilan.actif]
        passif = [self._rubrique(r, details, tresoreries) for r in bilan.passif]
        actif, passif = [r for r in actif if r.comptes], [r for r in passif if r.comptes]
        return InventaireResponse(
            organisation_id=bilan.organisation_id, organisation=bilan.organisation, exercice=annee,
            date_inventaire=jour, devise=bilan.devise, calcule_le=bilan.calcule_le, actif=actif, passif=passif,
            total_actif=bilan.total_actif_n, total_passif=bilan.total_passif_n,
            equilibre=bilan.total_actif_n == bilan.total_passif_n,
            hors_bilan=[await self._impayes(organisation_id, jour, fin), await self._fonds(organisation_id, fin)],
            arrete=bilan.arrete)

    @staticmethod
    def _rubrique(r: RubriqueSycebnl, details: dict[str, list[DetailInventaire]],
                  tresoreries: dict[str, list[str]]) -> RubriqueInventaire:
        comptes = []
        for p in r.postes:
            if p.montant_n == ZERO:
                continue  # an item of N−1 only: nothing to count at this year end
            numero = p.numero_compte or ""
            lignes = details.get(numero)
            # A treasury has its own class-5 account: its balance is the account's, so it names the line.
            libelle = " — ".join([p.libelle, *tresoreries.get(numero, [])])
            comptes.append(CompteInventaire(
                numero_compte=p.numero_compte, libelle=libelle, solde=p.montant_n, details=lignes or [],
                details_concordent=None if lignes is None else sum((d.montant for d in lignes), ZERO) == p.montant_n))
        return RubriqueInventaire(code=r.code, rubrique=r.rubrique, comptes=comptes,
                                  total=sum((c.solde for c in comptes), ZERO))

    async def _tresoreries(self, organisation_id: uuid.UUID) -> dict[str, list[str]]:
        noms: dict[str, list[str]] = {}
        for t in await ComptabiliteSystemRepository(self.session).tresoreries(organisation_id, inactives=True):
            genre = LIBELLES_TRESORERIE.get(t.type_tresorerie, t.type_tresorerie)
            noms.setdefault(t.numero_compte, []).append(f"trésorerie « {t.nom} » ({genre})")
        return noms

    async def _avoirs(self, organisation_id: uuid.UUID, fin: datetime) -> dict[str, list[DetailInventaire]]:
        """Each member's credit recorded before ``fin``: the detail of 4191 (a credit balance, shown positive
        under Dettes)."""
        avoirs = await MouvementAvoirRepository(self.session).soldes_au(organisation_id, fin)
        noms = await MembreRepository(self.session, self.auth).noms({m for m, _ in avoirs})
        return {AVANCES_MEMBRES: sorted((DetailInventaire(libelle=noms.get(m, str(m)), montant=montant)
                                         for m, montant in avoirs), key=lambda d: d.libelle)}

    async def _impayes(self, organisation_id: uuid.UUID, jour: date, fin: datetime) -> SectionHorsBilan:
        payes_depuis = await PayeDepuisRepository(self.session).par_cotisation(organisation_id, fin)
        impayes = await BilanCotisationsRepository(self.session).impayes_par_membre(organisation_id, jour,
                                                                                   payes_depuis)
        noms = await MembreRepository(self.session, self.auth).noms({m for m, _, _ in impayes})
        lignes = sorted((DetailInventaire(libelle=noms.get(m, str(m)), nombre=n, montant=reste)
                         for m, n, reste in impayes), key=lambda d: d.libelle)
        return SectionHorsBilan(
            titre="Cotisations échues impayées (créances sur les membres, non comptabilisées)",
            commentaire=f"Cotisations échues au plus tard le {jour:%d/%m/%Y} et non soldées ce jour-là, au reste "
                        "dû à cette date (les paiements et avoirs imputés depuis sont réintégrés): les cotisations "
                        "sont enregistrées en produits à l'encaissement, elles ne figurent pas au bilan.",
            details=lignes, total=sum((d.montant for d in lignes), ZERO))

    async def _fonds(self, organisation_id: uuid.UUID, fin: datetime) -> SectionHorsBilan:
        repo = FondsDedieRepository(self.session)
        lignes = []
        for f in await repo.de(organisation_id):
            solde = await repo.solde(f.id, avant=fin)
            if solde != ZERO:
                lignes.append(DetailInventaire(libelle=f.objet, montant=solde))
        return SectionHorsBilan(
            titre="Fonds dédiés du registre des dons (ressources affectées non employées)",
            commentaire="Solde de chaque fonds à la date de l'inventaire (dons reçus pour l'objet moins emplois "
                        "affectés); aucune écriture de fin d'exercice ne les porte encore au compte de fonds "
                        "dédiés.",
            details=lignes, total=sum((d.montant for d in lignes), ZERO))
