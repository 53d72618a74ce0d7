/**
 * Who is acting, as the rest of the console sees it. Plain types and checks: importable from a
 * client component (to grey out a button) as well as from a server action (to refuse it).
 */
import { z } from "zod";

export const ROLES = ["viewer", "operator"] as const;
export type Role = (typeof ROLES)[number];

export interface Actor {
  name: string;
  role: Role;
  /** "session": signed in on /login. "sso": named by the trusted proxy header. */
  via: "session" | "sso";
}

/** Operators act; viewers read. A null actor (nobody signed in) reads nothing it must not and acts never. */
export function canAct(actor: Actor | null | undefined): actor is Actor & { role: "operator" } {
  return actor?.role === "operator";
}

/** A signed-in reader who may not act (a viewer), as the "only an operator can act" note names them. */
export type SignedInViewer = Pick<Actor, "name" | "via">;

/** The actor as a SignedInViewer when a viewer; null for an operator or nobody. */
export function signedInViewer(actor: Actor | null | undefined): SignedInViewer | null {
  return actor && !canAct(actor) ? { name: actor.name, via: actor.via } : null;
}

export const ACCOUNT_NAME_RULE = "1 to 64 characters: lowercase letters, digits, dot, dash or underscore";
export const accountNameSchema = z.string().regex(/^[a-z0-9._-]{1,64}$/, `account names are ${ACCOUNT_NAME_RULE}`);
export const roleSchema = z.enum(ROLES, { error: 'role must be "viewer" or "operator"' });

export function isAccountName(value: string): boolean {
  return accountNameSchema.safeParse(value).success;
}
