CREATE TABLE `accounts` (
	`name` text PRIMARY KEY NOT NULL,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`password_changed_at` text NOT NULL,
	CONSTRAINT "accounts_name_check" CHECK(length("accounts"."name") between 1 and 64 and "accounts"."name" not glob '*[^a-z0-9._-]*'),
	CONSTRAINT "accounts_role_check" CHECK("accounts"."role" in ('viewer', 'operator')),
	CONSTRAINT "accounts_disabled_check" CHECK("accounts"."disabled" in (0, 1))
);--> statement-breakpoint
PRAGMA user_version = 1;
