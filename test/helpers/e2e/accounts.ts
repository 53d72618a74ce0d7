/** Accounts for browser tests, made the way an operator makes them: the CLI, the password on stdin. */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
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

/** Signs `who` in through the sign-in form, as a person would, and waits until the header names them. */
export async function signIn(page: Page, url: string, who: { name: string; password: string }): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel("Account name").fill(who.name);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("signed-in-as")).toContainText(who.name);
}
