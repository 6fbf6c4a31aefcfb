"""The register of donations and bequests: one sealed line per donation (money or in kind).

Money donations are the counter's DON receipts (paiements/recette_service.py): the line is written in the same
transaction as the payment, after it was validated, and points at it; no second money path. A donation in kind
is booked by the manual-entry path (saisies/): booked at once, or a four-eyes request when an account under control
is touched, like any manual entry. Lines are never updated (no PUT/DELETE); ``verifier`` recomputes the chain.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.numbering import next_value
from unionflow.core.visibility import staff_sees
from unionflow.dons import scellement
from unionflow.dons.fonds import alimenter
from unionflow.dons.repository import RegistreDonRepository
from unionflow.dons.schemas import (
    DonateurRequest,
    LigneRegistreDonResponse,
    RegistreDonsResponse,
    VerificationRegistreResponse,
)
from unionflow.lcbft.detection import seuils
from unionflow.membres.repository import MembreRepository
from unionflow.models.don import FormeDon, LigneRegistreDon, TypeDonateur
from unionflow.models.paiement import MethodePaiement, Paiement
from unionflow.organisations.repository import OrganisationRepository

MODULE = "DONS"
ZERO = Decimal("0")
MOBILE = {MethodePaiement.WAVE, MethodePaiement.WAVE_TRANSFERT, MethodePaiement.ORANGE_MONEY,
          MethodePaiement.FREE_MONEY}
FORMES = {MethodePaiement.ESPECES: FormeDon.ESPECES, MethodePaiement.CHEQUE: FormeDon.CHEQUE,
          MethodePaiement.VIREMENT: FormeDon.VIREMENT, **dict.fromkeys(MOBILE, FormeDon.MOBILE_MONEY)}


def compteur_registre(organisation_id: uuid.UUID) -> str:
    return f"registre-dons:{organisation_id}"


def forme_du_paiement(methode: str) -> FormeDon:
    return FORMES.get(MethodePaiement(methode), FormeDon.AUTRE)


@dataclass(frozen=True)
class Don:
    """What a register line says, before its number and seal."""

    organisation_id: uuid.UUID
    date_don: datetime
    donateur: DonateurRequest
    montant: Decimal
    devise: str
    forme: FormeDon
    reference: str
    paiement_id: uuid.UUID | None = None
    description_nature: str | None = None
    base_evaluation: str | None = None
    affectation: str | None = None


async def organisation_visible(session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID) -> str:
    """The organisation's name, if the caller reads its staff records (else 404)."""
    org = await OrganisationRepository(session, auth).get(organisation_id)
    if org is None or not staff_sees(auth, organisation_id):
        raise NotFound("Organisation introuvable")
    return org.nom


async def verifier_donateur(session: AsyncSession, organisation_id: uuid.UUID, donateur: DonateurRequest,
                            montant: Decimal) -> None:
    """An anonymous gift stays below the LCB-FT single-operation threshold; a member donor is a member here."""
    if donateur.type is TypeDonateur.ANONYME:
        seuil = (await seuils(session, organisation_id)).seuil_operation
        if montant >= seuil:
            raise RegleMetier(f"Un don de {montant} atteint le seuil LCB-FT de {seuil}: le donateur doit être "
                              "identifié (pas de don anonyme)")
    if donateur.type is TypeDonateur.MEMBRE and donateur.membre_id is not None and not await MembreRepository(
            session, None).has_active_membership(donateur.membre_id, organisation_id):
        raise RegleMetier("Le donateur membre n'est pas membre actif de cette organisation")


async def inscrire(session: AsyncSession, auth: AuthContext | None, don: Don) -> LigneRegistreDon:
    """Numbers, seals and adds one line. The caller checked its permission. The organisation's register counter is
    taken first: its row lock orders concurrent writers, so the previous hash read next is the last one."""
    numero = await next_value(session, compteur_registre(don.organisation_id))
    repo = RegistreDonRepository(session)
    precedent = await repo.dernier_hash(don.organisation_id) or scellement.GENESE
    d = don.donateur
    seuil = (await seuils(session, don.organisation_id)).seuil_operation
    ligne = LigneRegistreDon(
        id=uuid.uuid4(), organisation_id=don.organisation_id, numero=numero, date_don=don.date_don,
        type_donateur=d.type.value, donateur_nom=d.nom, donateur_telephone=d.telephone,
        donateur_piece_identite=d.piece_identite, donateur_rccm=d.rccm, donateur_ninea=d.ninea,
        membre_id=d.membre_id, montant=don.montant, devise=don.devise, forme=don.forme.value,
        description_nature=don.description_nature, base_evaluation=don.base_evaluation,
        affectation=don.affectation, paiement_id=don.paiement_id, reference=don.reference,
        seuil_lcbft_atteint=abs(don.montant) >= seuil, enregistre_par=auth.actor_name if auth else "systeme",
        created_at=datetime.now(UTC))
    if don.affectation:
        ligne.fonds_id = await alimenter(session, auth, ligne, _nom_donateur(ligne))
    scellement.sceller(ligne, precedent)
    repo.add(ligne)
    await session.flush()
    await audit.record(session, auth, action="INSCRIRE", module=MODULE, entite_type="LigneRegistreDon",
                       entite_id=ligne.id, organisation_id=ligne.organisation_id,
                       severite="WARNING" if ligne.seuil_lcbft_atteint else "INFO",
                       description=f"Registre des dons n° {numero}: {ligne.montant} {ligne.devise} "
                                   f"({ligne.forme}, {ligne.reference})")
    return ligne


