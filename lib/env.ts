// No "server-only": scripts/accounts.ts, scripts/audit.ts and the soak read their settings through it with tsx, outside Next, where that import throws.
/**
 * The only module that reads process.env. Validated once; a bad value stops the console at start
 * with a message that names the variable.
 */
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { secretWeakness } from "./auth/secret-strength";
import { parseJournalList, parseSourcesFile, type JournalSourceConfig } from "./journal-sources";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An empty value (`VAR=` in a .env file or a unit file) means unset, not "the empty string". */
const optional = <T extends z.ZodType>(inner: T) => z.preprocess((v) => (v === "" ? undefined : v), inner.optional());
/** A secret: its own minimum length, then the one strength rule (lib/auth/secret-strength.ts). */
const secret = (min: number, tooShort: string) =>
  z
    .string()
    .min(min, tooShort)
    .superRefine((value, ctx) => {
      const weakness = value.length >= min ? secretWeakness(value) : null;
      if (weakness) ctx.addIssue({ code: "custom", message: weakness });
    });
const headerName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name, such as x-forwarded-user");

const schema = z.object({
  /** One journal file, or several comma-separated (each a source named after its file). */
  DRIFTWATCH_JOURNAL: z.string().trim().min(1, "must name a file").default("./data/journal.db"),
  /** A JSON file naming each source (lib/journal-sources.ts); instead of DRIFTWATCH_JOURNAL, not with it. */
  DRIFTWATCH_SOURCES: optional(z.string().trim().min(1)),
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
  DRIFTWATCH_VENUE_TOKEN: optional(secret(16, "must be at least 16 characters")),
  /** Accounts and password hashes: a file of their own, never the journal every bot can open. */
  DRIFTWATCH_ACCOUNTS_DB: z.string().trim().min(1, "must name a file").default("./data/accounts.db"),
  /** Signs session cookies. Unset: one is generated once and kept (mode 0600) beside the accounts file. */
  DRIFTWATCH_SESSION_SECRET: optional(secret(32, "must be at least 32 characters (try: openssl rand -base64 48)")),
  DRIFTWATCH_SESSION_TTL_MS: positiveInt(12 * 60 * 60_000),
  /** scrypt cost for new password hashes, as log2(N). Existing hashes keep the cost they were made with. */
  DRIFTWATCH_SCRYPT_LOG_N: z.coerce.number().int().min(15, "must be at least 15 (N = 32768)").max(20, "must be at most 20").default(15),
  /**
   * SSO mode, off unless set: a header naming the signed-in user, set by a proxy in front of the
   * console. It counts only on a request that also carries the proxy's secret (below).
   */
  DRIFTWATCH_TRUSTED_IDENTITY_HEADER: optional(headerName),
  /** Gone: roles come from driftwatch's own accounts. Set, it stops the console with a message saying so. */
  DRIFTWATCH_TRUSTED_ROLE_HEADER: optional(z.string()),
  /**
   * The secret the SSO proxy sends in X-Driftwatch-Proxy-Secret on every request it forwards; without
   * it (compared in constant time) the identity header is ignored and the attempt logged.
   */
  DRIFTWATCH_TRUSTED_PROXY_SECRET: optional(secret(32, "must be at least 32 characters (try: openssl rand -base64 48)")),
  /**
   * How many proxies in front of the console append to X-Forwarded-For. 0 (the default): the header
   * is the client's to write, so it is replaced by the socket's address before anything reads it.
   */
  DRIFTWATCH_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * The Host names the console answers to (comma-separated, each `name` or `name:port`); any other
   * Host gets 421 before a route or an action runs, which defeats DNS rebinding.
   */
  DRIFTWATCH_ALLOWED_HOSTS: optional(z.string()),
  /** "1": every page and JSON route needs a signed-in account (a viewer at least). */
  DRIFTWATCH_REQUIRE_SIGN_IN: z.enum(["0", "1"]).default("0"),
  /**
   * Keys the audit log's chain (HMAC-SHA256). Unset: one is generated once and kept (mode 0600)
   * beside the accounts file, out of the bots' reach.
   */
  DRIFTWATCH_AUDIT_KEY: optional(secret(32, "must be at least 32 characters (try: openssl rand -base64 48)")),
  /** Where the head of the audit chain is appended after every action. Default: audit-heads.jsonl beside the accounts file. */
  DRIFTWATCH_AUDIT_HEAD_FILE: optional(z.string().trim().min(1)),
  /** Bearer token that GET /api/metrics requires when set (Prometheus: `authorization: { credentials: … }`). */
  DRIFTWATCH_METRICS_TOKEN: optional(secret(16, "must be at least 16 characters")),
  /** Alertmanager's base URL (http://127.0.0.1:9093): an acknowledgement then silences its page, a clear ends the silences it made. */
  DRIFTWATCH_ALERTMANAGER_URL: optional(z.url({ protocol: /^https?$/ })),
  /** The console's own address as people reach it (https://driftwatch.example), for links in alerts and notifications. */
  DRIFTWATCH_PUBLIC_URL: optional(z.url({ protocol: /^https?$/ })),
  /**
   * A PostgreSQL URL (postgresql://user@host:5432/db) where every console process counts failed
   * sign-ins together (table driftwatch_console.sign_in_failures, made on first use). Unset: each
   * process counts in memory, right for one process.
   */
  DRIFTWATCH_LIMITER_URL: optional(z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgresql:// URL" })),
});

/** Host names always allowed: the loopback addresses the console binds by default. */
export const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

export type Env = {
  /** The first source's journal: the one journal of a single-journal console, and the scripts' default. */
  journalPath: string;
  /** Every journal the console reads, in the configured order; names unique, files unique. */
  journals: JournalSourceConfig[];
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
  /** Proof the SSO proxy sends in X-Driftwatch-Proxy-Secret. Never log it. */
  trustedProxySecret: string | undefined;
  trustedProxyHops: number;
  /** Lowercased `name` (any port) or `name:port` entries; always includes LOOPBACK_HOSTS. */
  allowedHosts: string[];
  requireSignIn: boolean;
  /** undefined: lib/audit/key.ts generates and keeps one beside the accounts file. Never log it. */
  auditKey: string | undefined;
  auditHeadFile: string;
  /** null: /api/metrics is open to whoever may read the console (it holds no account data and no secret). Never log it. */
  metricsToken: string | null;
  /** Base URL without a trailing slash; null: acknowledgements create no silences. */
  alertmanagerUrl: string | null;
  /** Base URL without a trailing slash; null: links are relative to wherever the reader opened the console. */
  publicUrl: string | null;
  /** The shared sign-in limiter's database; null: in memory, per process. */
  limiterUrl: string | null;
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
  if (v.DRIFTWATCH_TRUSTED_ROLE_HEADER) {
    throw new EnvError(
      "driftwatch configuration is invalid: DRIFTWATCH_TRUSTED_ROLE_HEADER is no longer read: a role comes from driftwatch's own accounts, never from a header. Unset it, and give operators an account (npm run accounts -- add NAME --role operator); SSO users without one are viewers",
    );
  }
  if (v.DRIFTWATCH_TRUSTED_IDENTITY_HEADER && !v.DRIFTWATCH_TRUSTED_PROXY_SECRET) {
    throw new EnvError(
      "driftwatch configuration is invalid: DRIFTWATCH_TRUSTED_IDENTITY_HEADER is set but DRIFTWATCH_TRUSTED_PROXY_SECRET is not; without a secret the proxy proves itself with, any client could name itself. Set both, or neither",
    );
  }
  const allowedHosts = parseAllowedHosts(v.DRIFTWATCH_ALLOWED_HOSTS ?? "");
  if (!allowedHosts.ok) throw new EnvError(`driftwatch configuration is invalid: DRIFTWATCH_ALLOWED_HOSTS ${allowedHosts.message}`);
  const accountsDbPath = path.resolve(v.DRIFTWATCH_ACCOUNTS_DB);
  const journals = parseJournals(v.DRIFTWATCH_SOURCES, source.DRIFTWATCH_JOURNAL, v.DRIFTWATCH_JOURNAL, source);
  return {
    journalPath: journals[0]!.file,
    journals,
    doubtfulGraceMs: v.DRIFTWATCH_DOUBTFUL_GRACE_MS,
    heartbeatStaleMs: v.DRIFTWATCH_HEARTBEAT_STALE_MS,
    reconciliationStaleMs: v.DRIFTWATCH_RECONCILIATION_STALE_MS,
    ackTtlMs: v.DRIFTWATCH_ACK_TTL_MS,
    twoPersonClear: v.DRIFTWATCH_TWO_PERSON_CLEAR === "1",
    twoPersonWindowMs: v.DRIFTWATCH_TWO_PERSON_WINDOW_MS,
    venue: v.DRIFTWATCH_VENUE_URL ? { url: v.DRIFTWATCH_VENUE_URL, token: v.DRIFTWATCH_VENUE_TOKEN ?? null } : null,
    accountsDbPath,
    sessionSecret: v.DRIFTWATCH_SESSION_SECRET,
    sessionTtlMs: v.DRIFTWATCH_SESSION_TTL_MS,
    scryptLogN: v.DRIFTWATCH_SCRYPT_LOG_N,
    trustedIdentityHeader: v.DRIFTWATCH_TRUSTED_IDENTITY_HEADER,
    trustedProxySecret: v.DRIFTWATCH_TRUSTED_PROXY_SECRET,
    trustedProxyHops: v.DRIFTWATCH_TRUSTED_PROXY_HOPS,
    allowedHosts: allowedHosts.hosts,
    requireSignIn: v.DRIFTWATCH_REQUIRE_SIGN_IN === "1",
    auditKey: v.DRIFTWATCH_AUDIT_KEY,
    // Configuration, not a project file: tell Turbopack not to trace it.
    auditHeadFile: path.resolve(/*turbopackIgnore: true*/ v.DRIFTWATCH_AUDIT_HEAD_FILE ?? path.join(path.dirname(accountsDbPath), "audit-heads.jsonl")),
    metricsToken: v.DRIFTWATCH_METRICS_TOKEN ?? null,
    alertmanagerUrl: v.DRIFTWATCH_ALERTMANAGER_URL ? v.DRIFTWATCH_ALERTMANAGER_URL.replace(/\/+$/, "") : null,
    publicUrl: v.DRIFTWATCH_PUBLIC_URL ? v.DRIFTWATCH_PUBLIC_URL.replace(/\/+$/, "") : null,
    limiterUrl: v.DRIFTWATCH_LIMITER_URL ?? null,
  };
}

function parseJournals(
  sourcesFile: string | undefined,
  journalGiven: string | undefined,
  journal: string,
  vars: Record<string, string | undefined>,
): JournalSourceConfig[] {
  let parsed;
  if (sourcesFile !== undefined) {
    if (journalGiven !== undefined && journalGiven.trim() !== "") {
      throw new EnvError("driftwatch configuration is invalid: DRIFTWATCH_SOURCES and DRIFTWATCH_JOURNAL are both set; name the journals in one place");
    }
    // Configuration, not a project file: tell Turbopack not to trace it.
    const file = path.resolve(/*turbopackIgnore: true*/ sourcesFile);
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (error) {
      throw new EnvError(`driftwatch configuration is invalid: DRIFTWATCH_SOURCES file ${file} cannot be read (${(error as Error).message})`);
    }
    parsed = parseSourcesFile(text, file, vars);
  } else {
    parsed = parseJournalList(journal, process.cwd(), vars);
  }
  if (!parsed.ok) throw new EnvError(`driftwatch configuration is invalid: ${parsed.message}`);
  return parsed.sources;
}

/**
 * The address `next start -H ADDR -p PORT` is serving on, as `addr:port`, from the origin Next
 * records once it listens (its own __NEXT_PRIVATE_ORIGIN; a wildcard bind records localhost). Read
 * per call, since it is set only after the server listens. Null when Next has not said.
 */
export function boundHost(): string | null {
  const origin = process.env.__NEXT_PRIVATE_ORIGIN;
  if (!origin) return null;
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

const HOST_ENTRY = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;

/** `a.example, b.example:8443` → the loopback names plus each entry, lowercased. */
export function parseAllowedHosts(text: string): { ok: true; hosts: string[] } | { ok: false; message: string } {
  const entries = text
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e.length > 0);
  const bad = entries.find((e) => !HOST_ENTRY.test(e));
  if (bad !== undefined)
    return {
      ok: false,
      message: `has ${JSON.stringify(bad)}, which is not a host name or address with an optional port (such as console.example.com or 10.0.0.5:3000)`,
    };
  return { ok: true, hosts: [...new Set([...LOOPBACK_HOSTS, ...entries])] };
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
