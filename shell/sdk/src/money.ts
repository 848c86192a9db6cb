/**
 * The console's one money module: exact arithmetic on, and formatting of, the
 * decimal strings the services send amounts as (ARCHITECTURE "Money is
 * exact"). Amounts are scaled to integers (BigInt) at the larger of the two
 * scales, so no sum or difference is ever a float.
 */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

interface Scaled {
  /** The amount times 10^scale. */
  units: bigint;
  scale: number;
}

function parse(value: string): Scaled {
  const m = DECIMAL.exec(value.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not a decimal amount: "${value}"`);
  const [, sign, whole = '', frac = ''] = m;
  const units = BigInt(`${whole || '0'}${frac}`);
  return { units: sign === '-' ? -units : units, scale: frac.length };
}

function rescale(v: Scaled, scale: number): bigint {
  return v.units * 10n ** BigInt(scale - v.scale);
}

function render(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${frac}` : ''}`;
}

/** isDecimal tells whether a string is a plain decimal amount ('12', '-0.5', '1234.50'). */
export function isDecimal(value: string): boolean {
  try {
    parse(value);
    return true;
  } catch {
    return false;
  }
}

/** addDecimal returns a + b exactly, at the larger scale of the two ('0.1' + '0.2' = '0.3'). */
export function addDecimal(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  return render(rescale(x, scale) + rescale(y, scale), scale);
}

/** subDecimal returns a − b exactly, at the larger scale of the two. */
export function subDecimal(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  return render(rescale(x, scale) - rescale(y, scale), scale);
}

/**
 * formatDecimal renders an amount with two decimals (half away from zero)
 * and thousands separators: '-1234567.895' → '-1,234,567.90'.
 */
export function formatDecimal(value: string): string {
  const v = parse(value);
  let units = v.scale >= 2 ? v.units : rescale(v, 2);
  if (v.scale > 2) {
    const divisor = 10n ** BigInt(v.scale - 2);
    const half = divisor / 2n;
    const abs = units < 0n ? -units : units;
    const rounded = (abs + half) / divisor;
    units = units < 0n ? -rounded : rounded;
  }
  const text = render(units, 2);
  const negative = text.startsWith('-');
  const [whole = '0', frac = '00'] = (negative ? text.slice(1) : text).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative && units !== 0n ? '-' : ''}${grouped}.${frac}`;
}

/** formatMoney renders an amount with two decimals and its currency: '1,234.50 USD'. */
export function formatMoney(value: string, currency: string): string {
  return `${formatDecimal(value)} ${currency}`.trim();
}

/**
 * formatAmount is formatMoney for an amount read from the wire: a value that
 * is not a decimal amount is shown as it came rather than throwing.
 */
export function formatAmount(value: string, currency: string): string {
  return isDecimal(value) ? formatMoney(value, currency) : `${value} ${currency}`.trim();
}
