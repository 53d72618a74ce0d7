// Ends every migration in drizzle/ with `PRAGMA user_version = N`, N being its position (0000 -> 1),
// so a bot that applies the SQL files by hand also records the schema version.
// Run by `npm run db:generate` after drizzle-kit; `--check` only reports (used by check-drizzle).
import fs from "node:fs";
import path from "node:path";

const dir = path.resolve(process.argv.find((a) => a.startsWith("--dir="))?.slice(6) ?? "drizzle");
const check = process.argv.includes("--check");
const files = fs
  .readdirSync(dir)
  .filter((f) => /^\d{4}_.*\.sql$/.test(f))
  .sort();
let bad = 0;
files.forEach((file, i) => {
  const full = path.join(dir, file);
  const sql = fs.readFileSync(full, "utf8");
  const stamp = `PRAGMA user_version = ${i + 1};`;
  if (sql.trimEnd().endsWith(stamp)) return;
  if (check) {
    console.error(`${file}: must end with "${stamp}" (run npm run db:generate)`);
    bad++;
    return;
  }
  fs.writeFileSync(full, `${sql.trimEnd()}--> statement-breakpoint\n${stamp}\n`);
  console.log(`${file}: stamped ${stamp}`);
});
process.exit(bad ? 1 : 0);
