// No "server-only": lib/env.ts and lib/audit/key.ts judge secrets with it for the CLIs (tsx, outside Next), where that import throws.
/**
 * One rule for every secret the console is given or keeps (session secret, SSO proxy secret, audit
 * key, venue token, and the files generated beside the accounts): enough distinct characters that
 * it cannot be a placeholder. A value of 32 characters or more needs at least 10 distinct ones; a
 * shorter one (the venue token may be 16) at least a third of its length. One repeated letter,
 * "changeme" or "password" over and over, "abab…" all fail; what `openssl rand -base64 48` or
 * `-hex 16` prints passes (a random 32-character hex string has fewer than 10 distinct characters
 * about once in 18,000 draws, and is then worth replacing anyway). Length is checked apart, by
 * each setting's own minimum. Pure: imported by lib/env.ts and lib/auth/secret.ts alike.
 */
export const MIN_DISTINCT_CHARACTERS = 10;

export function requiredDistinctCharacters(length: number): number {
  return Math.min(MIN_DISTINCT_CHARACTERS, Math.ceil(length / 3));
}

/** Null when the value passes; otherwise why not, without echoing the value. */
export function secretWeakness(value: string): string | null {
  const characters = [...value];
  const distinct = new Set(characters).size;
  const needed = requiredDistinctCharacters(characters.length);
  if (distinct >= needed) return null;
  return `has only ${distinct} distinct character${distinct === 1 ? "" : "s"}, fewer than the ${needed} a random secret has; use a random one (try: openssl rand -base64 48)`;
}
