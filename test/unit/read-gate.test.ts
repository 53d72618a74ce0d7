import { describe, expect, it } from "vitest";
import { METRICS_NEED_TOKEN_MESSAGE, readGate, SIGN_IN_REQUIRED_MESSAGE } from "@/lib/auth/read-gate";

const req = (over: Partial<Parameters<typeof readGate>[0]> = {}) => ({ required: true, signedIn: false, method: "GET", pathname: "/", search: "", ...over });

describe("reading a console that requires sign-in", () => {
  it("lets everyone read when sign-in is not required", () => {
    expect(readGate(req({ required: false, pathname: "/audit" }))).toEqual({ kind: "pass" });
    expect(readGate(req({ required: false, pathname: "/api/overview" }))).toEqual({ kind: "pass" });
  });

  it("lets a signed-in reader read everything", () => {
    for (const pathname of ["/", "/audit", "/api/overview", "/bots/alpha"]) expect(readGate(req({ signedIn: true, pathname }))).toEqual({ kind: "pass" });
  });

  it("sends a page's reader to sign in, and back to the page with its query afterwards", () => {
    expect(readGate(req())).toEqual({ kind: "sign_in", location: "/login" });
    expect(readGate(req({ pathname: "/incidents", search: "?from=2026-12-01T03:00:00Z&bot=alpha" }))).toEqual({
      kind: "sign_in",
      location: `/login?next=${encodeURIComponent("/incidents?from=2026-12-01T03:00:00Z&bot=alpha")}`,
    });
  });

  it("answers a JSON route and any post but the sign-in with a refusal", () => {
    expect(readGate(req({ pathname: "/api/incidents/export", search: "?format=csv" }))).toEqual({ kind: "unauthorized", message: SIGN_IN_REQUIRED_MESSAGE });
    expect(readGate(req({ method: "POST", pathname: "/bots/alpha" }))).toEqual({ kind: "unauthorized", message: SIGN_IN_REQUIRED_MESSAGE });
  });

  it("keeps the sign-in page, its post and its icons open", () => {
    expect(readGate(req({ pathname: "/login", search: "?next=%2Faudit" }))).toEqual({ kind: "pass" });
    expect(readGate(req({ method: "POST", pathname: "/login" }))).toEqual({ kind: "pass" });
    expect(readGate(req({ pathname: "/favicon.svg" }))).toEqual({ kind: "pass" });
    expect(readGate(req({ pathname: "/_next/static/chunks/app.js" }))).toEqual({ kind: "pass" });
  });

  it("keeps them open to read only: a post under /_next/ or to an icon is refused like any other", () => {
    for (const pathname of ["/_next/x", "/_next/static/chunks/app.js", "/favicon.svg"])
      expect(readGate(req({ method: "POST", pathname })), pathname).toEqual({ kind: "unauthorized", message: SIGN_IN_REQUIRED_MESSAGE });
  });

  it("does not take a look-alike of an open path for it", () => {
    expect(readGate(req({ pathname: "/login/../audit" })).kind).not.toBe("pass");
    expect(readGate(req({ pathname: "/loginx" })).kind).toBe("sign_in");
  });

  it("lets Prometheus scrape /api/metrics without a session when a metrics token is set (the route checks the token)", () => {
    expect(readGate(req({ pathname: "/api/metrics", metricsToken: true }))).toEqual({ kind: "pass" });
    expect(readGate(req({ pathname: "/api/overview", metricsToken: true }))).toEqual({ kind: "unauthorized", message: SIGN_IN_REQUIRED_MESSAGE });
    expect(readGate(req({ method: "POST", pathname: "/api/metrics", metricsToken: true }))).toEqual({
      kind: "unauthorized",
      message: SIGN_IN_REQUIRED_MESSAGE,
    });
  });

  it("refuses the scrape without a token when sign-in is required, saying to set DRIFTWATCH_METRICS_TOKEN", () => {
    expect(readGate(req({ pathname: "/api/metrics" }))).toEqual({ kind: "unauthorized", message: METRICS_NEED_TOKEN_MESSAGE });
    expect(METRICS_NEED_TOKEN_MESSAGE).toContain("DRIFTWATCH_METRICS_TOKEN");
    expect(readGate(req({ pathname: "/api/metrics", signedIn: true }))).toEqual({ kind: "pass" });
  });
});
