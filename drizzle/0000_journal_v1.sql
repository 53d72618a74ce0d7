CREATE TABLE `bots` (
	`bot_id` text PRIMARY KEY NOT NULL,
	`exchange` text NOT NULL,
	`client_id_prefix` text NOT NULL,
	`heartbeat_at` text
);
--> statement-breakpoint
CREATE TABLE `breaker_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`at` text NOT NULL,
	`kind` text NOT NULL,
	`reason` text NOT NULL,
	`actor` text NOT NULL,
	`reconciliation_id` integer,
	CONSTRAINT "breaker_events_kind_check" CHECK("breaker_events"."kind" in ('trip', 'clear'))
);
--> statement-breakpoint
CREATE INDEX `breaker_events_bot_at_idx` ON `breaker_events` (`bot_id`,`at`);--> statement-breakpoint
CREATE INDEX `breaker_events_at_idx` ON `breaker_events` (`at`);--> statement-breakpoint
CREATE TABLE `breakers` (
	`bot_id` text PRIMARY KEY NOT NULL,
	`halted` integer DEFAULT 0 NOT NULL,
	`reason` text,
	`changed_at` text NOT NULL,
	`changed_by` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	CONSTRAINT "breakers_halted_check" CHECK("breakers"."halted" in (0, 1))
);
--> statement-breakpoint
CREATE TABLE `order_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`client_order_id` text NOT NULL,
	`at` text NOT NULL,
	`kind` text NOT NULL,
	`actor` text NOT NULL,
	`detail` text DEFAULT '{}' NOT NULL,
	CONSTRAINT "order_events_kind_check" CHECK("order_events"."kind" in ('intent', 'send', 'timeout', 'lookup_found', 'lookup_absent', 'status', 'error', 'operator'))
);
--> statement-breakpoint
CREATE INDEX `order_events_order_idx` ON `order_events` (`client_order_id`,`id`);--> statement-breakpoint
CREATE INDEX `order_events_at_idx` ON `order_events` (`at`);--> statement-breakpoint
CREATE TABLE `orders` (
	`client_order_id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`strategy` text NOT NULL,
	`symbol` text NOT NULL,
	`side` text NOT NULL,
	`qty` real NOT NULL,
	`bar` text NOT NULL,
	`state` text DEFAULT 'created' NOT NULL,
	`exchange_order_id` text,
	`filled_qty` real DEFAULT 0 NOT NULL,
	`avg_price` real,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	CONSTRAINT "orders_side_check" CHECK("orders"."side" in ('buy', 'sell')),
	CONSTRAINT "orders_state_check" CHECK("orders"."state" in ('created', 'sent', 'unknown', 'open', 'partially_filled', 'filled', 'canceled', 'rejected', 'absent')),
	CONSTRAINT "orders_qty_check" CHECK("orders"."qty" > 0),
	CONSTRAINT "orders_filled_qty_check" CHECK("orders"."filled_qty" >= 0)
);
--> statement-breakpoint
CREATE INDEX `orders_bot_symbol_created_idx` ON `orders` (`bot_id`,`symbol`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_unsettled_idx` ON `orders` (`bot_id`,`updated_at`) WHERE "orders"."state" not in ('filled', 'canceled', 'rejected', 'absent');--> statement-breakpoint
CREATE TABLE `reconciliation_positions` (
	`reconciliation_id` integer NOT NULL,
	`symbol` text NOT NULL,
	`ours` real NOT NULL,
	`theirs` real NOT NULL,
	`qty_step` real NOT NULL,
	`mark_price` real,
	PRIMARY KEY(`reconciliation_id`, `symbol`),
	CONSTRAINT "reconciliation_positions_qty_step_check" CHECK("reconciliation_positions"."qty_step" > 0)
);
--> statement-breakpoint
CREATE INDEX `reconciliation_positions_symbol_idx` ON `reconciliation_positions` (`symbol`,`reconciliation_id`);--> statement-breakpoint
CREATE TABLE `reconciliations` (
	`id` integer PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`at` text NOT NULL,
	`outcome` text NOT NULL,
	`orders_in_flight` integer DEFAULT 0 NOT NULL,
	`error` text,
	CONSTRAINT "reconciliations_outcome_check" CHECK("reconciliations"."outcome" in ('clean', 'drift', 'skipped', 'error'))
);
--> statement-breakpoint
CREATE INDEX `reconciliations_bot_at_idx` ON `reconciliations` (`bot_id`,`at`);--> statement-breakpoint
CREATE INDEX `reconciliations_at_idx` ON `reconciliations` (`at`);--> statement-breakpoint
PRAGMA user_version = 1;
