import { readerSeesNames } from "@/lib/auth/reader";
import { screenJson } from "@/lib/http/journal-route";
import { readOverview } from "@/lib/queries/screens";

export async function GET() {
  const names = await readerSeesNames();
  return screenJson(() => readOverview({ names }));
}
