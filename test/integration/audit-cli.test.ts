/**
 * `npm run audit -- verify [--expect-head]` against the tampering issue 18 found, done the way an
 * attacker who can write the journal would: the sqlite3 CLI, triggers dropped first. The journal
 * holds two entries written before the audit key existed (plain SHA-256) and four keyed ones, each
 * head published beside the accounts file as the console publishes it.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { GENESIS, unkeyedEntryHash, type AuditFields } from "@/lib/audit/chain";
import { publishAuditHead } from "@/lib/audit/head";
import { resolveAuditKey } from "@/lib/audit/key";
import { appendAudit } from "@/lib/audit/log";
import { consoleWriter } from "../helpers/actions";
import { migratedJournal, repoRoot, tempDir } from "../helpers/journal";

interface Setup {
  journal: string;
  accounts: string;
  headFile: string;
  heads: { entries: number; hash: string }[];
}

function journalWithPublishedHeads(): Setup {
  const journal = migratedJournal("audit-cli");
  const accounts = path.join(tempDir("audit-cli-accounts"), "accounts.db");
  const headFile = path.join(path.dirname(accounts), "audit-heads.jsonl");
  const key = resolveAuditKey({ configured: undefined, accountsDbPath: accounts, log: () => {} });
  const db = consoleWriter(journal);
  // What the console wrote before the key: plain SHA-256 entries (triggers still on: they chain).
  let prev = GENESIS;
  for (const [id, actor] of [
    [1, "operator:ana"],
    [2, "operator:ben"],
  ] as const) {
    const e: AuditFields = {
      id,
      at: `2026-08-10T15:0${id}:00.000Z`,
      actor,
      action: "acknowledge_drift",
      target: "alpha/AAPL",
      outcome: "applied",
      code: null,
      detail: "{}",
    };
    const hash = unkeyedEntryHash(prev, e);
    db.prepare(`INSERT INTO audit_log (id, at, actor, action, target, outcome, code, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      e.id,
      e.at,
      e.actor,
      e.action,
      e.target,
      e.outcome,
      e.code,
      e.detail,
      prev,
      hash,
    );
    prev = hash;
  }
  const heads: Setup["heads"] = [];
  for (let i = 0; i < 4; i++) {
    const at = `2026-08-10T16:0${i}:00.000Z`;
    const outcome = i % 2 === 0 ? "applied" : "refused";
    const head = db
      .transaction(() => appendAudit(db, { at, actor: "operator:ana", action: "clear_halt", target: "alpha", outcome, detail: { reason: `step ${i}` } }, key))
      .immediate();
    publishAuditHead({ journalPath: journal, headFile, head, at: new Date(at), log: () => {} });
    heads.push(head);
  }
  db.close();
  return { journal, accounts, headFile, heads };
}

function auditCli(s: Setup, ...args: string[]) {
  // Only the accounts file is configured: the key and the head file are found beside it.
  const env: NodeJS.ProcessEnv = { ...process.env, DRIFTWATCH_ACCOUNTS_DB: s.accounts };
  for (const k of Object.keys(env)) if (k.startsWith("DRIFTWATCH_") && k !== "DRIFTWATCH_ACCOUNTS_DB") delete env[k];
  const r = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/audit.ts", "verify", ...args], { cwd: repoRoot, encoding: "utf8", env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The attacker: the sqlite3 CLI on the journal file, triggers dropped first. */
function sqlite3(file: string, sql: string) {
  const r = spawnSync("sqlite3", [file], {
    input: `DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete; DROP TRIGGER IF EXISTS audit_log_chain;\n${sql}`,
    encoding: "utf8",
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
}

const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v.replaceAll("'", "''")}'`);

function rows(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare(`SELECT id, at, actor, action, target, outcome, code, detail, prev_hash AS prevHash, hash FROM audit_log ORDER BY id`)
      .all() as (AuditFields & { prevHash: string; hash: string })[];
  } finally {
    db.close();
  }
}

const oneLine = (text: string) => {
  const lines = text.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0]!;
};

