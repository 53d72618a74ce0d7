import { describe, expect, it } from "vitest";
import { DEFAULT_SCRYPT_LOG_N, hashPassword, verifyPassword } from "@/lib/auth/password";

// The production cost (2^15) is exercised once; the rest run cheaper: the format carries the cost.
const fast = { logN: 10 };

describe("password hashes", () => {
  it("verifies the right password at the default cost, and records that cost in the hash", async () => {
    const hash = await hashPassword("correct horse battery staple");
    expect(hash).toMatch(new RegExp(`^scrypt\\$${DEFAULT_SCRYPT_LOG_N}\\$8\\$1\\$[A-Za-z0-9+/=]+\\$[A-Za-z0-9+/=]+$`));
    expect(DEFAULT_SCRYPT_LOG_N).toBeGreaterThanOrEqual(15);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
  });

  it("refuses a wrong password, a change of case, and a trailing space", async () => {
    const hash = await hashPassword("correct horse battery staple", fast);
    for (const wrong of ["correct horse battery stapl", "Correct horse battery staple", "correct horse battery staple ", ""]) {
      expect(await verifyPassword(wrong, hash)).toBe(false);
    }
  });

  it("salts: the same password hashes differently twice, and both verify", async () => {
    const [a, b] = await Promise.all([hashPassword("same password here", fast), hashPassword("same password here", fast)]);
    expect(a).not.toBe(b);
    expect(await verifyPassword("same password here", a)).toBe(true);
    expect(await verifyPassword("same password here", b)).toBe(true);
  });

  it("verifies a hash made at another cost than the current one", async () => {
    const hash = await hashPassword("an older cheaper hash", { logN: 11 });
    expect(await verifyPassword("an older cheaper hash", hash)).toBe(true);
  });

  it("treats a stored value that is not one of its hashes as a mismatch, without throwing", async () => {
    for (const stored of [
      "",
      "plaintext",
      "scrypt$15$8$1$c2FsdA==",
      "bcrypt$2b$10$abc",
      "scrypt$99$8$1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==",
      "scrypt$x$8$1$a$b",
    ]) {
      expect(await verifyPassword("anything", stored)).toBe(false);
    }
  });

  it("treats composed and decomposed accents as the same password", async () => {
    const hash = await hashPassword("caf\u00e9 au lait please", fast);
    expect(await verifyPassword("cafe\u0301 au lait please", hash)).toBe(true);
  });
});
