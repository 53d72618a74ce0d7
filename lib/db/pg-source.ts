import "server-only";
/**
 * A journal in a PostgreSQL database, beside the SQLite JournalSource (lib/db/console.ts): a
 * `pg.Pool`, checked once per request by one small query (the journal_schema row), and every
 * driver error turned into the console's one-line JournalError with its fix:
 *
 * - unreachable: refused, timed out, no such host, the connection dropped, the server shutting down;
 * - authentication: a wrong password or a user the server does not let in (28P01, 28000);
 * - no_schema: no journal_schema table or row (an empty database, or the wrong one), or no such database;
 * - future_schema / older_schema: a version this console does not read.
 *
 * Nothing is cached across a failure: the pool opens new connections as they are needed, so a
 * server that comes back, a password fixed or a migration run is picked up by the next request.
 * The password is never in a message: the URL is shown without it (lib/journal-sources.ts) and
 * any driver text is passed through redactText.
 */
import pg from "pg";
import { redactText, withPassword, type PostgresSourceConfig } from "../journal-sources";
import { JournalError, latestSchemaVersion } from "./journal-file";
import { PgQuery, type JournalQuery } from "./query";

/**
 * bigint (int8) and numeric as JS numbers: every journal integer fits (ids, versions, counts,
 * milliseconds). The pages' pool and the actions' transactions (lib/actions/pg-guard.ts) parse
 * with this one table, so a read written once sums and compares alike in both.
 */
export const JOURNAL_PG_TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PgSourceOptions {
  migrationsDir?: string;
  /** How long a connection attempt may take before the source is "unreachable". */
  connectTimeoutMs?: number;
  log?: (line: string) => void;
  now?: () => Date;
}

export interface PgJournalInfo {
  file: string;
  schemaVersion: number;
}

export type PgHandle = { ok: true; q: JournalQuery; info: PgJournalInfo; warnings: string[] } | { ok: false; error: JournalError };

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "EPIPE"]);
/** Server-side codes that mean "the server is going away or not there yet". */
const SERVER_DOWN_CODES = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004"]);

export class PgJournalSource {
  /** What tells it from a SQLite JournalSource: not instanceof, since Next bundles route modules apart, each with its own copy of the class. */
  readonly engine = "postgres" as const;
  private pool: pg.Pool;
  private q: PgQuery;
  /** The password the pool connects with: a new one (fixed in the environment) makes a new pool. */
  private password: string | undefined;
  private downSince: Date | null = null;
  private readonly log: (line: string) => void;
  private readonly now: () => Date;

  constructor(
    readonly config: PostgresSourceConfig,
    private readonly opts: PgSourceOptions = {},
  ) {
    this.log = opts.log ?? ((line) => console.error(line));
    this.now = opts.now ?? (() => new Date());
    this.password = config.password();
    this.pool = this.makePool();
    this.q = new PgQuery(this.pool);
  }

  private makePool(): pg.Pool {
    const pool = new pg.Pool({
      // pg reads the URL's fields over any given beside it, so the password goes into the URL (kept in memory only).
      connectionString: withPassword(this.config.file, this.password),
      max: 4,
      connectionTimeoutMillis: this.opts.connectTimeoutMs ?? 3_000,
      idleTimeoutMillis: 30_000,
      // A read that hangs (a lock, a dying server) fails instead of holding the page.
      query_timeout: 15_000,
      application_name: "driftwatch-console",
      types: JOURNAL_PG_TYPES,
    });
    // An idle connection that the server drops (a restart) must not take the console down with it.
    pool.on("error", (error) => this.log(`driftwatch: source ${this.config.name}: ${this.redact(String((error as Error).message))}`));
    return pool;
  }

  /** A password changed in the environment since the pool was made: the next connections use the new one. */
  private followPassword(): void {
    const now = this.config.password();
    if (now === this.password) return;
    this.password = now;
    const old = this.pool;
    this.pool = this.makePool();
    this.q = new PgQuery(this.pool);
    old.end().catch(() => undefined);
  }

  get file(): string {
    return this.config.file;
  }

  private redact(text: string): string {
    return redactText(text, [this.config.password(), this.password]);
  }

  /** The driver error met at a check or a read, as the JournalError to show; null when it is not about reaching the journal. */
  classify(error: unknown): JournalError | null {
    const e = error as { code?: string; message?: string; errors?: { code?: string }[] };
    const file = this.config.file;
    const message = this.redact(e?.message ?? String(error));
    const code = e?.code ?? e?.errors?.find((x) => x.code)?.code;
    if (code === "28P01" || code === "28000") {
      const how = this.config.passwordEnv ? `the password in ${this.config.passwordEnv}` : "the password in the URL";
      return new JournalError(
        "authentication",
        file,
        `refused the console's sign-in (${message})`,
        `check the user in the URL and ${how}, and that pg_hba.conf lets this host in; the console retries on every request`,
      );
    }
    if (code === "3D000")
      return new JournalError(
        "no_schema",
        file,
        `has no such database (${message})`,
        "fix the database name in the URL, or create the database and migrate it (lib/db/pg-journal.ts)",
      );
    if (code === "42P01")
      return new JournalError(
        "no_schema",
        file,
        "has no journal schema (no journal_schema table): an empty database, or the wrong one",
        "point the URL at the bots' journal database, or create the journal there: apply the files of drizzle/pg in order (docs/journal.md, PostgreSQL)",
      );
    const unreachable =
      (code !== undefined && (UNREACHABLE_CODES.has(code) || SERVER_DOWN_CODES.has(code))) ||
      /timeout|terminated|Connection terminated|connect ECONN|getaddrinfo|the database system is (starting|shutting)/i.test(message);
    if (unreachable)
      return new JournalError(
        "unreachable",
        file,
        `cannot be reached (${message})`,
        "check that the PostgreSQL server is running and that this host reaches it (address, port, firewall); the console reconnects by itself",
      );
    return null;
  }

