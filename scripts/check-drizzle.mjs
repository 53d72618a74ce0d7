// Fails when drizzle/ is not what lib/db/schema.ts generates: drizzle-kit generates into a scratch
// copy, and any new migration there means someone changed the schema without committing its SQL.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// drizzle-kit takes `out` relative to the project, so the scratch copy lives inside it.
const scratch = path.join("node_modules", ".cache", "drizzle-check");
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(path.dirname(scratch), { recursive: true });
fs.cpSync("drizzle", scratch, { recursive: true });
const before = new Set(fs.readdirSync(scratch));
const output = execFileSync("node_modules/.bin/drizzle-kit", ["generate"], {
  env: { ...process.env, DRIZZLE_OUT: scratch },
  encoding: "utf8",
  stdio: ["ignore", "pipe", "pipe"],
});
// drizzle-kit can print an error and still exit 0: only its own "nothing to do" counts as a pass.
if (!/No schema changes/.test(output)) {
  const added = fs.readdirSync(scratch).filter((f) => !before.has(f));
  if (added.length === 0) {
    console.error(`drizzle-kit generate did not confirm the schema is unchanged:\n${output}`);
    process.exit(1);
  }
}
const added = fs.readdirSync(scratch).filter((f) => !before.has(f));
fs.rmSync(scratch, { recursive: true, force: true });
if (added.length > 0) {
  console.error(`drizzle/ is behind lib/db/schema.ts: generating would add ${added.join(", ")}. Run npm run db:generate and commit drizzle/.`);
  process.exit(1);
}
execFileSync("node", ["scripts/stamp-migrations.mjs", "--check"], { stdio: "inherit" });
console.log("drizzle/ is up to date with lib/db/schema.ts");
