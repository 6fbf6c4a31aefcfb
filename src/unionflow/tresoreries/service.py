"""The organisation's treasuries: declared by the treasury, each mapped to one class-5 account;
the balance of a treasury is its account's balance in the books; money leaving a cash box never makes it negative
(a bank only beyond its declared overdraft); internal transfers through 585 (comptabilite/ecritures/tresorerie.py).

What other areas call (payouts, refunds), on the system's behalf after their own permission check:
``tresorerie_de_sortie`` (the named or default treasury of a movement) and ``verifier_sortie`` (the balance rule,
under the treasury's row lock).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.tresorerie import (
    ANCIENS_MOBILES,
    COMPTE_STANDARD,
    CoteVirement,
    comptabiliser_virement_interne,
    compte_standard_organisation,
    ouvrir_compte,
    solde_compte,
    type_de_methode,
)
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.numbering import sequential_number
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import Tresorerie
from unionflow.models.tresorerie import TypeTresorerie
from unionflow.organisations.repository import OrganisationRepository
from unionflow.tresoreries.repository import TresorerieRepository, TresorerieSystemRepository
from unionflow.tresoreries.schemas import (
    CreateTresorerieRequest,
    CreateVirementInterneRequest,
    TresorerieResponse,
    UpdateTresorerieRequest,
    VirementInterneResponse,
)

MODULE = "TRESORERIE"
ZERO = Decimal("0")
T = TypeTresorerie
# What an organisation that declared nothing gets on first use: the type's standard account
# (comptabilite/ecritures/tresorerie.COMPTE_STANDARD: 571, 521, 5521–5523, or a former 5215–5217 already open).
NOMS = {T.CAISSE: "Caisse", T.BANQUE: "Banque", T.WAVE: "Wave", T.ORANGE_MONEY: "Orange Money",
        T.FREE_MONEY: "Free Money"}
# The class-5 accounts a type may map to: 57 caisse, 52 banques, 552 « monnaie électronique : téléphone portable »
# for each mobile wallet (SYSCOHADA révisé, SYCEBNL), or the former 5215–5217 of the type.
PREFIXES = {T.CAISSE: ("57",), T.BANQUE: ("52",), T.WAVE: ("552", "5215"), T.ORANGE_MONEY: ("552", "5216"),
            T.FREE_MONEY: ("552", "5217")}


def _compte_conforme(type_tresorerie: str, numero: str) -> bool:
    if not numero.startswith(PREFIXES[T(type_tresorerie)]):
        return False
    return type_tresorerie != T.BANQUE or not numero.startswith(ANCIENS_MOBILES)


async def solde(session: AsyncSession, tresorerie: Tresorerie) -> Decimal:
    return await solde_compte(session, tresorerie.organisation_id, tresorerie.numero_compte)


async def tresorerie_par_defaut(session: AsyncSession, organisation_id: uuid.UUID, type_tresorerie: str,
                                auth: AuthContext | None) -> Tresorerie:
    """The default active treasury of a type: the one marked default, else the oldest active one of the type,
    else the standard one (571, 521, 5521… or a former 5215… already open) created now (first use)."""
    repo = TresorerieSystemRepository(session)
    found = await repo.par_defaut(organisation_id, type_tresorerie)
    if found is not None:
        return found
    actives = sorted((t for t in await repo.de_organisation(organisation_id)
                      if t.type_tresorerie == type_tresorerie and t.actif), key=lambda t: t.created_at)
    if actives:
        return actives[0]
    nom = NOMS[T(type_tresorerie)]
    numero = await compte_standard_organisation(session, organisation_id, type_tresorerie)
    existing = await repo.par_compte(organisation_id, numero)
    if existing is not None:  # the standard one exists but was deactivated: money still needs a home
        raise InvalidState(f"Aucune trésorerie active de type {type_tresorerie} (la trésorerie « {existing.nom} » "
                           "est désactivée)")
    await ouvrir_compte(session, organisation_id, numero, nom, auth)
    tresorerie = Tresorerie(organisation_id=organisation_id, type_tresorerie=type_tresorerie, nom=nom,
                            numero_compte=numero, decouvert_autorise=None, actif=True, par_defaut=True,
                            cree_par=auth.actor_name if auth else "systeme")
    repo.add(tresorerie)
    await session.flush()
    await audit.record(session, auth, action="CREER", module=MODULE, entite_type="Tresorerie",
                       entite_id=tresorerie.id, organisation_id=organisation_id,
                       after=audit.snapshot(tresorerie, ["type_tresorerie", "nom", "numero_compte"]),
                       description=f"Trésorerie par défaut « {nom} » ({numero}) créée à la première utilisation")
    return tresorerie


async def tresorerie_de_sortie(session: AsyncSession, organisation_id: uuid.UUID, tresorerie_id: uuid.UUID | None,
                               type_defaut: str, auth: AuthContext | None) -> Tresorerie:
    """The treasury a movement names (active, of the organisation), or the default one of ``type_defaut``."""
    if tresorerie_id is None:
        return await tresorerie_par_defaut(session, organisation_id, type_defaut, auth)
    tresorerie = await TresorerieSystemRepository(session).get(tresorerie_id)
    if tresorerie is None or tresorerie.organisation_id != organisation_id:
        raise NotFound("Trésorerie introuvable dans cette organisation")
    if not tresorerie.actif:
        raise InvalidState(f"La trésorerie « {tresorerie.nom} » est désactivée")
    return tresorerie


async def tresorerie_d_entree(session: AsyncSession, organisation_id: uuid.UUID, tresorerie_id: uuid.UUID,
                              methode: str) -> Tresorerie:
    """The treasury a counter payment names: active, of the organisation, of the method's type."""
    tresorerie = await tresorerie_de_sortie(session, organisation_id, tresorerie_id, T.CAISSE, None)
    attendu = type_de_methode(methode)
    if tresorerie.type_tresorerie != attendu:
        raise RegleMetier(f"Un paiement {methode} entre dans une trésorerie {attendu}, pas dans "
                          f"« {tresorerie.nom} » ({tresorerie.type_tresorerie})")
    return tresorerie


