CREATE TABLE `latest_positions` (
	`bot_id` text NOT NULL,
	`symbol` text NOT NULL,
	`reconciliation_id` integer NOT NULL,
	`at` text NOT NULL,
	`ours` real NOT NULL,
	`theirs` real NOT NULL,
	`qty_step` real NOT NULL,
	`mark_price` real,
	`drift` text NOT NULL,
	`drift_since` text,
	PRIMARY KEY(`bot_id`, `symbol`),
	CONSTRAINT "latest_positions_drift_check" CHECK("latest_positions"."drift" in ('none', 'size_drift', 'unknown_position'))
);
--> statement-breakpoint
-- Hand-written below this line (drizzle-kit does not model triggers). The drift rule is the
-- contract's: drift when |ours - theirs| >= qty_step / 2; an unknown position when, in addition,
-- the bot's book is flat (|ours| < qty_step / 2).
CREATE TRIGGER `latest_positions_on_snapshot` AFTER INSERT ON `reconciliation_positions`
BEGIN
  INSERT INTO `latest_positions` (`bot_id`, `symbol`, `reconciliation_id`, `at`, `ours`, `theirs`, `qty_step`, `mark_price`, `drift`, `drift_since`)
  SELECT r.`bot_id`, NEW.`symbol`, NEW.`reconciliation_id`, r.`at`, NEW.`ours`, NEW.`theirs`, NEW.`qty_step`, NEW.`mark_price`,
         CASE WHEN abs(NEW.`ours` - NEW.`theirs`) < NEW.`qty_step` / 2.0 THEN 'none'
              WHEN abs(NEW.`ours`) < NEW.`qty_step` / 2.0 THEN 'unknown_position'
              ELSE 'size_drift' END,
         CASE WHEN abs(NEW.`ours` - NEW.`theirs`) < NEW.`qty_step` / 2.0 THEN NULL ELSE r.`at` END
    FROM `reconciliations` r
   WHERE r.`id` = NEW.`reconciliation_id`
  ON CONFLICT (`bot_id`, `symbol`) DO UPDATE SET
    `drift_since` = CASE
      WHEN excluded.`drift` = 'none' THEN NULL
      WHEN `latest_positions`.`drift` = 'none' THEN excluded.`drift_since`
      -- A compared cycle in between that did not mention the symbol saw it flat on both sides:
      -- the drift was broken there, so it starts again now.
      WHEN EXISTS (SELECT 1 FROM `reconciliations` g
                    WHERE g.`id` > `latest_positions`.`reconciliation_id` AND g.`id` < excluded.`reconciliation_id`
                      AND g.`bot_id` = excluded.`bot_id` AND g.`outcome` IN ('clean', 'drift')) THEN excluded.`drift_since`
      ELSE `latest_positions`.`drift_since` END,
    `reconciliation_id` = excluded.`reconciliation_id`,
    `at` = excluded.`at`,
    `ours` = excluded.`ours`,
    `theirs` = excluded.`theirs`,
    `qty_step` = excluded.`qty_step`,
    `mark_price` = excluded.`mark_price`,
    `drift` = excluded.`drift`
  WHERE excluded.`reconciliation_id` > `latest_positions`.`reconciliation_id`;
END;
--> statement-breakpoint
-- Backfill for journals that already have history: the latest line per bot and symbol, and for a
-- drift, the first cycle after the last one where that symbol was not drifting.
INSERT INTO `latest_positions` (`bot_id`, `symbol`, `reconciliation_id`, `at`, `ours`, `theirs`, `qty_step`, `mark_price`, `drift`, `drift_since`)
SELECT r.`bot_id`, p.`symbol`, p.`reconciliation_id`, r.`at`, p.`ours`, p.`theirs`, p.`qty_step`, p.`mark_price`,
       CASE WHEN abs(p.`ours` - p.`theirs`) < p.`qty_step` / 2.0 THEN 'none'
            WHEN abs(p.`ours`) < p.`qty_step` / 2.0 THEN 'unknown_position'
            ELSE 'size_drift' END,
       CASE WHEN abs(p.`ours` - p.`theirs`) < p.`qty_step` / 2.0 THEN NULL ELSE (
         SELECT min(r2.`at`) FROM `reconciliation_positions` p2 JOIN `reconciliations` r2 ON r2.`id` = p2.`reconciliation_id`
          WHERE p2.`symbol` = p.`symbol` AND r2.`bot_id` = r.`bot_id`
            AND p2.`reconciliation_id` > coalesce((
              SELECT max(p3.`reconciliation_id`) FROM `reconciliation_positions` p3 JOIN `reconciliations` r3 ON r3.`id` = p3.`reconciliation_id`
               WHERE p3.`symbol` = p.`symbol` AND r3.`bot_id` = r.`bot_id` AND abs(p3.`ours` - p3.`theirs`) < p3.`qty_step` / 2.0), 0)
       ) END
  FROM `reconciliation_positions` p
  JOIN `reconciliations` r ON r.`id` = p.`reconciliation_id`
 WHERE p.`reconciliation_id` = (
   SELECT max(px.`reconciliation_id`) FROM `reconciliation_positions` px JOIN `reconciliations` rx ON rx.`id` = px.`reconciliation_id`
    WHERE px.`symbol` = p.`symbol` AND rx.`bot_id` = r.`bot_id`);--> statement-breakpoint
PRAGMA user_version = 2;
