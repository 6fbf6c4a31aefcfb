"""Annual budgets: BROUILLON (editable) → SOUMIS → APPROUVE (by the president or the organisation's
administrator, not by whoever submitted it) → CLOTURE. A rejection sends the budget back to BROUILLON.

Realised amounts are never stored: they are summed from the posted accounting entries of the budget's
organisation over its period, so the follow-up is always in step with the books.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.finance.budgets.repository import BudgetFilters, BudgetRepository, MouvementBudget
from unionflow.finance.budgets.schemas import (
    BudgetResponse,
    CreateBudgetRequest,
    ExecutionBudgetResponse,
    LigneBudgetRequest,
    LigneBudgetResponse,
    LigneExecution,
    NatureLigneBudget,
    StatutBudget,
    TotauxExecution,
    UpdateBudgetRequest,
)
from unionflow.finance.service import MODULE, q, verifier_decideur
from unionflow.models import Budget, CompteComptable, LigneBudget

ZERO = Decimal("0")
ETAT = ["statut", "soumis_par", "date_soumission", "approuve_par", "date_approbation", "commentaire", "date_cloture"]


def _response(budget: Budget, comptes: dict[uuid.UUID, str]) -> BudgetResponse:
    lignes = [LigneBudgetResponse(id=ligne.id, ordre=ligne.ordre, libelle=ligne.libelle, compte_id=ligne.compte_id,
                                  numero_compte=comptes.get(ligne.compte_id) if ligne.compte_id else None,
                                  prefixe_compte=ligne.prefixe_compte, nature=ligne.nature,
                                  montant_prevu=ligne.montant_prevu) for ligne in budget.lignes]
    total = {n: sum((ligne.montant_prevu for ligne in budget.lignes if ligne.nature == n), ZERO)
             for n in NatureLigneBudget}
    return BudgetResponse.model_validate({
        **{k: getattr(budget, k) for k in BudgetResponse.model_fields if hasattr(budget, k) and k != "lignes"},
        "lignes": lignes, "total_depenses_prevues": total[NatureLigneBudget.DEPENSE],
        "total_recettes_prevues": total[NatureLigneBudget.RECETTE]})


def _couvre(ligne: LigneBudget, mouvement: MouvementBudget) -> bool:
    if ligne.compte_id is not None:
        return ligne.compte_id == mouvement.compte_id
    return mouvement.numero_compte.startswith(ligne.prefixe_compte or "")


class BudgetService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = BudgetRepository(session, auth)

    async def _get(self, budget_id: uuid.UUID, *, for_update: bool = False) -> Budget:
        budget = await self.repo.get(budget_id, for_update=for_update)
        if budget is None:
            raise NotFound("Budget introuvable")
        return budget

    async def _numeros(self, budget: Budget) -> dict[uuid.UUID, str]:
        comptes = await self.repo.comptes({ligne.compte_id for ligne in budget.lignes if ligne.compte_id})
        return {i: c.numero_compte for i, c in comptes.items()}

    async def _out(self, budget: Budget) -> BudgetResponse:
        return _response(budget, await self._numeros(budget))

    async def _lignes(self, organisation_id: uuid.UUID, data: list[LigneBudgetRequest]) -> list[LigneBudget]:
        """Check the lines against the organisation's chart and refuse overlaps (a movement counted twice)."""
        comptes: dict[uuid.UUID, CompteComptable] = await self.repo.comptes(
            {ligne.compte_id for ligne in data if ligne.compte_id})
        cibles: list[str] = []
        lignes = []
        for i, item in enumerate(data):
            if item.compte_id is not None:
                compte = comptes.get(item.compte_id)
                if compte is None or compte.organisation_id != organisation_id:
                    raise RegleMetier(f"lignes[{i}].compteId: compte inconnu dans le plan de l'organisation")
                numero, exact = compte.numero_compte, True
            else:
                numero, exact = item.prefixe_compte or "", False
            for j, autre in enumerate(cibles):
                autre_exact = data[j].compte_id is not None
                if (numero == autre or (not autre_exact and numero.startswith(autre))
                        or (not exact and autre.startswith(numero))):
                    raise RegleMetier(f"lignes[{i}]: recoupe lignes[{j}] ({autre}): un mouvement serait compté "
                                       "deux fois")
            cibles.append(numero)
            nature = item.nature or (NatureLigneBudget.RECETTE if numero.startswith("7") else NatureLigneBudget.DEPENSE)
            lignes.append(LigneBudget(ordre=i, libelle=item.libelle, compte_id=item.compte_id,
                                      prefixe_compte=item.prefixe_compte, nature=nature.value,
                                      montant_prevu=item.montant_prevu))
        return lignes

    @staticmethod
    def _periode(annee: int, debut: date | None, fin: date | None) -> tuple[date, date]:
        debut = debut or date(annee, 1, 1)
        fin = fin or date(annee, 12, 31)
        if fin < debut:
            raise RegleMetier("dateFin: antérieure à dateDebut")
        if (fin - debut).days > 731:
            raise RegleMetier("Période d'un budget annuel: deux ans au plus")
        return debut, fin

    async def creer(self, data: CreateBudgetRequest) -> BudgetResponse:
        organisation = await self.repo.organisation(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        debut, fin = self._periode(data.annee, data.date_debut, data.date_fin)
        if await self.repo.exists_for_year(organisation.id, data.annee):
            raise Conflict(f"L'organisation a déjà un budget pour {data.annee}")
        budget = Budget(organisation_id=organisation.id, annee=data.annee, libelle=data.libelle,
                        description=data.description, date_debut=debut, date_fin=fin, devise=organisation.devise,
                        statut=StatutBudget.BROUILLON.value, cree_par=self.auth.actor_name,
                        lignes=await self._lignes(organisation.id, data.lignes))
        self.repo.add(budget)
        await self.session.flush()
        response = await self._out(budget)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Budget",
                           entite_id=budget.id, organisation_id=budget.organisation_id,
                           after=response.model_dump(mode="json", by_alias=True),
                           description=f"Budget {budget.annee} créé")
        return response

    async def obtenir(self, budget_id: uuid.UUID) -> BudgetResponse:
        return await self._out(await self._get(budget_id))

    async def lister(self, filters: BudgetFilters, params: PageParams) -> Page[BudgetResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[BudgetResponse].build([await self._out(b) for b in rows], params, total, exact)

    async def modifier(self, budget_id: uuid.UUID, data: UpdateBudgetRequest) -> BudgetResponse:
        budget = await self._get(budget_id, for_update=True)
        if budget.statut != StatutBudget.BROUILLON:
            raise InvalidState(f"Budget {budget.statut}: seul un brouillon se modifie")
        changes = data.model_dump(exclude_unset=True, exclude={"lignes"})
        if "libelle" in changes and changes["libelle"] is None:
            raise RegleMetier("libelle: null interdit")
        before = (await self._out(budget)).model_dump(mode="json", by_alias=True)
        debut, fin = self._periode(budget.annee, changes.get("date_debut", budget.date_debut),
                                   changes.get("date_fin", budget.date_fin))
        for key, value in changes.items():
            setattr(budget, key, value)
        budget.date_debut, budget.date_fin = debut, fin
        if data.lignes is not None:
            budget.lignes.clear()
            await self.session.flush()
            budget.lignes.extend(await self._lignes(budget.organisation_id, data.lignes))
        await self.session.flush()
        response = await self._out(budget)
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="Budget",
                           entite_id=budget.id, organisation_id=budget.organisation_id, before=before,
                           after=response.model_dump(mode="json", by_alias=True))
        return response

    async def supprimer(self, budget_id: uuid.UUID) -> None:
        budget = await self._get(budget_id, for_update=True)
        if budget.statut != StatutBudget.BROUILLON:
            raise InvalidState(f"Budget {budget.statut}: seul un brouillon se supprime")
        before = audit.snapshot(budget, ["annee", "libelle", "statut"])
        await self.repo.delete(budget)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="SUPPRIMER", module=MODULE, entite_type="Budget",
                           entite_id=budget_id, organisation_id=budget.organisation_id, before=before,
                           severite="WARNING")

    async def _transition(self, budget: Budget, action: str, severite: str = "INFO") -> BudgetResponse:
        await self.session.flush()
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Budget",
                           entite_id=budget.id, organisation_id=budget.organisation_id, severite=severite,
                           after=audit.snapshot(budget, ETAT), description=f"Budget {budget.annee}: {budget.statut}")
        return await self._out(budget)

    async def soumettre(self, budget_id: uuid.UUID) -> BudgetResponse:
        budget = await self._get(budget_id, for_update=True)
        if budget.statut != StatutBudget.BROUILLON:
            raise InvalidState(f"Budget {budget.statut}: seul un brouillon se soumet")
        if not budget.lignes:
            raise InvalidState("Un budget sans ligne ne se soumet pas")
        budget.statut = StatutBudget.SOUMIS.value
        budget.soumis_par, budget.soumis_par_sub = self.auth.actor_name, self.auth.personne
        budget.date_soumission = datetime.now(UTC)
        budget.commentaire = None
        return await self._transition(budget, "SOUMETTRE")

    async def approuver(self, budget_id: uuid.UUID, commentaire: str | None) -> BudgetResponse:
        budget = await self._get(budget_id, for_update=True)
        verifier_decideur(self.auth, budget.organisation_id, budget.soumis_par_sub)
        if budget.statut != StatutBudget.SOUMIS:
            raise InvalidState(f"Budget {budget.statut}: seul un budget soumis s'approuve")
        budget.statut = StatutBudget.APPROUVE.value
        budget.approuve_par, budget.date_approbation = self.auth.actor_name, datetime.now(UTC)
        budget.commentaire = commentaire
        return await self._transition(budget, "APPROUVER")

    async def rejeter(self, budget_id: uuid.UUID, commentaire: str) -> BudgetResponse:
        budget = await self._get(budget_id, for_update=True)
        verifier_decideur(self.auth, budget.organisation_id, budget.soumis_par_sub)
        if budget.statut != StatutBudget.SOUMIS:
            raise InvalidState(f"Budget {budget.statut}: seul un budget soumis se rejette")
        budget.statut = StatutBudget.BROUILLON.value
        budget.commentaire = commentaire
        return await self._transition(budget, "REJETER", "WARNING")

    async def cloturer(self, budget_id: uuid.UUID) -> BudgetResponse:
        budget = await self._get(budget_id, for_update=True)
        self.auth.require(Permission.BUDGET_GERER, budget.organisation_id,
                          "Vous n'administrez pas les finances de cette organisation")
        if budget.statut != StatutBudget.APPROUVE:
            raise InvalidState(f"Budget {budget.statut}: seul un budget approuvé se clôture")
        budget.statut = StatutBudget.CLOTURE.value
        budget.date_cloture = datetime.now(UTC)
        return await self._transition(budget, "CLORE")

    async def execution(self, budget_id: uuid.UUID) -> ExecutionBudgetResponse:
        budget = await self._get(budget_id)
        numeros = await self._numeros(budget)
        mouvements = await self.repo.mouvements(budget.organisation_id, budget.date_debut, budget.date_fin)
        lignes = []
        totaux = {(n, k): ZERO for n in NatureLigneBudget for k in ("prevu", "realise")}
        for ligne in budget.lignes:
            debit = sum((m.debit for m in mouvements if _couvre(ligne, m)), ZERO)
            credit = sum((m.credit for m in mouvements if _couvre(ligne, m)), ZERO)
            realise = debit - credit if ligne.nature == NatureLigneBudget.DEPENSE else credit - debit
            prevu = ligne.montant_prevu
            taux = q(realise * 100 / prevu) if prevu else None
            lignes.append(LigneExecution(
                ligne_id=ligne.id, libelle=ligne.libelle, compte_id=ligne.compte_id,
                numero_compte=numeros.get(ligne.compte_id) if ligne.compte_id else None,
                prefixe_compte=ligne.prefixe_compte, nature=ligne.nature, montant_prevu=prevu,
                montant_realise=realise, ecart=prevu - realise, taux_consommation=taux,
                depassement=ligne.nature == NatureLigneBudget.DEPENSE and realise > prevu))
            nature = NatureLigneBudget(ligne.nature)
            totaux[nature, "prevu"] += prevu
            totaux[nature, "realise"] += realise
        d, r = NatureLigneBudget.DEPENSE, NatureLigneBudget.RECETTE
        return ExecutionBudgetResponse(
            budget_id=budget.id, statut=budget.statut, date_debut=budget.date_debut, date_fin=budget.date_fin,
            devise=budget.devise, lignes=lignes,
            totaux=TotauxExecution(depenses_prevues=totaux[d, "prevu"], depenses_realisees=totaux[d, "realise"],
                                   recettes_prevues=totaux[r, "prevu"], recettes_realisees=totaux[r, "realise"],
                                   solde_prevu=totaux[r, "prevu"] - totaux[d, "prevu"],
                                   solde_realise=totaux[r, "realise"] - totaux[d, "realise"]))
