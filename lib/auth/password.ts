// No "server-only": lib/auth/accounts.ts hashes with it for scripts/accounts.ts (tsx, outside Next), where that import throws.
/**
 * Password hashing with scrypt from node:crypto. A hash names its own cost
 * (`scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64), so raising DRIFTWATCH_SCRYPT_LOG_N changes new
 * hashes only and every old one still verifies. Pure: no Next, no database.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

export const MIN_PASSWORD_LENGTH = 12;
/** Long enough for any passphrase; short enough that nobody posts a megabyte at the login form. */
export const MAX_PASSWORD_LENGTH = 1024;
export const DEFAULT_SCRYPT_LOG_N = 15;

const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function scryptAsync(password: string, salt: Buffer, keyBytes: number, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  // Node refuses anything above 32 MiB by default, and N = 2^15, r = 8 needs exactly that.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, keyBytes, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string, opts: { logN?: number } = {}): Promise<string> {
  const logN = opts.logN ?? DEFAULT_SCRYPT_LOG_N;
  if (!Number.isInteger(logN) || logN < 1 || logN > 24) throw new RangeError(`scrypt log2 N must be an integer from 1 to 24, got ${logN}`);
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(password, salt, KEY_BYTES, logN, R, P);
  return ["scrypt", logN, R, P, salt.toString("base64"), key.toString("base64")].join("$");
}

interface ParsedHash {
  logN: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return null;
  const [, logN, r, p] = parts.map(Number);
  const salt = Buffer.from(parts[4] ?? "", "base64");
  const key = Buffer.from(parts[5] ?? "", "base64");
  const int = (n: number | undefined, max: number): n is number => Number.isInteger(n) && n! >= 1 && n! <= max;
  if (!int(logN, 24) || !int(r, 32) || !int(p, 16) || salt.length < 8 || key.length < 16 || key.length > 64) return null;
  return { logN, r, p, salt, key };
}

/** False, never a throw, for a wrong password or a stored value that is not one of our hashes. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await scryptAsync(password, parsed.salt, parsed.key.length, parsed.logN, parsed.r, parsed.p);
  return timingSafeEqual(key, parsed.key);
}
