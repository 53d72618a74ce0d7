/**
 * The accounts store: add, disable, enable, change the role or the password of an account. Used by
 * the console (sign-in, and every request's session check), by scripts/accounts.ts and by the demo,
 * so it stays free of Next (no "server-only"); it never hands a password hash to its callers except
 * through getAccountForSignIn.
 */
import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import { openAccountsDb, type AccountsDb } from "../db/accounts-file";
import { accounts, type AccountRow } from "../db/accounts-schema";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./password";
import { accountNameSchema, ACCOUNT_NAME_RULE, roleSchema, type Role } from "./roles";

export type AccountErrorCode = "invalid_name" | "invalid_role" | "weak_password" | "exists" | "not_found";

/** A refusal the person at the keyboard can fix; the message is one line and says how. */
export class AccountError extends Error {
  override name = "AccountError";
  constructor(
    readonly code: AccountErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** An account as callers see it: everything but the hash. */
export type AccountInfo = Omit<AccountRow, "passwordHash">;

function info(row: AccountRow): AccountInfo {
  const { passwordHash: _hash, ...rest } = row;
  return rest;
}

export function checkAccountName(name: string): string {
  if (!accountNameSchema.safeParse(name).success)
    throw new AccountError("invalid_name", `invalid account name ${JSON.stringify(name)}: use ${ACCOUNT_NAME_RULE}`);
  return name;
}

export function checkRole(role: string): Role {
  const parsed = roleSchema.safeParse(role);
  if (!parsed.success) throw new AccountError("invalid_role", `invalid role ${JSON.stringify(role)}: use viewer or operator`);
  return parsed.data;
}

export function checkPassword(password: string): string {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) throw new AccountError("weak_password", `password too short: at least ${MIN_PASSWORD_LENGTH} characters, got ${length}`);
  if (length > MAX_PASSWORD_LENGTH) throw new AccountError("weak_password", `password too long: at most ${MAX_PASSWORD_LENGTH} characters`);
  return password;
}

function mustExist(row: AccountRow | undefined, name: string): AccountRow {
  if (!row) throw new AccountError("not_found", `no account named ${JSON.stringify(name)} (npm run accounts -- list shows them)`);
  return row;
}

function isPrimaryKeyClash(error: unknown): boolean {
  return (error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * A time strictly after the previous one: sessions compare sessions_valid_from for equality, so
 * two bumps in one millisecond (or a clock that stepped back) must still differ.
 */
function nextStamp(now: Date, previous?: string): string {
  const at = previous && Date.parse(previous) >= now.getTime() ? new Date(Date.parse(previous) + 1) : now;
  return at.toISOString();
}

export async function createAccount(
  db: AccountsDb,
  opts: { name: string; role: Role | string; password: string; logN?: number; now?: Date },
): Promise<AccountInfo> {
  const name = checkAccountName(opts.name);
  const role = checkRole(opts.role);
  checkPassword(opts.password);
  if (db.select({ name: accounts.name }).from(accounts).where(eq(accounts.name, name)).get()) {
    throw new AccountError("exists", `account ${JSON.stringify(name)} already exists (use passwd, role or enable to change it)`);
  }
  const passwordHash = await hashPassword(opts.password, { logN: opts.logN });
  const at = (opts.now ?? new Date()).toISOString();
  try {
    const row = db
      .insert(accounts)
      .values({ name, role, passwordHash, disabled: false, createdAt: at, updatedAt: at, passwordChangedAt: at, sessionsValidFrom: at })
      .returning()
      .get();
    return info(row);
  } catch (error) {
    if (isPrimaryKeyClash(error)) throw new AccountError("exists", `account ${JSON.stringify(name)} already exists`);
    throw error;
  }
}

export function getAccount(db: AccountsDb, opts: { name: string }): AccountInfo | undefined {
  const row = db.select().from(accounts).where(eq(accounts.name, opts.name)).get();
  return row && info(row);
}

/** With the hash: for sign-in only. */
export function getAccountForSignIn(db: AccountsDb, opts: { name: string }): AccountRow | undefined {
  return db.select().from(accounts).where(eq(accounts.name, opts.name)).get();
}

export function listAccounts(db: AccountsDb): AccountInfo[] {
  return db.select().from(accounts).orderBy(asc(accounts.name)).all().map(info);
}

/**
 * Disabling ends the account's sessions for good: it moves sessions_valid_from on, so enabling the
 * account again does not bring them back (its owner signs in anew). Enabling changes nothing else.
 */
export function setAccountDisabled(db: AccountsDb, opts: { name: string; disabled: boolean; now?: Date }): AccountInfo {
  const now = opts.now ?? new Date();
  return db.transaction((tx) => {
    const before = mustExist(tx.select().from(accounts).where(eq(accounts.name, opts.name)).get(), opts.name);
    const sessionsValidFrom = opts.disabled ? nextStamp(now, before.sessionsValidFrom) : before.sessionsValidFrom;
    const row = tx
      .update(accounts)
      .set({ disabled: opts.disabled, updatedAt: now.toISOString(), sessionsValidFrom })
      .where(eq(accounts.name, opts.name))
      .returning()
      .get();
    return info(mustExist(row, opts.name));
  });
}

/**
 * Takes effect at the account's next request: sessions carry the name, never the role, so a
 * demoted operator's open session is a viewer's from then on. Sessions are not ended: the role
 * change already takes away what the session could do.
 */
export function setAccountRole(db: AccountsDb, opts: { name: string; role: Role | string; now?: Date }): AccountInfo {
  const role = checkRole(opts.role);
  const at = (opts.now ?? new Date()).toISOString();
  const row = db.update(accounts).set({ role, updatedAt: at }).where(eq(accounts.name, opts.name)).returning().get();
  return info(mustExist(row, opts.name));
}

/** Ends every session the account had: they carry the old sessions_valid_from. */
export async function setAccountPassword(db: AccountsDb, opts: { name: string; password: string; logN?: number; now?: Date }): Promise<AccountInfo> {
  checkPassword(opts.password);
  const before = mustExist(getAccountForSignIn(db, { name: opts.name }), opts.name);
  const passwordHash = await hashPassword(opts.password, { logN: opts.logN });
  const now = opts.now ?? new Date();
  const row = db
    .update(accounts)
    .set({ passwordHash, updatedAt: now.toISOString(), passwordChangedAt: now.toISOString(), sessionsValidFrom: nextStamp(now, before.sessionsValidFrom) })
    .where(eq(accounts.name, opts.name))
    .returning()
    .get();
  return info(mustExist(row, opts.name));
}

/**
 * For the demo: makes sure an enabled operator `name` exists whose password is `password` (a
 * random one when omitted), creating the accounts file if needed, and returns what to print.
 * Run again, it resets that account's password, role and enabled state: the demo's printed
 * credentials are always the ones that work.
 */
export async function ensureDemoOperator(opts: {
  accountsDb: string;
  name?: string;
  password?: string;
  logN?: number;
  migrationsDir?: string;
}): Promise<{ name: string; password: string; created: boolean }> {
  const name = checkAccountName(opts.name ?? "demo");
  const password = checkPassword(opts.password ?? randomBytes(12).toString("base64url"));
  const { db, sqlite } = openAccountsDb(opts.accountsDb, { migrationsDir: opts.migrationsDir });
  try {
    if (!getAccount(db, { name })) {
      await createAccount(db, { name, role: "operator", password, logN: opts.logN });
      return { name, password, created: true };
    }
    await setAccountPassword(db, { name, password, logN: opts.logN });
    setAccountRole(db, { name, role: "operator" });
    setAccountDisabled(db, { name, disabled: false });
    return { name, password, created: false };
  } finally {
    sqlite.close();
  }
}
