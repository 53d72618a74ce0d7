import { describe, expect, it } from "vitest";
import { GENESIS, keyedEntryHash, unkeyedEntryHash, verifyChain, type AuditFields, type ChainEntry } from "@/lib/audit/chain";

const KEY = "a-key-of-at-least-thirty-two-characters";
const fields = (id: number): AuditFields => ({
  id,
  at: `2026-08-10T15:00:0${id}.000Z`,
  actor: "operator:ana",
  action: "clear_halt",
  target: "alpha",
  outcome: "applied",
  code: null,
  detail: "{}",
});

/** Entries 1..n, the first `unkeyed` of them hashed as before the key. */
function chain(n: number, unkeyed: number, key = KEY): ChainEntry[] {
  const out: ChainEntry[] = [];
  let prev = GENESIS;
  for (let id = 1; id <= n; id++) {
    const f = fields(id);
    const hash = id <= unkeyed ? unkeyedEntryHash(prev, f) : keyedEntryHash(prev, f, key);
    out.push({ ...f, prevHash: prev, hash });
    prev = hash;
  }
  return out;
}

describe("the audit chain", () => {
  it("accepts an unkeyed prefix written before the key, and counts it", () => {
    const c = chain(5, 2);
    expect(verifyChain(c, { key: KEY })).toEqual({ ok: true, entries: 5, head: c[4]!.hash, unkeyed: 2 });
  });

  it("keys new entries with HMAC-SHA256, marked in the hash itself", () => {
    expect(chain(1, 0)[0]!.hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(chain(1, 1)[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses an unkeyed entry after the first keyed one, even one hashed correctly", () => {
    const c = chain(3, 0);
    const forged = fields(4);
    c.push({ ...forged, prevHash: c[2]!.hash, hash: unkeyedEntryHash(c[2]!.hash, forged) });
    expect(verifyChain(c, { key: KEY })).toMatchObject({
      ok: false,
      badId: 4,
      untrustedFrom: 4,
      problem: expect.stringContaining("unkeyed (plain SHA-256) after keyed entries"),
    });
  });

  it("refuses keyed entries under another key, and cannot check them without one", () => {
    expect(verifyChain(chain(2, 0, "some-other-key-of-thirty-two-characters"), { key: KEY })).toMatchObject({ ok: false, badId: 1 });
    expect(verifyChain(chain(2, 1), { key: null })).toMatchObject({ ok: false, badId: 2, problem: expect.stringContaining("no audit key was found") });
    expect(verifyChain(chain(2, 2), { key: null })).toMatchObject({ ok: true, unkeyed: 2 });
  });

  it("with an expected head: holds it, and accepts keyed entries written after it", () => {
    const c = chain(6, 1);
    expect(verifyChain(c, { key: KEY, expectHead: { entries: 4, hash: c[3]!.hash } })).toMatchObject({ ok: true, entries: 6 });
  });

  it("with an expected head: names the first missing entry when the tail was cut", () => {
    const c = chain(6, 0);
    expect(verifyChain(c.slice(0, 4), { key: KEY, expectHead: { entries: 6, hash: c[5]!.hash } })).toMatchObject({
      ok: false,
      badId: 5,
      brokenAt: null,
      untrustedFrom: 5,
    });
    expect(verifyChain([], { key: KEY, expectHead: { entries: 1, hash: c[0]!.hash } })).toMatchObject({
      ok: false,
      badId: 1,
      problem: expect.stringContaining("the log is empty"),
    });
  });

  it("with an expected head: a chain recomputed without the key differs at the head, and nothing before it is vouched for", () => {
    const c = chain(4, 0);
    const rewritten = chain(4, 4);
    expect(verifyChain(rewritten, { key: KEY })).toMatchObject({ ok: true, unkeyed: 4 });
    expect(verifyChain(rewritten, { key: KEY, expectHead: { entries: 4, hash: c[3]!.hash } })).toMatchObject({ ok: false, badId: 4, untrustedFrom: 1 });
  });

  it("with an expected head: an unkeyed entry after it is refused", () => {
    const c = chain(2, 2);
    const extra = fields(3);
    c.push({ ...extra, prevHash: c[1]!.hash, hash: unkeyedEntryHash(c[1]!.hash, extra) });
    expect(verifyChain(c, { key: KEY, expectHead: { entries: 2, hash: c[1]!.hash } })).toMatchObject({
      ok: false,
      badId: 3,
      problem: expect.stringContaining("after the published head #2"),
    });
  });
});
