CREATE TABLE `book_corrections` (
	`id` integer PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`symbol` text NOT NULL,
	`kind` text NOT NULL,
	`ours` real NOT NULL,
	`theirs` real NOT NULL,
	`reconciliation_id` integer NOT NULL,
	`delta` real NOT NULL,
	`note` text NOT NULL,
	`corrected_by` text NOT NULL,
	`corrected_at` text NOT NULL,
	CONSTRAINT "book_corrections_kind_check" CHECK("book_corrections"."kind" in ('adopt_exchange', 'flattened_on_venue'))
);
--> statement-breakpoint
CREATE INDEX `book_corrections_bot_symbol_idx` ON `book_corrections` (`bot_id`,`symbol`,`id`);--> statement-breakpoint
-- Hand-written below this line: a correction moves the bot's book for good, so it is never edited.
CREATE TRIGGER `book_corrections_no_update` BEFORE UPDATE ON `book_corrections`
BEGIN
  SELECT RAISE(ABORT, 'book_corrections is append-only: write a new correction instead');
END;
--> statement-breakpoint
CREATE TRIGGER `book_corrections_no_delete` BEFORE DELETE ON `book_corrections`
BEGIN
  SELECT RAISE(ABORT, 'book_corrections is append-only: write a new correction instead');
END;
--> statement-breakpoint
PRAGMA user_version = 5;
