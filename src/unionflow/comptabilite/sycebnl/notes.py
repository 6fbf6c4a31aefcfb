"""Notes to the SYCEBNL statements that the books support: fixed assets, receivables and payables, earmarked
funds, donations received, budget execution, staff, volunteer contributions in kind.

Each note is computed from the entries (and, for donations by means of payment and the budget, from the payments
and the budgets); when the books hold nothing for it, the note says so in one sentence rather than disappearing,
so that a reader knows it was looked for."""

from __future__ import annotations

import uuid
from decimal import Decimal

from unionflow.comptabilite.etats.repository import ZERO, SoldeCompte
from unionflow.comptabilite.ports import BENEVOLAT, DONS
from unionflow.comptabilite.sycebnl.rubriques import RUBRIQUES, Rubrique, Section
from unionflow.comptabilite.sycebnl.schemas import NotesSycebnlResponse, NoteSycebnl
from unionflow.comptabilite.sycebnl.service import Exercice, SycebnlService, net
from unionflow.core.pagination import PageParams
from unionflow.finance.budgets.repository import BudgetFilters
from unionflow.finance.budgets.service import BudgetService


def _m(value: Decimal) -> str:
    # ``or ZERO``: a negated zero (−1 × 0) would print "-0".
    return str((value or ZERO).quantize(Decimal("0.01")))


def _note(numero: int, titre: str, colonnes: list[str], montants: list[bool], lignes: list[list[str | None]],
          vide: str) -> NoteSycebnl:
    return NoteSycebnl(numero=numero, titre=titre, colonnes=colonnes, montants=montants, lignes=lignes,
                       commentaire=None if lignes else vide)


MOUVEMENTS = ["Compte", "Intitulé", "Ouverture", "Débits", "Crédits", "Clôture"]
MONTANTS_MOUVEMENTS = [False, False, True, True, True, True]


def _mouvements(soldes: list[SoldeCompte], signe: int) -> list[list[str | None]]:
    """Opening, debits, credits and closing per account; ``signe`` −1 shows a credit balance as positive."""
    return [[s.numero, s.libelle, _m(signe * (s.debit_avant - s.credit_avant)), _m(s.debit_periode),
             _m(s.credit_periode), _m(signe * net(s))] for s in soldes]


