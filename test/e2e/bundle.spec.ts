/**
 * What ships to browsers is .next/static. No server-only module, no secret and no database code may
 * be in it. Runs after the build, on the build's own files.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { repoRoot } from "../helpers/journal";

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test("client bundles hold no server-only code and no secret", () => {
  const dir = path.join(repoRoot, ".next/static");
  const all = files(dir).filter((f) => /\.(js|css|json|map)$/.test(f));
  expect(all.length).toBeGreaterThan(0);
  const forbidden = [
    /better-sqlite3/,
    /DRIFTWATCH_SESSION_SECRET/,
    /DRIFTWATCH_VENUE_TOKEN/,
    /password_hash/,
    /scryptSync|timingSafeEqual/,
    /BEGIN IMMEDIATE/,
    /INSERT INTO audit_log/,
    /session-secret/,
    /This module cannot be imported from a Client Component/, // a server-only module that leaked would carry this guard
  ];
  const hits: string[] = [];
  for (const f of all) {
    const text = fs.readFileSync(f, "utf8");
    for (const re of forbidden) if (re.test(text)) hits.push(`${path.relative(dir, f)}: ${re}`);
  }
  expect(hits).toEqual([]);
});
