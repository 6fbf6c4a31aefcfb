"""The union's organisations in the console: the federation and its organisations (parent/child), created and
edited through the API's own service (``OrganisationService``, the hierarchy rule and the permissions there), and
each organisation's bureau: who holds which office, given and withdrawn as ``PUT /api/roles/membres/{id}/
organisations/{id}`` does, and a person added by e-mail as ``POST /api/admin/users`` then
``POST /api/admin/associer-organisation`` do. Role sets are the API's (RS-ORG-ADMIN; RS-SA to create accounts).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from unionflow.admin_association.schemas import AssocierOrganisationRequest
from unionflow.admin_association.service import AssociationService
from unionflow.console.pages import Ctx, page, redirect
from unionflow.console.pages_tresorier import parse_id
from unionflow.console.services import corps
from unionflow.core.errors import NotFound
from unionflow.core.pagination import PageParams
from unionflow.core.permissions import Permission
from unionflow.core.roles import ORGANISATION_ROLES, RS_ORG_ADMIN, RS_SA, RoleOrganisation
from unionflow.identity import operations as identity_operations
from unionflow.identity.schemas import CreateUserRequest
from unionflow.membres.appartenance_service import AppartenanceService
from unionflow.membres.repository import MembreRepository
from unionflow.models import Organisation
from unionflow.organisations.repository import OrganisationRepository
from unionflow.organisations.schemas import CreateOrganisationRequest, UpdateOrganisationRequest
from unionflow.organisations.service import OrganisationService

TYPES = {"UNION": "Union", "FEDERATION": "Fédération", "ASSOCIATION": "Association", "MUTUELLE": "Mutuelle",
         "COOPERATIVE": "Coopérative", "TONTINE": "Tontine"}
ROLES = {"ADMIN_ORGANISATION": "Administrateur", "PRESIDENT": "Président", "TRESORIER": "Trésorier",
         "SECRETAIRE": "Secrétaire", "COMMISSAIRE_AUX_COMPTES": "Commissaire aux comptes",
         "ORGANISATEUR_EVENEMENT": "Organisateur d'événements", "MODERATEUR": "Modérateur",
         "DELEGUE_PROTECTION_DONNEES": "Délégué à la protection des données"}
assert set(ROLES) | {"MEMBRE"} == set(ORGANISATION_ROLES)
CHAMPS = ("nom", "nom_court", "type_organisation", "parent_id", "email", "telephone", "ville", "region", "pays",
          "description")
# Directory shown on one page (a union has tens of organisations, not thousands).
ANNUAIRE = 200


async def _annuaire(ctx: Ctx) -> list[Organisation]:
    return await OrganisationRepository(ctx.db, ctx.auth).annuaire(ANNUAIRE)


async def _organisation(ctx: Ctx) -> Organisation:
    found = await OrganisationRepository(ctx.db, ctx.auth).get(parse_id(ctx.request.path_params["id"]))
    if found is None:
        raise NotFound("Organisation introuvable")
    return found


def _body(ctx: Ctx, hierarchie: bool) -> dict[str, Any]:
    """The API's body from the form; type and parent only when the caller may change the hierarchy."""
    values = {name: ctx.field(name) for name in CHAMPS}
    if not hierarchie:
        values.pop("type_organisation"), values.pop("parent_id")
    return corps(nomCourt=values.pop("nom_court"), typeOrganisation=values.pop("type_organisation", None),
                 parentId=values.pop("parent_id", None), **values)


@page("/organisations", RS_ORG_ADMIN)
async def organisations(ctx: Ctx) -> Response:
    found = await _annuaire(ctx)
    noms = {o.id: o.nom for o in found}
    return ctx.render("organisations.html", organisations=found, noms=noms, types=TYPES,
                      peut_creer=ctx.auth.is_global or bool(ctx.auth.member_organisations),
                      fait=ctx.request.query_params.get("fait"))


@page("/organisations/nouvelle", RS_ORG_ADMIN)
async def nouvelle(ctx: Ctx) -> Response:
    query = ctx.request.query_params
    defaut = {"type_organisation": query.get("type", ""), "parent_id": query.get("parent", ""), "pays": "SN"}
    saisi = {name: ctx.typed(name, defaut.get(name, "")) for name in CHAMPS}
    return ctx.render("organisation.html", organisation=None, saisi=saisi, parents=await _annuaire(ctx),
                      types=TYPES, hierarchie=True)


