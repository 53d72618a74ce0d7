import { describe, expect, it } from "vitest";
import { ackCovers, type AckSeen, type CoveredLine } from "@/lib/reconcile/ack-coverage";

const now = new Date("2026-08-10T15:31:00.000Z");
const ack: AckSeen = { drift: "size_drift", ours: 10, theirs: 12, driftSince: "2026-08-10T15:00:00.000Z", expiresAt: "2026-08-10T16:00:00.000Z" };
const line: CoveredLine = { drift: "size_drift", ours: 10, theirs: 12, qtyStep: 1, driftSince: "2026-08-10T15:00:00.000Z" };

describe("ackCovers", () => {
  it("covers the drift it acknowledged, unchanged and unexpired", () => {
    expect(ackCovers(ack, line, now)).toEqual({ covers: true, why: "acknowledged" });
  });

  it("covers a drift that shrank or grew by less than half a step", () => {
    expect(ackCovers(ack, { ...line, theirs: 11 }, now).covers).toBe(true);
    expect(ackCovers(ack, { ...line, theirs: 12.4 }, now).covers).toBe(true);
  });

  it("stops covering at its expiry, not a moment later", () => {
    expect(ackCovers(ack, line, new Date("2026-08-10T16:00:00.000Z"))).toEqual({ covers: false, why: "acknowledgement expired" });
    expect(ackCovers(ack, line, new Date("2026-08-10T15:59:59.999Z")).covers).toBe(true);
  });

  it("stops covering once the drift changes class", () => {
    expect(ackCovers(ack, { ...line, drift: "unknown_position", ours: 0 }, now)).toEqual({
      covers: false,
      why: "drift changed class (size_drift → unknown_position)",
    });
  });

  it("stops covering a new episode of the same drift", () => {
    expect(ackCovers(ack, { ...line, driftSince: "2026-08-10T15:20:00.000Z" }, now)).toEqual({ covers: false, why: "a new drift episode started" });
  });

  it("stops covering once the drift grew by half a step or more", () => {
    expect(ackCovers(ack, { ...line, theirs: 12.6 }, now)).toEqual({ covers: false, why: "the drift grew" });
  });

  it("covers nothing where there is no drift", () => {
    expect(ackCovers(ack, { ...line, drift: "none", theirs: 10 }, now)).toEqual({ covers: false, why: "no drift" });
  });
});
