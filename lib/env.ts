/**
 * The only module that reads process.env. Validated once; a bad value stops the console at start
 * with a message that names the variable.
 */
import path from "node:path";
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An empty value (`VAR=` in a .env file or a unit file) means unset, not "the empty string". */
const optional = <T extends z.ZodType>(inner: T) => z.preprocess((v) => (v === "" ? undefined : v), inner.optional());
const headerName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name, such as x-forwarded-user");

const schema = z.object({
  DRIFTWATCH_JOURNAL: z.string().trim().min(1, "must name a file").default("./data/journal.db"),
  /** created/sent orders not updated for this long are doubtful. */
  DRIFTWATCH_DOUBTFUL_GRACE_MS: positiveInt(30_000),
  /** A heartbeat older than this is an alarm. */
  DRIFTWATCH_HEARTBEAT_STALE_MS: positiveInt(60_000),
  /** A last reconciliation older than this is an alarm. */
  DRIFTWATCH_RECONCILIATION_STALE_MS: positiveInt(120_000),
  /** How long an acknowledgement of a drift silences it, at most. */
  DRIFTWATCH_ACK_TTL_MS: positiveInt(30 * 60_000),
  /** "1": clearing a halt needs a second operator's approval within the window below. */
  DRIFTWATCH_TWO_PERSON_CLEAR: z.enum(["0", "1"]).default("0"),
  DRIFTWATCH_TWO_PERSON_WINDOW_MS: positiveInt(10 * 60_000),
  /** The venue gateway the console asks about an order's client id ("Check on exchange"). */
  DRIFTWATCH_VENUE_URL: optional(z.url({ protocol: /^https?$/ })),
  DRIFTWATCH_VENUE_TOKEN: optional(z.string().min(16, "must be at least 16 characters")),
  /** Accounts and password hashes: a file of their own, never the journal every bot can open. */
  DRIFTWATCH_ACCOUNTS_DB: z.string().trim().min(1, "must name a file").default("./data/accounts.db"),
  /** Signs session cookies. Unset: one is generated once and kept (mode 0600) beside the accounts file. */
  DRIFTWATCH_SESSION_SECRET: optional(z.string().min(32, "must be at least 32 characters (try: openssl rand -base64 48)")),
  DRIFTWATCH_SESSION_TTL_MS: positiveInt(12 * 60 * 60_000),
  /** scrypt cost for new password hashes, as log2(N). Existing hashes keep the cost they were made with. */
  DRIFTWATCH_SCRYPT_LOG_N: z.coerce.number().int().min(15, "must be at least 15 (N = 32768)").max(20, "must be at most 20").default(15),
  /**
   * SSO mode, off unless set: a header naming the signed-in user, set by a proxy in front of the
   * console. Only safe when that proxy strips any copy of the header the client sent.
   */
  DRIFTWATCH_TRUSTED_IDENTITY_HEADER: optional(headerName),
  /** With SSO mode: a header carrying "viewer" or "operator" for users who have no local account. */
  DRIFTWATCH_TRUSTED_ROLE_HEADER: optional(headerName),
});

export type Env = {
  journalPath: string;
  doubtfulGraceMs: number;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  ackTtlMs: number;
  twoPersonClear: boolean;
  twoPersonWindowMs: number;
  /** Where "Check on exchange" asks; null: not configured, resolve by hand. */
  venue: { url: string; token: string | null } | null;
  accountsDbPath: string;
  /** undefined: lib/auth/secret.ts generates and keeps one. Never log it. */
  sessionSecret: string | undefined;
  sessionTtlMs: number;
  scryptLogN: number;
  trustedIdentityHeader: string | undefined;
  trustedRoleHeader: string | undefined;
};

export class EnvError extends Error {
  override name = "EnvError";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ");
    throw new EnvError(`driftwatch configuration is invalid: ${problems}`);
  }
  const v = result.data;
  if (v.DRIFTWATCH_TRUSTED_ROLE_HEADER && !v.DRIFTWATCH_TRUSTED_IDENTITY_HEADER) {
    throw new EnvError("driftwatch configuration is invalid: DRIFTWATCH_TRUSTED_ROLE_HEADER is set but DRIFTWATCH_TRUSTED_IDENTITY_HEADER is not; set both, or neither");
  }
  return {
    journalPath: path.resolve(v.DRIFTWATCH_JOURNAL),
    doubtfulGraceMs: v.DRIFTWATCH_DOUBTFUL_GRACE_MS,
    heartbeatStaleMs: v.DRIFTWATCH_HEARTBEAT_STALE_MS,
    reconciliationStaleMs: v.DRIFTWATCH_RECONCILIATION_STALE_MS,
    ackTtlMs: v.DRIFTWATCH_ACK_TTL_MS,
    twoPersonClear: v.DRIFTWATCH_TWO_PERSON_CLEAR === "1",
    twoPersonWindowMs: v.DRIFTWATCH_TWO_PERSON_WINDOW_MS,
    venue: v.DRIFTWATCH_VENUE_URL ? { url: v.DRIFTWATCH_VENUE_URL, token: v.DRIFTWATCH_VENUE_TOKEN ?? null } : null,
    accountsDbPath: path.resolve(v.DRIFTWATCH_ACCOUNTS_DB),
    sessionSecret: v.DRIFTWATCH_SESSION_SECRET,
    sessionTtlMs: v.DRIFTWATCH_SESSION_TTL_MS,
    scryptLogN: v.DRIFTWATCH_SCRYPT_LOG_N,
    trustedIdentityHeader: v.DRIFTWATCH_TRUSTED_IDENTITY_HEADER,
    trustedRoleHeader: v.DRIFTWATCH_TRUSTED_ROLE_HEADER,
  };
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
