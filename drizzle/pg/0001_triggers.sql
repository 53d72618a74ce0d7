-- Hand-written: drizzle-kit does not model triggers. These do what the SQLite triggers of
-- drizzle/0001, 0002, 0003, 0004 and 0005 do, row for row (test/integration/pg-contract.test.ts
-- feeds both engines the same rows and compares the results). Differences of dialect only:
-- SQLite's min()/max() of two values are least()/greatest() (the coalesce around them there is
-- what least()/greatest() already do with a null); text comparisons of times are COLLATE "C",
-- SQLite's byte order, whatever the database's collation; append-only tables also refuse TRUNCATE,
-- which skips row triggers here. No backfill: a PostgreSQL journal starts with these triggers.

-- The five-minute bucket of a journal time, as SQLite's strftime() computes it: the UTC start of
-- the five minutes, in the journal's format. A time without an offset is UTC, as in SQLite.
CREATE FUNCTION journal_bucket(at text) RETURNS text LANGUAGE sql STABLE STRICT SET timezone TO 'UTC' AS $$
  SELECT to_char(date_bin('5 minutes', at::timestamptz, timestamptz '2000-01-01 00:00:00+00'), 'YYYY-MM-DD"T"HH24:MI":00.000Z"')
$$;
--> statement-breakpoint
-- The drift rule is the contract's: drift when |ours - theirs| >= qty_step / 2; an unknown position
-- when, in addition, the bot's book is flat (|ours| < qty_step / 2).
CREATE FUNCTION latest_positions_on_snapshot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO latest_positions AS o (bot_id, symbol, reconciliation_id, at, ours, theirs, qty_step, mark_price, drift, drift_since)
  SELECT r.bot_id, NEW.symbol, NEW.reconciliation_id, r.at, NEW.ours, NEW.theirs, NEW.qty_step, NEW.mark_price,
         CASE WHEN abs(NEW.ours - NEW.theirs) < NEW.qty_step / 2.0 THEN 'none' WHEN abs(NEW.ours) < NEW.qty_step / 2.0 THEN 'unknown_position' ELSE 'size_drift' END,
         CASE WHEN abs(NEW.ours - NEW.theirs) < NEW.qty_step / 2.0 THEN NULL ELSE r.at END
    FROM reconciliations r
   WHERE r.id = NEW.reconciliation_id
  ON CONFLICT (bot_id, symbol) DO UPDATE SET
    drift_since = CASE
      WHEN excluded.drift = 'none' THEN NULL
      WHEN o.drift = 'none' THEN excluded.drift_since
      -- A compared cycle in between that did not mention the symbol saw it flat on both sides:
      -- the drift was broken there, so it starts again now.
      WHEN EXISTS (SELECT 1 FROM reconciliations g
                    WHERE g.id > o.reconciliation_id AND g.id < excluded.reconciliation_id
                      AND g.bot_id = excluded.bot_id AND g.outcome IN ('clean', 'drift')) THEN excluded.drift_since
      ELSE o.drift_since END,
    reconciliation_id = excluded.reconciliation_id,
    at = excluded.at,
    ours = excluded.ours,
    theirs = excluded.theirs,
    qty_step = excluded.qty_step,
    mark_price = excluded.mark_price,
    drift = excluded.drift
  WHERE excluded.reconciliation_id > o.reconciliation_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER latest_positions_on_snapshot AFTER INSERT ON reconciliation_positions
  FOR EACH ROW EXECUTE FUNCTION latest_positions_on_snapshot();
--> statement-breakpoint
CREATE FUNCTION journal_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%', TG_ARGV[0];
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION journal_refuse('audit_log is append-only: entries cannot be changed');
--> statement-breakpoint
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION journal_refuse('audit_log is append-only: entries cannot be deleted');
--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION journal_refuse('audit_log is append-only: entries cannot be deleted');
--> statement-breakpoint
-- SQLite has one writer at a time; here two transactions could both read the same last entry, so
-- the check first waits for any other audit insert to commit (a transaction-scoped lock).
CREATE FUNCTION audit_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('driftwatch.audit_log'));
  IF NEW.prev_hash IS DISTINCT FROM coalesce((SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1), 'genesis') THEN
    RAISE EXCEPTION 'audit_log entry does not extend the chain: prev_hash must be the hash of the last entry';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_chain();
--> statement-breakpoint
CREATE FUNCTION cycle_rollups_on_cycle() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO cycle_rollups AS o (bot_id, bucket, cycles) VALUES (NEW.bot_id, journal_bucket(NEW.at), 1)
  ON CONFLICT (bot_id, bucket) DO UPDATE SET cycles = o.cycles + 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER cycle_rollups_on_cycle AFTER INSERT ON reconciliations
  FOR EACH ROW WHEN (NEW.outcome IN ('clean', 'drift')) EXECUTE FUNCTION cycle_rollups_on_cycle();
