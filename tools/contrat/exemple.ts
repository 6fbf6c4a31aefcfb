// The README's "First steps" (steps 1 to 5), written against the types openapi-typescript generates from the
// served OpenAPI with its defaults: `make contrat` compiles it with `tsc --strict` (issue 21, finding 13).
// Same bodies as the README's curl commands; a field the README leaves out must be optional in the types.
import type { components, paths } from "./build/unionflow";

type Schemas = components["schemas"];

const BASE = "http://127.0.0.1:8000";

async function envoyer<T>(chemin: keyof paths, jeton: string, corps: unknown): Promise<T> {
  const reponse = await fetch(`${BASE}${String(chemin)}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${jeton}`, "Content-Type": "application/json" },
    body: JSON.stringify(corps),
  });
  return (await reponse.json()) as T;
}

async function jeton(username: string, password: string): Promise<string> {
  const formulaire: Schemas["Body_auth_token"] = { grant_type: "password", username, password };
  const reponse = await fetch(`${BASE}/api/auth/token`, {
    method: "POST",
    body: new URLSearchParams(formulaire as Record<string, string>),
  });
  const corps = (await reponse.json()) as { access_token: string };
  return corps.access_token;
}

export async function premiersPas(motDePasse: string): Promise<void> {
  // 1. a token from the built-in identity provider
  const admin = await jeton("admin@unionflow.local", motDePasse);

  // 2. an organisation
  const organisation: Schemas["CreateOrganisationRequest"] = {
    nom: "Mutuelle des enseignants de Thiès", typeOrganisation: "MUTUELLE", region: "Thiès",
  };
  const org = await envoyer<Schemas["OrganisationResponse"]>("/api/organisations", admin, organisation);

  // 3. a member of it
  const membre: Schemas["CreateMembreRequest"] = {
    prenom: "Awa", nom: "Diop", email: "awa.diop@example.sn", telephone: "+221771234567", organisationId: org.id,
  };
  await envoyer<Schemas["MembreResponse"]>("/api/membres", admin, membre);

  // 4. a user account for another person, associated by e-mail with the organisation
  const utilisateur: Schemas["CreateUserRequest"] = {
    username: "moussa.fall@example.sn", email: "moussa.fall@example.sn", firstName: "Moussa", lastName: "Fall",
    enabled: true, password: "Thies-2026-secret", realmRoles: ["USER"],
  };
  await envoyer<Schemas["UserResponse"]>("/api/admin/users", admin, utilisateur);
  const association: Schemas["AssocierOrganisationRequest"] = { email: "moussa.fall@example.sn", organisationId: org.id };
  await envoyer<unknown>("/api/admin/associer-organisation", admin, association);

  // 5. Moussa logs in and sees his organisations
  const moussa = await jeton("moussa.fall@example.sn", "Thies-2026-secret");
  const reponse = await fetch(`${BASE}/api/organisations/mes-organisations`, {
    headers: { Authorization: `Bearer ${moussa}` },
  });
  const siennes = (await reponse.json()) as Schemas["OrganisationResponse"][];
  console.log(siennes.map((o) => o.nom));
}
