"""A donation in kind: recorded at its valuation in the register and booked by a manual entry — debit the account
that receives the good (asset, stock or expense), credit the donations income account (the organisation's DON
account, 7581 by default; docs/decisions.md), or the fund account 165 for a gift given for a purpose — through the
manual-entry path (saisies/): booked at once, or a four-eyes request when an account under control is touched,
exactly as any manual entry."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import compte_par_defaut
from unionflow.comptabilite.produits.comptes import COMPTE_FONDS_AFFECTES, compte_produit, produits_organisation
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.schemas import (
    CreateEcritureComptableRequest,
    LigneEcritureRequest,
)
from unionflow.core.auth import AuthContext
from unionflow.core.errors import RegleMetier
from unionflow.core.permissions import Permission
from unionflow.dons.schemas import CreateDonNatureRequest, LigneRegistreDonResponse
from unionflow.dons.service import Don, inscrire, organisation_visible, verifier_donateur
from unionflow.models.don import FormeDon
from unionflow.models.recette import NatureRecette
from unionflow.saisies.service import SaisieService, reference_saisie


async def _compte_credit(session: AsyncSession, auth: AuthContext, data: CreateDonNatureRequest) -> uuid.UUID:
    if data.compte_credit_id is not None:
        return data.compte_credit_id
    if (data.affectation or "").strip():
        # A gift for a purpose feeds its fund: credited to the fund account, released as it is used (fonds.py).
        return (await compte_par_defaut(session, data.organisation_id, COMPTE_FONDS_AFFECTES, auth)).id
    numero = compte_produit(await produits_organisation(session, data.organisation_id), NatureRecette.DON.value)
    compte = await ComptabiliteRepository(session, auth).get_compte_by_numero(data.organisation_id, numero)
    if compte is None:
        raise RegleMetier(f"Le compte des dons {numero} n'est pas au plan comptable de l'organisation: "
                          "indiquez compteCreditId")
    return compte.id


async def don_en_nature(session: AsyncSession, auth: AuthContext,
                        data: CreateDonNatureRequest) -> LigneRegistreDonResponse:
    await organisation_visible(session, auth, data.organisation_id)
    auth.require(Permission.COMPTABILITE_ECRIRE, data.organisation_id,
                 "Seuls l'administrateur et le trésorier de l'organisation inscrivent un don en nature")
    if data.date_don > datetime.now(UTC):
        raise RegleMetier("dateDon ne peut pas être dans le futur")
    journal = await ComptabiliteRepository(session, auth).journal(data.journal_id)
    if journal is None or journal.organisation_id != data.organisation_id:
        raise RegleMetier("Le journal n'est pas un journal de cette organisation")
    await verifier_donateur(session, data.organisation_id, data.donateur, data.montant)
    libelle = f"Don en nature: {data.description}"[:300]
    saisie = await SaisieService(session, auth).saisir(CreateEcritureComptableRequest(
        journal_id=data.journal_id, date_ecriture=data.date_don.astimezone(UTC).date(), libelle=libelle,
        piece_reference="DON-NATURE", lignes=[
            LigneEcritureRequest(compte_id=data.compte_debit_id, debit=data.montant, libelle=data.description[:300]),
            LigneEcritureRequest(compte_id=await _compte_credit(session, auth, data), credit=data.montant,
                                 libelle="Don en nature")]))
    # Booked now: the piece number; under four eyes: the request, which a second person approves (saisies/).
    reference = reference_saisie(saisie)
    ligne = await inscrire(session, auth, Don(
        organisation_id=data.organisation_id, date_don=data.date_don, donateur=data.donateur, montant=data.montant,
        devise=data.devise, forme=FormeDon.NATURE, reference=reference, description_nature=data.description,
        base_evaluation=data.base_evaluation, affectation=data.affectation))
    return LigneRegistreDonResponse.model_validate(ligne, from_attributes=True)