--> statement-breakpoint
-- Every SET expression of an upsert reads the row as it was before the update, so the comparisons
-- below are against the old values. Ties keep the earlier cycle, as the chart's downsampler does.
CREATE FUNCTION position_rollups_on_snapshot() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_bot text;
  v_at text;
  v_class integer;
BEGIN
  SELECT r.bot_id, r.at INTO v_bot, v_at FROM reconciliations r
   WHERE r.id = NEW.reconciliation_id AND r.outcome IN ('clean', 'drift');
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  v_class := CASE WHEN abs(NEW.ours - NEW.theirs) < NEW.qty_step / 2.0 THEN 0 WHEN abs(NEW.ours) < NEW.qty_step / 2.0 THEN 2 ELSE 1 END;
  INSERT INTO position_rollups AS o (bot_id, symbol, bucket, cycles, qty_step, first_at, first_ours, first_theirs, last_at, last_ours, last_theirs,
   min_ours_at, min_ours, min_ours_theirs, max_ours_at, max_ours, max_ours_theirs,
   min_theirs_at, min_theirs_ours, min_theirs, max_theirs_at, max_theirs_ours, max_theirs,
   wide_at, wide_ours, wide_theirs, drift_cycles, unknown_cycles, first_drift_at, last_drift_at)
  VALUES (v_bot, NEW.symbol, journal_bucket(v_at), 1, NEW.qty_step,
          v_at, NEW.ours, NEW.theirs, v_at, NEW.ours, NEW.theirs,
          v_at, NEW.ours, NEW.theirs, v_at, NEW.ours, NEW.theirs,
          v_at, NEW.ours, NEW.theirs, v_at, NEW.ours, NEW.theirs,
          v_at, NEW.ours, NEW.theirs,
          CASE WHEN v_class > 0 THEN 1 ELSE 0 END, CASE WHEN v_class = 2 THEN 1 ELSE 0 END,
          CASE WHEN v_class > 0 THEN v_at END, CASE WHEN v_class > 0 THEN v_at END)
  ON CONFLICT (bot_id, symbol, bucket) DO UPDATE SET
    cycles = o.cycles + 1,
    qty_step = CASE WHEN excluded.last_at >= o.last_at COLLATE "C" THEN excluded.qty_step ELSE o.qty_step END,
    first_at = least(o.first_at COLLATE "C", excluded.first_at),
    first_ours = CASE WHEN excluded.first_at < o.first_at COLLATE "C" THEN excluded.first_ours ELSE o.first_ours END,
    first_theirs = CASE WHEN excluded.first_at < o.first_at COLLATE "C" THEN excluded.first_theirs ELSE o.first_theirs END,
    last_at = greatest(o.last_at COLLATE "C", excluded.last_at),
    last_ours = CASE WHEN excluded.last_at >= o.last_at COLLATE "C" THEN excluded.last_ours ELSE o.last_ours END,
    last_theirs = CASE WHEN excluded.last_at >= o.last_at COLLATE "C" THEN excluded.last_theirs ELSE o.last_theirs END,
    min_ours_at = CASE WHEN excluded.min_ours < o.min_ours OR (excluded.min_ours = o.min_ours AND excluded.min_ours_at < o.min_ours_at COLLATE "C") THEN excluded.min_ours_at ELSE o.min_ours_at END,
    min_ours = CASE WHEN excluded.min_ours < o.min_ours OR (excluded.min_ours = o.min_ours AND excluded.min_ours_at < o.min_ours_at COLLATE "C") THEN excluded.min_ours ELSE o.min_ours END,
    min_ours_theirs = CASE WHEN excluded.min_ours < o.min_ours OR (excluded.min_ours = o.min_ours AND excluded.min_ours_at < o.min_ours_at COLLATE "C") THEN excluded.min_ours_theirs ELSE o.min_ours_theirs END,
    max_ours_at = CASE WHEN excluded.max_ours > o.max_ours OR (excluded.max_ours = o.max_ours AND excluded.max_ours_at < o.max_ours_at COLLATE "C") THEN excluded.max_ours_at ELSE o.max_ours_at END,
    max_ours = CASE WHEN excluded.max_ours > o.max_ours OR (excluded.max_ours = o.max_ours AND excluded.max_ours_at < o.max_ours_at COLLATE "C") THEN excluded.max_ours ELSE o.max_ours END,
    max_ours_theirs = CASE WHEN excluded.max_ours > o.max_ours OR (excluded.max_ours = o.max_ours AND excluded.max_ours_at < o.max_ours_at COLLATE "C") THEN excluded.max_ours_theirs ELSE o.max_ours_theirs END,
    min_theirs_at = CASE WHEN excluded.min_theirs < o.min_theirs OR (excluded.min_theirs = o.min_theirs AND excluded.min_theirs_at < o.min_theirs_at COLLATE "C") THEN excluded.min_theirs_at ELSE o.min_theirs_at END,
    min_theirs_ours = CASE WHEN excluded.min_theirs < o.min_theirs OR (excluded.min_theirs = o.min_theirs AND excluded.min_theirs_at < o.min_theirs_at COLLATE "C") THEN excluded.min_theirs_ours ELSE o.min_theirs_ours END,
    min_theirs = CASE WHEN excluded.min_theirs < o.min_theirs OR (excluded.min_theirs = o.min_theirs AND excluded.min_theirs_at < o.min_theirs_at COLLATE "C") THEN excluded.min_theirs ELSE o.min_theirs END,
    max_theirs_at = CASE WHEN excluded.max_theirs > o.max_theirs OR (excluded.max_theirs = o.max_theirs AND excluded.max_theirs_at < o.max_theirs_at COLLATE "C") THEN excluded.max_theirs_at ELSE o.max_theirs_at END,
    max_theirs_ours = CASE WHEN excluded.max_theirs > o.max_theirs OR (excluded.max_theirs = o.max_theirs AND excluded.max_theirs_at < o.max_theirs_at COLLATE "C") THEN excluded.max_theirs_ours ELSE o.max_theirs_ours END,
    max_theirs = CASE WHEN excluded.max_theirs > o.max_theirs OR (excluded.max_theirs = o.max_theirs AND excluded.max_theirs_at < o.max_theirs_at COLLATE "C") THEN excluded.max_theirs ELSE o.max_theirs END,
    wide_at = CASE WHEN abs(excluded.wide_ours - excluded.wide_theirs) > abs(o.wide_ours - o.wide_theirs) OR (abs(excluded.wide_ours - excluded.wide_theirs) = abs(o.wide_ours - o.wide_theirs) AND excluded.wide_at < o.wide_at COLLATE "C") THEN excluded.wide_at ELSE o.wide_at END,
    wide_ours = CASE WHEN abs(excluded.wide_ours - excluded.wide_theirs) > abs(o.wide_ours - o.wide_theirs) OR (abs(excluded.wide_ours - excluded.wide_theirs) = abs(o.wide_ours - o.wide_theirs) AND excluded.wide_at < o.wide_at COLLATE "C") THEN excluded.wide_ours ELSE o.wide_ours END,
    wide_theirs = CASE WHEN abs(excluded.wide_ours - excluded.wide_theirs) > abs(o.wide_ours - o.wide_theirs) OR (abs(excluded.wide_ours - excluded.wide_theirs) = abs(o.wide_ours - o.wide_theirs) AND excluded.wide_at < o.wide_at COLLATE "C") THEN excluded.wide_theirs ELSE o.wide_theirs END,
    drift_cycles = o.drift_cycles + excluded.drift_cycles,
    unknown_cycles = o.unknown_cycles + excluded.unknown_cycles,
    first_drift_at = least(o.first_drift_at COLLATE "C", excluded.first_drift_at),
    last_drift_at = greatest(o.last_drift_at COLLATE "C", excluded.last_drift_at);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER position_rollups_on_snapshot AFTER INSERT ON reconciliation_positions
  FOR EACH ROW EXECUTE FUNCTION position_rollups_on_snapshot();
