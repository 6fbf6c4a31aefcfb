"""Opening balances ("à-nouveaux") of an organisation that starts in UnionFlow mid-year: one
balanced entry in journal AN dated the start date, each treasury and balance-sheet account at its balance, the net
against the report à nouveau (comptabilite/ecritures_tresorerie.py). Once per organisation and fiscal year; only
while the year has no other entry, unless a reason is given (audited)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures_tresorerie import (
    SoldeOuverture,
    a_nouveaux_existants,
    autres_ecritures_de_l_exercice,
    comptabiliser_a_nouveaux,
)
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models.tresorerie import TypeTresorerie
from unionflow.tresoreries.repository import TresorerieSystemRepository
from unionflow.tresoreries.schemas import ANouveauxResponse, CreateANouveauxRequest, LigneANouveauxResponse

ZERO = Decimal("0")


def _xof(montant: Decimal) -> str:
    return f"{montant:,.2f}".replace(",", " ")


class ANouveauxService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def _soldes_tresoreries(self, data: CreateANouveauxRequest) -> list[SoldeOuverture]:
        soldes = []
        repo = TresorerieSystemRepository(self.session)
        for i, ligne in enumerate(data.tresoreries):
            tresorerie = await repo.get(ligne.tresorerie_id)
            if tresorerie is None or tresorerie.organisation_id != data.organisation_id:
                raise NotFound(f"tresoreries[{i}]: trésorerie introuvable dans cette organisation")
            plancher = ZERO if tresorerie.type_tresorerie == TypeTresorerie.CAISSE else None
            if tresorerie.type_tresorerie == TypeTresorerie.BANQUE and tresorerie.decouvert_autorise is not None:
                plancher = -tresorerie.decouvert_autorise
            if plancher is not None and ligne.montant < plancher:
                raise RegleMetier(f"tresoreries[{i}]: « {tresorerie.nom} » ne peut pas ouvrir à "
                                  f"{_xof(ligne.montant)} (minimum {_xof(plancher)})")
            soldes.append(SoldeOuverture(tresorerie.numero_compte, tresorerie.nom, ligne.montant))
        return soldes

    async def _soldes_comptes(self, data: CreateANouveauxRequest) -> list[SoldeOuverture]:
        soldes = []
        books = ComptabiliteSystemRepository(self.session)
        for i, ligne in enumerate(data.comptes):
            compte = await books.get_compte_by_numero(data.organisation_id, ligne.numero_compte)
            if compte is None or not compte.actif:
                raise RegleMetier(f"comptes[{i}]: le compte {ligne.numero_compte} n'existe pas ou est inactif dans le "
                                  "plan comptable de l'organisation")
            soldes.append(SoldeOuverture(compte.numero_compte, compte.libelle, ligne.montant))
        return soldes

    async def saisir(self, data: CreateANouveauxRequest) -> ANouveauxResponse:
        if not staff_sees(self.auth, data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.TRESORERIE_GERER, data.organisation_id,
                          "Seule la trésorerie ou l'administration de l'organisation saisit les à-nouveaux")
        soldes = [s for s in await self._soldes_tresoreries(data) + await self._soldes_comptes(data)
                  if s.montant != ZERO]
        if not soldes:
            raise RegleMetier("Aucun solde d'ouverture non nul à saisir")
        numeros = [s.numero_compte for s in soldes]
        if len(set(numeros)) != len(numeros):
            raise RegleMetier("Un même compte figure deux fois dans les à-nouveaux")
        existant = await a_nouveaux_existants(self.session, data.organisation_id, data.date_debut.year)
        if existant is not None:
            raise Conflict(f"Les à-nouveaux de l'exercice {data.date_debut.year} sont déjà saisis (pièce "
                           f"{existant.numero_piece} du {existant.date_ecriture:%d/%m/%Y}); corrigez-les par "
                           "contrepassation")
        autres = await autres_ecritures_de_l_exercice(self.session, data.organisation_id, data.date_debut)
        if autres and not data.motif:
            raise InvalidState(f"L'exercice {data.date_debut.year} compte déjà {len(autres)} écriture(s) (la "
                               f"première du {autres[0].date_ecriture:%d/%m/%Y}): indiquez le motif de ces "
                               "à-nouveaux tardifs")
        ecriture = await comptabiliser_a_nouveaux(self.session, organisation_id=data.organisation_id,
                                                  jour=data.date_debut, soldes=soldes, motif=data.motif,
                                                  auth=self.auth)
        comptes = {c.id: c.numero_compte for c in await ComptabiliteSystemRepository(self.session).comptes(
            data.organisation_id, [*numeros, "121", "129"])}
        return ANouveauxResponse(
            ecriture_id=ecriture.id, organisation_id=data.organisation_id, numero_piece=ecriture.numero_piece,
            date_ecriture=ecriture.date_ecriture, montant_total=ecriture.montant_total, saisi_par=self.auth.actor_name,
            lignes=[LigneANouveauxResponse(numero_compte=comptes[ligne.compte_id], debit=ligne.debit,
                                           credit=ligne.credit) for ligne in ecriture.lignes])
