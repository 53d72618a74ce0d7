import { describe, expect, it } from "vitest";
import { answerError, liveFailureTitle, unreachableError } from "@/lib/query-options/fetch-api";
import { STOPPING_MESSAGE } from "@/lib/http/before-next";

describe("a failed live read names its real cause", () => {
  it("a fetch that gets no answer says the console server cannot be reached, not that the journal is unreadable", () => {
    const e = unreachableError();
    expect(e.kind).toBe("unreachable");
    expect(e.message).toBe("the console server cannot be reached");
    expect(liveFailureTitle(e)).toBe("The console server cannot be reached");
    expect(liveFailureTitle(e)).not.toMatch(/journal/);
  });

  it("a 503 with a journal error is the journal's problem, with its own message and fix", () => {
    const e = answerError(503, { ok: false, error: { code: "locked", message: "the journal is locked", fix: "wait for the writer" } });
    expect(e.kind).toBe("journal");
    expect(e.code).toBe("locked");
    expect(e.message).toBe("the journal is locked");
    expect(e.fix).toBe("wait for the writer");
    expect(liveFailureTitle(e)).toBe("The console cannot read the journal right now");
  });

  it("a 500 is the server's failure and says the HTTP status", () => {
    const e = answerError(500, { ok: false, error: { code: "read_failed", message: "the journal could not be read: boom" } });
    expect(e.kind).toBe("server");
    expect(e.message).toMatch(/^the server answered HTTP 500/);
    expect(liveFailureTitle(e)).not.toMatch(/journal/);
  });

  it("an answer without JSON (a proxy's 502 page, a 503 without a journal error) is the server's failure with its status", () => {
    expect(answerError(502, null).message).toBe("the server answered HTTP 502 without data");
    expect(answerError(502, null).kind).toBe("server");
    expect(answerError(503, null).kind).toBe("server");
  });

  it("a 400 keeps the route's own message, which says what to change", () => {
    const e = answerError(400, { ok: false, error: { code: "invalid", message: "the range is not valid" } });
    expect(e.message).toBe("the range is not valid");
    expect(e.kind).toBe("server");
  });

  it("reads a console that is stopping as one that cannot be reached, not as the journal's problem", () => {
    const e = answerError(503, { ok: false, error: { code: "stopping", message: STOPPING_MESSAGE } });
    expect(e).toMatchObject({ kind: "unreachable", code: "stopping", message: "the console server is stopping" });
    expect(liveFailureTitle(e)).toBe("The console server cannot be reached");
  });
});