async def verifier_sortie(session: AsyncSession, tresorerie: Tresorerie, montant: Decimal) -> Decimal:
    """Refuse (400, with the balance) money leaving a cash box beyond its balance, or a bank beyond its declared
    overdraft. The treasury's row is locked first: two concurrent payouts are checked one after the other.
    Returns the balance before the movement."""
    await TresorerieSystemRepository(session).lock_many([tresorerie.id])
    disponible = await solde(session, tresorerie)
    if tresorerie.type_tresorerie == T.CAISSE:
        plancher = ZERO
    elif tresorerie.type_tresorerie == T.BANQUE and tresorerie.decouvert_autorise is not None:
        plancher = -tresorerie.decouvert_autorise
    else:
        return disponible
    if disponible - montant < plancher:
        precision = "" if plancher == ZERO else f", découvert autorisé {montant_texte(-plancher)}"
        raise InvalidState(f"Solde insuffisant: la trésorerie « {tresorerie.nom} » ({tresorerie.numero_compte}) a "
                           f"un solde de {montant_texte(disponible)}{precision}; une sortie de "
                           f"{montant_texte(montant)} est refusée")
    return disponible


async def verifier_mouvements(session: AsyncSession, organisation_id: uuid.UUID,
                              lignes: Iterable[tuple[str, Decimal, Decimal]], auth: AuthContext | None) -> None:
    """The treasury rule for an entry typed by hand (``lignes``: account number, debit, credit): every
    treasury the entry takes money from is locked, in one order, and checked as a payout is (``verifier_sortie``:
    a cash box never below zero, a bank never beyond its declared overdraft). A standard account (571, 521, …)
    that no treasury maps to yet gets its default treasury, as the first payment would; an account no treasury
    maps to otherwise carries no floor (none was declared)."""
    mouvements: dict[str, Decimal] = {}
    for numero, debit, credit in lignes:
        if numero.startswith("5"):
            mouvements[numero] = mouvements.get(numero, ZERO) + debit - credit
    repo = TresorerieSystemRepository(session)
    sorties: list[tuple[Tresorerie, Decimal]] = []
    for numero, net in sorted(mouvements.items()):
        if net >= ZERO:
            continue
        tresorerie = await repo.par_compte(organisation_id, numero)
        standard = next((t for t, numeros in COMPTE_STANDARD.items() if numero in numeros), None)
        if tresorerie is None and standard is not None:
            tresorerie = await tresorerie_par_defaut(session, organisation_id, standard, auth)
            tresorerie = tresorerie if tresorerie.numero_compte == numero else None
        if tresorerie is not None:
            sorties.append((tresorerie, -net))
    # One lock order (by id) for every treasury of the entry: two entries on the same boxes never deadlock.
    await repo.lock_many(sorted(t.id for t, _ in sorties))
    for tresorerie, montant in sorties:
        await verifier_sortie(session, tresorerie, montant)


