"""Wave reconciliation: import Wave's statement (the portal's CSV, or ``GET /v1/transactions``), match
each line to our Wave payments and payouts, book Wave's fees, list what is unmatched on either side and set the
Wave account's book balance beside Wave's.

Matching, in this order: the Wave transaction id of a credited session, the checkout session id, then the client
reference we give Wave (the payment's id for a checkout, the payout's id for a payout); then Wave money we booked
without a session (a transfer to the organisation's Wave number recorded at the counter or declared and
confirmed) by the Wave transaction id it carries, and last, for a line still unknown, by amount and date within
``TOLERANCE``, only when exactly one such payment is free: never two payments on one line, never one payment on two
lines. The line's gross amount (``amount + fee``) must equal ours (negative for a payout, sign reversed for a
refund or reversal), otherwise the line is MONTANT_DIFFERENT and nothing is booked for it.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.service import comptabiliser_frais_wave
from unionflow.comptabilite.ecritures.tresorerie import compte_de_type
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, NotFound, UpstreamError
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import LigneReleveWave, RapprochementWave, ReleveWave
from unionflow.models.paiement import MethodePaiement
from unionflow.models.wave import SourceReleveWave, StatutLigneReleveWave
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.rapprochement_wave.lignes_inconnues import piece_ligne
from unionflow.paiements.rapprochement_wave.par_code import code_de_ligne, encaisser_par_code
from unionflow.paiements.repository import PaiementSystemRepository
from unionflow.wave.parsing import LigneWave, ligne, lire_csv
from unionflow.wave.rapprochement_repository import RECU, ReleveWaveRepository, ReleveWaveSystemRepository
from unionflow.wave.rapprochement_schemas import (
    ImporterReleveWaveRequest,
    LigneReleveWaveResponse,
    RapprochementWaveResponse,
    ReleveWaveDetailResponse,
    ReleveWaveResponse,
    TypeOperationWave,
    absentes,
)
from unionflow.wave.service import client_for_organisation

MODULE = "WAVE"
# Methods of Wave money that may come without a checkout session: a direct transfer (and WAVE payments booked
# before the transfer had its own method).
METHODES_WAVE = frozenset({MethodePaiement.WAVE_TRANSFERT.value, MethodePaiement.WAVE.value})
# How far the date of a Wave line may be from the date we booked a payment with no transaction id matching it.
TOLERANCE = timedelta(days=3)
MAX_PAGES = 200
ZERO = Decimal("0")
S = StatutLigneReleveWave


@dataclass(frozen=True)
class Correspondance:
    organisation_id: uuid.UUID
    paiement_id: uuid.UUID | None
    versement_id: uuid.UUID | None
    attendu: Decimal  # our gross amount as Wave's sign sees it: + a payment received, − a payout


def _uuid(value: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return None


def _utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back naive (stored in UTC): compared with Wave's, which carry their zone."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _cle(row: LigneWave | LigneReleveWave) -> tuple[str, bool]:
    return row.transaction_id, row.est_annulation


def _rapprochement_response(row: RapprochementWave) -> RapprochementWaveResponse:
    return RapprochementWaveResponse(
        id=row.id, releve_id=row.releve_id, organisation_id=row.organisation_id,
        lignes_rapprochees=row.lignes_rapprochees, lignes_inconnues=row.lignes_inconnues,
        lignes_montant_different=row.lignes_montant_different, operations_absentes=row.operations_absentes,
        frais_comptabilises=row.frais_comptabilises, solde_comptable=row.solde_comptable, solde_wave=row.solde_wave,
        ecart=row.ecart, compte_partage=row.compte_partage, absentes=absentes(row.absentes),
        rapproche_par=row.rapproche_par, created_at=row.created_at)


class RapprochementWaveService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = ReleveWaveRepository(session, auth)
        self.system = ReleveWaveSystemRepository(session)

    async def _permettre(self, organisation_id: uuid.UUID) -> None:
        if not staff_sees(self.auth, organisation_id) or not await OrganisationRepository(
                self.session, self.auth).exists(organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.WAVE_RAPPROCHER, organisation_id,
                          "Seule la trésorerie de l'organisation importe et rapproche ses relevés Wave")

    async def _get(self, releve_id: uuid.UUID) -> ReleveWave:
        releve = await self.repo.get(releve_id)
        if releve is None:
            raise NotFound("Relevé Wave introuvable")
        return releve

    # ---- import ----------------------------------------------------------------------------------------------

    async def importer_csv(self, organisation_id: uuid.UUID, nom_fichier: str | None,
                           contenu: bytes) -> ReleveWaveResponse:
        await self._permettre(organisation_id)
        lignes = lire_csv(contenu)
        assert self.settings is not None
        _, compte_id = await client_for_organisation(self.session, self.settings, organisation_id)
        return await self._importer(organisation_id, compte_id, SourceReleveWave.CSV, (nom_fichier or "")[:255],
                                    hashlib.sha256(contenu).hexdigest(), lignes)

    async def importer_api(self, data: ImporterReleveWaveRequest) -> ReleveWaveResponse:
        await self._permettre(data.organisation_id)
        assert self.settings is not None
        client, compte_id = await client_for_organisation(self.session, self.settings, data.organisation_id)
        items: list[dict[str, Any]] = []
        after: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.transactions(data.date.isoformat(), after)
            items.extend(i for i in page.get("items") or [] if isinstance(i, dict))
            info = page.get("page_info") or {}
            after = info.get("end_cursor") if info.get("has_next_page") else None
            if not after:
                break
        else:
            raise UpstreamError(f"Wave renvoie plus de {MAX_PAGES} pages pour le {data.date:%d/%m/%Y}")
        lignes = [ligne(item, f"transaction Wave {i}") for i, item in enumerate(items, start=1)]
        empreinte = hashlib.sha256(json.dumps([str(compte_id), data.date.isoformat(), items], sort_keys=True,
                                              default=str).encode()).hexdigest()
        return await self._importer(data.organisation_id, compte_id, SourceReleveWave.API, None, empreinte, lignes)

    async def _importer(self, organisation_id: uuid.UUID, compte_id: uuid.UUID | None, source: SourceReleveWave,
                        nom_fichier: str | None, empreinte: str, lignes: list[LigneWave]) -> ReleveWaveResponse:
        existing = await self.system.par_empreinte(organisation_id, empreinte)
        if existing is not None:
            raise Conflict("Ce relevé Wave est déjà importé: rapprochez-le", extra={"releveId": str(existing.id)})
        uniques: dict[tuple[str, bool], LigneWave] = {}
        for row in lignes:
            uniques.setdefault(_cle(row), row)
        connues = await self.system.lignes_connues(organisation_id, list(uniques))
        nouvelles = [row for key, row in uniques.items() if key not in connues]
        matches = await self._correspondances(organisation_id, nouvelles)
        datees = sorted(lignes, key=lambda r: r.horodatage)
        soldes = [r.solde for r in datees if r.solde is not None]
        releve = ReleveWave(
            organisation_id=organisation_id, compte_wave_id=compte_id, source=source, nom_fichier=nom_fichier or None,
            empreinte=empreinte, date_debut=datees[0].horodatage.date() if datees else None,
            date_fin=datees[-1].horodatage.date() if datees else None, solde_wave=soldes[-1] if soldes else None,
            nombre_lignes=0, lignes_deja_connues=len(lignes) - len(nouvelles), lignes_autres_organisations=0,
            importe_par=self.auth.actor_name)
        self.session.add(releve)
        await self.session.flush()
        for row in nouvelles:
            match = matches.get(_cle(row))
            if match is not None and match.organisation_id != organisation_id:
                # The union's shared account: another organisation's money is not this one's statement.
                releve.lignes_autres_organisations += 1
                continue
            releve.nombre_lignes += 1
            self.session.add(LigneReleveWave(
                releve_id=releve.id, organisation_id=organisation_id, transaction_id=row.transaction_id,
                est_annulation=row.est_annulation, horodatage=row.horodatage, type_transaction=row.type_transaction,
                montant=row.montant, frais=row.frais, solde=row.solde, devise=row.devise,
                contrepartie_nom=row.contrepartie_nom, contrepartie_mobile=row.contrepartie_mobile,
                client_reference=row.client_reference, session_checkout_id=row.session_checkout_id,
                message=row.message, statut=S.A_RAPPROCHER))
        # Two imports of overlapping statements at once: the second one finds the lines taken and starts again.
        await flush_unique(self.session, "Un autre import de ces lignes Wave vient d'aboutir: réessayez")
        await audit.record(self.session, self.auth, action="IMPORTER_RELEVE", module=MODULE, entite_type="ReleveWave",
                           entite_id=releve.id, organisation_id=organisation_id,
                           after=audit.snapshot(releve, ["source", "nom_fichier", "date_debut", "date_fin",
                                                         "solde_wave", "nombre_lignes", "lignes_deja_connues",
                                                         "lignes_autres_organisations"]),
                           description=f"Relevé Wave importé ({source}): {releve.nombre_lignes} lignes")
        return ReleveWaveResponse.model_validate(releve)

    async def _correspondances(self, organisation_id: uuid.UUID, lignes: list[LigneWave] | list[LigneReleveWave]
                               ) -> dict[tuple[str, bool], Correspondance]:
        refs = {ref for row in lignes if (ref := _uuid(row.client_reference)) is not None}
        checkouts = await self.system.checkouts(
            sessions={row.session_checkout_id for row in lignes if row.session_checkout_id},
            transactions={row.transaction_id for row in lignes}, paiements=refs)
        par_transaction = {c.transaction_id: c for c in checkouts if c.transaction_id}
        par_session = {c.checkout_id: c for c in checkouts}
        par_paiement = {c.paiement_id: c for c in checkouts}
        par_versement = {t.versement_id: t for t in await self.system.payouts(refs) if t.versement_id}
        result: dict[tuple[str, bool], Correspondance] = {}
        for row in lignes:
            ref = _uuid(row.client_reference)
            signe = Decimal(-1) if row.est_annulation else Decimal(1)
            checkout = (par_transaction.get(row.transaction_id) or par_session.get(row.session_checkout_id or "")
                        or (par_paiement.get(ref) if ref else None))
            payout = par_versement.get(ref) if ref else None
            if checkout is not None:
                result[_cle(row)] = Correspondance(checkout.organisation_id, checkout.paiement_id, None,
                                                   signe * checkout.montant)
            elif payout is not None and payout.organisation_id is not None:
                result[_cle(row)] = Correspondance(payout.organisation_id, None, payout.versement_id,
                                                   -signe * (payout.montant or ZERO))
        await self._directs(organisation_id, [row for row in lignes if _cle(row) not in result], result)
        return result

    async def _wave_directs(self, organisation_id: uuid.UUID, references: set[str], debut: datetime | None = None,
                            fin: datetime | None = None) -> list[Any]:
        """Our valid Wave payments without a checkout session (by transaction id, or dated in [debut, fin))."""
        found = await PaiementSystemRepository(self.session).wave_directs(
            organisation_id, METHODES_WAVE, references=references, debut=debut, fin=fin)
        sessions = {c.paiement_id for c in await self.system.checkouts(
            sessions=set(), transactions=set(), paiements={p.id for p in found})}
        return [p for p in found if p.id not in sessions]

    async def _directs(self, organisation_id: uuid.UUID, lignes: list[LigneWave | LigneReleveWave],
                       result: dict[tuple[str, bool], Correspondance]) -> None:
        """Money received on the organisation's Wave number that we booked without a session: by its Wave
        transaction id, then by amount and date when exactly one free payment fits."""
        recues = [row for row in lignes if not row.est_annulation and row.montant + row.frais > ZERO]
        if not recues:
            return
        debut = min(row.horodatage for row in recues) - TOLERANCE
        fin = max(row.horodatage for row in recues) + TOLERANCE
        directs = await self._wave_directs(organisation_id, {row.transaction_id for row in recues}, debut, fin)
        deja, _ = await self.system.rapprochees(organisation_id)
        libres = {p.id: p for p in directs if p.id not in deja}
        par_reference = {p.reference_externe: p for p in libres.values()}
        restantes = []
        for row in recues:
            paiement = par_reference.get(row.transaction_id)
            if paiement is None:
                restantes.append(row)
                continue
            libres.pop(paiement.id, None)
            result[_cle(row)] = Correspondance(organisation_id, paiement.id, None, paiement.montant)
        for row in restantes:
            if code_de_ligne(row) is not None:
                continue  # its code names whose money it is: never paired with another payment by amount
            brut = row.montant + row.frais
            candidats = [p for p in libres.values() if p.montant == brut and p.date_paiement is not None
                         and abs(_utc(p.date_paiement) - _utc(row.horodatage)) <= TOLERANCE]
            if len(candidats) == 1:
                libres.pop(candidats[0].id)
                result[_cle(row)] = Correspondance(organisation_id, candidats[0].id, None, brut)

    # ---- reconciliation --------------------------------------------------------------------------------------

    async def rapprocher(self, releve_id: uuid.UUID) -> RapprochementWaveResponse:
        releve = await self._get(releve_id)
        org = releve.organisation_id
        self.auth.require(Permission.WAVE_RAPPROCHER, org,
                          "Seule la trésorerie de l'organisation importe et rapproche ses relevés Wave")
        lignes = await self.system.lignes_a_rapprocher(releve.id)
        matches = await self._correspondances(org, lignes)
        # Money sent with a dues' payment code and known nowhere else: that dues' payment, booked now.
        for row in lignes:
            if _cle(row) not in matches and (paiement := await encaisser_par_code(self.session, self.auth, row)):
                matches[_cle(row)] = Correspondance(org, paiement.id, None, paiement.montant)
        frais = ZERO
        for row in lignes:
            frais += await self._rapprocher_ligne(row, matches.get(_cle(row)), org)
        await self.session.flush()
        counts = await self.system.count_par_statut(releve.id)
        manquantes = await self._absentes(releve)
        solde_comptable = await ComptabiliteSystemRepository(self.session).solde_numero(
            org, await compte_de_type(self.session, org, "WAVE"), releve.date_fin)
        partage = releve.compte_wave_id is None
        rapprochement = RapprochementWave(
            releve_id=releve.id, organisation_id=org, lignes_rapprochees=counts.get(S.RAPPROCHEE, 0),
            lignes_inconnues=counts.get(S.INCONNUE, 0), lignes_montant_different=counts.get(S.MONTANT_DIFFERENT, 0),
            operations_absentes=len(manquantes), frais_comptabilises=frais, solde_comptable=solde_comptable,
            solde_wave=releve.solde_wave, compte_partage=partage,
            ecart=None if partage or releve.solde_wave is None else solde_comptable - releve.solde_wave,
            absentes=manquantes, rapproche_par=self.auth.actor_name)
        self.session.add(rapprochement)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="RAPPROCHER", module=MODULE, entite_type="ReleveWave",
                           entite_id=releve.id, organisation_id=org,
                           after=audit.snapshot(rapprochement, ["lignes_rapprochees", "lignes_inconnues",
                                                      "lignes_montant_different", "operations_absentes",
                                                      "frais_comptabilises", "solde_comptable", "solde_wave", "ecart"]),
                           severite="WARNING" if rapprochement.lignes_inconnues or rapprochement.operations_absentes
                           or rapprochement.lignes_montant_different else "INFO",
                           description=f"Rapprochement Wave: {rapprochement.lignes_rapprochees} rapprochées, "
                                       f"{rapprochement.lignes_inconnues} inconnues, "
                                       f"{rapprochement.operations_absentes} absentes")
        return _rapprochement_response(rapprochement)

    async def _rapprocher_ligne(self, row: LigneReleveWave, match: Correspondance | None,
                                organisation_id: uuid.UUID) -> Decimal:
        """Match one line and book its fee once; returns the fee booked now."""
        if match is None or match.organisation_id != organisation_id:
            # Booked by hand through a second person (lignes_inconnues.py): reconciled, its fee in that entry.
            booked = await ComptabiliteSystemRepository(self.session).premiere_ecriture_de_piece(
                organisation_id, piece_ligne(row))
            row.statut, row.paiement_id, row.versement_id = (S.RAPPROCHEE if booked else S.INCONNUE), None, None
            return ZERO
        row.paiement_id, row.versement_id = match.paiement_id, match.versement_id
        if row.montant + row.frais != match.attendu:
            row.statut = S.MONTANT_DIFFERENT
            return ZERO
        row.statut = S.RAPPROCHEE
        if row.frais == ZERO or row.ecriture_frais_id is not None:
            return ZERO
        objet = f"paiement {match.paiement_id}" if match.paiement_id else f"versement {match.versement_id}"
        ecriture = await comptabiliser_frais_wave(
            self.session, organisation_id=organisation_id,
            transaction_id=f"{row.transaction_id}{'-R' if row.est_annulation else ''}", frais=row.frais,
            date_operation=row.horodatage.date(), libelle=f"Frais Wave sur {objet}", auth=self.auth)
        row.ecriture_frais_id = ecriture.id
        return row.frais

    async def _absentes(self, releve: ReleveWave) -> list[dict[str, Any]]:
        """Our Wave payments and payouts of the statement's period that no statement line was matched to."""
        if releve.date_debut is None or releve.date_fin is None:
            return []
        paiements, versements = await self.system.rapprochees(releve.organisation_id)
        result: list[dict[str, Any]] = []
        seen: set[uuid.UUID] = set()
        for op in await self.system.operations(releve.organisation_id, releve.date_debut, releve.date_fin):
            cible = op.paiement_id if op.type_transaction == RECU else op.versement_id
            if cible is None or cible in seen or cible in (paiements if op.type_transaction == RECU else versements):
                continue
            seen.add(cible)
            result.append({"type_operation": TypeOperationWave.PAIEMENT if op.type_transaction == RECU
                           else TypeOperationWave.VERSEMENT,
                           "paiement_id": str(op.paiement_id) if op.type_transaction == RECU else None,
                           "versement_id": None if op.type_transaction == RECU else str(op.versement_id),
                           "reference_wave": op.reference_wave,
                           "montant": str(op.montant) if op.montant is not None else None,
                           "date_operation": op.created_at.isoformat()})
        # Wave money we booked without a session (a transfer recorded or a declaration confirmed) is ours too.
        debut = datetime.combine(releve.date_debut, time.min, UTC)
        fin = datetime.combine(releve.date_fin + timedelta(days=1), time.min, UTC)
        for p in await self._wave_directs(releve.organisation_id, set(), debut, fin):
            if p.id in seen or p.id in paiements:
                continue
            seen.add(p.id)
            result.append({"type_operation": TypeOperationWave.PAIEMENT, "paiement_id": str(p.id),
                           "versement_id": None, "reference_wave": p.reference_externe, "montant": str(p.montant),
                           "date_operation": _utc(p.date_paiement or p.created_at).isoformat()})
        return result

    # ---- reading ---------------------------------------------------------------------------------------------

    async def lister(self, params: PageParams, organisation_id: uuid.UUID | None) -> Page[ReleveWaveResponse]:
        rows, total, exact = await self.repo.releves(params, organisation_id)
        return Page[ReleveWaveResponse].build([ReleveWaveResponse.model_validate(r) for r in rows], params, total,
                                              exact)

    async def nombre_lignes_inconnues(self, organisation_id: uuid.UUID | None) -> int:
        """Lines no payment or payout of ours explains, over the statements the caller sees: what is left to book
        or assign (the sum of ``lignesParStatut.INCONNUE`` of those statements)."""
        return await self.repo.nombre_lignes(organisation_id, S.INCONNUE)

    async def obtenir(self, releve_id: uuid.UUID) -> ReleveWaveDetailResponse:
        releve = await self._get(releve_id)
        dernier = await self.repo.dernier_rapprochement(releve.id)
        base = ReleveWaveResponse.model_validate(releve).model_dump()
        return ReleveWaveDetailResponse(**base, lignes_par_statut=await self.system.count_par_statut(releve.id),
                                        dernier_rapprochement=_rapprochement_response(dernier) if dernier else None)

    async def lignes(self, releve_id: uuid.UUID, params: PageParams,
                     statut: StatutLigneReleveWave | None) -> Page[LigneReleveWaveResponse]:
        releve = await self._get(releve_id)
        rows, total, exact = await self.repo.lignes(params, releve.id, statut)
        return Page[LigneReleveWaveResponse].build([LigneReleveWaveResponse.model_validate(r) for r in rows],
                                                   params, total, exact)
