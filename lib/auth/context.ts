import "server-only";
/**
 * The console's accounts connection, session secret and sign-in limiter (in memory, or shared in
 * PostgreSQL with DRIFTWATCH_LIMITER_URL): made on first use, one
 * per server process, kept on globalThis so dev-mode reloads neither leak connections nor forget
 * the failed sign-ins.
 */
import type Database from "better-sqlite3";
import { openAccountsDb, type AccountsDb } from "../db/accounts-file";
import { env } from "../env";
import { pgLoginRateLimiter } from "./pg-rate-limit";
import { LoginRateLimiter, type SignInLimiter } from "./rate-limit";
import { resolveSessionSecret } from "./secret";

export interface AuthContext {
  file: string;
  db: AccountsDb;
  sqlite: Database.Database;
  secret: string;
  limiter: SignInLimiter;
}

const holder = globalThis as unknown as { __driftwatchAuth?: AuthContext; __driftwatchAuthLimiter?: SignInLimiter; __driftwatchAuthLogged?: string };

/** Throws (AccountsFileError, SessionSecretError, EnvError) with a one-line message; retried on the next call. */
export function authContext(): AuthContext {
  const config = env();
  const current = holder.__driftwatchAuth;
  if (current?.file === config.accountsDbPath) return current;
  current?.sqlite.close();
  holder.__driftwatchAuth = undefined;
  const secret = resolveSessionSecret({ configured: config.sessionSecret, accountsDbPath: config.accountsDbPath });
  const { db, sqlite } = openAccountsDb(config.accountsDbPath);
  // With DRIFTWATCH_LIMITER_URL, every console process counts failures in one PostgreSQL table.
  holder.__driftwatchAuthLimiter ??= config.limiterUrl ? pgLoginRateLimiter(config.limiterUrl) : new LoginRateLimiter();
  holder.__driftwatchAuth = { file: config.accountsDbPath, db, sqlite, secret, limiter: holder.__driftwatchAuthLimiter };
  return holder.__driftwatchAuth;
}

/** Logs a failure to set up authentication once per distinct message, not once per request. */
export function reportAuthProblem(error: unknown): void {
  const line = `driftwatch: sign-in is unavailable: ${(error as Error).message ?? String(error)}`;
  if (holder.__driftwatchAuthLogged === line) return;
  holder.__driftwatchAuthLogged = line;
  console.error(line);
}
