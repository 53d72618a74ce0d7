// Fails when a migrations folder is not what its schema generates: drizzle-kit generates into a
// scratch copy, and any new migration there means someone changed the schema without committing
// its SQL. Two folders: drizzle/ (the journal, lib/db/schema.ts) and drizzle/accounts/ (the
// console's accounts file, lib/db/accounts-schema.ts).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const targets = [
  { dir: "drizzle", config: "drizzle.config.ts", schema: "lib/db/schema.ts", fix: "Run npm run db:generate and commit drizzle/." },
  {
    dir: "drizzle/accounts",
    config: "drizzle.accounts.config.ts",
    schema: "lib/db/accounts-schema.ts",
    fix: "Run node_modules/.bin/drizzle-kit generate --config drizzle.accounts.config.ts && node scripts/stamp-migrations.mjs --dir=drizzle/accounts, and commit drizzle/accounts/.",
  },
];

const migrationFiles = (dir) => fs.readdirSync(dir).filter((f) => /\.sql$/.test(f));

for (const target of targets) {
  // drizzle-kit takes `out` relative to the project, so the scratch copy lives inside it.
  const scratch = path.join("node_modules", ".cache", "drizzle-check", target.dir.replaceAll("/", "-"));
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(scratch), { recursive: true });
  fs.cpSync(target.dir, scratch, { recursive: true });
  const before = new Set(migrationFiles(scratch));
  const output = execFileSync("node_modules/.bin/drizzle-kit", ["generate", "--config", target.config], {
    env: { ...process.env, DRIZZLE_OUT: scratch },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const added = migrationFiles(scratch).filter((f) => !before.has(f));
  fs.rmSync(scratch, { recursive: true, force: true });
  // drizzle-kit can print an error and still exit 0: only its own "nothing to do" counts as a pass.
  if (added.length === 0 && !/No schema changes/.test(output)) {
    console.error(`drizzle-kit generate (${target.config}) did not confirm the schema is unchanged:\n${output}`);
    process.exit(1);
  }
  if (added.length > 0) {
    console.error(`${target.dir}/ is behind ${target.schema}: generating would add ${added.join(", ")}. ${target.fix}`);
    process.exit(1);
  }
  execFileSync("node", ["scripts/stamp-migrations.mjs", "--check", `--dir=${target.dir}`], { stdio: "inherit" });
  console.log(`${target.dir}/ is up to date with ${target.schema}`);
}
