/**
 * Kubernetes quantities (`500m`, `0.5`, `1Gi`, `1024Mi`, `1e3`) as exact values, so `1Gi` equals
 * `1024Mi` and `500m` equals `0.5`, and their canonical notation for status: cpu in whole cores or `m`,
 * bytes in the largest binary unit that keeps a whole number (`Gi`, `Mi`, `Ki`).
 */

/** An exact value: `digits * 10^exponent`. */
export interface Quantity {
  digits: bigint;
  exponent: number;
}

const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

/** The quantity a string or integer states, or undefined when it is not quantity notation. */
export function parseQuantity(input: string | number): Quantity | undefined {
  const text = String(input).trim();
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  let digits = BigInt(`${whole}${fraction}` || '0');
  let exponent = -fraction.length;
  if (suffix in BINARY_SUFFIX) digits *= 1024n ** BigInt(BINARY_SUFFIX[suffix] ?? 0);
  else if (suffix in DECIMAL_SUFFIX) exponent += DECIMAL_SUFFIX[suffix] ?? 0;
  else if (suffix !== '') exponent += Number(suffix.slice(1));
  return normalise({ digits: sign === '-' ? -digits : digits, exponent });
}

/** Trailing zeros moved into the exponent, so equal values have equal representations. */
function normalise(q: Quantity): Quantity {
  if (q.digits === 0n) return { digits: 0n, exponent: 0 };
  let { digits, exponent } = q;
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent += 1;
  }
  return { digits, exponent };
}

export function quantitiesEqual(a: Quantity, b: Quantity): boolean {
  return a.digits === b.digits && a.exponent === b.exponent;
}

/**
 * Whether two quantities in any notation are the same amount. Text that is not a quantity is compared
 * as text, so an unexpected notation from the control plane still reads as equal to itself.
 */
export function sameQuantity(a: string | number, b: string | number): boolean {
  const qa = parseQuantity(a);
  const qb = parseQuantity(b);
  if (!qa || !qb) return String(a).trim() === String(b).trim();
  return quantitiesEqual(qa, qb);
}

/** The value times 10^shift, when that is a whole number. */
function wholeAt(q: Quantity, shift: number): bigint | undefined {
  const exponent = q.exponent + shift;
  if (exponent >= 0) return q.digits * 10n ** BigInt(exponent);
  const divisor = 10n ** BigInt(-exponent);
  return q.digits % divisor === 0n ? q.digits / divisor : undefined;
}

/** CPU in Kubernetes notation: whole cores (`2`) or millicores (`500m`); text left as is otherwise. */
export function formatCpu(input: string | number): string {
  const q = parseQuantity(input);
  if (!q) return String(input);
  const cores = wholeAt(q, 0);
  if (cores !== undefined) return cores.toString();
  const milli = wholeAt(q, 3);
  return milli !== undefined ? `${milli}m` : String(input);
}

const BINARY_UNITS: ReadonlyArray<[string, bigint]> = [
  ['Ei', 1024n ** 6n],
  ['Pi', 1024n ** 5n],
  ['Ti', 1024n ** 4n],
  ['Gi', 1024n ** 3n],
  ['Mi', 1024n ** 2n],
  ['Ki', 1024n],
];

/** Bytes in Kubernetes notation: the largest binary unit keeping a whole number (`1Gi`, `1536Mi`). */
export function formatBytes(input: string | number): string {
  const q = parseQuantity(input);
  if (!q) return String(input);
  const bytes = wholeAt(q, 0);
  if (bytes === undefined) return String(input);
  if (bytes === 0n) return '0';
  for (const [unit, size] of BINARY_UNITS) {
    if (bytes % size === 0n) return `${bytes / size}${unit}`;
  }
  return bytes.toString();
}
