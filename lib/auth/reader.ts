import "server-only";
import { getActor } from "./session";

/**
 * Whether this request's reader may see operators' names: any signed-in account (viewer or
 * operator) does; an anonymous reader sees roles only (lib/auth/actor-names.ts).
 */
export async function readerSeesNames(): Promise<boolean> {
  return (await getActor()) !== null;
}
