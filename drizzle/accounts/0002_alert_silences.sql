CREATE TABLE `alert_silences` (
	`id` integer PRIMARY KEY NOT NULL,
	`journal_file` text NOT NULL,
	`acknowledgement_id` integer NOT NULL,
	`bot_id` text NOT NULL,
	`symbol` text NOT NULL,
	`silence_id` text NOT NULL,
	`created_at` text NOT NULL,
	`ends_at` text NOT NULL,
	`expired_at` text,
	`expired_why` text,
	`last_error` text,
	`last_error_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_silences_ack_idx` ON `alert_silences` (`journal_file`,`acknowledgement_id`);--> statement-breakpoint
CREATE INDEX `alert_silences_open_idx` ON `alert_silences` (`journal_file`,`expired_at`);--> statement-breakpoint
PRAGMA user_version = 3;
