"""A line of Wave's statement that matches none of our money, booked to an account by hand: a manual entry on the
Wave treasury, hence a four-eyes request (saisies/, kind ECRITURE). Its piece reference names the Wave transaction
(``WAVE-<id>``), so the line counts as reconciled once the entry is approved and one line is never booked twice."""

from __future__ import annotations

import uuid
from datetime import UTC
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.comptabilite.ecritures.service import (
    CHARGE_FRAIS_WAVE,
    compte_par_defaut,
    journal_par_defaut,
)
from unionflow.comptabilite.ecritures.tresorerie import compte_de_type, journal_de_type
from unionflow.comptabilite.repository import ComptabiliteRepository, ComptabiliteSystemRepository
from unionflow.comptabilite.schemas import CreateEcritureComptableRequest, LigneEcritureRequest
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models import LigneReleveWave
from unionflow.models.approbation import StatutDemande
from unionflow.models.wave import StatutLigneReleveWave
from unionflow.saisies.schemas import DemandeEcritureResponse
from unionflow.saisies.service import GENRE as GENRE_ECRITURE
from unionflow.saisies.service import SaisieService
from unionflow.wave.rapprochement_repository import ReleveWaveRepository, ReleveWaveSystemRepository
from unionflow.wave.rapprochement_schemas import ComptabiliserLigneWaveRequest

ZERO = Decimal("0")


def piece_ligne(ligne: LigneReleveWave) -> str:
    return f"WAVE-{ligne.transaction_id}{'-R' if ligne.est_annulation else ''}"[:100]


async def comptabiliser(session: AsyncSession, auth: AuthContext, releve_id: uuid.UUID, ligne_id: uuid.UUID,
                        data: ComptabiliserLigneWaveRequest) -> DemandeEcritureResponse:
    """The request to book an unknown line: the Wave treasury by the line's net amount, Wave's fee to 6317, the
    chosen account by the gross amount (credit for money received, debit for money gone)."""
    releve = await ReleveWaveRepository(session, auth).get(releve_id)
    if releve is None:
        raise NotFound("Relevé Wave introuvable")
    org = releve.organisation_id
    auth.require(Permission.WAVE_RAPPROCHER, org, "Seule la trésorerie de l'organisation rapproche ses relevés Wave")
    ligne = await ReleveWaveSystemRepository(session).ligne(releve.id, ligne_id)
    if ligne is None:
        raise NotFound("Ligne de relevé introuvable")
    if ligne.statut != StatutLigneReleveWave.INCONNUE:
        raise RegleMetier(f"Seule une ligne inconnue se comptabilise à la main (statut: {ligne.statut})")
    piece = piece_ligne(ligne)
    if await ComptabiliteSystemRepository(session).premiere_ecriture_de_piece(org, piece) is not None:
        raise Conflict(f"La transaction Wave {ligne.transaction_id} est déjà comptabilisée")
    attente = await DemandeApprobationRepository(session, auth).de_l_organisation(
        GENRE_ECRITURE, org, StatutDemande.EN_ATTENTE.value)
    if any((d.details or {}).get("piece_reference") == piece for d in attente):
        raise Conflict(f"La transaction Wave {ligne.transaction_id} attend déjà l'approbation de son écriture")
    compte = (await ComptabiliteRepository(session, auth).comptes_by_ids({data.compte_id})).get(data.compte_id)
    if compte is None or compte.organisation_id != org:
        raise NotFound("Compte comptable introuvable dans cette organisation")
    if compte.classe == 5:
        raise RegleMetier("La contrepartie d'une ligne Wave n'est pas une trésorerie: pour un virement interne, "
                          "utilisez les virements entre trésoreries")
    wave = await compte_par_defaut(session, org, await compte_de_type(session, org, "WAVE"), auth)
    brut = ligne.montant + ligne.frais
    lignes = [_ligne(wave.id, ligne.montant, f"Wave {ligne.transaction_id}")]
    if ligne.frais != ZERO:
        frais = await compte_par_defaut(session, org, CHARGE_FRAIS_WAVE, auth)
        lignes.append(_ligne(frais.id, ligne.frais, f"Frais Wave {ligne.transaction_id}"))
    lignes.append(_ligne(compte.id, -brut, data.libelle))
    journal = await journal_par_defaut(session, org, journal_de_type("WAVE"))
    request = CreateEcritureComptableRequest(
        journal_id=journal.id, date_ecriture=ligne.horodatage.astimezone(UTC).date()
        if ligne.horodatage.tzinfo else ligne.horodatage.date(), libelle=data.libelle, piece_reference=piece,
        lignes=[lg for lg in lignes if lg.debit or lg.credit])
    result = await SaisieService(session, auth).saisir(request)
    assert isinstance(result, DemandeEcritureResponse)  # it touches the Wave treasury: always a request
    return result


def _ligne(compte_id: uuid.UUID, montant: Decimal, libelle: str) -> LigneEcritureRequest:
    """``montant`` > 0 is a debit, < 0 a credit."""
    return LigneEcritureRequest(compte_id=compte_id, debit=montant if montant > ZERO else ZERO,
                                credit=-montant if montant < ZERO else ZERO, libelle=libelle[:300])
