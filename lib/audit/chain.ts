/**
 * The audit log's hash chain, as plain functions: each entry's hash is sha256 over the previous
 * entry's hash and the entry's own fields in a fixed order. Change one byte of one entry and its
 * hash, and every hash after it, stops matching.
 */
import { createHash } from "node:crypto";

export const GENESIS = "genesis";

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

export function entryHash(prevHash: string, e: AuditFields): string {
  // A JSON array fixes the order and escapes every field, so no two entries serialise alike.
  const canonical = JSON.stringify([prevHash, e.id, e.at, e.actor, e.action, e.target, e.outcome, e.code, e.detail]);
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

export type ChainCheck =
  | { ok: true; entries: number; head: string }
  | { ok: false; entries: number; brokenAt: AuditFields & { prevHash: string; hash: string }; problem: string };

/** Walks entries in id order; stops at the first that does not chain. */
export function verifyChain(entries: Iterable<AuditFields & { prevHash: string; hash: string }>): ChainCheck {
  let prev = GENESIS;
  let n = 0;
  for (const e of entries) {
    n++;
    if (e.prevHash !== prev) return { ok: false, entries: n, brokenAt: e, problem: "its prev_hash is not the previous entry's hash (an entry was removed, inserted or reordered)" };
    if (entryHash(prev, e) !== e.hash) return { ok: false, entries: n, brokenAt: e, problem: "its hash does not match its content (the entry was altered)" };
    prev = e.hash;
  }
  return { ok: true, entries: n, head: prev };
}