describe("npm run audit -- verify", () => {
  it("verifies an untouched keyed journal, says how many entries predate the key, and holds the published head", () => {
    const s = journalWithPublishedHeads();
    const plain = auditCli(s, s.journal);
    expect(plain.code).toBe(0);
    expect(oneLine(plain.stdout)).toBe(
      `audit log of ${s.journal}: 6 entries, chain verified; 2 of them predate the audit key (unkeyed SHA-256), head ${s.heads[3]!.hash}`,
    );
    const held = auditCli(s, s.journal, "--expect-head");
    expect(held.code).toBe(0);
    expect(held.stdout).toContain(`holds the published head #6 (published 2026-08-10T16:03:00.000Z in ${s.headFile})`);
  });

  it("--expect-head detects a removed tail (the last two entries deleted)", () => {
    const s = journalWithPublishedHeads();
    sqlite3(s.journal, `DELETE FROM audit_log WHERE id > 4;`);
    const r = auditCli(s, s.journal, "--expect-head");
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(
      `audit log of ${s.journal}: chain broken at entry #5 (missing): the chain ends at #4 but head #6 was published: entries #5 to #6 were removed. Entries before #5 verify; treat #5 and everything after it as untrusted.`,
    );
  });

  it("detects a forged entry hashed with plain SHA-256 after the keyed ones, with and without --expect-head", () => {
    const s = journalWithPublishedHeads();
    const last = rows(s.journal).at(-1)!;
    const forged: AuditFields = {
      id: 7,
      at: "2026-08-10T16:10:00.000Z",
      actor: "operator:ana",
      action: "clear_halt",
      target: "alpha",
      outcome: "applied",
      code: null,
      detail: '{"reason":"ana cleared alpha"}',
    };
    const hash = unkeyedEntryHash(last.hash, forged);
    sqlite3(
      s.journal,
      `INSERT INTO audit_log (id, at, actor, action, target, outcome, code, detail, prev_hash, hash) VALUES (${[forged.id, forged.at, forged.actor, forged.action, forged.target, forged.outcome, forged.code, forged.detail, last.hash, hash].map(q).join(", ")});`,
    );
    for (const args of [[s.journal], [s.journal, "--expect-head"]]) {
      const r = auditCli(s, ...args);
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toBe(
        `audit log of ${s.journal}: chain broken at entry #7 (2026-08-10T16:10:00.000Z, operator:ana, clear_halt alpha): it is unkeyed (plain SHA-256) after keyed entries: only something without the audit key writes that (a forged entry). Entries before #7 verify; treat #7 and everything after it as untrusted.`,
      );
    }
  });

  it("--expect-head detects a chain rewritten without the key (every hash recomputed with plain SHA-256)", () => {
    const s = journalWithPublishedHeads();
    let prev = GENESIS;
    const updates: string[] = [];
    for (const e of rows(s.journal)) {
      const changed = e.id === 3 ? { ...e, actor: "operator:mallory" } : e;
      const hash = unkeyedEntryHash(prev, changed);
      updates.push(`UPDATE audit_log SET actor = ${q(changed.actor)}, prev_hash = ${q(prev)}, hash = ${q(hash)} WHERE id = ${e.id};`);
      prev = hash;
    }
    sqlite3(s.journal, updates.join("\n"));
    const r = auditCli(s, s.journal, "--expect-head");
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(
      new RegExp(
        `^audit log of ${s.journal}: chain broken at entry #6 \\(.*\\): it is not the entry published as head #6 \\(published ${s.heads[3]!.hash}, found [0-9a-f]{64}\\): the chain was rewritten\\. No entry of it can be trusted\\.$`,
      ),
    );
  });

  it("--expect-head N:HASH checks a head given by hand, such as one copied from the server log", () => {
    const s = journalWithPublishedHeads();
    const head = s.heads[1]!;
    expect(auditCli(s, s.journal, "--expect-head", `${head.entries}:${head.hash}`)).toMatchObject({ code: 0 });
    const wrong = auditCli(s, s.journal, "--expect-head", `${head.entries}:hmac-sha256:${"0".repeat(64)}`);
    expect(wrong.code).toBe(1);
    expect(oneLine(wrong.stderr)).toContain(`chain broken at entry #${head.entries} (`);
  });

  it("--expect-head without a published head for the journal says where it looked and what to pass", () => {
    const s = journalWithPublishedHeads();
    fs.rmSync(s.headFile);
    const r = auditCli(s, s.journal, "--expect-head");
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(
      `audit log of ${s.journal}: no head was published for it in ${s.headFile}. Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file (the head file is beside it) or DRIFTWATCH_AUDIT_HEAD_FILE to the console's head file, or pass --expect-head N:HASH from its "driftwatch: audit head" log line`,
    );
  });

  it("says a keyed journal cannot be verified without its key, and where the key was looked for; never that it verified", () => {
    const s = journalWithPublishedHeads();
    const keyFile = path.join(path.dirname(s.accounts), "audit-key");
    fs.rmSync(keyFile);
    for (const extra of [[], ["--expect-head"]]) {
      const r = auditCli(s, s.journal, ...extra);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(oneLine(r.stderr)).toBe(
        `audit log of ${s.journal}: its entries are keyed, and no audit key was found (DRIFTWATCH_AUDIT_KEY is unset and there is no ${keyFile}). Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file (the key is kept beside it), or DRIFTWATCH_AUDIT_KEY to the console's key`,
      );
    }
  });

  it("names a journal that is not there before anything else", () => {
    const s = journalWithPublishedHeads();
    const missing = path.join(path.dirname(s.journal), "nothing-here.db");
    const r = auditCli(s, missing, "--expect-head");
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(new RegExp(`journal ${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not found`));
    expect(r.stderr).not.toContain("no head was published");
  });
});