class NotesService(SycebnlService):
    async def notes(self, organisation_id: uuid.UUID, annee: int) -> NotesSycebnlResponse:
        ex = await self.exercice(organisation_id, annee)
        soldes = await self.etats.soldes(organisation_id, ex.debut, ex.fin)
        precedent = {s.numero: s for s in await self.etats.soldes(organisation_id, ex.debut_precedent,
                                                                  ex.fin_precedent)}

        def de(*rubriques: Rubrique) -> list[SoldeCompte]:
            return [s for s in soldes if ex.correspondance.rubrique(s.numero) in rubriques]

        def section(s: SoldeCompte) -> Section:
            return RUBRIQUES[ex.correspondance.rubrique(s.numero)].section

        notes = [
            _note(1, "Immobilisations (classe 2)", MOUVEMENTS, MONTANTS_MOUVEMENTS,
                  _mouvements([s for s in soldes if s.classe == 2], 1),
                  "Aucune immobilisation n'est enregistrée (aucun compte de classe 2 mouvementé)."),
            _note(2, "Créances et dettes (classe 4) — solde débiteur (créance) positif, créditeur (dette) négatif",
                  ["Compte", "Intitulé", "Solde N", "Solde N−1"], [False, False, True, True],
                  [[s.numero, s.libelle, _m(net(s)), _m(net(precedent[s.numero]) if s.numero in precedent
                                                        else ZERO)]
                   for s in soldes if section(s) is Section.TIERS and (net(s) != ZERO or s.numero in precedent)],
                  "Aucune créance ni dette à la clôture (aucun compte de tiers mouvementé)."),
            _note(3, "Fonds affectés et reportés (ressources affectées non utilisées) — solde créditeur positif",
                  MOUVEMENTS, MONTANTS_MOUVEMENTS,
                  _mouvements(de(Rubrique.FONDS_DEDIES, Rubrique.REPORT_FONDS_DEDIES), -1),
                  "Aucun fonds dédié n'est enregistré (comptes de la rubrique FONDS_DEDIES de la table de "
                  "correspondance, classes 16 et 17 par défaut)."),
            await self._dons(ex, de(Rubrique.DONS), precedent),
            await self._budget(ex),
            self._personnel(de(Rubrique.CHARGES_PERSONNEL), precedent),
            _note(7, "Contributions volontaires en nature (hors bilan)", MOUVEMENTS, MONTANTS_MOUVEMENTS,
                  _mouvements([s for s in soldes if section(s) is Section.HORS_BILAN], 1),
                  "Aucune contribution volontaire en nature n'est comptabilisée (rubrique CONTRIBUTIONS_NATURE, "
                  "classe 9 par défaut); le bénévolat du registre, valorisé sans écriture, figure en note 8."),
            await self._benevolat(ex),
        ]
        return NotesSycebnlResponse(**ex.entete, notes=notes)

    async def _dons(self, ex: Exercice, dons: list[SoldeCompte], precedent: dict[str, SoldeCompte]) -> NoteSycebnl:
        lignes: list[list[str | None]] = [
            [s.numero, s.libelle, _m(s.credit_periode - s.debit_periode),
             _m(precedent[s.numero].credit_periode - precedent[s.numero].debit_periode)
             if s.numero in precedent else _m(ZERO)] for s in dons]
        par_methode = await DONS(self.session).dons_par_methode(ex.organisation_id, ex.debut, ex.fin)
        for methode, montant in par_methode.items():
            lignes.append([None, f"dont reçus en {methode} (paiements de nature DON)", _m(montant), None])
        return _note(4, "Dons et libéralités reçus", ["Compte", "Intitulé", "Montant N", "Montant N−1"],
                     [False, False, True, True], lignes,
                     "Aucun don n'est enregistré pour l'exercice (comptes de la rubrique DONS, 7581 par défaut).")

    async def _benevolat(self, ex: Exercice) -> NoteSycebnl:
        """The register of volunteer time (dons/benevolat.py), N and N−1: valued, never booked."""
        registre = BENEVOLAT(self.session)
        lignes: list[list[str | None]] = []
        for libelle, debut, fin in (("N", ex.debut, ex.fin), ("N−1", ex.debut_precedent, ex.fin_precedent)):
            nombre, heures, valeur = await registre.totaux(ex.organisation_id, debut, fin)
            lignes.append([f"{libelle} ({debut.year})", str(nombre), _m(heures), _m(valeur)])
        vide = all(ligne[1] == "0" for ligne in lignes)
        return _note(8, "Bénévolat (registre du bénévolat, hors bilan, non comptabilisé)",
                     ["Exercice", "Contributions", "Heures", "Valeur"], [False, False, False, True],
                     [] if vide else lignes,
                     "Aucun bénévolat n'est enregistré pour l'exercice ni pour le précédent (registre du bénévolat: "
                     "POST /api/comptabilite/benevolat).")

    async def _budget(self, ex: Exercice) -> NoteSycebnl:
        budgets = BudgetService(self.session, self.auth)
        page = await budgets.lister(BudgetFilters(organisation_id=ex.organisation_id, annee=ex.annee),
                                    PageParams(page=0, size=100))
        lignes: list[list[str | None]] = []
        for budget in page.content:
            execution = await budgets.execution(budget.id)
            for lg in execution.lignes:
                taux = f"{lg.taux_consommation} %".replace(".", ",") if lg.taux_consommation is not None else None
                lignes.append([f"{budget.libelle} ({execution.statut.value})", lg.libelle, lg.nature.value,
                               _m(lg.montant_prevu), _m(lg.montant_realise), _m(lg.ecart), taux])
        return _note(5, "Exécution du budget (prévu, réalisé selon les écritures, écart)",
                     ["Budget", "Ligne", "Nature", "Prévu", "Réalisé", "Écart", "Taux"],
                     [False, False, False, True, True, True, False], lignes,
                     f"Aucun budget n'est enregistré pour l'exercice {ex.annee}.")

    @staticmethod
    def _personnel(charges: list[SoldeCompte], precedent: dict[str, SoldeCompte]) -> NoteSycebnl:
        lignes: list[list[str | None]] = [
            [s.numero, s.libelle, _m(s.debit_periode - s.credit_periode),
             _m(precedent[s.numero].debit_periode - precedent[s.numero].credit_periode)
             if s.numero in precedent else _m(ZERO)] for s in charges]
        return _note(6, "Charges de personnel", ["Compte", "Intitulé", "Montant N", "Montant N−1"],
                     [False, False, True, True], lignes,
                     "Aucune charge de personnel n'est enregistrée (rubrique CHARGES_PERSONNEL, comptes 66 par "
                     "défaut): l'organisation ne rémunère pas de personnel dans ses livres, l'effectif n'est pas "
                     "tenu par UnionFlow.")
