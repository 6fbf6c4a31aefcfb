"""Reading and choosing an organisation's income account per kind of income. The payment path
reads the choices through comptabilite/produits/comptes.py (cached per worker; a change here bumps the reference version
at commit, so no worker keeps crediting the former account)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import compte_par_defaut
from unionflow.comptabilite.produits.comptes import COMPTE_PRODUIT_DEFAUT, COMPTE_PRODUIT_SYCEBNL
from unionflow.comptabilite.produits.repository import CompteProduitRepository
from unionflow.comptabilite.produits.schemas import CompteProduitResponse, UpdateComptesProduitsRequest
from unionflow.comptabilite.repository import ComptabiliteRepository, ComptabiliteSystemRepository
from unionflow.comptabilite.service import MODULE
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models import CompteProduit
from unionflow.models.recette import NatureRecette


async def ouvrir_produits_sycebnl(session: AsyncSession, organisation_id: uuid.UUID, auth: AuthContext | None) -> None:
    """Open the SYCEBNL income accounts (``COMPTE_PRODUIT_SYCEBNL``) in the organisation's chart and choose each
    for its kind. The caller has checked who may: the creation of the organisation, or ``adopter_sycebnl``."""
    repo = CompteProduitRepository(session)
    for nature, numero in COMPTE_PRODUIT_SYCEBNL.items():
        await compte_par_defaut(session, organisation_id, numero, auth)
        row = await repo.de(organisation_id, nature)
        if row is None:
            repo.add(CompteProduit(organisation_id=organisation_id, nature=nature, numero_compte=numero))
        else:
            row.numero_compte = numero
    await session.flush()


class MiseEnPlaceComptable:
    """organisations/ports.MISE_EN_PLACE: a new organisation's income accounts in the SYCEBNL numbering."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def organisation_creee(self, organisation_id: uuid.UUID, auth: AuthContext) -> None:
        await ouvrir_produits_sycebnl(self.session, organisation_id, auth)


class CompteProduitService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = CompteProduitRepository(session)
        self.books = ComptabiliteSystemRepository(session)

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        if await ComptabiliteRepository(self.session, self.auth).organisation(organisation_id) is None:
            raise NotFound("Organisation introuvable")

    async def lire(self, organisation_id: uuid.UUID) -> list[CompteProduitResponse]:
        await self._organisation(organisation_id)
        choix = await self.repo.choix(organisation_id)
        result = []
        for nature in NatureRecette:
            numero = choix.get(nature) or COMPTE_PRODUIT_DEFAUT[nature]
            compte = await self.books.get_compte_by_numero(organisation_id, numero)
            result.append(CompteProduitResponse(
                nature=nature, numero_compte=numero, libelle_compte=compte.libelle if compte else None,
                par_defaut=nature not in choix, numero_compte_defaut=COMPTE_PRODUIT_DEFAUT[nature]))
        return result

    async def _verifier_compte(self, organisation_id: uuid.UUID, numero: str) -> None:
        compte = await self.books.get_compte_by_numero(organisation_id, numero)
        if compte is None:
            raise RegleMetier(f"Le compte {numero} n'existe pas dans le plan comptable de l'organisation: "
                              "créez-le d'abord (compte de classe 7 du plan comptable)")
        if compte.classe != 7:
            raise RegleMetier(f"Le compte {numero} n'est pas un compte de produits (classe 7)")
        if not compte.actif:
            raise RegleMetier(f"Le compte {numero} est inactif: il ne peut pas recevoir les recettes")

    async def adopter_sycebnl(self, organisation_id: uuid.UUID) -> list[CompteProduitResponse]:
        """Credit every kind of income to its SYCEBNL account from now on (opened if absent); entries already
        posted stay where they are."""
        await self._organisation(organisation_id)
        self.auth.require(Permission.COMPTABILITE_ECRIRE, organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation choisissent ses comptes de "
                          "produits")
        before = await self.repo.choix(organisation_id)
        await ouvrir_produits_sycebnl(self.session, organisation_id, self.auth)
        after = await self.repo.choix(organisation_id)
        if after != before:
            await audit.record(self.session, self.auth, action="ADOPTER", module=MODULE,
                               entite_type="CompteProduit", entite_id=organisation_id,
                               organisation_id=organisation_id, before={"comptes": before},
                               after={"comptes": after},
                               description="Numérotation SYCEBNL des comptes de produits adoptée")
        return await self.lire(organisation_id)

    async def definir(self, organisation_id: uuid.UUID,
                      data: UpdateComptesProduitsRequest) -> list[CompteProduitResponse]:
        """Set (or reset to the default, ``numeroCompte: null``) the account of each kind listed; the others stay."""
        await self._organisation(organisation_id)
        self.auth.require(Permission.COMPTABILITE_ECRIRE, organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation choisissent ses comptes de "
                          "produits")
        before = await self.repo.choix(organisation_id)
        for choix in data.comptes:
            numero = choix.numero_compte
            if numero == COMPTE_PRODUIT_DEFAUT[choix.nature]:
                numero = None  # the default chosen explicitly: nothing to keep
            if numero is not None:
                await self._verifier_compte(organisation_id, numero)
            row = await self.repo.de(organisation_id, choix.nature)
            if numero is None:
                if row is not None:
                    await self.repo.supprimer(row)
            elif row is None:
                self.repo.add(CompteProduit(organisation_id=organisation_id, nature=choix.nature,
                                            numero_compte=numero))
            else:
                row.numero_compte = numero
        await self.session.flush()
        after = await self.repo.choix(organisation_id)
        if after != before:
            await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE,
                               entite_type="CompteProduit", entite_id=organisation_id,
                               organisation_id=organisation_id, before={"comptes": before},
                               after={"comptes": after}, description="Comptes de produits par nature modifiés")
        return await self.lire(organisation_id)
