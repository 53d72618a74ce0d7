/**
 * A real PostgreSQL server for a test file (tools/lib/postgres-server.ts): start it in beforeAll,
 * stop it in afterAll, one per file. Where the binaries are missing, a developer's run skips those
 * files with a loud message saying what to install; CI (CI=true) fails instead, so a CI machine
 * without PostgreSQL can never pass by skipping.
 */
import { postgresBinDir } from "@/tools/lib/postgres-server";

export { startPostgres, type PostgresServer } from "@/tools/lib/postgres-server";

const missing = postgresBinDir() === null;
const inCi = process.env.CI === "true" || process.env.CI === "1";
if (missing && inCi) {
  throw new Error(
    "CI: PostgreSQL's server binaries are not installed (initdb, pg_ctl under /usr/lib/postgresql/N/bin): npm run setup must install Debian's postgresql package",
  );
}
if (missing) {
  console.warn(
    "\n*** SKIPPING the PostgreSQL tests: no initdb/pg_ctl under /usr/lib/postgresql/N/bin (or DRIFTWATCH_PG_BIN). Install Debian's postgresql (npm run setup) to run them. CI never skips them. ***\n",
  );
}

/** False when the PostgreSQL tests must be skipped (never in CI). */
export const postgresAvailable = !missing;
