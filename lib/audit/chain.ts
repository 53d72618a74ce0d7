// No "server-only": the audit log and its key (shared with scripts/audit.ts, run with tsx outside Next) hash through it, and that import throws there.
/**
 * The audit log's hash chain, as plain functions. Each entry's hash covers the previous entry's
 * hash and the entry's own fields in a fixed order, so changing one byte of one entry breaks every
 * hash after it. A plain hash alone proves nothing against whoever can write the journal (they
 * recompute the chain), so entries are keyed: HMAC-SHA256 with a key kept beside the accounts, out
 * of the bots' reach, written as `hmac-sha256:<hex>` in the same `hash` column. Journals written
 * before the key hold plain SHA-256 hex entries: those verify as an unkeyed prefix, and an unkeyed
 * entry after a keyed one is refused (it can only come from something without the key).
 */
import { createHash, createHmac } from "node:crypto";

export const GENESIS = "genesis";
export const KEYED_PREFIX = "hmac-sha256:";

export interface AuditFields {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  outcome: "applied" | "refused";
  code: string | null;
  detail: string;
}

export type ChainEntry = AuditFields & { prevHash: string; hash: string };

/** The head of the chain as published outside the journal: entry #entries has this hash. */
export interface AuditHead {
  entries: number;
  hash: string;
}

// A JSON array fixes the order and escapes every field, so no two entries serialise alike.
const canonical = (prevHash: string, e: AuditFields) => JSON.stringify([prevHash, e.id, e.at, e.actor, e.action, e.target, e.outcome, e.code, e.detail]);

/** The hash every new entry gets. */
export function keyedEntryHash(prevHash: string, e: AuditFields, key: string): string {
  return KEYED_PREFIX + createHmac("sha256", key).update(canonical(prevHash, e), "utf8").digest("hex");
}

/** The hash entries had before the key: kept to verify old journals, never written any more. */
export function unkeyedEntryHash(prevHash: string, e: AuditFields): string {
  return createHash("sha256").update(canonical(prevHash, e), "utf8").digest("hex");
}

export const isKeyed = (hash: string) => hash.startsWith(KEYED_PREFIX);

export type ChainCheck =
  | { ok: true; entries: number; head: string; unkeyed: number }
  | {
      ok: false;
      entries: number;
      /** The first entry that does not hold; null when it is missing (a removed tail). */
      brokenAt: ChainEntry | null;
      badId: number;
      /**
       * The first entry nothing vouches for. Usually badId; earlier when a rewritten chain is
       * caught at the published head: then only what a keyed entry covers (everything up to the
       * last keyed entry that verified) still stands.
       */
      untrustedFrom: number;
      problem: string;
    };

export interface VerifyOptions {
  /** null: no key was found; a keyed entry then cannot be checked and fails. */
  key: string | null;
  /** The last head published outside the journal: the chain must still hold it. */
  expectHead?: AuditHead;
}

/** Walks entries in id order; stops at the first that does not hold. */
export function verifyChain(entries: Iterable<ChainEntry>, opts: VerifyOptions): ChainCheck {
  let prev = GENESIS;
  let n = 0;
  let unkeyed = 0;
  let keyedSeen = false;
  let last: ChainEntry | null = null;
  let headSeen = false;
  const expect = opts.expectHead;
  let lastKeyedId = 0;
  const fail = (e: ChainEntry, problem: string, untrustedFrom = e.id): ChainCheck => ({
    ok: false,
    entries: n,
    brokenAt: e,
    badId: e.id,
    untrustedFrom,
    problem,
  });
  for (const e of entries) {
    n++;
    last = e;
    if (expect && !headSeen && e.id > expect.entries) return fail(e, `it comes where the published head #${expect.entries} should be, and that entry is gone`);
    if (e.prevHash !== prev) return fail(e, "its prev_hash is not the previous entry's hash (an entry was removed, inserted or reordered)");
    if (isKeyed(e.hash)) {
      if (opts.key === null)
        return fail(
          e,
          "it is keyed and no audit key was found to check it (set DRIFTWATCH_AUDIT_KEY, or DRIFTWATCH_ACCOUNTS_DB so its audit-key file is found)",
        );
      if (keyedEntryHash(prev, e, opts.key) !== e.hash)
        return fail(
          e,
          "its hash does not match its content under the audit key (the entry was altered or forged, or the key is not the one it was written with)",
        );
      keyedSeen = true;
      lastKeyedId = e.id;
    } else {
      if (keyedSeen) return fail(e, "it is unkeyed (plain SHA-256) after keyed entries: only something without the audit key writes that (a forged entry)");
      if (expect && e.id > expect.entries)
        return fail(e, `it is unkeyed and comes after the published head #${expect.entries}: only keyed entries may follow it`);
      if (unkeyedEntryHash(prev, e) !== e.hash) return fail(e, "its hash does not match its content (the entry was altered)");
      unkeyed++;
    }
    if (expect && e.id === expect.entries) {
      if (e.hash !== expect.hash) {
        return fail(
          e,
          `it is not the entry published as head #${expect.entries} (published ${expect.hash}, found ${e.hash}): the chain was rewritten`,
          lastKeyedId + 1,
        );
      }
      headSeen = true;
    }
    prev = e.hash;
  }
  if (expect && (last === null || last.id < expect.entries)) {
    const have = last === null ? "the log is empty" : `the chain ends at #${last.id}`;
    const badId = (last?.id ?? 0) + 1;
    return {
      ok: false,
      entries: n,
      brokenAt: null,
      badId,
      untrustedFrom: badId,
      problem: `${have} but head #${expect.entries} was published: entries #${badId} to #${expect.entries} were removed`,
    };
  }
  return { ok: true, entries: n, head: prev, unkeyed };
}
