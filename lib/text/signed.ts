/** A signed quantity as the book screens print it: "+98", "-0.3", "0"; up to 8 decimals, no exponent. */
export function formatSigned(n: number): string {
  const text = n.toLocaleString("en-US", { maximumFractionDigits: 8 });
  return n > 0 ? `+${text}` : text;
}
