import { describe, expect, it } from "vitest";
import { actorRole, forReader, hideNames, withoutNames } from "@/lib/auth/actor-names";

describe("actor names for readers who are not signed in", () => {
  it("turns a named actor into its role and leaves the others", () => {
    expect(actorRole("operator:ana")).toBe("operator");
    expect(actorRole("viewer:vic.b")).toBe("viewer");
    expect(actorRole("bot")).toBe("bot");
    expect(actorRole("anonymous")).toBe("anonymous");
  });

  it("replaces every name quoted in a text, keeping the punctuation around it", () => {
    expect(hideNames("settled (requested by operator:ana, approved by operator:ben.k).")).toBe("settled (requested by operator, approved by operator).");
    expect(hideNames('{"actor":"operator:ana"} operator:ana: clear_halt')).toBe('{"actor":"operator"} operator: clear_halt');
    expect(hideNames("cooperator:x and an operator said so")).toBe("cooperator:x and an operator said so");
  });

  it("copies plain data with every string masked, and leaves the original alone", () => {
    const view = { bots: [{ changedBy: "operator:ana", version: 3, halted: true, ack: null }], note: "by viewer:vic" };
    expect(withoutNames(view)).toEqual({ bots: [{ changedBy: "operator", version: 3, halted: true, ack: null }], note: "by viewer" });
    expect(view.bots[0]!.changedBy).toBe("operator:ana");
  });

  it("shows names to a signed-in reader", () => {
    const view = { actor: "operator:ana" };
    expect(forReader(view, true)).toBe(view);
    expect(forReader(view, false)).toEqual({ actor: "operator" });
  });
});