@page("/organisations/nouvelle", RS_ORG_ADMIN, methods=("POST",), again=nouvelle)
async def nouvelle_post(ctx: Ctx) -> Response:
    data = CreateOrganisationRequest.model_validate(_body(ctx, hierarchie=True))
    created = await OrganisationService(ctx.db, ctx.auth).creer(data)
    return redirect(f"/organisations/{created.id}?fait=creee")


@page("/organisations/{id}", RS_ORG_ADMIN)
async def organisation(ctx: Ctx) -> Response:
    found = await _organisation(ctx)
    saisi = {name: ctx.typed(name, _text(getattr(found, name))) for name in CHAMPS}
    return ctx.render("organisation.html", organisation=found, saisi=saisi, parents=await _annuaire(ctx),
                      types=TYPES, hierarchie=ctx.auth.is_global, fait=ctx.request.query_params.get("fait"),
                      peut_modifier=ctx.can(Permission.ORGANISATION_MODIFIER, found.id))


def _text(value: Any) -> str:
    return "" if value is None else str(value)


@page("/organisations/{id}", RS_ORG_ADMIN, methods=("POST",), again=organisation)
async def organisation_post(ctx: Ctx) -> Response:
    found = await _organisation(ctx)
    body = _body(ctx, hierarchie=ctx.auth.is_global)
    # Emptied optional fields are cleared (null), as a PUT naming them would.
    body.update({camel: None for name, camel in (("nom_court", "nomCourt"), ("email", "email"),
                                                 ("telephone", "telephone"), ("ville", "ville"),
                                                 ("region", "region"), ("description", "description"))
                 if not ctx.field(name)})
    if ctx.auth.is_global and not ctx.field("parent_id"):
        body["parentId"] = None
    await OrganisationService(ctx.db, ctx.auth).modifier(found.id, UpdateOrganisationRequest.model_validate(body))
    return redirect(f"/organisations/{found.id}?fait=modifiee")


@page("/organisations/{id}/bureau", RS_ORG_ADMIN)
async def bureau(ctx: Ctx) -> Response:
    found = await _organisation(ctx)
    # The directory shows every active organisation; who holds its offices only to whom administers it.
    ctx.auth.require(Permission.ROLE_ATTRIBUER, found.id, "Vous n'administrez pas cette organisation")
    membres = await MembreRepository(ctx.db, ctx.auth).bureau(found.id)
    return ctx.render("bureau.html", organisation=found, membres=membres, roles=ROLES,
                      peut_ajouter=RS_SA.allows(ctx.auth.roles),
                      saisi={n: ctx.typed(n) for n in ("email", "prenom", "nom", "mot_de_passe")},
                      coches=ctx.typed_list("roles") or [], fait=ctx.request.query_params.get("fait"))


def _roles(ctx: Ctx) -> list[RoleOrganisation]:
    assert ctx.form is not None
    return [RoleOrganisation(r) for r in ctx.form.getlist("roles") if r in ROLES] + [RoleOrganisation.MEMBRE]


@page("/organisations/{id}/bureau/{membre}", RS_ORG_ADMIN, methods=("POST",), again=bureau)
async def roles_post(ctx: Ctx) -> Response:
    """The member's roles in the organisation, replaced by those checked (none: he stays a plain member)."""
    found = await _organisation(ctx)
    membre_id = parse_id(ctx.request.path_params["membre"])
    await AppartenanceService(ctx.db, ctx.auth).definir_roles(membre_id, found.id, _roles(ctx))
    return redirect(f"/organisations/{found.id}/bureau?fait=roles")


@page("/organisations/{id}/bureau", RS_SA, methods=("POST",), again=bureau)
async def ajouter_post(ctx: Ctx) -> Response:
    """A person added to the bureau by e-mail: his account created if he has none (with the provisional password
    typed, or none: he then sets his own through « Mot de passe oublié »), then associated with his roles."""
    found = await _organisation(ctx)
    email = ctx.field("email").lower()
    comptes = identity_operations.comptes(ctx.request, ctx.db, ctx.auth)
    existing = await comptes.lister(email, PageParams(page=0, size=5))
    if not any((u.email or "").lower() == email for u in existing.content):
        await comptes.creer(CreateUserRequest.model_validate(corps(
            username=email, email=email, firstName=ctx.field("prenom"), lastName=ctx.field("nom"),
            password=ctx.field("mot_de_passe"))))
    roles = [r.value for r in _roles(ctx)]
    data = AssocierOrganisationRequest.model_validate(corps(email=email, organisationId=str(found.id), roles=roles))
    await AssociationService(ctx.db, ctx.auth, ctx.request.app.state.settings.issuer).associer(data)
    return redirect(f"/organisations/{found.id}/bureau?fait=ajoute")
