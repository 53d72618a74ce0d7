/**
 * How long an id the console accepts: in a URL (lib/url-state/path-ids.ts) and in an action's form
 * (lib/actions/*). One set of bounds, so a link one side makes the other reads, and an id the
 * console shows can always be sent back to it. The journal itself stores any text.
 */
import { z } from "zod";

export const BOT_ID_MAX = 200;
export const SYMBOL_MAX = 100;
export const CLIENT_ORDER_ID_MAX = 200;

/** A bot id typed or posted in a form: trimmed, present, within BOT_ID_MAX. */
export const botIdField = z.string().trim().min(1, "Missing bot").max(BOT_ID_MAX);
/** A symbol typed or posted in a form: trimmed, present, within SYMBOL_MAX. */
export const symbolField = z.string().trim().min(1, "Missing symbol").max(SYMBOL_MAX);
/** An order's client order id posted in a form: trimmed, present, within CLIENT_ORDER_ID_MAX. */
export const clientOrderIdField = z.string().trim().min(1, "Missing order id").max(CLIENT_ORDER_ID_MAX, "Order id too long");
