/** Accounts for browser tests, made the way an operator makes them: the CLI, the password on stdin. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect } from "@playwright/test";
import { repoRoot } from "../journal";

export function addAccountWithCli(accountsDb: string, account: { name: string; role: "operator" | "viewer"; password: string }): void {
  const r = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/accounts.ts", "add", account.name, "--role", account.role, "--password-stdin"], {
    cwd: repoRoot,
    input: `${account.password}\n`,
    encoding: "utf8",
    env: { ...process.env, DRIFTWATCH_ACCOUNTS_DB: accountsDb },
  });
  expect(r.status, r.stderr).toBe(0);
}
