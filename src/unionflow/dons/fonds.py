"""Earmarked funds (fonds dédiés): a donation given for a purpose feeds the fund of that purpose; uses spent on
the purpose are assigned to it; what is unused at the end of a year is carried forward (the statement's opening
balance of the next year is the previous closing one, computed from every movement before the year).

A use is assigned under the fund's row lock and never beyond its balance: a fund is not spent twice."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

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
        mouvement = MouvementFondsDedie(
            fonds_id=fonds.id, organisation_id=fonds.organisation_id, type_mouvement=TypeMouvementFonds.EMPLOI.value,
            date_mouvement=data.date_emploi, montant=data.montant, libelle=data.libelle, reference=data.reference,
            enregistre_par=self.auth.actor_name, created_at=datetime.now(UTC))
        self.repo.ajouter(mouvement)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="EMPLOYER", module=MODULE, entite_type="FondsDedie",
                           entite_id=fonds.id, organisation_id=fonds.organisation_id,
                           description=f"Emploi de {data.montant} sur « {fonds.objet} » ({data.reference})")
        return await self._reponse(fonds)

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
        return EtatFondsDediesResponse(
            organisation_id=organisation_id, annee=annee, fonds=lignes,
            total_ouverture=sum((x.ouverture for x in lignes), start=ZERO),
            total_recu=sum((x.recu for x in lignes), start=ZERO),
            total_employe=sum((x.employe for x in lignes), start=ZERO),
            total_cloture=sum((x.cloture for x in lignes), start=ZERO))
