"""Receipts: the signed-ready PDF for the payer and the organisation, and the public verification of a
receipt's authenticity from its QR code."""

from __future__ import annotations

import hmac
import logging
import uuid
from collections.abc import Collection
from dataclasses import replace
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations.repository import DemandeApprobationSystemRepository
from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState, NotFound
from unionflow.documents.storage import Storage
from unionflow.membres.repository import MembreRepository
from unionflow.models import Organisation, Paiement
from unionflow.models.annulation import PAIEMENT, TypeAnnulation, VueAnnulation
from unionflow.models.approbation import GenreDemande, StatutDemande
from unionflow.models.paiement import StatutPaiement, TypeMouvementAvoir
from unionflow.paiements.avoirs.repository import MouvementAvoirRepository
from unionflow.paiements.recette_service import ligne_recette
from unionflow.paiements.recus.pdf import LigneRecu, RecuData, methode_libelle, render_recu
from unionflow.paiements.recus.pdf_remboursement import AnnulationRecu, RemboursementData, render_remboursement
from unionflow.paiements.recus.repository import RecuRepository
from unionflow.paiements.repository import PaiementRepository
from unionflow.paiements.schemas import VerificationRecuResponse
from unionflow.tresoreries.repository import TresorerieSystemRepository

log = logging.getLogger("unionflow.recus")
SANS_RECU = {StatutPaiement.EN_ATTENTE, StatutPaiement.ECHOUE, StatutPaiement.EXPIRE}
# A logo larger than this is not embedded: a receipt stays a small file.
LOGO_MAX_BYTES = 2 * 1024 * 1024


def verification_url(settings: Settings, paiement: Paiement) -> str:
    base = settings.public_base_url.rstrip("/")
    return f"{base}/api/recus/verifier/{quote(paiement.numero_recu)}?cle={quote(paiement.cle_verification)}"


def annulation_recu(demande: VueAnnulation | None) -> AnnulationRecu | None:
    if demande is None or demande.decide_par is None or demande.date_decision is None:
        return None
    return AnnulationRecu(
        rembourse=demande.type_annulation == TypeAnnulation.REMBOURSEMENT_PAIEMENT, motif=demande.motif,
        demande_par=demande.demande_par, date_demande=demande.date_demande, approuve_par=demande.decide_par,
        date_decision=demande.date_decision, numero_remboursement=demande.numero_remboursement)


async def annulation_approuvee(session: AsyncSession, paiement_id: uuid.UUID) -> VueAnnulation | None:
    """The approved request that cancelled or refunded a payment (the ANNULATION kind of four-eyes requests)."""
    demande = await DemandeApprobationSystemRepository(session).sur_objet(
        GenreDemande.ANNULATION.value, paiement_id, StatutDemande.APPROUVEE.value, PAIEMENT)
    return VueAnnulation(demande) if demande else None


def adresse(organisation: Organisation) -> list[str]:
    lieux = dict.fromkeys(p for p in (organisation.ville, organisation.region) if p)  # "Thiès, Thiès" once
    lignes = [organisation.adresse or "", ", ".join(lieux)]
    contact = " — ".join(p for p in (organisation.telephone, organisation.email) if p)
    return [ligne for ligne in (*lignes, contact) if ligne]


