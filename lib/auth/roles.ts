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

export const ACCOUNT_NAME_RULE = "1 to 64 characters: lowercase letters, digits, dot, dash or underscore";
export const accountNameSchema = z.string().regex(/^[a-z0-9._-]{1,64}$/, `account names are ${ACCOUNT_NAME_RULE}`);
export const roleSchema = z.enum(ROLES, { error: 'role must be "viewer" or "operator"' });

export function isAccountName(value: string): boolean {
  return accountNameSchema.safeParse(value).success;
}
