import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSessionSecret, sessionSecretFile } from "@/lib/auth/secret";
import { tempDir } from "../helpers/journal";

describe("the session secret", () => {
  it("is the configured one when DRIFTWATCH_SESSION_SECRET is set, and no file is written", () => {
    const accountsDbPath = path.join(tempDir("secret"), "accounts.db");
    const configured = "c".repeat(40);
    expect(resolveSessionSecret({ configured, accountsDbPath, log: () => {} })).toBe(configured);
    expect(fs.existsSync(sessionSecretFile(accountsDbPath))).toBe(false);
  });

  it("is generated once beside the accounts file, mode 0600, logged without the secret, and reused", () => {
    const accountsDbPath = path.join(tempDir("secret"), "data", "accounts.db");
    const lines: string[] = [];
    const first = resolveSessionSecret({ configured: undefined, accountsDbPath, log: (l) => lines.push(l) });
    const file = path.join(path.dirname(accountsDbPath), "session-secret");
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(file);
    expect(lines[0]).not.toContain(first);
    expect(resolveSessionSecret({ configured: undefined, accountsDbPath, log: (l) => lines.push(l) })).toBe(first);
    expect(lines).toHaveLength(1);
  });

  it("refuses a kept secret that other users can read, and says how to fix it", () => {
    const accountsDbPath = path.join(tempDir("secret"), "accounts.db");
    resolveSessionSecret({ configured: undefined, accountsDbPath, log: () => {} });
    const file = sessionSecretFile(accountsDbPath);
    fs.chmodSync(file, 0o644);
    expect(() => resolveSessionSecret({ configured: undefined, accountsDbPath, log: () => {} })).toThrow(`Fix: chmod 600 ${file}`);
  });

  it("refuses a kept secret that is too short", () => {
    const accountsDbPath = path.join(tempDir("secret"), "accounts.db");
    fs.writeFileSync(sessionSecretFile(accountsDbPath), "short\n", { mode: 0o600 });
    expect(() => resolveSessionSecret({ configured: undefined, accountsDbPath, log: () => {} })).toThrow(/shorter than 32 characters/);
  });

  it("refuses a kept secret of one repeated letter, saying how to replace it and without echoing it", () => {
    const accountsDbPath = path.join(tempDir("secret"), "accounts.db");
    fs.writeFileSync(sessionSecretFile(accountsDbPath), `${"q".repeat(48)}\n`, { mode: 0o600 });
    const attempt = () => resolveSessionSecret({ configured: undefined, accountsDbPath, log: () => {} });
    expect(attempt).toThrow(/has only 1 distinct character.*Fix: remove it to have a new one generated/);
    expect(attempt).not.toThrow(/qqqq/);
  });
});