  private fault(error: unknown): JournalError {
    return (
      this.classify(error) ??
      new JournalError(
        "unreadable",
        this.config.file,
        `cannot be read (${this.redact((error as Error).message)})`,
        "check the server's log and the user's rights on the journal tables",
      )
    );
  }

  /** The one check per request: the server answers, lets us in, and holds a journal of the version this console reads. */
  async check(): Promise<PgHandle> {
    this.followPassword();
    let row: { version: number; migrations: number } | undefined;
    try {
      row = await this.q.get<{ version: number; migrations: number }>("SELECT version, migrations FROM journal_schema WHERE id = 1");
    } catch (error) {
      return this.failed(this.fault(error));
    }
    const file = this.config.file;
    const latest = latestSchemaVersion(this.opts.migrationsDir);
    if (!row || row.version === 0)
      return this.failed(
        new JournalError(
          "no_schema",
          file,
          row
            ? "has journal tables without their triggers (journal_schema version 0): the migration stopped halfway"
            : "has no journal schema (the journal_schema table has no row)",
          "apply the files of drizzle/pg in order (docs/journal.md, PostgreSQL)",
        ),
      );
    if (row.version > latest)
      return this.failed(
        new JournalError(
          "future_schema",
          file,
          `has schema version ${row.version}, newer than this driftwatch knows (${latest})`,
          "upgrade driftwatch to the release that wrote this journal",
        ),
      );
    if (row.version < latest)
      return this.failed(
        new JournalError(
          "older_schema",
          file,
          `has schema version ${row.version}; this driftwatch needs ${latest}`,
          `migrate it: apply the files of drizzle/pg from number ${String(row.migrations).padStart(4, "0")} on (docs/journal.md, PostgreSQL)`,
        ),
      );
    if (this.downSince) {
      this.log(`driftwatch: source ${this.config.name} (${file}) can be read again (it could not since ${this.downSince.toISOString()})`);
      this.downSince = null;
    }
    return { ok: true, q: this.q, info: { file, schemaVersion: row.version }, warnings: [] };
  }

  private failed(error: JournalError): { ok: false; error: JournalError } {
    if (!this.downSince) {
      this.downSince = this.now();
      this.log(`driftwatch: source ${this.config.name}: ${error.message}`);
    }
    return { ok: false, error };
  }

  /** Runs a read after the check; a connection lost halfway becomes the same JournalError. Anything else (a bug) is thrown on. */
  async read<T>(
    read: (q: JournalQuery) => Promise<T>,
  ): Promise<{ ok: true; data: T; journal: { info: PgJournalInfo; warnings: string[] } } | { ok: false; error: JournalError }> {
    const journal = await this.check();
    if (!journal.ok) return { ok: false, error: journal.error };
    const { q, info, warnings } = journal;
    try {
      return { ok: true, data: await read(q), journal: { info, warnings } };
    } catch (error) {
      const fault = this.classify(error);
      if (fault) return this.failed(fault);
      throw error;
    }
  }

  /**
   * The pool the PostgreSQL action guard (lib/actions/pg-guard.ts) takes its transaction's
   * connection from: the source's own, so a password fixed in the environment reaches actions too.
   * Call check() first: the guard does not look at the schema version.
   */
  actionPool(): pg.Pool {
    this.followPassword();
    return this.pool;
  }

  /**
   * The SQLite source's synchronous handles: never used for a PostgreSQL source (lib/actions/server.ts
   * runs its actions through actionPool()); refused, so a caller that reaches for a SQLite file here
   * changes nothing and says why.
   */
  get(): { ok: false; error: JournalError } {
    return { ok: false, error: this.notForActions() };
  }

  writeConnection(): never {
    throw this.notForActions();
  }

  assertSameFile(): void {
    throw this.notForActions();
  }

  private notForActions(): JournalError {
    return new JournalError(
      "not_on_postgres",
      this.config.file,
      "is a PostgreSQL source: its actions go through the PostgreSQL guard (lib/actions/pg-guard.ts), never a SQLite connection",
      "this is a bug in driftwatch: report it with the server log",
    );
  }

  close(): void {
    this.pool.end().catch(() => undefined);
  }
}
