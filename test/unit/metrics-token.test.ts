import { describe, expect, it } from "vitest";
import { bearerMatches } from "@/lib/http/metrics";

const TOKEN = "k3Jq9vT2xW8mZp4Lr6Yd";

describe("the metrics route's bearer token", () => {
  it("accepts exactly the configured token after the Bearer scheme, in any case of the scheme", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
  });

  it("refuses no header, another scheme, a prefix, an extension and an empty token", () => {
    for (const header of [null, "", TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, "Bearer ", `Bearer ${TOKEN} ${TOKEN}`])
      expect(bearerMatches(header, TOKEN), String(header)).toBe(false);
  });
});