class RecuService:
    def __init__(self, session: AsyncSession, auth: AuthContext | None, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = RecuRepository(session)

    async def pdf(self, paiement_id: uuid.UUID, storage: Storage) -> tuple[str, bytes]:
        paiements = PaiementRepository(self.session, self.auth)
        paiement = await paiements.get(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        if paiement.statut in SANS_RECU:
            raise InvalidState("Aucun reçu: ce paiement n'a pas été encaissé")
        if not paiement.a_un_recu:
            # A rejected declaration: nothing was received, no receipt number was ever given.
            raise InvalidState(f"Aucun reçu: la déclaration {paiement.reference_declaration} a été rejetée sans "
                               f"encaissement; ce qui était dû reste dû")
        membre = await paiements.membre(paiement.membre_id)
        organisation = await paiements.organisation(paiement.organisation_id)
        assert membre is not None and organisation is not None
        allocations = (await paiements.allocations([paiement.id])).get(paiement.id, [])
        restes = await self.repo.reste_apres(paiement)
        avoir_cree, utilise = await _avoir_du_recu(self.session, paiement, allocations)
        lignes = [LigneRecu(reference=a[3] or "", libelle=a[4] or "", montant=a[2],
                            reste_du=restes.get(a[0] or a[1])) for a in _hors_imputations(allocations, utilise)]
        if paiement.nature:
            lignes.append(await ligne_recette(self.session, self.auth, paiement))
        return paiement.numero_recu, render_recu(RecuData(
            numero=paiement.numero_recu, organisation=organisation.nom, organisation_adresse=adresse(organisation),
            logo=await self.logo(organisation, storage), membre=f"{membre.prenom} {membre.nom}",
            numero_membre=membre.numero_membre, montant=paiement.montant, devise=paiement.devise,
            methode=paiement.methode, statut=paiement.statut, reference=paiement.reference_externe,
            date=paiement.date_paiement or paiement.created_at, lignes=lignes,
            non_affecte=avoir_cree, avoir_utilise=[(f"utilisé sur {ref}", montant) for ref, _, montant in utilise]
            + await _avoir_rembourse(self.session, paiement),
            **await self._personnes(paiement),
            verification_url=verification_url(self.settings, paiement),
            annulation=await self._annulation_nommee(paiement), methode_declaree=paiement.methode_declaree,
            tresorerie=await self._tresorerie_corrigee(paiement)))

    async def _tresorerie_corrigee(self, paiement: Paiement) -> str | None:
        """The treasury a corrected declaration entered, by name (None when not corrected or not named)."""
        if paiement.methode_declaree is None or paiement.tresorerie_id is None:
            return None
        tresorerie = await TresorerieSystemRepository(self.session).get(paiement.tresorerie_id)
        return f"{tresorerie.nom} ({tresorerie.numero_compte})" if tresorerie is not None else None

    async def _annulation_nommee(self, paiement: Paiement) -> AnnulationRecu | None:
        """The approved request undoing the payment, its people by name where they are members (the e-mail
        otherwise, as for the receiver)."""
        annulation = annulation_recu(await self._annulation(paiement))
        if annulation is None:
            return None
        noms = await MembreRepository(self.session, None).noms_par_email([annulation.demande_par,
                                                                           annulation.approuve_par])
        return replace(annulation, demande_par=noms.get(annulation.demande_par, annulation.demande_par),
                       approuve_par=noms.get(annulation.approuve_par, annulation.approuve_par))

    async def _annulation(self, paiement: Paiement) -> VueAnnulation | None:
        if paiement.statut not in (StatutPaiement.ANNULE, StatutPaiement.REMBOURSE):
            return None
        return await annulation_approuvee(self.session, paiement.id)

    async def pdf_remboursement(self, paiement_id: uuid.UUID, storage: Storage) -> tuple[str, bytes]:
        """The refund receipt (series RMB) of a payment refunded with a second person's approval."""
        paiements = PaiementRepository(self.session, self.auth)
        paiement = await paiements.get(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        demande = await self._annulation(paiement)
        annulation = await self._annulation_nommee(paiement)
        if demande is None or annulation is None or demande.numero_remboursement is None:
            raise InvalidState("Aucun reçu de remboursement: ce paiement n'a pas été remboursé")
        membre = await paiements.membre(paiement.membre_id)
        organisation = await paiements.organisation(paiement.organisation_id)
        assert membre is not None and organisation is not None
        return demande.numero_remboursement, render_remboursement(RemboursementData(
            numero=demande.numero_remboursement, organisation=organisation.nom,
            organisation_adresse=adresse(organisation), logo=await self.logo(organisation, storage),
            membre=f"{membre.prenom} {membre.nom}", numero_membre=membre.numero_membre,
            recu_origine=paiement.numero_recu, date_paiement=paiement.date_paiement or paiement.created_at,
            montant=paiement.montant, devise=paiement.devise, methode=paiement.methode,
            annulation=annulation), methode_libelle(paiement.methode))

    async def _personnes(self, paiement: Paiement) -> dict[str, str | None]:
        """Who received the money and, if someone else, who declared it — by name when they are members. Rows
        older than ``recu_par`` were received by whoever recorded them."""
        recu_par = paiement.recu_par or paiement.enregistre_par
        declare_par = paiement.enregistre_par if paiement.enregistre_par != recu_par else None
        noms = await MembreRepository(self.session, None).noms_par_email(
            [p for p in (recu_par, declare_par) if p])
        if declare_par and paiement.reference_declaration:
            declare_par = f"{noms.get(declare_par, declare_par)} (déclaration {paiement.reference_declaration})"
        elif declare_par:
            declare_par = noms.get(declare_par, declare_par)
        return {"recu_par": noms.get(recu_par, recu_par) if recu_par else None, "declare_par": declare_par}

    async def logo(self, organisation: Organisation, storage: Storage) -> bytes | None:
        document = await self.repo.logo(organisation)
        if document is None or document.cle_stockage is None or (document.taille_octets or 0) > LOGO_MAX_BYTES:
            return None
        chunks = [chunk async for chunk in await storage.open(document.cle_stockage)]
        return b"".join(chunks)

    async def verifier(self, numero: str, cle: str) -> VerificationRecuResponse:
        found = await self.repo.get_by_numero(numero)
        # Unknown number and wrong key answer alike: the route confirms receipts, it does not list them.
        if found is None or not hmac.compare_digest(found[0].cle_verification.encode(), cle.encode()):
            raise NotFound("Reçu introuvable ou clé de vérification incorrecte")
        paiement, organisation = found
        if paiement.statut in SANS_RECU or not paiement.a_un_recu:
            raise NotFound("Reçu introuvable ou clé de vérification incorrecte")
        return VerificationRecuResponse(
            numero_recu=paiement.numero_recu, authentique=True, statut=paiement.statut,
            valide=paiement.statut == StatutPaiement.VALIDE, montant=paiement.montant, devise=paiement.devise,
            date_paiement=paiement.date_paiement or paiement.created_at, organisation=organisation,
            recu_par=await self._recu_par_public(paiement),
            **self._annulation_publique(await self._annulation_nommee(paiement)))

    async def verifier_du_membre(self, numero: str, membre_ids: Collection[uuid.UUID]) -> VerificationRecuResponse:
        """The public verification of a receipt of one of ``membre_ids``, without its key: a member asking about
        his own receipt from his own phone (SMS keyword RECU). Anyone else's answers as an unknown number."""
        found = await self.repo.get_by_numero(numero)
        if found is None or found[0].membre_id not in membre_ids:
            raise NotFound("Reçu introuvable ou clé de vérification incorrecte")
        return await self.verifier(numero, found[0].cle_verification)

    @staticmethod
    def _annulation_publique(annulation: AnnulationRecu | None) -> dict[str, object]:
        """Who asked, who approved and why a receipt no longer holds: staff by name, like the receiver (never a
        login or an e-mail: absent when no name is known; the audit trail keeps the accounts), nothing about the
        member."""
        if annulation is None:
            return {}
        def nom(personne: str) -> str | None:
            return None if "@" in personne else personne
        return {"motif_annulation": annulation.motif, "demande_par": nom(annulation.demande_par),
                "approuve_par": nom(annulation.approuve_par), "date_annulation": annulation.date_decision,
                "numero_remboursement": annulation.numero_remboursement}

    async def _recu_par_public(self, paiement: Paiement) -> str | None:
        """The receiver's name for the public page: never a login or an e-mail."""
        recu_par = paiement.recu_par or paiement.enregistre_par
        if not recu_par or recu_par == "systeme":
            return None
        if "@" not in recu_par:
            return recu_par if recu_par == "Wave" else None
        return (await MembreRepository(self.session, None).noms_par_email([recu_par])).get(recu_par)


async def _avoir_du_recu(session: AsyncSession, paiement: Paiement, allocations: list[tuple[Any, ...]],
                         ) -> tuple[Decimal, list[tuple[str, uuid.UUID, Decimal]]]:
    """The credit this receipt created (from the credit ledger, so a cancelled or refunded receipt keeps its line)
    and what it paid since: (dues reference, dues id, amount) per application."""
    mouvements = (await MouvementAvoirRepository(session).du_paiement([paiement.id]))[paiement.id]
    cree = sum((m.montant for m in mouvements if m.type_mouvement == TypeMouvementAvoir.CREATION), Decimal(0))
    references = {a[0]: a[3] or "" for a in allocations if a[0] is not None}
    utilise = [(references.get(m.cotisation_id, ""), m.cotisation_id, -m.montant) for m in mouvements
               if m.type_mouvement == TypeMouvementAvoir.IMPUTATION and m.cotisation_id is not None]
    return (cree if mouvements else paiement.montant_non_affecte), utilise


async def _avoir_rembourse(session: AsyncSession, paiement: Paiement) -> list[tuple[str, Decimal]]:
    """The parts of this receipt's credit paid back to the member, with their refund number."""
    mouvements = (await MouvementAvoirRepository(session).du_paiement([paiement.id]))[paiement.id]
    return [(m.libelle.split(":")[0].replace("Avoir remboursé", "remboursé"), -m.montant) for m in mouvements
            if m.type_mouvement == TypeMouvementAvoir.REMBOURSEMENT]


def _hors_imputations(allocations: list[tuple[Any, ...]],
                      utilise: list[tuple[str, uuid.UUID, Decimal]]) -> list[tuple[Any, ...]]:
    """The allocations made when the money was received: those its credit made later are listed apart."""
    a_retirer: dict[uuid.UUID, Decimal] = {}
    for _, cotisation_id, montant in utilise:
        a_retirer[cotisation_id] = a_retirer.get(cotisation_id, Decimal(0)) + montant
    gardees = []
    for allocation in allocations:
        retire = min(a_retirer.get(allocation[0], Decimal(0)), allocation[2])
        if retire > 0:
            a_retirer[allocation[0]] -= retire
        if allocation[2] - retire > 0:
            gardees.append((*allocation[:2], allocation[2] - retire, *allocation[3:]))
    return gardees