def _nom_donateur(ligne: LigneRegistreDon) -> str | None:
    return ligne.donateur_nom if ligne.type_donateur != TypeDonateur.ANONYME else "Anonyme"


async def inscrire_paiement(session: AsyncSession, auth: AuthContext, paiement: Paiement,
                            donateur: DonateurRequest | None, affectation: str | None) -> LigneRegistreDon:
    """The register line of a counter DON receipt just validated (its receipt number is the reference)."""
    donateur = donateur or DonateurRequest(type=TypeDonateur.MEMBRE, membre_id=paiement.membre_id)
    if donateur.type is TypeDonateur.MEMBRE and donateur.nom is None and donateur.membre_id is not None:
        # The register names the member as he is named today (a later rename does not touch a sealed line).
        noms = await MembreRepository(session, None).noms({donateur.membre_id})
        donateur = donateur.model_copy(update={"nom": noms.get(donateur.membre_id)})
    return await inscrire(session, auth, Don(
        organisation_id=paiement.organisation_id, date_don=paiement.date_paiement or datetime.now(UTC),
        donateur=donateur, montant=paiement.montant, devise=paiement.devise,
        forme=forme_du_paiement(paiement.methode), reference=paiement.numero_recu, paiement_id=paiement.id,
        affectation=affectation))


async def contrepasser_paiement(session: AsyncSession, auth: AuthContext | None, paiement: Paiement,
                                motif: str) -> None:
    """A DON receipt cancelled or refunded: a counter-line of the opposite amount, same donor and purpose (the
    gift's line stays as it was sealed); an earmarked gift's fund is reduced by as much."""
    origine = await RegistreDonRepository(session).du_paiement(paiement.id)
    if origine is None:
        return
    donateur = DonateurRequest.model_construct(
        type=TypeDonateur(origine.type_donateur), membre_id=origine.membre_id, nom=origine.donateur_nom,
        telephone=origine.donateur_telephone, piece_identite=origine.donateur_piece_identite,
        rccm=origine.donateur_rccm, ninea=origine.donateur_ninea)
    await inscrire(session, auth, Don(
        organisation_id=origine.organisation_id, date_don=datetime.now(UTC), donateur=donateur,
        montant=-origine.montant, devise=origine.devise, forme=FormeDon(origine.forme),
        reference=f"{paiement.statut} {origine.reference} (ligne n° {origine.numero}): {motif}"[:100],
        paiement_id=paiement.id, affectation=origine.affectation))


def bornes(debut: date, fin: date) -> tuple[datetime, datetime]:
    """The period's first instant and the instant after its last day (UTC)."""
    if debut > fin:
        raise RegleMetier("debut ne peut pas suivre fin")
    return datetime.combine(debut, time(), UTC), datetime.combine(fin + timedelta(days=1), time(), UTC)


class RegistreDonService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = RegistreDonRepository(session)

    async def registre(self, organisation_id: uuid.UUID, debut: date, fin: date) -> RegistreDonsResponse:
        """The period's lines in date order, totals, the LCB-FT threshold they were flagged against, and the
        legal representative (the president) who signs the printed register."""
        nom = await organisation_visible(self.session, self.auth, organisation_id)
        de, a = bornes(debut, fin)
        lignes = [LigneRegistreDonResponse.model_validate(ligne, from_attributes=True)
                  for ligne in await self.repo.periode(organisation_id, de, a)]
        presidents = await MembreRepository(self.session, None).actifs_avec_roles(organisation_id,
                                                                                 frozenset({"PRESIDENT"}))
        nature = sum((x.montant for x in lignes if x.forme is FormeDon.NATURE), start=ZERO)
        total = sum((x.montant for x in lignes), start=ZERO)
        return RegistreDonsResponse(
            organisation_id=organisation_id, organisation=nom, debut=debut, fin=fin,
            devise=lignes[0].devise if lignes else "XOF",
            seuil_lcbft=(await seuils(self.session, organisation_id)).seuil_operation, total=total,
            total_argent=total - nature, total_nature=nature,
            president=f"{presidents[0].prenom} {presidents[0].nom}" if presidents else None, lignes=lignes)

    async def verifier(self, organisation_id: uuid.UUID) -> VerificationRegistreResponse:
        await organisation_visible(self.session, self.auth, organisation_id)
        lignes = [ligne async for ligne in self.repo.chaine(organisation_id)]
        v = scellement.verifier(lignes)
        if not v.intact:
            await audit.record(self.session, self.auth, action="VERIFIER", module=MODULE,
                               entite_type="RegistreDons", organisation_id=organisation_id, severite="CRITICAL",
                               description=f"Registre des dons rompu à la ligne {v.premiere_ligne_rompue}: {v.raison}")
        return VerificationRegistreResponse(organisation_id=organisation_id, intact=v.intact,
                                            lignes_verifiees=v.lignes, premiere_ligne_rompue=v.premiere_ligne_rompue,
                                            raison=v.raison)
