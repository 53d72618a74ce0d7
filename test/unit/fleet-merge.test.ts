import { describe, expect, it } from "vitest";
import { JournalSource, SourceSet } from "@/lib/db/console";
import { JournalError } from "@/lib/db/journal-file";
import { mergeOverviews } from "@/lib/queries/fleet";
import type { Overview, OverviewBot } from "@/lib/queries/overview";

const bot = (botId: string): OverviewBot => ({
  botId,
  exchange: "sim",
  clientIdPrefix: "x",
  status: "running",
  reasons: [],
  alarms: [],
  haltedAlso: null,
  notComparedWhy: null,
  heartbeatAt: "2026-12-01T10:00:00.000Z",
  heartbeatAgeMs: 1000,
  breaker: null,
  lastReconciliation: null,
  lastCompared: null,
  doubtfulOrders: 0,
  oldestDoubtfulAt: null,
  newestDoubtful: [],
  symbolsInDrift: 0,
  unknownPositions: 0,
});
const overview = (bots: string[], readAt = "2026-12-01T10:00:01.000Z"): Overview => ({ readAt, bots: bots.map(bot), lines: [], alarms: [] });
// No file is opened: the merge only reads what each source answered.
const sourceSet = (...names: string[]) =>
  new SourceSet(names.map((name) => ({ name, kind: "sqlite" as const, file: `/nowhere/${name}.db`, journal: new JournalSource(`/nowhere/${name}.db`) })));

describe("merging the overviews of several journals", () => {
  it("returns one journal's overview as it is", () => {
    const set = sourceSet("only");
    const data = overview(["a", "b"]);
    expect(mergeOverviews([{ source: set.sources[0]!, ok: true, data }], set, true)).toBe(data);
  });

  it("keeps the bots a failing journal showed last, as UNKNOWN with its reason, beside the others", () => {
    const set = sourceSet("left", "right");
    const [left, right] = set.sources as [(typeof set.sources)[0], (typeof set.sources)[0]];
    mergeOverviews(
      [
        { source: left, ok: true, data: overview(["l-1"]) },
        { source: right, ok: true, data: overview(["r-1", "r-2"]) },
      ],
      set,
      true,
    );
    const gone = new JournalError("gone", right.file, "was deleted or moved away", "put it back");
    const merged = mergeOverviews(
      [
        { source: left, ok: true, data: overview(["l-1"]) },
        { source: right, ok: false, error: gone },
      ],
      set,
      true,
    );
    expect(merged.bots.map((b) => [b.botId, b.source, b.status])).toEqual([
      ["l-1", "left", "running"],
      ["r-1", "right", "unknown"],
      ["r-2", "right", "unknown"],
    ]);
    expect(merged.bots[1]!.reasons).toEqual(["its journal (source right) cannot be read: was deleted or moved away"]);
    // Not halted when last read, and when that was: more than "unknown", never "not halted".
    expect(merged.bots[1]).toMatchObject({ journalUnread: true, lastReadAt: "2026-12-01T10:00:01.000Z", breaker: null });
    expect(merged.bots[1]!.lastKnownHalt).toBeUndefined();
    expect(merged.sources!.map((s) => [s.name, s.ok, s.problem?.code ?? null])).toEqual([
      ["left", true, null],
      ["right", false, "gone"],
    ]);
    expect(merged.alarms).toEqual(["source right: its journal was deleted or moved away. Its bots are UNKNOWN"]);
  });

  it("names a bot id two journals show as an alarm", () => {
    const set = sourceSet("left", "right");
    const merged = mergeOverviews(
      set.sources.map((source) => ({ source, ok: true as const, data: overview(["twin"]) })),
      set,
      true,
    );
    expect(merged.alarms).toEqual([expect.stringMatching(/^bot twin is in two journals: source left \(\/nowhere\/left\.db\) and source right/)]);
  });
});
