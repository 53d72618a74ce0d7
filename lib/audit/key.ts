// No "server-only": scripts/audit.ts and the demo and soak tools read the key with tsx, outside Next, where that import throws.
/**
 * The key that signs the audit log's chain (HMAC-SHA256). DRIFTWATCH_AUDIT_KEY when set (lib/env.ts
 * checks its length). When unset, one is generated on first use and kept in `audit-key` beside the
 * accounts file, mode 0600: out of the bots' reach, since a bot can write the journal and so could
 * otherwise recompute the whole chain. Same rules as lib/auth/secret.ts. The key is never logged.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env";

export const MIN_AUDIT_KEY_LENGTH = 32;

export class AuditKeyError extends Error {
  override name = "AuditKeyError";
}

export function auditKeyFile(accountsDbPath: string): string {
  return path.join(path.dirname(path.resolve(accountsDbPath)), "audit-key");
}

function readKept(file: string): string {
  const stat = fs.statSync(file);
  if (!stat.isFile()) throw new AuditKeyError(`audit key ${file} is not a file. Fix: remove it, or set DRIFTWATCH_AUDIT_KEY`);
  if ((stat.mode & 0o077) !== 0) {
    throw new AuditKeyError(`audit key ${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}). Fix: chmod 600 ${file}`);
  }
  const key = fs.readFileSync(file, "utf8").trim();
  if (key.length < MIN_AUDIT_KEY_LENGTH) {
    throw new AuditKeyError(
      `audit key ${file} is shorter than ${MIN_AUDIT_KEY_LENGTH} characters. Fix: restore the key the journal's entries were signed with, or set DRIFTWATCH_AUDIT_KEY`,
    );
  }
  return key;
}

export function resolveAuditKey(opts: { configured: string | undefined; accountsDbPath: string; log?: (line: string) => void }): string {
  if (opts.configured) return opts.configured;
  const log = opts.log ?? ((line: string) => console.log(line));
  const file = auditKeyFile(opts.accountsDbPath);
  if (fs.existsSync(file)) return readKept(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(48).toString("base64url");
  try {
    // "wx": if another process wrote it first, use theirs rather than overwrite it.
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return readKept(file);
    throw new AuditKeyError(`cannot write audit key ${file} (${(error as Error).message}). Fix: set DRIFTWATCH_AUDIT_KEY, or make the folder writable`);
  }
  log(`driftwatch: DRIFTWATCH_AUDIT_KEY is not set: generated an audit key in ${file} (mode 0600). Keep it: verifying the audit log needs it.`);
  return key;
}

/**
 * For verification: the configured or kept key, never a new one (a key made now could not verify
 * anything already written). null when there is none.
 */
export function findAuditKey(opts: { configured: string | undefined; accountsDbPath: string }): string | null {
  if (opts.configured) return opts.configured;
  const file = auditKeyFile(opts.accountsDbPath);
  return fs.existsSync(file) ? readKept(file) : null;
}

let cached: string | undefined;

/** The key of this console's configuration (env()), resolved once per process. */
export function consoleAuditKey(): string {
  const c = env();
  cached ??= resolveAuditKey({ configured: c.auditKey, accountsDbPath: c.accountsDbPath });
  return cached;
}
