ALTER TABLE `accounts` ADD `sessions_valid_from` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Hand-added after drizzle-kit: sessions signed before this version carry the old field and end
-- once; rows made before it start from their password change.
UPDATE `accounts` SET `sessions_valid_from` = `password_changed_at`;--> statement-breakpoint
PRAGMA user_version = 2;