class TresorerieService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = TresorerieRepository(session, auth)
        self.system = TresorerieSystemRepository(session)

    async def _response(self, tresorerie: Tresorerie) -> TresorerieResponse:
        return TresorerieResponse(
            id=tresorerie.id, organisation_id=tresorerie.organisation_id, type=T(tresorerie.type_tresorerie),
            nom=tresorerie.nom, numero_compte=tresorerie.numero_compte,
            decouvert_autorise=tresorerie.decouvert_autorise, actif=tresorerie.actif,
            par_defaut=tresorerie.par_defaut, solde=await solde(self.session, tresorerie),
            cree_par=tresorerie.cree_par, created_at=tresorerie.created_at, updated_at=tresorerie.updated_at)

    async def _exiger(self, organisation_id: uuid.UUID) -> None:
        # A union-wide role sees every organisation: one that does not exist is still a 404, never a failed insert.
        if not staff_sees(self.auth, organisation_id) or not await OrganisationRepository(
                self.session, self.auth).exists(organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.TRESORERIE_GERER, organisation_id,
                          "Seule la trésorerie ou l'administration de l'organisation gère ses trésoreries")

    async def _get(self, tresorerie_id: uuid.UUID) -> Tresorerie:
        tresorerie = await self.repo.get(tresorerie_id)
        if tresorerie is None:
            raise NotFound("Trésorerie introuvable")
        return tresorerie

    async def lister(self, organisation_id: uuid.UUID) -> list[TresorerieResponse]:
        if not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        return [await self._response(t) for t in await self.repo.de_organisation(organisation_id)]

    async def obtenir(self, tresorerie_id: uuid.UUID) -> TresorerieResponse:
        return await self._response(await self._get(tresorerie_id))

    async def _un_seul_defaut(self, tresorerie: Tresorerie) -> None:
        """Marking a treasury default unmarks the other default of its type."""
        for autre in await self.system.de_organisation(tresorerie.organisation_id):
            if autre.id != tresorerie.id and autre.type_tresorerie == tresorerie.type_tresorerie and autre.par_defaut:
                autre.par_defaut = False

    async def creer(self, data: CreateTresorerieRequest) -> TresorerieResponse:
        await self._exiger(data.organisation_id)
        if not _compte_conforme(data.type, data.numero_compte):
            raise RegleMetier(f"Le compte {data.numero_compte} ne convient pas à une trésorerie {data.type} "
                              f"(comptes {', '.join(p + '…' for p in PREFIXES[data.type])})")
        if data.decouvert_autorise is not None and data.type != T.BANQUE:
            raise RegleMetier("Un découvert autorisé ne se déclare que pour une banque")
        if await self.system.par_compte(data.organisation_id, data.numero_compte) is not None:
            raise Conflict(f"Le compte {data.numero_compte} est déjà rattaché à une trésorerie")
        if any(t.nom == data.nom for t in await self.system.de_organisation(data.organisation_id)):
            raise Conflict(f"Une trésorerie s'appelle déjà « {data.nom} »")
        await ouvrir_compte(self.session, data.organisation_id, data.numero_compte, data.nom, self.auth)
        tresorerie = Tresorerie(
            organisation_id=data.organisation_id, type_tresorerie=data.type, nom=data.nom,
            numero_compte=data.numero_compte, actif=True, par_defaut=data.par_defaut, cree_par=self.auth.actor_name,
            decouvert_autorise=(data.decouvert_autorise or ZERO) if data.type == T.BANQUE else None)
        self.repo.add(tresorerie)
        await self.session.flush()
        if tresorerie.par_defaut:
            await self._un_seul_defaut(tresorerie)
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Tresorerie",
                           entite_id=tresorerie.id, organisation_id=tresorerie.organisation_id,
                           after=audit.snapshot(tresorerie, ["type_tresorerie", "nom", "numero_compte",
                                                             "decouvert_autorise", "par_defaut"]))
        return await self._response(tresorerie)

    async def modifier(self, tresorerie_id: uuid.UUID, data: UpdateTresorerieRequest) -> TresorerieResponse:
        tresorerie = await self._get(tresorerie_id)
        await self._exiger(tresorerie.organisation_id)
        champs = ["nom", "decouvert_autorise", "actif", "par_defaut"]
        before = audit.snapshot(tresorerie, champs)
        changes = data.model_dump(exclude_unset=True)
        if "decouvert_autorise" in changes and tresorerie.type_tresorerie != T.BANQUE:
            raise RegleMetier("Un découvert autorisé ne se déclare que pour une banque")
        if changes.get("actif") is False and await solde(self.session, tresorerie) != ZERO:
            raise InvalidState(f"La trésorerie « {tresorerie.nom} » a un solde de "
                               f"{montant_texte(await solde(self.session, tresorerie))}: virez-le avant de la "
                               "désactiver")
        if "nom" in changes and any(t.nom == changes["nom"] and t.id != tresorerie.id
                                    for t in await self.system.de_organisation(tresorerie.organisation_id)):
            raise Conflict(f"Une trésorerie s'appelle déjà « {changes['nom']} »")
        for champ, valeur in changes.items():
            setattr(tresorerie, champ, valeur)
        if tresorerie.par_defaut and not tresorerie.actif:
            tresorerie.par_defaut = False
        await self.session.flush()
        if tresorerie.par_defaut:
            await self._un_seul_defaut(tresorerie)
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="Tresorerie",
                           entite_id=tresorerie.id, organisation_id=tresorerie.organisation_id, before=before,
                           after=audit.snapshot(tresorerie, champs))
        return await self._response(tresorerie)

    async def virer(self, data: CreateVirementInterneRequest) -> VirementInterneResponse:
        """An internal transfer (cash deposited at the bank, Wave withdrawn to cash…): two entries through 585,
        the source checked against its balance under both rows' locks."""
        await self._exiger(data.organisation_id)
        if data.source_id == data.destination_id:
            raise RegleMetier("La trésorerie de destination doit différer de la source")
        if data.date_operation is not None and data.date_operation > datetime.now(UTC).date():
            # The balance checked is today's: money cannot be moved on a day that has not come.
            raise RegleMetier("dateOperation ne peut pas être dans le futur")
        verrouillees = await self.system.lock_many([data.source_id, data.destination_id])
        source, destination = verrouillees.get(data.source_id), verrouillees.get(data.destination_id)
        for tresorerie, role in ((source, "source"), (destination, "de destination")):
            if tresorerie is None or tresorerie.organisation_id != data.organisation_id:
                raise NotFound(f"Trésorerie {role} introuvable dans cette organisation")
            if not tresorerie.actif:
                raise InvalidState(f"La trésorerie {role} « {tresorerie.nom} » est désactivée")
        assert source is not None and destination is not None
        await verifier_sortie(self.session, source, data.montant)
        date_operation = data.date_operation or datetime.now(UTC).date()
        numero = await sequential_number(self.session, "VIR", date_operation.year)
        sortie, entree = await comptabiliser_virement_interne(
            self.session, organisation_id=data.organisation_id, numero=numero,
            source=CoteVirement(source.numero_compte, source.type_tresorerie, source.nom),
            destination=CoteVirement(destination.numero_compte, destination.type_tresorerie, destination.nom),
            montant=data.montant, date_operation=date_operation, libelle=data.libelle, auth=self.auth)
        await audit.record(self.session, self.auth, action="VIRER", module=MODULE, entite_type="Tresorerie",
                           entite_id=source.id, organisation_id=data.organisation_id,
                           after={"numero": numero, "source": source.nom, "destination": destination.nom,
                                  "montant": str(data.montant), "date": date_operation.isoformat()},
                           description=f"Virement interne {numero}: {montant_texte(data.montant)} de « {source.nom} » "
                                       f"vers « {destination.nom} » ({data.libelle})")
        return VirementInterneResponse(
            numero=numero, organisation_id=data.organisation_id, source_id=source.id, destination_id=destination.id,
            montant=data.montant, date_operation=sortie.date_ecriture, libelle=data.libelle,
            ecriture_sortie_id=sortie.id, ecriture_entree_id=entree.id,
            solde_source=await solde(self.session, source), solde_destination=await solde(self.session, destination),
            effectue_par=self.auth.actor_name)
