CREATE TABLE `cycle_rollups` (
	`bot_id` text NOT NULL,
	`bucket` text NOT NULL,
	`cycles` integer NOT NULL,
	PRIMARY KEY(`bot_id`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `position_rollups` (
	`bot_id` text NOT NULL,
	`symbol` text NOT NULL,
	`bucket` text NOT NULL,
	`cycles` integer NOT NULL,
	`qty_step` real NOT NULL,
	`first_at` text NOT NULL,
	`first_ours` real NOT NULL,
	`first_theirs` real NOT NULL,
	`last_at` text NOT NULL,
	`last_ours` real NOT NULL,
	`last_theirs` real NOT NULL,
	`min_ours_at` text NOT NULL,
	`min_ours` real NOT NULL,
	`min_ours_theirs` real NOT NULL,
	`max_ours_at` text NOT NULL,
	`max_ours` real NOT NULL,
	`max_ours_theirs` real NOT NULL,
	`min_theirs_at` text NOT NULL,
	`min_theirs_ours` real NOT NULL,
	`min_theirs` real NOT NULL,
	`max_theirs_at` text NOT NULL,
	`max_theirs_ours` real NOT NULL,
	`max_theirs` real NOT NULL,
	`wide_at` text NOT NULL,
	`wide_ours` real NOT NULL,
	`wide_theirs` real NOT NULL,
	`drift_cycles` integer NOT NULL,
	`unknown_cycles` integer NOT NULL,
	`first_drift_at` text,
	`last_drift_at` text,
	PRIMARY KEY(`bot_id`, `symbol`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Hand-written: WITHOUT ROWID above (drizzle-kit does not model it), so each table is stored in its
-- key's order and a chart's range of buckets is one sequential read; and below this line, because
-- drizzle-kit does not model triggers. Both rollups are kept in the
-- transaction that writes each snapshot, like latest_positions. Every SET expression of an upsert
-- reads the row as it was before the update, so the comparisons below are against the old values.
-- Ties keep the earlier cycle, as the chart's downsampler does. Order of arrival does not matter:
-- first, last and the extremes are decided by time and value, so the backfill can replay history.
CREATE TRIGGER `cycle_rollups_on_cycle` AFTER INSERT ON `reconciliations`
WHEN NEW.`outcome` IN ('clean', 'drift')
BEGIN
  INSERT INTO `cycle_rollups` (`bot_id`, `bucket`, `cycles`) VALUES (NEW.`bot_id`, strftime('%Y-%m-%dT%H:', NEW.`at`) || printf('%02d', (CAST(strftime('%M', NEW.`at`) AS INTEGER) / 5) * 5) || ':00.000Z', 1)
  ON CONFLICT (`bot_id`, `bucket`) DO UPDATE SET `cycles` = `cycles` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `position_rollups_on_snapshot` AFTER INSERT ON `reconciliation_positions`
BEGIN
  INSERT INTO `position_rollups` (`bot_id`, `symbol`, `bucket`, `cycles`, `qty_step`, `first_at`, `first_ours`, `first_theirs`, `last_at`, `last_ours`, `last_theirs`,
   `min_ours_at`, `min_ours`, `min_ours_theirs`, `max_ours_at`, `max_ours`, `max_ours_theirs`,
   `min_theirs_at`, `min_theirs_ours`, `min_theirs`, `max_theirs_at`, `max_theirs_ours`, `max_theirs`,
   `wide_at`, `wide_ours`, `wide_theirs`, `drift_cycles`, `unknown_cycles`, `first_drift_at`, `last_drift_at`)
  SELECT r.`bot_id`, NEW.`symbol`, strftime('%Y-%m-%dT%H:', r.`at`) || printf('%02d', (CAST(strftime('%M', r.`at`) AS INTEGER) / 5) * 5) || ':00.000Z', 1, NEW.`qty_step`,
         r.`at`, NEW.`ours`, NEW.`theirs`, r.`at`, NEW.`ours`, NEW.`theirs`,
         r.`at`, NEW.`ours`, NEW.`theirs`, r.`at`, NEW.`ours`, NEW.`theirs`,
         r.`at`, NEW.`ours`, NEW.`theirs`, r.`at`, NEW.`ours`, NEW.`theirs`,
         r.`at`, NEW.`ours`, NEW.`theirs`,
         (CASE WHEN abs(NEW.`ours` - NEW.`theirs`) < NEW.`qty_step` / 2.0 THEN 0 WHEN abs(NEW.`ours`) < NEW.`qty_step` / 2.0 THEN 2 ELSE 1 END) > 0, (CASE WHEN abs(NEW.`ours` - NEW.`theirs`) < NEW.`qty_step` / 2.0 THEN 0 WHEN abs(NEW.`ours`) < NEW.`qty_step` / 2.0 THEN 2 ELSE 1 END) = 2,
         CASE WHEN (CASE WHEN abs(NEW.`ours` - NEW.`theirs`) < NEW.`qty_step` / 2.0 THEN 0 WHEN abs(NEW.`ours`) < NEW.`qty_step` / 2.0 THEN 2 ELSE 1 END) > 0 THEN r.`at` END, CASE WHEN (CASE WHEN abs(NEW.`ours` - NEW.`theirs`) < NEW.`qty_step` / 2.0 THEN 0 WHEN abs(NEW.`ours`) < NEW.`qty_step` / 2.0 THEN 2 ELSE 1 END) > 0 THEN r.`at` END
    FROM `reconciliations` r
   WHERE r.`id` = NEW.`reconciliation_id` AND r.`outcome` IN ('clean', 'drift')
  ON CONFLICT (`bot_id`, `symbol`, `bucket`) DO UPDATE SET
    `cycles` = `cycles` + 1,
    `qty_step` = CASE WHEN excluded.`last_at` >= `last_at` THEN excluded.`qty_step` ELSE `qty_step` END,
    `first_at` = min(`first_at`, excluded.`first_at`),
    `first_ours` = CASE WHEN excluded.`first_at` < `first_at` THEN excluded.`first_ours` ELSE `first_ours` END,
    `first_theirs` = CASE WHEN excluded.`first_at` < `first_at` THEN excluded.`first_theirs` ELSE `first_theirs` END,
    `last_at` = max(`last_at`, excluded.`last_at`),
    `last_ours` = CASE WHEN excluded.`last_at` >= `last_at` THEN excluded.`last_ours` ELSE `last_ours` END,
    `last_theirs` = CASE WHEN excluded.`last_at` >= `last_at` THEN excluded.`last_theirs` ELSE `last_theirs` END,
    `min_ours_at` = CASE WHEN excluded.`min_ours` < `min_ours` OR (excluded.`min_ours` = `min_ours` AND excluded.`min_ours_at` < `min_ours_at`) THEN excluded.`min_ours_at` ELSE `min_ours_at` END,
    `min_ours` = CASE WHEN excluded.`min_ours` < `min_ours` OR (excluded.`min_ours` = `min_ours` AND excluded.`min_ours_at` < `min_ours_at`) THEN excluded.`min_ours` ELSE `min_ours` END,
    `min_ours_theirs` = CASE WHEN excluded.`min_ours` < `min_ours` OR (excluded.`min_ours` = `min_ours` AND excluded.`min_ours_at` < `min_ours_at`) THEN excluded.`min_ours_theirs` ELSE `min_ours_theirs` END,
    `max_ours_at` = CASE WHEN excluded.`max_ours` > `max_ours` OR (excluded.`max_ours` = `max_ours` AND excluded.`max_ours_at` < `max_ours_at`) THEN excluded.`max_ours_at` ELSE `max_ours_at` END,
    `max_ours` = CASE WHEN excluded.`max_ours` > `max_ours` OR (excluded.`max_ours` = `max_ours` AND excluded.`max_ours_at` < `max_ours_at`) THEN excluded.`max_ours` ELSE `max_ours` END,
    `max_ours_theirs` = CASE WHEN excluded.`max_ours` > `max_ours` OR (excluded.`max_ours` = `max_ours` AND excluded.`max_ours_at` < `max_ours_at`) THEN excluded.`max_ours_theirs` ELSE `max_ours_theirs` END,
    `min_theirs_at` = CASE WHEN excluded.`min_theirs` < `min_theirs` OR (excluded.`min_theirs` = `min_theirs` AND excluded.`min_theirs_at` < `min_theirs_at`) THEN excluded.`min_theirs_at` ELSE `min_theirs_at` END,
    `min_theirs_ours` = CASE WHEN excluded.`min_theirs` < `min_theirs` OR (excluded.`min_theirs` = `min_theirs` AND excluded.`min_theirs_at` < `min_theirs_at`) THEN excluded.`min_theirs_ours` ELSE `min_theirs_ours` END,
    `min_theirs` = CASE WHEN excluded.`min_theirs` < `min_theirs` OR (excluded.`min_theirs` = `min_theirs` AND excluded.`min_theirs_at` < `min_theirs_at`) THEN excluded.`min_theirs` ELSE `min_theirs` END,
    `max_theirs_at` = CASE WHEN excluded.`max_theirs` > `max_theirs` OR (excluded.`max_theirs` = `max_theirs` AND excluded.`max_theirs_at` < `max_theirs_at`) THEN excluded.`max_theirs_at` ELSE `max_theirs_at` END,
    `max_theirs_ours` = CASE WHEN excluded.`max_theirs` > `max_theirs` OR (excluded.`max_theirs` = `max_theirs` AND excluded.`max_theirs_at` < `max_theirs_at`) THEN excluded.`max_theirs_ours` ELSE `max_theirs_ours` END,
    `max_theirs` = CASE WHEN excluded.`max_theirs` > `max_theirs` OR (excluded.`max_theirs` = `max_theirs` AND excluded.`max_theirs_at` < `max_theirs_at`) THEN excluded.`max_theirs` ELSE `max_theirs` END,
    `wide_at` = CASE WHEN abs(excluded.`wide_ours` - excluded.`wide_theirs`) > abs(`wide_ours` - `wide_theirs`) OR (abs(excluded.`wide_ours` - excluded.`wide_theirs`) = abs(`wide_ours` - `wide_theirs`) AND excluded.`wide_at` < `wide_at`) THEN excluded.`wide_at` ELSE `wide_at` END,
    `wide_ours` = CASE WHEN abs(excluded.`wide_ours` - excluded.`wide_theirs`) > abs(`wide_ours` - `wide_theirs`) OR (abs(excluded.`wide_ours` - excluded.`wide_theirs`) = abs(`wide_ours` - `wide_theirs`) AND excluded.`wide_at` < `wide_at`) THEN excluded.`wide_ours` ELSE `wide_ours` END,
    `wide_theirs` = CASE WHEN abs(excluded.`wide_ours` - excluded.`wide_theirs`) > abs(`wide_ours` - `wide_theirs`) OR (abs(excluded.`wide_ours` - excluded.`wide_theirs`) = abs(`wide_ours` - `wide_theirs`) AND excluded.`wide_at` < `wide_at`) THEN excluded.`wide_theirs` ELSE `wide_theirs` END,
    `drift_cycles` = `drift_cycles` + excluded.`drift_cycles`,
    `unknown_cycles` = `unknown_cycles` + excluded.`unknown_cycles`,
    `first_drift_at` = coalesce(min(`first_drift_at`, excluded.`first_drift_at`), `first_drift_at`, excluded.`first_drift_at`),
    `last_drift_at` = coalesce(max(`last_drift_at`, excluded.`last_drift_at`), `last_drift_at`, excluded.`last_drift_at`);
END;
--> statement-breakpoint
-- Backfill for journals that already have history: the same upserts, replayed over it.
INSERT INTO `cycle_rollups` (`bot_id`, `bucket`, `cycles`)
SELECT `bot_id`, strftime('%Y-%m-%dT%H:', `at`) || printf('%02d', (CAST(strftime('%M', `at`) AS INTEGER) / 5) * 5) || ':00.000Z', count(*) FROM `reconciliations` WHERE `outcome` IN ('clean', 'drift') GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `position_rollups` (`bot_id`, `symbol`, `bucket`, `cycles`, `qty_step`, `first_at`, `first_ours`, `first_theirs`, `last_at`, `last_ours`, `last_theirs`,
   `min_ours_at`, `min_ours`, `min_ours_theirs`, `max_ours_at`, `max_ours`, `max_ours_theirs`,
   `min_theirs_at`, `min_theirs_ours`, `min_theirs`, `max_theirs_at`, `max_theirs_ours`, `max_theirs`,
   `wide_at`, `wide_ours`, `wide_theirs`, `drift_cycles`, `unknown_cycles`, `first_drift_at`, `last_drift_at`)
  SELECT r.`bot_id`, p.`symbol`, strftime('%Y-%m-%dT%H:', r.`at`) || printf('%02d', (CAST(strftime('%M', r.`at`) AS INTEGER) / 5) * 5) || ':00.000Z', 1, p.`qty_step`,
         r.`at`, p.`ours`, p.`theirs`, r.`at`, p.`ours`, p.`theirs`,
         r.`at`, p.`ours`, p.`theirs`, r.`at`, p.`ours`, p.`theirs`,
         r.`at`, p.`ours`, p.`theirs`, r.`at`, p.`ours`, p.`theirs`,
         r.`at`, p.`ours`, p.`theirs`,
         (CASE WHEN abs(p.`ours` - p.`theirs`) < p.`qty_step` / 2.0 THEN 0 WHEN abs(p.`ours`) < p.`qty_step` / 2.0 THEN 2 ELSE 1 END) > 0, (CASE WHEN abs(p.`ours` - p.`theirs`) < p.`qty_step` / 2.0 THEN 0 WHEN abs(p.`ours`) < p.`qty_step` / 2.0 THEN 2 ELSE 1 END) = 2,
         CASE WHEN (CASE WHEN abs(p.`ours` - p.`theirs`) < p.`qty_step` / 2.0 THEN 0 WHEN abs(p.`ours`) < p.`qty_step` / 2.0 THEN 2 ELSE 1 END) > 0 THEN r.`at` END, CASE WHEN (CASE WHEN abs(p.`ours` - p.`theirs`) < p.`qty_step` / 2.0 THEN 0 WHEN abs(p.`ours`) < p.`qty_step` / 2.0 THEN 2 ELSE 1 END) > 0 THEN r.`at` END
    FROM `reconciliation_positions` p JOIN `reconciliations` r ON r.`id` = p.`reconciliation_id`
   WHERE r.`outcome` IN ('clean', 'drift')
   ORDER BY p.`reconciliation_id`
  ON CONFLICT (`bot_id`, `symbol`, `bucket`) DO UPDATE SET
    `cycles` = `cycles` + 1,
    `qty_step` = CASE WHEN excluded.`last_at` >= `last_at` THEN excluded.`qty_step` ELSE `qty_step` END,
    `first_at` = min(`first_at`, excluded.`first_at`),
    `first_ours` = CASE WHEN excluded.`first_at` < `first_at` THEN excluded.`first_ours` ELSE `first_ours` END,
    `first_theirs` = CASE WHEN excluded.`first_at` < `first_at` THEN excluded.`first_theirs` ELSE `first_theirs` END,
    `last_at` = max(`last_at`, excluded.`last_at`),
    `last_ours` = CASE WHEN excluded.`last_at` >= `last_at` THEN excluded.`last_ours` ELSE `last_ours` END,
    `last_theirs` = CASE WHEN excluded.`last_at` >= `last_at` THEN excluded.`last_theirs` ELSE `last_theirs` END,
    `min_ours_at` = CASE WHEN excluded.`min_ours` < `min_ours` OR (excluded.`min_ours` = `min_ours` AND excluded.`min_ours_at` < `min_ours_at`) THEN excluded.`min_ours_at` ELSE `min_ours_at` END,
    `min_ours` = CASE WHEN excluded.`min_ours` < `min_ours` OR (excluded.`min_ours` = `min_ours` AND excluded.`min_ours_at` < `min_ours_at`) THEN excluded.`min_ours` ELSE `min_ours` END,
    `min_ours_theirs` = CASE WHEN excluded.`min_ours` < `min_ours` OR (excluded.`min_ours` = `min_ours` AND excluded.`min_ours_at` < `min_ours_at`) THEN excluded.`min_ours_theirs` ELSE `min_ours_theirs` END,
    `max_ours_at` = CASE WHEN excluded.`max_ours` > `max_ours` OR (excluded.`max_ours` = `max_ours` AND excluded.`max_ours_at` < `max_ours_at`) THEN excluded.`max_ours_at` ELSE `max_ours_at` END,
    `max_ours` = CASE WHEN excluded.`max_ours` > `max_ours` OR (excluded.`max_ours` = `max_ours` AND excluded.`max_ours_at` < `max_ours_at`) THEN excluded.`max_ours` ELSE `max_ours` END,
    `max_ours_theirs` = CASE WHEN excluded.`max_ours` > `max_ours` OR (excluded.`max_ours` = `max_ours` AND excluded.`max_ours_at` < `max_ours_at`) THEN excluded.`max_ours_theirs` ELSE `max_ours_theirs` END,
    `min_theirs_at` = CASE WHEN excluded.`min_theirs` < `min_theirs` OR (excluded.`min_theirs` = `min_theirs` AND excluded.`min_theirs_at` < `min_theirs_at`) THEN excluded.`min_theirs_at` ELSE `min_theirs_at` END,
    `min_theirs_ours` = CASE WHEN excluded.`min_theirs` < `min_theirs` OR (excluded.`min_theirs` = `min_theirs` AND excluded.`min_theirs_at` < `min_theirs_at`) THEN excluded.`min_theirs_ours` ELSE `min_theirs_ours` END,
    `min_theirs` = CASE WHEN excluded.`min_theirs` < `min_theirs` OR (excluded.`min_theirs` = `min_theirs` AND excluded.`min_theirs_at` < `min_theirs_at`) THEN excluded.`min_theirs` ELSE `min_theirs` END,
    `max_theirs_at` = CASE WHEN excluded.`max_theirs` > `max_theirs` OR (excluded.`max_theirs` = `max_theirs` AND excluded.`max_theirs_at` < `max_theirs_at`) THEN excluded.`max_theirs_at` ELSE `max_theirs_at` END,
    `max_theirs_ours` = CASE WHEN excluded.`max_theirs` > `max_theirs` OR (excluded.`max_theirs` = `max_theirs` AND excluded.`max_theirs_at` < `max_theirs_at`) THEN excluded.`max_theirs_ours` ELSE `max_theirs_ours` END,
    `max_theirs` = CASE WHEN excluded.`max_theirs` > `max_theirs` OR (excluded.`max_theirs` = `max_theirs` AND excluded.`max_theirs_at` < `max_theirs_at`) THEN excluded.`max_theirs` ELSE `max_theirs` END,
    `wide_at` = CASE WHEN abs(excluded.`wide_ours` - excluded.`wide_theirs`) > abs(`wide_ours` - `wide_theirs`) OR (abs(excluded.`wide_ours` - excluded.`wide_theirs`) = abs(`wide_ours` - `wide_theirs`) AND excluded.`wide_at` < `wide_at`) THEN excluded.`wide_at` ELSE `wide_at` END,
    `wide_ours` = CASE WHEN abs(excluded.`wide_ours` - excluded.`wide_theirs`) > abs(`wide_ours` - `wide_theirs`) OR (abs(excluded.`wide_ours` - excluded.`wide_theirs`) = abs(`wide_ours` - `wide_theirs`) AND excluded.`wide_at` < `wide_at`) THEN excluded.`wide_ours` ELSE `wide_ours` END,
    `wide_theirs` = CASE WHEN abs(excluded.`wide_ours` - excluded.`wide_theirs`) > abs(`wide_ours` - `wide_theirs`) OR (abs(excluded.`wide_ours` - excluded.`wide_theirs`) = abs(`wide_ours` - `wide_theirs`) AND excluded.`wide_at` < `wide_at`) THEN excluded.`wide_theirs` ELSE `wide_theirs` END,
    `drift_cycles` = `drift_cycles` + excluded.`drift_cycles`,
    `unknown_cycles` = `unknown_cycles` + excluded.`unknown_cycles`,
    `first_drift_at` = coalesce(min(`first_drift_at`, excluded.`first_drift_at`), `first_drift_at`, excluded.`first_drift_at`),
    `last_drift_at` = coalesce(max(`last_drift_at`, excluded.`last_drift_at`), `last_drift_at`, excluded.`last_drift_at`);
--> statement-breakpoint
PRAGMA user_version = 4;
