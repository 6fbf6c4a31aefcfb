"""Sending notifications on behalf of an organisation, the outbox for its staff, and a member's inbox."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.membres.repository import MembreRepository
from unionflow.models import Membre, ModeleNotification
from unionflow.models.base import utcnow
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.rendu import SYSTEME, check_variables, placeholders, render, valeurs_membre
from unionflow.notifications.repository import ModeleRepository, NotificationFilters, NotificationRepository
from unionflow.notifications.schemas import (
    Canal,
    EnvoiResultat,
    MarquageResponse,
    NonLuesResponse,
    NotificationEnvoi,
    NotificationResponse,
    StatutNotification,
)
from unionflow.organisations.repository import OrganisationRepository

MODULE = "NOTIFICATIONS"
S = StatutNotification


class NotificationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = NotificationRepository(session, auth)

    # --- sending ---------------------------------------------------------------------------------------------
    async def envoyer(self, data: NotificationEnvoi) -> EnvoiResultat:
        # Input first (400), then existence (404): free texts are checked before any lookup.
        check_variables(data.variables)
        allowed = SYSTEME | data.variables.keys()
        if data.sujet is not None and data.corps is not None:
            self._check_placeholders(data.sujet, data.corps, allowed)
        organisation = await OrganisationRepository(self.session, None).get(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.NOTIFICATION_ENVOYER, organisation.id,
                          "Vous n'écrivez qu'au nom d'une organisation que vous gérez")
        ids = sorted(set(data.membre_ids)) if data.membre_ids else None
        membres = await MembreRepository(self.session, None).actifs(organisation.id, ids)
        if ids is not None and len(membres) != len(ids):
            missing = sorted(str(i) for i in set(ids) - {m.id for m in membres})
            raise NotFound("Membre(s) introuvable(s) parmi les membres actifs de l'organisation: "
                           + ", ".join(missing))
        textes = await self._textes(data, organisation.id)
        for sujet, corps in textes.values():
            self._check_placeholders(sujet, corps, allowed)

        def message(membre: Membre, canal: Canal) -> tuple[str, str]:
            sujet, corps = textes.get(canal) or textes[None]
            values = {**data.variables, **valeurs_membre(membre, organisation.nom)}
            return render(sujet, values), render(corps, values)

        bilan = await Emetteur(self.session, self.auth.actor_name).emettre_lot(
            membres, data.type_notification.value, message, organisation_id=organisation.id,
            canaux=data.canaux, code_modele=data.code_modele)
        resultat = EnvoiResultat(destinataires=bilan.destinataires, creees=len(bilan.notifications),
                                 refusees_par_preference=bilan.refusees, sans_adresse=bilan.sans_adresse,
                                 par_canal=dict(bilan.par_canal))
        await audit.record(self.session, self.auth, action="ENVOYER", module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id,
                           description=f"{resultat.creees} notification(s) {data.type_notification.value}",
                           after={**resultat.model_dump(by_alias=True), "codeModele": data.code_modele,
                                  "typeNotification": data.type_notification.value})
        return resultat

    @staticmethod
    def _check_placeholders(sujet: str, corps: str, allowed: set[str] | frozenset[str]) -> None:
        unknown = (placeholders(sujet) | placeholders(corps)) - allowed
        if unknown:
            raise RegleMetier("Variable(s) sans valeur: " + ", ".join(sorted(unknown)))

    async def _textes(self, data: NotificationEnvoi,
                      organisation_id: uuid.UUID) -> dict[Canal | None, tuple[str, str]]:
        """Subject and body per channel; key None is the fallback for channels without their own template."""
        if data.code_modele is None:
            assert data.sujet is not None and data.corps is not None
            return {None: (data.sujet, data.corps)}
        modeles = await ModeleRepository(self.session, self.auth).for_sending(data.code_modele, organisation_id)
        if not modeles:
            raise NotFound(f"Modèle de notification introuvable: {data.code_modele}")
        textes: dict[Canal | None, tuple[str, str]] = {None: (modeles[0].sujet, modeles[0].corps)}
        chosen: ModeleNotification
        for chosen in reversed(modeles):  # organisation templates come first, so they win
            textes[Canal(chosen.canal)] = (chosen.sujet, chosen.corps)
        return textes

    async def envoyer_groupe(self, envois: list[NotificationEnvoi]) -> list[EnvoiResultat]:
        # One transaction: any invalid item (400/403/404) rolls the whole batch back.
        return [await self.envoyer(envoi) for envoi in envois]

    # --- staff outbox ----------------------------------------------------------------------------------------
    async def lister(self, filters: NotificationFilters, params: PageParams) -> Page[NotificationResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[NotificationResponse].build([NotificationResponse.model_validate(r) for r in rows],
                                                params, total, exact)

    async def obtenir(self, notification_id: uuid.UUID) -> NotificationResponse:
        row = await self.repo.get(notification_id)
        if row is None:
            raise NotFound("Notification introuvable")
        return NotificationResponse.model_validate(row)

    async def renvoyer(self, notification_id: uuid.UUID) -> NotificationResponse:
        row = await self.repo.get_staff(notification_id, for_update=True)
        if row is None:
            raise NotFound("Notification introuvable")
        if row.statut != S.ECHOUEE:
            raise InvalidState("Seule une notification ECHOUEE peut être renvoyée")
        assert row.membre_id is not None  # a failed delivery always has its addressee
        membre = await MembreRepository(self.session, None).get(row.membre_id)
        assert membre is not None
        # The member may have fixed their contact details since the failure.
        row.adresse = membre.email if row.canal == Canal.EMAIL else membre.telephone
        if row.adresse is None:
            raise InvalidState("Le membre n'a toujours pas d'adresse pour ce canal")
        before = audit.snapshot(row, ["statut", "tentatives", "derniere_erreur"])
        row.statut, row.tentatives, row.prochaine_tentative, row.verrouillee_jusqua = S.EN_ATTENTE.value, 0, None, None
        await self.session.flush()
        await audit.record(self.session, self.auth, action="RENVOYER", module=MODULE, entite_type="Notification",
                           entite_id=row.id, organisation_id=row.organisation_id, before=before,
                           after=audit.snapshot(row, ["statut", "tentatives", "adresse"]))
        return NotificationResponse.model_validate(row)

    # --- the member's inbox ----------------------------------------------------------------------------------
    async def mine(self, params: PageParams, non_lues: bool) -> Page[NotificationResponse]:
        if self.auth.membre_id is None:
            return Page[NotificationResponse].build([], params, 0, True)
        rows, total, exact = await self.repo.mine(self.auth.membre_id, params, non_lues)
        return Page[NotificationResponse].build([NotificationResponse.model_validate(r) for r in rows],
                                                params, total, exact)

    async def unread(self) -> NonLuesResponse:
        return NonLuesResponse(non_lues=await self.repo.unread(self.auth.membre_id) if self.auth.membre_id else 0)

    async def lue(self, notification_id: uuid.UUID) -> NotificationResponse:
        row = await self.repo.get_own(notification_id)
        if row is None:
            raise NotFound("Notification introuvable")
        if row.date_lecture is None:
            before = row.statut
            row.statut, row.date_lecture = S.LUE.value, utcnow()
            await self.session.flush()
            await audit.record(self.session, self.auth, action="LIRE", module=MODULE, entite_type="Notification",
                               entite_id=row.id, organisation_id=row.organisation_id, before={"statut": before},
                               after={"statut": row.statut})
        return NotificationResponse.model_validate(row)

    async def toutes_lues(self) -> MarquageResponse:
        if self.auth.membre_id is None:
            return MarquageResponse(marquees=0)
        count = await self.repo.mark_all_read(self.auth.membre_id)
        if count:
            await audit.record(self.session, self.auth, action="LIRE", module=MODULE, entite_type="Membre",
                               entite_id=self.auth.membre_id, after={"marquees": count},
                               description=f"{count} notification(s) marquée(s) lue(s)")
        return MarquageResponse(marquees=count)
