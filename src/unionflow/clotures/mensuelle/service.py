"""Monthly closing of an organisation's books.

The treasurer counts the cash, reads the bank statement and the Wave balance at the month's last day and asks to
close; the service verifies the checklist and records it with the figures it compared:
- cash counted = balance of 571 Caisse, or the difference goes to the account the treasurer names, with his
  reason, as a four-eyes entry request (kind ECRITURE, saisies/): the closing completes with the request pending
  and records it; a second person's approval books it (journal CAI) on the first day after the closed month, so the
  locked month's figures, and the pack signed on them, never change;
- no cash difference of an earlier closing still awaiting its decision;
- bank statement = balance of 521, Wave balance = balance of the organisation's Wave account (its Wave treasury's,
  else 5521, or a former 5215 where it is open: ``compte_de_type``) (a difference is a missing entry: book it
  first);
- no payment pending (declared, or a Wave session not settled) for longer than
  ``comptabilite.cloture.delai_declarations_jours``;
- no open LCB-FT alert of the organisation;
- every entry of the month balanced.
Any failed check refuses the closing (400, each check in ``controles``) and writes nothing. Otherwise the month is
recorded and locked (lock date = its last day): its figures no longer change, and it reopens only through a
reopening request decided by a second person (deverrouillage.py).
"""

from __future__ import annotations

import calendar
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.clotures.exercice.service import ClotureService
from unionflow.clotures.mensuelle.repository import ClotureMensuelleRepository
from unionflow.clotures.mensuelle.schemas import (
    ClotureMensuelleResponse,
    ControleResponse,
    CreateClotureMensuelleRequest,
)
from unionflow.comptabilite.ecritures.service import compte_par_defaut, journal_par_defaut
from unionflow.comptabilite.ecritures.tresorerie import compte_de_type
from unionflow.comptabilite.etats.repository import EtatsRepository
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.schemas import CreateEcritureComptableRequest, LigneEcritureRequest
from unionflow.comptabilite.service import MODULE
from unionflow.configuration.service import valeur
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.montants import format_montant
from unionflow.core.permissions import Permission
from unionflow.lcbft.repository import AlerteLcbFtSystemRepository
from unionflow.models import ClotureMensuelle
from unionflow.models.approbation import GenreDemande, StatutDemande
from unionflow.paiements.repository import PaiementSystemRepository
from unionflow.saisies.schemas import DemandeEcritureResponse
from unionflow.saisies.service import SaisieService

ZERO = Decimal("0.00")
DELAI = "comptabilite.cloture.delai_declarations_jours"
CAISSE, BANQUE = "571", "521"
MOIS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre",
        "décembre")


def nom_du_mois(annee: int, mois: int) -> str:
    return f"{MOIS[mois - 1]} {annee}"


def bornes(annee: int, mois: int) -> tuple[date, date]:
    return date(annee, mois, 1), date(annee, mois, calendar.monthrange(annee, mois)[1])


@dataclass(frozen=True)
class EcartCaisse:
    """Where the closing's cash difference stands: its entry request and, once approved, the entry."""

    demande_id: uuid.UUID | None
    statut: StatutDemande | None
    ecriture_id: uuid.UUID | None
    numero_piece: str | None


async def ecart_de(session: AsyncSession, cloture: ClotureMensuelle) -> EcartCaisse:
    """Closings from before the four-eyes rule booked their difference themselves (``ecriture_ecart_id``)."""
    if cloture.demande_ecart_id is None:
        return EcartCaisse(None, None, cloture.ecriture_ecart_id, None)
    demande = await DemandeApprobationRepository(session, None).du_genre(
        GenreDemande.ECRITURE.value, cloture.demande_ecart_id, scoped=False)
    details = (demande.details or {}) if demande else {}
    ecriture = details.get("ecriture_id")
    return EcartCaisse(cloture.demande_ecart_id, StatutDemande(demande.statut) if demande else None,
                       uuid.UUID(ecriture) if ecriture else None, details.get("numero_piece"))


async def reponse(session: AsyncSession, cloture: ClotureMensuelle) -> ClotureMensuelleResponse:
    ecart = await ecart_de(session, cloture)
    return ClotureMensuelleResponse.model_validate(cloture).model_copy(update={
        "demande_ecart_id": ecart.demande_id, "statut_ecart": ecart.statut, "ecriture_ecart_id": ecart.ecriture_id,
        "numero_piece_ecart": ecart.numero_piece})


@dataclass
class Releve:
    """What the treasurer states and what the books say, for the checks."""

    caisse: Decimal
    banque: Decimal
    wave: Decimal
    compte_wave: str


