ALTER TABLE "journal_prunes" ADD COLUMN "incident_horizon" text;--> statement-breakpoint
ALTER TABLE "journal_prunes" ADD COLUMN "order_horizon" text;--> statement-breakpoint
ALTER TABLE "journal_prunes" ADD COLUMN "rollup_horizon" text;--> statement-breakpoint
ALTER TABLE "journal_prunes" ADD COLUMN "orders_deleted" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "journal_prunes" ADD COLUMN "rollups_folded" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The schema version: contract version 7, the SQLite journal's user_version after drizzle/0006.
INSERT INTO "journal_schema" ("id", "version", "migrations") VALUES (1, 7, 3)
  ON CONFLICT ("id") DO UPDATE SET "version" = excluded."version", "migrations" = excluded."migrations";
