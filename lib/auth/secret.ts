import "server-only";
/**
 * The key that signs session cookies. DRIFTWATCH_SESSION_SECRET when set (lib/env.ts checks its
 * length). When unset, one is generated on first start and kept in `session-secret` beside the
 * accounts file, mode 0600, so sessions survive a restart and the demo works with no setup. Set
 * the variable yourself to rotate it (every session ends) or to share it between console processes.
 * The secret itself is never logged.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { secretWeakness } from "./secret-strength";
import { MIN_SECRET_LENGTH } from "./token";

export class SessionSecretError extends Error {
  override name = "SessionSecretError";
}

export function sessionSecretFile(accountsDbPath: string): string {
  return path.join(path.dirname(path.resolve(accountsDbPath)), "session-secret");
}

function readKept(file: string): string {
  const stat = fs.statSync(file);
  if (!stat.isFile()) throw new SessionSecretError(`session secret ${file} is not a file. Fix: remove it, or set DRIFTWATCH_SESSION_SECRET`);
  if ((stat.mode & 0o077) !== 0) {
    throw new SessionSecretError(`session secret ${file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}). Fix: chmod 600 ${file}`);
  }
  const secret = fs.readFileSync(file, "utf8").trim();
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new SessionSecretError(
      `session secret ${file} is shorter than ${MIN_SECRET_LENGTH} characters. Fix: remove it to have a new one generated, or set DRIFTWATCH_SESSION_SECRET`,
    );
  }
  const weakness = secretWeakness(secret);
  if (weakness)
    throw new SessionSecretError(`session secret ${file} ${weakness}. Fix: remove it to have a new one generated, or set DRIFTWATCH_SESSION_SECRET`);
  return secret;
}

export function resolveSessionSecret(opts: { configured: string | undefined; accountsDbPath: string; log?: (line: string) => void }): string {
  if (opts.configured) return opts.configured;
  const log = opts.log ?? ((line: string) => console.log(line));
  const file = sessionSecretFile(opts.accountsDbPath);
  if (fs.existsSync(file)) return readKept(file);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString("base64url");
  try {
    // "wx": if another process wrote it first, use theirs rather than overwrite it.
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return readKept(file);
    throw new SessionSecretError(
      `cannot write session secret ${file} (${(error as Error).message}). Fix: set DRIFTWATCH_SESSION_SECRET, or make the folder writable`,
    );
  }
  log(`driftwatch: DRIFTWATCH_SESSION_SECRET is not set: generated a session secret in ${file} (mode 0600). Set the variable to choose your own.`);
  return secret;
}
