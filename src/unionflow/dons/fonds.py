"""Earmarked funds (fonds dédiés): a donation given for a purpose feeds the fund of that purpose; uses spent on
the purpose are assigned to it; what is unused at the end of a year is carried forward (the statement's opening
balance of the next year is the previous closing one, computed from every movement before the year).

In the books, as the SYCEBNL Guide d'application books a fund given for a specific project (application 4,
docs/conformite.md S9): the gift is credited to 165 when received (paiements/recette_service.py, nature.py), and each
use moves its amount from 165 to the income account 7925 (``_liberer``). So the unused part is never income, and no
year-end entry is needed: what 165 holds at the closing is what the funds carry forward.

A use is assigned under the fund's row lock and never beyond its balance: a fund is not spent twice."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import compte_par_defaut, journal_par_defaut
from unionflow.comptabilite.produits.comptes import COMPTE_FONDS_AFFECTES, COMPTE_REPRISE_FONDS_AFFECTES
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.comptabilite.schemas import (
    CreateEcritureComptableRequest,
    LigneEcritureRequest,
)
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.dons.repository import FondsDedieRepository
from unionflow.dons.schemas import (
    CreateEmploiFondsRequest,
    EtatFondsDediesResponse,
    FondsDedieResponse,
    LigneEtatFonds,
    MouvementFondsResponse,
)
from unionflow.models.don import FondsDedie, LigneRegistreDon, MouvementFondsDedie, TypeMouvementFonds
from unionflow.saisies.service import SaisieService, reference_saisie

MODULE = "DONS"
ZERO = Decimal("0")


async def alimenter(session: AsyncSession, auth: AuthContext | None, ligne: LigneRegistreDon,
                    donateur: str | None) -> uuid.UUID:
    """The fund of the line's purpose (created by its first donation) receives the donation (a negative amount:
    a cancelled gift taken back)."""
    qui = auth.actor_name if auth else "systeme"
    repo = FondsDedieRepository(session)
    objet = (ligne.affectation or "").strip()
    fonds = await repo.par_objet(ligne.organisation_id, objet)
    if fonds is None:
        fonds = FondsDedie(id=uuid.uuid4(), organisation_id=ligne.organisation_id, objet=objet, donateur=donateur,
                           devise=ligne.devise, cree_par=qui, created_at=datetime.now(UTC))
        repo.add(fonds)
        await session.flush()
    elif fonds.devise != ligne.devise:
        raise RegleMetier(f"Le fonds dédié « {objet} » est tenu en {fonds.devise}, pas en {ligne.devise}")
    repo.ajouter(MouvementFondsDedie(
        fonds_id=fonds.id, organisation_id=ligne.organisation_id, type_mouvement=TypeMouvementFonds.RECU.value,
        date_mouvement=ligne.date_don, montant=ligne.montant,
        libelle=f"Don n° {ligne.numero}" if ligne.montant > 0 else f"Don repris, ligne n° {ligne.numero}",
        reference=ligne.reference, ligne_don_id=ligne.id, enregistre_par=qui,
        created_at=datetime.now(UTC)))
    return fonds.id


class FondsDedieService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = FondsDedieRepository(session)

    async def _fonds(self, fonds_id: uuid.UUID, *, verrou: bool = False) -> FondsDedie:
        fonds = await (self.repo.verrouiller(fonds_id) if verrou else self.repo.get(fonds_id))
        if fonds is None or not staff_sees(self.auth, fonds.organisation_id):
            raise NotFound("Fonds dédié introuvable")
        return fonds

    async def _reponse(self, fonds: FondsDedie) -> FondsDedieResponse:
        mouvements = await self.repo.mouvements(fonds.id)
        return FondsDedieResponse(
            id=fonds.id, organisation_id=fonds.organisation_id, objet=fonds.objet, donateur=fonds.donateur,
            devise=fonds.devise, solde=await self.repo.solde(fonds.id),
            mouvements=[MouvementFondsResponse.model_validate(m, from_attributes=True) for m in mouvements])

    async def lister(self, organisation_id: uuid.UUID) -> list[FondsDedieResponse]:
        if not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        return [await self._reponse(f) for f in await self.repo.de(organisation_id)]

    async def employer(self, fonds_id: uuid.UUID, data: CreateEmploiFondsRequest) -> FondsDedieResponse:
        """Assign a use to the fund; refused beyond what the fund holds (an overspend is not an earmarked use)."""
        fonds = await self._fonds(fonds_id, verrou=True)
        self.auth.require(Permission.COMPTABILITE_ECRIRE, fonds.organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation affectent un emploi")
        if data.date_emploi > datetime.now(UTC):
            raise RegleMetier("dateEmploi ne peut pas être dans le futur")
        solde = await self.repo.solde(fonds.id)
        if data.montant > solde:
            raise RegleMetier(f"Le fonds dédié « {fonds.objet} » n'a que {solde} {fonds.devise} non employés")
        piece = await self._liberer(fonds, data)
        mouvement = MouvementFondsDedie(
            fonds_id=fonds.id, organisation_id=fonds.organisation_id, type_mouvement=TypeMouvementFonds.EMPLOI.value,
            date_mouvement=data.date_emploi, montant=data.montant, libelle=data.libelle, reference=data.reference,
            enregistre_par=self.auth.actor_name, created_at=datetime.now(UTC))
        self.repo.ajouter(mouvement)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="EMPLOYER", module=MODULE, entite_type="FondsDedie",
                           entite_id=fonds.id, organisation_id=fonds.organisation_id,
                           description=f"Emploi de {data.montant} sur « {fonds.objet} » ({data.reference}), "
                                       f"écriture {piece}")
        return await self._reponse(fonds)

    async def _liberer(self, fonds: FondsDedie, data: CreateEmploiFondsRequest) -> str:
        """Book the use: the fund account 165 gives as much to the income account 7925 (SYCEBNL Guide, application
        4), in the journal of miscellaneous operations, on the day of the use, through the manual-entry path (four
        eyes if the organisation put either account under control). Refused when the books' fund account holds
        less: a fund fed before its gifts were credited to 165 is first moved there by an entry (docs/dons.md)."""
        org = fonds.organisation_id
        detenu = -await ComptabiliteSystemRepository(self.session).solde_numero(org, COMPTE_FONDS_AFFECTES)
        if data.montant > detenu:
            raise RegleMetier(f"Le compte {COMPTE_FONDS_AFFECTES} des fonds affectés ne porte que {detenu} "
                              f"{fonds.devise}: inscrivez d'abord au {COMPTE_FONDS_AFFECTES} les dons affectés "
                              "comptabilisés ailleurs")
        comptes = [await compte_par_defaut(self.session, org, numero, self.auth)
                   for numero in (COMPTE_FONDS_AFFECTES, COMPTE_REPRISE_FONDS_AFFECTES)]
        journal = await journal_par_defaut(self.session, org, "OD")
        libelle = f"Emploi du fonds dédié « {fonds.objet} »: {data.libelle}"[:300]
        saisie = await SaisieService(self.session, self.auth).saisir(CreateEcritureComptableRequest(
            journal_id=journal.id, date_ecriture=data.date_emploi.astimezone(UTC).date(), libelle=libelle,
            piece_reference=data.reference, lignes=[
                LigneEcritureRequest(compte_id=comptes[0].id, debit=data.montant, libelle=libelle),
                LigneEcritureRequest(compte_id=comptes[1].id, credit=data.montant, libelle=libelle)]))
        return reference_saisie(saisie)

    async def etat(self, organisation_id: uuid.UUID, annee: int) -> EtatFondsDediesResponse:
        """Per fund: opening (carried forward), received and used in the year, closing."""
        if not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        debut = datetime.combine(date(annee, 1, 1), time(), UTC)
        fin = datetime.combine(date(annee + 1, 1, 1), time(), UTC)
        lignes = []
        for f in await self.repo.de(organisation_id):
            ouverture = await self.repo.solde(f.id, avant=debut)
            recu, employe = await self.repo.sommes(f.id, debut, fin)
            lignes.append(LigneEtatFonds(fonds_id=f.id, objet=f.objet, donateur=f.donateur, ouverture=ouverture,
                                         recu=recu, employe=employe, cloture=ouverture + recu - employe))
        total_cloture = sum((x.cloture for x in lignes), start=ZERO)
        # The books' side of the same figure: what the fund account holds at the year's last day.
        solde_compte = -await ComptabiliteSystemRepository(self.session).solde_numero(
            organisation_id, COMPTE_FONDS_AFFECTES, jusqu_au=date(annee, 12, 31))
        return EtatFondsDediesResponse(
            organisation_id=organisation_id, annee=annee, fonds=lignes,
            total_ouverture=sum((x.ouverture for x in lignes), start=ZERO),
            total_recu=sum((x.recu for x in lignes), start=ZERO),
            total_employe=sum((x.employe for x in lignes), start=ZERO),
            total_cloture=total_cloture, solde_compte=solde_compte, ecart=total_cloture - solde_compte)
