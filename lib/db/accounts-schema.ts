/**
 * The console's accounts, in their own SQLite file (DRIFTWATCH_ACCOUNTS_DB), never in the journal:
 * every bot and every reader can open the journal, and password hashes must not sit there.
 *
 * drizzle-kit generates drizzle/accounts/*.sql from this file (drizzle.accounts.config.ts); the
 * console applies them on first use (lib/db/accounts-file.ts).
 */
import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ROLES } from "../auth/roles";

export const accounts = sqliteTable(
  "accounts",
  {
    name: text("name").primaryKey(),
    role: text("role", { enum: ROLES }).notNull(),
    /** scrypt$<log2 N>$<r>$<p>$<salt, base64>$<hash, base64>: the cost travels with the hash. */
    passwordHash: text("password_hash").notNull(),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** When the password was last set (shown by `npm run accounts -- list`). */
    passwordChangedAt: text("password_changed_at").notNull(),
    /**
     * Sessions carry this value and must match it. Disabling the account and changing its password
     * move it on, so those sessions end for good: enabling the account again does not revive them.
     * Never empty in practice: the migration that added it (drizzle/accounts/0001) copied
     * password_changed_at into existing rows, and a token never carries "", so the default matches none.
     */
    sessionsValidFrom: text("sessions_valid_from").notNull().default(""),
  },
  (t) => [
    check("accounts_name_check", sql`length(${t.name}) between 1 and 64 and ${t.name} not glob '*[^a-z0-9._-]*'`),
    check("accounts_role_check", sql`${t.role} in (${sql.raw(ROLES.map((r) => `'${r}'`).join(", "))})`),
    check("accounts_disabled_check", sql`${t.disabled} in (0, 1)`),
  ],
);

export type AccountRow = typeof accounts.$inferSelect;

/**
 * The Alertmanager silences the console made for drift acknowledgements (lib/alerting/silences.ts).
 * The console's own state, not the bot's journal: a bot never needs it, and the console must find
 * them again to end them early (the drift grew, changed class, a new episode, a clear). One row per
 * acknowledgement of one journal file; `expired_at` set once Alertmanager expired it (or its
 * `ends_at` passed), `last_error` the latest failure to expire it, retried until it succeeds.
 */
export const alertSilences = sqliteTable(
  "alert_silences",
  {
    id: integer("id").primaryKey(),
    /** The journal's absolute path (DRIFTWATCH_JOURNAL): acknowledgement ids are per journal. */
    journalFile: text("journal_file").notNull(),
    acknowledgementId: integer("acknowledgement_id").notNull(),
    botId: text("bot_id").notNull(),
    symbol: text("symbol").notNull(),
    silenceId: text("silence_id").notNull(),
    createdAt: text("created_at").notNull(),
    /** The acknowledgement's expires_at, which is the silence's endsAt. */
    endsAt: text("ends_at").notNull(),
    expiredAt: text("expired_at"),
    /** Why it was ended early ("the drift grew", "halt cleared"); with expired_at null, an expiry that failed and is retried. */
    expiredWhy: text("expired_why"),
    lastError: text("last_error"),
    lastErrorAt: text("last_error_at"),
  },
  (t) => [uniqueIndex("alert_silences_ack_idx").on(t.journalFile, t.acknowledgementId), index("alert_silences_open_idx").on(t.journalFile, t.expiredAt)],
);

export type AlertSilenceRow = typeof alertSilences.$inferSelect;