--> statement-breakpoint
CREATE TRIGGER book_corrections_no_update BEFORE UPDATE ON book_corrections
  FOR EACH ROW EXECUTE FUNCTION journal_refuse('book_corrections is append-only: write a new correction instead');
--> statement-breakpoint
CREATE TRIGGER book_corrections_no_delete BEFORE DELETE ON book_corrections
  FOR EACH ROW EXECUTE FUNCTION journal_refuse('book_corrections is append-only: write a new correction instead');
--> statement-breakpoint
CREATE TRIGGER book_corrections_no_truncate BEFORE TRUNCATE ON book_corrections
  FOR EACH STATEMENT EXECUTE FUNCTION journal_refuse('book_corrections is append-only: write a new correction instead');
--> statement-breakpoint
-- A prune record is how the console knows a quiet stretch of history was pruned, not quiet.
CREATE TRIGGER journal_prunes_no_delete BEFORE DELETE ON journal_prunes
  FOR EACH ROW EXECUTE FUNCTION journal_refuse('journal_prunes is kept for good: it says which history was pruned');
--> statement-breakpoint
CREATE TRIGGER journal_prunes_no_truncate BEFORE TRUNCATE ON journal_prunes
  FOR EACH STATEMENT EXECUTE FUNCTION journal_refuse('journal_prunes is kept for good: it says which history was pruned');
--> statement-breakpoint
-- The schema version: contract version 6, the SQLite journal's user_version after drizzle/0005.
INSERT INTO "journal_schema" ("id", "version", "migrations") VALUES (1, 6, 2)
  ON CONFLICT ("id") DO UPDATE SET "version" = excluded."version", "migrations" = excluded."migrations";
