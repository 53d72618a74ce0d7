CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` text NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target` text NOT NULL,
	`outcome` text NOT NULL,
	`code` text,
	`detail` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL,
	CONSTRAINT "audit_log_outcome_check" CHECK("audit_log"."outcome" in ('applied', 'refused'))
);
--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
CREATE INDEX `audit_log_actor_idx` ON `audit_log` (`actor`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_action_idx` ON `audit_log` (`action`,`id`);--> statement-breakpoint
CREATE TABLE `clear_requests` (
	`id` integer PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`breaker_version` integer NOT NULL,
	`reason` text NOT NULL,
	`requested_by` text NOT NULL,
	`requested_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`decided_by` text,
	`decided_at` text,
	CONSTRAINT "clear_requests_status_check" CHECK("clear_requests"."status" in ('pending', 'approved', 'withdrawn'))
);
--> statement-breakpoint
CREATE INDEX `clear_requests_bot_idx` ON `clear_requests` (`bot_id`,`id`);--> statement-breakpoint
CREATE TABLE `drift_acknowledgements` (
	`id` integer PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`symbol` text NOT NULL,
	`drift` text NOT NULL,
	`ours` real NOT NULL,
	`theirs` real NOT NULL,
	`reconciliation_id` integer NOT NULL,
	`drift_since` text,
	`note` text NOT NULL,
	`acknowledged_by` text NOT NULL,
	`acknowledged_at` text NOT NULL,
	`expires_at` text NOT NULL,
	CONSTRAINT "drift_acknowledgements_drift_check" CHECK("drift_acknowledgements"."drift" in ('size_drift', 'unknown_position'))
);
--> statement-breakpoint
CREATE INDEX `drift_acknowledgements_bot_symbol_idx` ON `drift_acknowledgements` (`bot_id`,`symbol`,`id`);--> statement-breakpoint
-- Hand-written below this line: the audit log is append-only and its chain is checked on insert.
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log`
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only: entries cannot be changed');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log`
BEGIN
  SELECT RAISE(ABORT, 'audit_log is append-only: entries cannot be deleted');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_chain` BEFORE INSERT ON `audit_log`
WHEN NEW.`prev_hash` IS NOT coalesce((SELECT `hash` FROM `audit_log` ORDER BY `id` DESC LIMIT 1), 'genesis')
BEGIN
  SELECT RAISE(ABORT, 'audit_log entry does not extend the chain: prev_hash must be the hash of the last entry');
END;--> statement-breakpoint
PRAGMA user_version = 3;
