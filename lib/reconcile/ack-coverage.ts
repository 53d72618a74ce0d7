/**
 * Whether an operator's acknowledgement of a drift still covers the drift the book shows now. It
 * never silences forever (docs/journal.md, drift_acknowledgements): it stops at its expiry, and
 * earlier once the drift changes class, grows, or a new episode starts.
 */
import { driftTolerance, type DriftClass } from "./diff";

/** The book line as it is now, as lib/queries/book-line.ts and the overview read it. */
export interface CoveredLine {
  drift: DriftClass;
  ours: number;
  theirs: number;
  qtyStep: number;
  driftSince: string | null;
}

/** What the operator acknowledged: the drift as they saw it, and when the acknowledgement lapses. */
export interface AckSeen {
  drift: DriftClass;
  ours: number;
  theirs: number;
  driftSince: string | null;
  expiresAt: string;
}

/**
 * Does an acknowledgement still cover the line? Not after it expires, and not once the drift
 * changed class, grew beyond what was acknowledged, or is a new episode.
 */
export function ackCovers(ack: AckSeen, line: CoveredLine, now: Date): { covers: boolean; why: string } {
  if (line.drift === "none") return { covers: false, why: "no drift" };
  if (Date.parse(ack.expiresAt) <= now.getTime()) return { covers: false, why: "acknowledgement expired" };
  if (ack.drift !== line.drift) return { covers: false, why: `drift changed class (${ack.drift} → ${line.drift})` };
  if (ack.driftSince !== line.driftSince) return { covers: false, why: "a new drift episode started" };
  if (Math.abs(line.theirs - line.ours) > Math.abs(ack.theirs - ack.ours) + driftTolerance(line.qtyStep)) return { covers: false, why: "the drift grew" };
  return { covers: true, why: "acknowledged" };
}