class ClotureMensuelleService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ClotureMensuelleRepository(session)
        self.compta = ComptabiliteRepository(session, auth)

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        # The books' bureau (and its commissaire aux comptes) only; anyone else: 404.
        if (await self.compta.organisation(organisation_id) is None
                or not self.compta.can_see_entries(organisation_id)):
            raise NotFound("Organisation introuvable")

    async def lister(self, organisation_id: uuid.UUID) -> list[ClotureMensuelleResponse]:
        await self._organisation(organisation_id)
        return [await reponse(self.session, c) for c in await self.repo.de_l_organisation(organisation_id)]

    async def get(self, cloture_id: uuid.UUID) -> ClotureMensuelle:
        cloture = await self.repo.get(cloture_id)
        if cloture is None or not self.compta.can_see_entries(cloture.organisation_id):
            raise NotFound("Clôture mensuelle introuvable")
        return cloture

    async def soldes(self, organisation_id: uuid.UUID, fin: date) -> Releve:
        """Balances (debit − credit) of the cash, bank and Wave accounts at the end of ``fin``."""
        wave = await compte_de_type(self.session, organisation_id, "WAVE")
        found = {s.numero: s.debit_periode - s.credit_periode
                 for s in await EtatsRepository(self.session).soldes(organisation_id, None, fin)
                 if s.numero in (CAISSE, BANQUE, wave)}
        caisse, banque, solde_wave = (Decimal(found.get(n, ZERO)).quantize(ZERO) for n in (CAISSE, BANQUE, wave))
        return Releve(caisse, banque, solde_wave, wave)

    async def controles(self, data: CreateClotureMensuelleRequest, livres: Releve,
                        delai: int) -> list[ControleResponse]:
        org = data.organisation_id
        debut, fin = bornes(data.annee, data.mois)
        ecart = data.caisse_comptee - livres.caisse
        devise = "XOF"

        def f(montant: Decimal) -> str:
            return format_montant(montant, devise)
        checks = [
            ControleResponse(
                code="CAISSE", libelle="Caisse comptée contre le compte 571", ok=ecart == 0 or bool(
                    data.compte_ecart and data.motif_ecart),
                detail=f"comptée {f(data.caisse_comptee)}, comptabilité {f(livres.caisse)}, écart {f(ecart)}"
                       + ("" if ecart == 0 or (data.compte_ecart and data.motif_ecart)
                          else ": indiquez compteEcart et motifEcart")),
            ControleResponse(code="BANQUE", libelle="Relevé bancaire contre le compte 521",
                             ok=data.solde_banque == livres.banque,
                             detail=f"relevé {f(data.solde_banque)}, comptabilité {f(livres.banque)}"),
            ControleResponse(code="WAVE", libelle=f"Solde Wave contre le compte {livres.compte_wave}",
                             ok=data.solde_wave == livres.wave,
                             detail=f"Wave {f(data.solde_wave)}, comptabilité {f(livres.wave)}"),
        ]
        avant = datetime.now(UTC) - timedelta(days=delai)
        attente = await PaiementSystemRepository(self.session).count_en_attente_depuis(org, avant)
        checks.append(ControleResponse(code="DECLARATIONS", libelle=f"Aucun paiement en attente depuis plus de {delai} "
                                       "jours", ok=attente == 0, detail=f"{attente} en attente"))
        alertes = await AlerteLcbFtSystemRepository(self.session).count_ouvertes(org)
        checks.append(ControleResponse(code="LCBFT", libelle="Aucune alerte LCB-FT ouverte", ok=alertes == 0,
                                       detail=f"{alertes} alerte(s) ouverte(s)"))
        en_attente = await self._ecarts_en_attente(org)
        checks.append(ControleResponse(
            code="ECART_PRECEDENT", libelle="Aucun écart de caisse d'une clôture précédente en attente d'approbation",
            ok=not en_attente, detail=", ".join(nom_du_mois(c.annee, c.mois) for c in en_attente) or "aucun"))
        desequilibrees = await EtatsRepository(self.session).ecritures_desequilibrees(org, debut, fin)
        checks.append(ControleResponse(code="EQUILIBRE", libelle="Toutes les écritures du mois équilibrées",
                                       ok=not desequilibrees,
                                       detail=", ".join(desequilibrees) or "toutes équilibrées"))
        return checks

    async def _ecarts_en_attente(self, organisation_id: uuid.UUID) -> list[ClotureMensuelle]:
        """Earlier closings whose cash difference still waits for its decision."""
        clotures = await self.repo.avec_demande_ecart(organisation_id)
        pending = await DemandeApprobationRepository(self.session, None).parmi(
            GenreDemande.ECRITURE.value, [c.demande_ecart_id for c in clotures if c.demande_ecart_id],
            StatutDemande.EN_ATTENTE.value)
        return [c for c in clotures if c.demande_ecart_id in pending]

    async def cloturer(self, data: CreateClotureMensuelleRequest) -> ClotureMensuelleResponse:
        org = data.organisation_id
        await self._organisation(org)
        self.auth.require(Permission.COMPTABILITE_CLOTURER, org,
                          "Seuls l'administrateur et le trésorier de l'organisation clôturent un mois")
        fin = bornes(data.annee, data.mois)[1]
        if fin >= datetime.now(UTC).date():
            raise RegleMetier(f"Le mois de {nom_du_mois(data.annee, data.mois)} n'est pas terminé: il se clôture à "
                              f"partir du {fin + timedelta(days=1):%d/%m/%Y}")
        if data.caisse_comptee < 0:
            raise RegleMetier("caisseComptee: un montant positif ou nul est attendu")
        if await self.repo.du_mois(org, data.annee, data.mois) is not None:
            raise Conflict(f"Le mois de {nom_du_mois(data.annee, data.mois)} est déjà clôturé")
        delai = int(await valeur(self.session, DELAI))
        livres = await self.soldes(org, fin)
        checks = await self.controles(data, livres, delai)
        if not all(c.ok for c in checks):
            raise RegleMetier("Clôture impossible: " + "; ".join(f"{c.libelle} ({c.detail})" for c in checks
                                                                 if not c.ok),
                              extra={"controles": [c.model_dump(mode="json", by_alias=True) for c in checks]})
        ecart = (data.caisse_comptee - livres.caisse).quantize(ZERO)
        cloture = ClotureMensuelle(
            organisation_id=org, annee=data.annee, mois=data.mois, date_fin=fin, caisse_comptee=data.caisse_comptee,
            caisse_comptable=livres.caisse, ecart_caisse=ecart, compte_ecart=data.compte_ecart if ecart else None,
            motif_ecart=data.motif_ecart if ecart else None, banque_releve=data.solde_banque,
            banque_comptable=livres.banque, wave_releve=data.solde_wave, wave_comptable=livres.wave,
            delai_declarations_jours=delai, cloturee_par=self.auth.actor_name, cloturee_par_sub=self.auth.personne,
            date_cloture=datetime.now(UTC))
        # Claims the month first: a concurrent closing of the same month gets 409 and books nothing.
        await flush_unique(self.session, f"Le mois de {nom_du_mois(data.annee, data.mois)} est déjà clôturé", cloture)
        if ecart:
            cloture.demande_ecart_id = await self._ecart(data, fin, ecart)
        await ClotureService(self.session, self.auth).poser_verrou(org, fin)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CLOTURER_MOIS", module=MODULE,
                           entite_type="ClotureMensuelle", entite_id=cloture.id, organisation_id=org,
                           severite="WARNING", after=audit.snapshot(cloture, [
                               "annee", "mois", "caisse_comptee", "caisse_comptable", "ecart_caisse", "compte_ecart",
                               "banque_releve", "banque_comptable", "wave_releve", "wave_comptable"]),
                           description=f"Clôture du mois de {nom_du_mois(data.annee, data.mois)}; comptes verrouillés "
                                       f"jusqu'au {fin:%d/%m/%Y}")
        return await reponse(self.session, cloture)

    async def _ecart(self, data: CreateClotureMensuelleRequest, fin: date, ecart: Decimal) -> uuid.UUID:
        """Ask for the cash difference's entry (saisies/, four eyes): a shortage debits the named account, a
        surplus credits it; 571 moves the other way. Dated the day after the month, which the closing locks: the
        approval books it there, never into the closed month."""
        assert data.compte_ecart is not None and data.motif_ecart is not None
        org = data.organisation_id
        compte = await self.compta.get_compte_by_numero(org, data.compte_ecart)
        if compte is None or not compte.actif or data.compte_ecart == CAISSE:
            raise RegleMetier(f"compteEcart: {data.compte_ecart} n'est pas un compte actif de l'organisation "
                              "(autre que 571)")
        caisse = await compte_par_defaut(self.session, org, CAISSE)
        journal = await journal_par_defaut(self.session, org, "CAI")
        montant = abs(ecart)
        manquant = ecart < 0
        lignes = [LigneEcritureRequest(compte_id=compte.id, debit=montant if manquant else None,
                                       credit=None if manquant else montant, libelle=data.motif_ecart[:300]),
                  LigneEcritureRequest(compte_id=caisse.id, debit=None if manquant else montant,
                                       credit=montant if manquant else None, libelle="Caisse comptée")]
        demande = await SaisieService(self.session, self.auth).saisir(CreateEcritureComptableRequest(
            journal_id=journal.id, date_ecriture=fin + timedelta(days=1),
            libelle=f"Écart de caisse au {fin:%d/%m/%Y}: {data.motif_ecart}"[:300],
            piece_reference=f"CAISSE-{data.annee}-{data.mois:02d}", lignes=lignes))
        # 571 is a treasury account: always a request (saisies.sous_controle), never booked by the closer alone.
        assert isinstance(demande, DemandeEcritureResponse)
        return demande.id


def periode_utc(cloture: ClotureMensuelle) -> tuple[datetime, datetime]:
    debut, fin = bornes(cloture.annee, cloture.mois)
    return (datetime.combine(debut, time.min, tzinfo=UTC),
            datetime.combine(fin + timedelta(days=1), time.min, tzinfo=UTC))

