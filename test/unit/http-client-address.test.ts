import { describe, expect, it } from "vitest";
import { addressLimitKey, clientAddress, UNKNOWN_ADDRESS } from "@/lib/http/client-address";

describe("the key a per-address limit counts under", () => {
  it("is an IPv4 address itself, written as the socket or an IPv4-mapped IPv6 address gives it", () => {
    expect(addressLimitKey("203.0.113.9")).toBe("203.0.113.9");
    expect(addressLimitKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(addressLimitKey("203.0.113.10")).not.toBe(addressLimitKey("203.0.113.9"));
  });

  it("is an IPv6 address's /64, however the address is written", () => {
    const key = addressLimitKey("2001:db8:7:1::1");
    expect(key).toBe("2001:db8:7:1::/64");
    for (const same of ["2001:0db8:0007:0001:ffff:ffff:ffff:ffff", "2001:DB8:7:1:a:b:c:d", "[2001:db8:7:1::9]", "2001:db8:7:1::2%eth0"])
      expect(addressLimitKey(same), same).toBe(key);
    expect(addressLimitKey("2001:db8:7:2::1")).not.toBe(key);
    expect(addressLimitKey("::1")).toBe("0:0:0:0::/64");
  });

  it("keeps what is not an address as it is, one key of its own", () => {
    expect(addressLimitKey(UNKNOWN_ADDRESS)).toBe(UNKNOWN_ADDRESS);
    expect(addressLimitKey("not-an-ip")).toBe("not-an-ip");
  });

  it("keys what clientAddress takes from X-Forwarded-For", () => {
    expect(addressLimitKey(clientAddress("198.51.100.1, 2001:db8:aa:bb:1:2:3:4", 1))).toBe("2001:db8:aa:bb::/64");
  });
});
