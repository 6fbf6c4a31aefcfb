"""An organisation's mapping of account prefixes to SYCEBNL headings: read, replaced as a whole, applied.

Replacing takes ``comptabilite.ecrire`` (the organisation's administrator and treasurer) and is audited with the
mapping before and after; the statements read the mapping at computation time, so a change re-presents every year
(no figure is stored)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.produits.comptes import produits_organisation
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.service import MODULE
from unionflow.comptabilite.sycebnl.repository import CorrespondanceRepository
from unionflow.comptabilite.sycebnl.rubriques import CORRESPONDANCE_DEFAUT, RUBRIQUES, Rubrique, rubrique_de
from unionflow.comptabilite.sycebnl.schemas import CorrespondanceRequest, CorrespondanceResponse, LigneCorrespondance
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models.recette import NatureRecette

# The heading of each kind of income: the account an organisation chose for a kind (/api/comptabilite/produits) is
# presented where that kind belongs, whatever its number (701 under the SYCEBNL chart, 7061 under the default).
RUBRIQUE_NATURE = {
    NatureRecette.COTISATION: Rubrique.COTISATIONS, NatureRecette.COTISATION_EXCEPTIONNELLE: Rubrique.COTISATIONS,
    NatureRecette.SOLIDARITE: Rubrique.COTISATIONS, NatureRecette.ADHESION: Rubrique.COTISATIONS,
    NatureRecette.DON: Rubrique.DONS, NatureRecette.EVENEMENT: Rubrique.PRESTATIONS,
}


@dataclass(frozen=True)
class TableSycebnl:
    """The organisation's rows; then the income accounts it chose per kind, each under its kind's heading; then the
    shipped default for an account left out by both."""

    propre: dict[str, Rubrique]
    produits: dict[str, Rubrique] = field(default_factory=dict)

    def rubrique(self, numero: str) -> Rubrique:
        trouvee = (rubrique_de(numero, self.propre) or self.produits.get(numero)
                   or rubrique_de(numero, CORRESPONDANCE_DEFAUT))
        # The default maps every class 1–9; an account number not starting with 1–9 is refused when created.
        return trouvee or Rubrique.AUTRES_TIERS


def _ligne(prefixe: str, rubrique: Rubrique) -> LigneCorrespondance:
    d = RUBRIQUES[rubrique]
    return LigneCorrespondance(prefixe=prefixe, rubrique=rubrique, libelle_rubrique=d.libelle, section=d.section,
                               flux=d.flux)


class CorrespondanceService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = CorrespondanceRepository(session)

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        if await ComptabiliteRepository(self.session, self.auth).organisation(organisation_id) is None:
            raise NotFound("Organisation introuvable")

    async def effective(self, organisation_id: uuid.UUID) -> TableSycebnl:
        """Applied by the statements (the caller checked the organisation is visible)."""
        choix = await produits_organisation(self.session, organisation_id)
        return TableSycebnl({p: Rubrique(r) for p, r in (await self.repo.lignes(organisation_id)).items()},
                            {numero: RUBRIQUE_NATURE[NatureRecette(nature)] for nature, numero in choix.items()})

    async def lire(self, organisation_id: uuid.UUID) -> CorrespondanceResponse:
        await self._organisation(organisation_id)
        propre = await self.repo.lignes(organisation_id)
        table = {p: Rubrique(r) for p, r in propre.items()} if propre else CORRESPONDANCE_DEFAUT
        return CorrespondanceResponse(organisation_id=organisation_id, par_defaut=not propre,
                                      lignes=[_ligne(p, table[p]) for p in sorted(table)])

    async def remplacer(self, organisation_id: uuid.UUID, data: CorrespondanceRequest) -> CorrespondanceResponse:
        await self._organisation(organisation_id)
        self.auth.require(Permission.COMPTABILITE_ECRIRE, organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation modifient sa table de "
                          "correspondance SYCEBNL")
        prefixes = [ligne.prefixe for ligne in data.lignes]
        if len(set(prefixes)) != len(prefixes):
            doubles = sorted({p for p in prefixes if prefixes.count(p) > 1})
            raise RegleMetier(f"lignes: chaque préfixe n'apparaît qu'une fois ({', '.join(doubles)})")
        for ligne in data.lignes:
            classes = RUBRIQUES[ligne.rubrique].classes
            if int(ligne.prefixe[0]) not in classes:
                raise RegleMetier(f"Le préfixe {ligne.prefixe} (classe {ligne.prefixe[0]}) ne peut pas aller à la "
                                  f"rubrique {ligne.rubrique.value}, réservée à la classe "
                                  f"{', '.join(map(str, classes))}")
        avant = await self.repo.lignes(organisation_id)
        apres = {ligne.prefixe: ligne.rubrique.value for ligne in data.lignes}
        if apres != avant:
            await self.repo.remplacer(organisation_id, apres)
            await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE,
                               entite_type="CorrespondanceSycebnl", entite_id=organisation_id,
                               organisation_id=organisation_id, before={"lignes": avant}, after={"lignes": apres},
                               description="Table de correspondance SYCEBNL remplacée")
        return await self.lire(organisation_id)
