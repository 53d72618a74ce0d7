// Fails when a migrations folder is not what its schema generates: drizzle-kit generates into a
// scratch copy, and any new migration there means someone changed the schema without committing
// its SQL. Three folders: drizzle/ (the journal, lib/db/schema.ts), drizzle/accounts/ (the
// console's accounts file, lib/db/accounts-schema.ts) and drizzle/pg/ (the journal on PostgreSQL,
// lib/db/pg-schema.ts). That drizzle/ and drizzle/pg/ describe the same journal is checked on real
// databases by test/integration/pg-contract.test.ts.
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
  {
    dir: "drizzle/pg",
    config: "drizzle.pg.config.ts",
    schema: "lib/db/pg-schema.ts",
    fix: "Run node_modules/.bin/drizzle-kit generate --config drizzle.pg.config.ts, end the new file with its journal_schema row (docs/journal.md, PostgreSQL), and commit drizzle/pg/.",
    pg: true,
  },
];

// Every file of drizzle/pg ends by writing the journal_schema row: `migrations` its position
// (0000 -> 1), `version` the contract version it completes; the last one's version is the SQLite
// journal's (the number of files in drizzle/), so the two engines are at the same contract.
function checkPgStamps(dir) {
  const files = migrationFiles(dir).sort();
  const sqliteVersion = migrationFiles("drizzle").filter((f) => /^\d{4}_/.test(f)).length;
  let version = 0;
  files.forEach((file, i) => {
    const sql = fs.readFileSync(path.join(dir, file), "utf8").trimEnd();
    const m =
      /INSERT INTO "journal_schema" \("id", "version", "migrations"\) VALUES \(1, (\d+), (\d+)\)\s+ON CONFLICT \("id"\) DO UPDATE SET "version" = excluded\."version", "migrations" = excluded\."migrations";$/.exec(
        sql,
      );
    if (!m)
      throw new Error(
        `${dir}/${file}: must end with its journal_schema row (INSERT INTO "journal_schema" ... VALUES (1, <version>, ${i + 1}) ON CONFLICT ...)`,
      );
    if (Number(m[2]) !== i + 1) throw new Error(`${dir}/${file}: records migrations = ${m[2]}, but it is file ${i + 1}`);
    if (Number(m[1]) < version) throw new Error(`${dir}/${file}: records version ${m[1]}, lower than the file before it (${version})`);
    version = Number(m[1]);
  });
  if (version !== sqliteVersion)
    throw new Error(
      `${dir}/: its last file records contract version ${version}, but drizzle/ is at version ${sqliteVersion}: add the PostgreSQL side of the new SQLite migrations`,
    );
}

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
  if (target.pg) {
    try {
      checkPgStamps(target.dir);
    } catch (error) {
      console.error(error.message);
      process.exit(1);
    }
  } else {
    execFileSync("node", ["scripts/stamp-migrations.mjs", "--check", `--dir=${target.dir}`], { stdio: "inherit" });
  }
  console.log(`${target.dir}/ is up to date with ${target.schema}`);
}
