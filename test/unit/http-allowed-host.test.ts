import { describe, expect, it } from "vitest";
import { parseAllowedHosts } from "@/lib/env";
import { hostAllowed } from "@/lib/http/allowed-host";

const allowed = (text: string) => {
  const parsed = parseAllowedHosts(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.hosts;
};

describe("the Host allow-list", () => {
  it("always allows the loopback names on any port", () => {
    const hosts = allowed("");
    for (const h of ["localhost", "localhost:3000", "127.0.0.1:3031", "[::1]:8080", "LOCALHOST:3000", "[::1]"]) expect(hostAllowed(h, hosts), h).toBe(true);
  });

  it("refuses a rebinding name, a missing Host and anything that is not a host", () => {
    const hosts = allowed("");
    for (const h of [
      "evil.example:3031",
      "evil.example",
      "127.0.0.1.evil.example",
      "localhost.evil.example:3000",
      "",
      "localhost:3000:1",
      "user@localhost",
      "[::1",
      "localhost:99999x",
    ]) {
      expect(hostAllowed(h, hosts), h).toBe(false);
    }
    expect(hostAllowed(null, hosts)).toBe(false);
    expect(hostAllowed(undefined, hosts)).toBe(false);
  });

  it("allows a configured name on any port, and a name:port entry on that port only", () => {
    const hosts = allowed("console.example.com, 10.0.0.5:3000");
    expect(hostAllowed("console.example.com", hosts)).toBe(true);
    expect(hostAllowed("Console.Example.com:8443", hosts)).toBe(true);
    expect(hostAllowed("10.0.0.5:3000", hosts)).toBe(true);
    expect(hostAllowed("10.0.0.5:3001", hosts)).toBe(false);
    expect(hostAllowed("10.0.0.5", hosts)).toBe(false);
    expect(hostAllowed("example.com", hosts)).toBe(false);
  });
});
