"""Gathers what the payout voucher prints: the payout as the caller sees it (same visibility as GET
/api/versements/{id}), its organisation, its treasury, and the people by name — who prepared it, who confirmed it
and who approved its request when it needed one."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.documents.storage import Storage
from unionflow.finance.approbations.schemas import TypeObjetApprobation
from unionflow.finance.approbations.service import courantes
from unionflow.membres.repository import MembreRepository
from unionflow.models import Versement
from unionflow.models.approbation import StatutDemande, TypeDecision
from unionflow.models.versement import ModeVersement
from unionflow.paiements.recus.service import RecuService, adresse
from unionflow.paiements.repository import PaiementRepository
from unionflow.paiements.versements.bon import BonData, render_bon
from unionflow.paiements.versements.repository import VersementRepository
from unionflow.tresoreries.repository import TresorerieSystemRepository

# Payouts from before treasuries left from these accounts (service.py books them so).
COMPTE_PAR_DEFAUT = {ModeVersement.WAVE: "compte Wave (5215)", ModeVersement.MANUEL: "banque (521)"}


async def bon_de_decaissement(session: AsyncSession, auth: AuthContext, settings: Settings,
                              versement_id: uuid.UUID, storage: Storage) -> tuple[str, bytes]:
    """(payout number, PDF). An invisible payout is 404, like reading it."""
    versement = await VersementRepository(session, auth).get(versement_id)
    if versement is None:
        raise NotFound("Versement introuvable")
    organisation = await PaiementRepository(session, auth).organisation(versement.organisation_id)
    assert organisation is not None
    approbateurs = await _approbateurs(session, versement)
    noms = await MembreRepository(session, None).noms_par_email(
        [p for p in (versement.cree_par, versement.confirme_par, *approbateurs) if p])
    return versement.numero, render_bon(BonData(
        numero=versement.numero, organisation=organisation.nom, organisation_adresse=adresse(organisation),
        logo=await RecuService(session, auth, settings).logo(organisation, storage),
        date=versement.date_execution or versement.created_at, statut=versement.statut,
        beneficiaire=versement.beneficiaire_nom, beneficiaire_telephone=versement.beneficiaire_telephone,
        montant=versement.montant, devise=versement.devise, objet=versement.objet_type, motif=versement.motif,
        mode=versement.mode, reference=versement.reference_externe, tresorerie=await _tresorerie(session, versement),
        prepare_par=noms.get(versement.cree_par, versement.cree_par),
        confirme_par=noms.get(versement.confirme_par, versement.confirme_par) if versement.confirme_par else None,
        approuve_par=", ".join(noms.get(a, a) for a in approbateurs) or None))


async def _approbateurs(session: AsyncSession, versement: Versement) -> list[str]:
    """Who approved the payout's request (every level), when it needed one; the caller already sees the payout."""
    demandes = await courantes(session, None, TypeObjetApprobation.VERSEMENT, versement.id)
    if not demandes or demandes[0].statut != StatutDemande.APPROUVEE:
        return []
    return [d.decideur for d in demandes[0].decisions if d.decision == TypeDecision.APPROUVEE]


async def _tresorerie(session: AsyncSession, versement: Versement) -> str:
    if versement.tresorerie_id is None:
        return COMPTE_PAR_DEFAUT[ModeVersement(versement.mode)]
    tresorerie = await TresorerieSystemRepository(session).get(versement.tresorerie_id)
    return f"{tresorerie.nom} (compte {tresorerie.numero_compte})" if tresorerie else "trésorerie inconnue"
