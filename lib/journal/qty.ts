/**
 * Quantities as the contract writes them inside a client order id's seed: the shortest plain
 * decimal that reads back as the same number. No exponent, no trailing zeros, no trailing point:
 * 500, 0.25, 0.001, 1234.5.
 */
export function formatQty(qty: number): string {
  if (!Number.isFinite(qty) || qty <= 0) {
    throw new RangeError(`quantity must be a finite number above 0, got ${qty}`);
  }
  // toExponential() with no argument gives the shortest digits that round-trip, like toString(),
  // but always in one shape we can expand without an exponent.
  const [mantissa = "", exponentText = "0"] = qty.toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exponent = Number(exponentText);
  const pointAt = exponent + 1; // digits before the decimal point
  let text: string;
  if (pointAt <= 0) text = `0.${"0".repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) text = digits + "0".repeat(pointAt - digits.length);
  else text = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}
