/**
 * The only module that reads process.env. Validated once; a bad value stops the console at start
 * with a message that names the variable.
 */
import path from "node:path";
import { z } from "zod";

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z.object({
  DRIFTWATCH_JOURNAL: z.string().trim().min(1, "must name a file").default("./data/journal.db"),
  /** created/sent orders not updated for this long are doubtful. */
  DRIFTWATCH_DOUBTFUL_GRACE_MS: positiveInt(30_000),
  /** A heartbeat older than this is an alarm. */
  DRIFTWATCH_HEARTBEAT_STALE_MS: positiveInt(60_000),
  /** A last reconciliation older than this is an alarm. */
  DRIFTWATCH_RECONCILIATION_STALE_MS: positiveInt(120_000),
  /** How long an acknowledgement of a drift silences it, at most. */
  DRIFTWATCH_ACK_TTL_MS: positiveInt(30 * 60_000),
  /** "1": clearing a halt needs a second operator's approval within the window below. */
  DRIFTWATCH_TWO_PERSON_CLEAR: z.enum(["0", "1"]).default("0"),
  DRIFTWATCH_TWO_PERSON_WINDOW_MS: positiveInt(10 * 60_000),
});

export type Env = {
  journalPath: string;
  doubtfulGraceMs: number;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  ackTtlMs: number;
  twoPersonClear: boolean;
  twoPersonWindowMs: number;
};

export class EnvError extends Error {
  override name = "EnvError";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ");
    throw new EnvError(`driftwatch configuration is invalid: ${problems}`);
  }
  const v = result.data;
  return {
    journalPath: path.resolve(v.DRIFTWATCH_JOURNAL),
    doubtfulGraceMs: v.DRIFTWATCH_DOUBTFUL_GRACE_MS,
    heartbeatStaleMs: v.DRIFTWATCH_HEARTBEAT_STALE_MS,
    reconciliationStaleMs: v.DRIFTWATCH_RECONCILIATION_STALE_MS,
    ackTtlMs: v.DRIFTWATCH_ACK_TTL_MS,
    twoPersonClear: v.DRIFTWATCH_TWO_PERSON_CLEAR === "1",
    twoPersonWindowMs: v.DRIFTWATCH_TWO_PERSON_WINDOW_MS,
  };
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
