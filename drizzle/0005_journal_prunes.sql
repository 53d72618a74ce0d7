CREATE TABLE `journal_prunes` (
	`id` integer PRIMARY KEY NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`horizon` text NOT NULL,
	`keep_ms` integer NOT NULL,
	`incident_margin_ms` integer NOT NULL,
	`cursor` integer DEFAULT 0 NOT NULL,
	`cycles_deleted` integer DEFAULT 0 NOT NULL,
	`positions_deleted` integer DEFAULT 0 NOT NULL,
	`actor` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `journal_prunes_horizon_idx` ON `journal_prunes` (`horizon`);--> statement-breakpoint
-- Hand-written below this line: a prune record is how the console knows a quiet stretch of history
-- was pruned, not quiet; deleting it would make pruned detail look like a calm market.
CREATE TRIGGER `journal_prunes_no_delete` BEFORE DELETE ON `journal_prunes`
BEGIN
  SELECT RAISE(ABORT, 'journal_prunes is kept for good: it says which history was pruned');
END;--> statement-breakpoint
PRAGMA user_version = 6;
