"""Treasurer operations on many dues at once: batch generation, grouped reminders, statistics."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.cache import cached
from unionflow.core.errors import NotFound
from unionflow.core.montants import format_montant
from unionflow.core.permissions import Permission
from unionflow.cotisations import generation
from unionflow.cotisations.generation import audit_after, membres_actifs, motif_avant_adhesion, periode
from unionflow.cotisations.rappels import LIEN_MEMBRE, texte_detaille, texte_sms
from unionflow.cotisations.repository import (
    OPEN,
    CotisationRepository,
    SituationRepository,
)
from unionflow.cotisations.schemas import (
    GenerationResponse,
    GenererCotisationsRequest,
    RappelResponse,
    RappelsGroupesResponse,
    StatistiquesPeriodeResponse,
    SyntheseResponse,
)
from unionflow.cotisations.service import MODULE, restant, today_utc
from unionflow.cotisations.synthese_repository import StatistiquesCotisations, en_direct
from unionflow.donnees_personnelles.repository import OppositionTraitementRepository
from unionflow.membres.repository import MembreRepository, membre_visible
from unionflow.models import Cotisation, Membre, RappelCotisation
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.notification import Canal
from unionflow.models.planificateur import TypeTache
from unionflow.models.rappel_cotisation import StatutRappel
from unionflow.notifications.emission import TRAITEMENT_RAPPELS, Emetteur
from unionflow.notifications.schemas import TypeNotification
from unionflow.notifications.sources import RAPPEL_COTISATION
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.encaissement.workflow import COTISATIONS_STATS
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import TacheService

S = StatutCotisation
ZERO = Decimal("0")
HUNDRED = Decimal("100")


def _effective(statut: str, echu: int) -> str:
    """Status a client sees for an aggregate group, ``echu`` telling whether its due date has passed."""
    return S.EN_RETARD.value if statut == S.EN_RETARD or (statut in OPEN and echu) else statut


def statistics(rows: list[Any]) -> dict[str, Any]:
    par_statut = {s.value: 0 for s in S}
    du = paye = en_retard = ZERO
    for row in rows:
        statut = _effective(row.statut, row.echu)
        par_statut[statut] += int(row.nombre)
        if row.statut != S.ANNULEE:
            du += Decimal(row.du)
        paye += Decimal(row.paye)
        if statut == S.EN_RETARD:
            en_retard += Decimal(row.du) - Decimal(row.paye)
    rate = (paye * HUNDRED / du).quantize(Decimal("0.01")) if du else ZERO
    return {"nombre_total": sum(par_statut.values()), "par_statut": par_statut, "montant_du": du,
            "montant_collecte": paye, "montant_restant": max(du - paye, ZERO), "montant_en_retard": en_retard,
            "taux_recouvrement": rate}


class CotisationOrganisationService:
    """Operations on an organisation's dues as a whole: generation, grouped reminders, statistics."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.today = today_utc()
        self.repo = CotisationRepository(session, auth, self.today)

    # --- generation ------------------------------------------------------------------------------------------
    async def generer(self, data: GenererCotisationsRequest, seuil: int | None = None
                      ) -> GenerationResponse | TacheResponse:
        """Inline, or above ``seuil`` active members a background task whose status the caller follows."""
        organisation = await OrganisationRepository(self.session, self.auth).get(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.COTISATION_GENERER, organisation.id,
                          "Seuls les responsables de l'organisation génèrent ses cotisations")
        appeles = await membres_actifs(self.session, organisation.id, data)
        nombre = len(appeles.membres)
        if seuil is not None and nombre > seuil:
            tache = await TacheService(self.session, self.auth).creer(
                TypeTache.GENERATION_COTISATIONS, data.model_dump(mode="json"), organisation.id, nombre)
            await audit.record(self.session, self.auth, action="GENERER", module=MODULE,
                               entite_type="Organisation", entite_id=organisation.id,
                               organisation_id=organisation.id,
                               description=f"Génération {periode(data)} pour {nombre} membre(s) actif(s) "
                                           f"confiée à la tâche {tache.id}{motif_avant_adhesion(data)}",
                               after={"tache": tache.id, "membresActifs": nombre,
                                      "avantAdhesion": data.avant_adhesion, "motif": data.motif})
            return tache
        bilan = await generation.generer(self.session, organisation, data, appeles)
        await audit.record(self.session, self.auth, action="GENERER", module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id,
                           description=bilan.message + motif_avant_adhesion(data), after=audit_after(data, bilan))
        return bilan

    # --- reminders -------------------------------------------------------------------------------------------
    async def rappels(self, membre_ids: list[uuid.UUID], base_url: str) -> RappelsGroupesResponse:
        """``base_url``: the service's public address, for the short link the SMS carries."""
        ids = sorted(set(membre_ids))
        for membre_id in ids:
            if await membre_visible(self.session, self.auth, membre_id) is None:
                raise NotFound(f"Membre introuvable: {membre_id}")
        # Lock the members so that two simultaneous calls cannot both remind the same dues.
        membres = await MembreRepository(self.session, None).lock_membres(ids)
        already = await self.repo.reminded_today(ids)
        lien = base_url.rstrip("/") + LIEN_MEMBRE
        sent: list[RappelResponse] = []
        duplicates = without = 0
        for membre_id in ids:
            unpaid = await self.repo.unpaid_of_member(membre_id)
            if not unpaid:
                without += 1
                continue
            fresh = [c for c in unpaid if str(c.id) not in already.get(membre_id, set())]
            if not fresh:
                duplicates += 1
                continue
            sent.append(await self._rappeler(membres[membre_id], fresh, lien))
        return RappelsGroupesResponse(envoyes=len(sent), deja_envoyes_aujourdhui=duplicates, sans_impaye=without,
                                      rappels=sent)

    async def _rappeler(self, membre: Membre, dues: list[Cotisation], lien: str) -> RappelResponse:
        total = sum((restant(c.statut, c.montant_du, c.montant_paye or ZERO) for c in dues), ZERO)
        devise = dues[0].devise
        sms = texte_sms(len(dues), total, devise, lien, dues[0].code_paiement if len(dues) == 1 else None)
        details = texte_detaille(membre.prenom, membre.nom, dues, total, devise, self.today, lien)
        # Loi 2008-12 (opposition): a member who objected to reminders by SMS and e-mail gets his in his inbox only.
        oppose = await OppositionTraitementRepository(self.session).en_vigueur(membre.id, TRAITEMENT_RAPPELS)
        canal, destinataire = ((Canal.IN_APP, None) if oppose is not None else (Canal.EMAIL, membre.email)
                               if membre.email else (Canal.SMS, membre.telephone)
                               if membre.telephone else (Canal.IN_APP, None))
        rappel = RappelCotisation(membre_id=membre.id, date_rappel=self.today,
                                  cotisation_ids=[str(c.id) for c in dues], montant_total=total, devise=devise,
                                  canal=canal, destinataire=destinataire,
                                  message=sms if canal == Canal.SMS else details, statut=StatutRappel.EN_ATTENTE,
                                  demande_par=self.auth.actor_name)
        self.repo.add(rappel)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="RAPPELER", module=MODULE,
                           entite_type="RappelCotisation", entite_id=rappel.id,
                           organisation_id=dues[0].organisation_id, description=details,
                           after={"membreId": membre.id, "cotisationIds": rappel.cotisation_ids, "canal": canal})
        sujet = f"Rappel: {len(dues)} cotisation(s) à régler ({format_montant(total, devise)})"
        # One SMS (the count, the total, a link); the details go by e-mail and to the in-app inbox.
        await Emetteur(self.session, self.auth.actor_name).emettre_lot(
            [membre], TypeNotification.RAPPEL_COTISATION.value,
            lambda _m, c: (sujet, sms if c is Canal.SMS else details), organisation_id=dues[0].organisation_id,
            source=(RAPPEL_COTISATION, rappel.id))
        return RappelResponse.model_validate(rappel)

    # --- statistics (/statistiques and /stats: cotisations/lectures.py) ----------------------------------------
    async def periode(self, annee: int, mois: int | None) -> StatistiquesPeriodeResponse:
        seen = self.repo.visibility(self.auth)

        async def compute() -> StatistiquesPeriodeResponse:
            rows = await StatistiquesCotisations(self.session, self.repo, seen, self.today).par_statut(annee, mois)
            return StatistiquesPeriodeResponse(**statistics(rows), annee=annee, mois=mois)

        if en_direct(seen.shape):
            return await compute()
        return await cached(self.session, f"{COTISATIONS_STATS}periode.{annee}.{mois}", self.auth,
                            StatistiquesPeriodeResponse, compute)

    async def synthese(self) -> SyntheseResponse:
        """The member's own dues, by the one computation the dashboard and the compte adhérent read."""
        if self.auth.membre_id is None:
            return SyntheseResponse(nombre_cotisations=0, nombre_a_payer=0, nombre_en_retard=0, nombre_payees=0,
                                    montant_du=ZERO, montant_paye=ZERO, montant_restant=ZERO,
                                    montant_en_retard=ZERO, prochaine_echeance=None)
        figures = await SituationRepository(self.session).situation(self.auth.membre_id, self.today)
        return SyntheseResponse(nombre_cotisations=figures.pop("nombre_total"), **figures)
