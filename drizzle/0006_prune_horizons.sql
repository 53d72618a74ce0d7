ALTER TABLE `journal_prunes` ADD `incident_horizon` text;--> statement-breakpoint
ALTER TABLE `journal_prunes` ADD `order_horizon` text;--> statement-breakpoint
ALTER TABLE `journal_prunes` ADD `rollup_horizon` text;--> statement-breakpoint
ALTER TABLE `journal_prunes` ADD `orders_deleted` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `journal_prunes` ADD `rollups_folded` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
PRAGMA user_version = 7;
