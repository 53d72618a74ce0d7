import { describe, expect, it } from "vitest";
import { actionLabel, auditDetailItems } from "@/lib/text/audit-detail";

const items = (detail: unknown) => auditDetailItems(JSON.stringify(detail)).map((i) => [i.label, i.value.kind === "time" ? i.value.iso : i.value.text]);

describe("actionLabel", () => {
  it("names every action the console writes in words, the book correction and the hand-made halt included", () => {
    expect(actionLabel("acknowledge_drift")).toBe("Acknowledge a drift");
    expect(actionLabel("clear_halt")).toBe("Clear a halt");
    expect(actionLabel("request_clear_halt")).toMatch(/^Ask to clear a halt/);
    expect(actionLabel("approve_clear_halt")).toMatch(/^Approve clearing a halt/);
    expect(actionLabel("resolve_order_lookup")).toBe("Check a doubtful order on the exchange");
    expect(actionLabel("resolve_order_manual")).toBe("Resolve a doubtful order by hand");
    expect(actionLabel("correct_book")).toBe("Correct a bot's book");
    expect(actionLabel("halt_bot")).toBe("Halt now");
  });

  it("names the Alertmanager silence an acknowledgement makes or a clear ends", () =>
    expect(actionLabel("alert_silence")).toBe("Silence the page in Alertmanager, or end the silence"));

  it("reads an action it does not know as its words", () => expect(actionLabel("rotate_keys")).toBe("rotate keys"));
});

describe("auditDetailItems", () => {
  it("names the silence and the acknowledgement it belongs to as ids, and the silences a clear ended", () => {
    expect(auditDetailItems(JSON.stringify({ acknowledgementId: 4, silenceId: "3f2a9c1e-0b7d", expiresAt: "2026-12-01T06:31:00.000Z" }))).toEqual([
      { key: "expiresAt", label: "Expires", value: { kind: "time", iso: "2026-12-01T06:31:00.000Z" } },
      { key: "acknowledgementId", label: "Acknowledgement", value: { kind: "id", text: "4" } },
      { key: "silenceId", label: "Alertmanager silence", value: { kind: "id", text: "3f2a9c1e-0b7d" } },
    ]);
    expect(items({ expiredSilenceIds: ["a1", "b2"], reason: "halt cleared" })).toEqual([
      ["Reason", "halt cleared"],
      ["Alertmanager silences expired", "a1; b2"],
    ]);
  });

  it("words a book correction's detail: the book after, the correction's id, the acknowledgement's end as a time", () => {
    const detail = { kind: "adopt_exchange", book: 89, correctionId: 3, acknowledgedUntil: "2026-12-01T06:32:55.627Z" };
    expect(auditDetailItems(JSON.stringify(detail)).map((i) => [i.label, i.value.kind])).toEqual(
      expect.arrayContaining([
        ["The bot's book after", "text"],
        ["Correction", "id"],
        ["Acknowledged until", "time"],
      ]),
    );
  });

  it("labels known keys, words their values, and puts the why first", () => {
    expect(
      items({ drift: "size_drift", ours: 148, theirs: 89, reconciliationId: 57, note: "desk confirms", expiresAt: "2026-12-01T05:31:02.000Z", ended: false }),
    ).toEqual([
      ["Note", "desk confirms"],
      ["Drift", "size drift"],
      ["Ours (bot's book)", "148"],
      ["Theirs (exchange)", "89"],
      ["Reconciliation", "57"],
      ["Expires", "2026-12-01T05:31:02.000Z"],
      ["Drift already ended", "no"],
    ]);
  });

  it("says a refusal's message, reasons and field errors, and summarises the form input without its content", () => {
    expect(
      items({
        message: "changed since you looked",
        reasons: ["version 57, now 58"],
        fieldErrors: { note: ["Say what you saw and where"] },
        input: { fields: { note: { length: 14, prefix: "checked w" }, breakerVersion: { length: 1 } } },
        breakerVersion: 3,
      }),
    ).toEqual([
      ["Refused because", "changed since you looked"],
      ["Reasons", "version 57, now 58"],
      ["Field errors", "note: Say what you saw and where"],
      ["Breaker version", "3"],
      ["Form input (summary)", 'note (14 characters, "checked w…"), breakerVersion (1 character)'],
    ]);
  });

  it("writes nested states on one line, a book correction's kind in words, and keeps ids as ids", () => {
    const out = auditDetailItems(
      JSON.stringify({ seen: { version: 57, state: "unknown", filledQty: 0 }, kind: "adopt_exchange", delta: -59, clientOrderId: "beta-d802a55a0df8ed0d3231" }),
    );
    expect(out.map((i) => [i.label, i.value])).toEqual([
      ["Kind", { kind: "text", text: "adopt the exchange's position" }],
      ["Delta added to the book", { kind: "text", text: "-59" }],
      ["As the operator saw it", { kind: "text", text: "version 57, state unknown, filled quantity 0" }],
      ["Client order id", { kind: "id", text: "beta-d802a55a0df8ed0d3231" }],
    ]);
  });

  it("shows keys it does not know under their own names, after the known ones", () => {
    expect(items({ custom_flag: true, reason: "manual", extra: { a: 1 } })).toEqual([
      ["Reason", "manual"],
      ["custom_flag", "yes"],
      ["extra", "a 1"],
    ]);
  });

  it("shows detail that is not a JSON object as it is", () => {
    expect(auditDetailItems("not json")).toEqual([{ key: "detail", label: "Detail", value: { kind: "text", text: "not json" } }]);
    expect(auditDetailItems("[1,2]")[0]!.value).toEqual({ kind: "text", text: "[1,2]" });
  });
});
