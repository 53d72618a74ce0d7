import { readerSeesNames } from "@/lib/auth/reader";
import { journalJson } from "@/lib/http/journal-route";
import { loadOverview } from "@/lib/queries/screens";

export async function GET() {
  const names = await readerSeesNames();
  return journalJson((ctx) => loadOverview({ ...ctx, names }));
}
