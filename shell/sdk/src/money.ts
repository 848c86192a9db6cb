/**
 * The console's one money module: exact arithmetic on, and formatting of, the
 * decimal strings the services send amounts as (ARCHITECTURE "Money is
 * exact"). Amounts are scaled to integers (BigInt) at the larger of the
 * scales involved, so no sum, difference, comparison or rounding is ever a
 * float. Every function takes and returns plain decimal strings ('12',
 * '-0.5', '1234.50'); anything else (an exponent, grouping, a currency sign)
 * throws, except in formatAmount, which shows it as it came.
 */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** The digits after the point that money is shown with unless a caller says otherwise. */
export const MONEY_DIGITS = 2;

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

const abs = (n: bigint) => (n < 0n ? -n : n);

/** divide is n ÷ d rounded half away from zero (d ≠ 0). */
function divide(n: bigint, d: bigint): bigint {
  const q = (2n * abs(n) + abs(d)) / (2n * abs(d));
  return n < 0n !== d < 0n ? -q : q;
}

/** round is v at exactly `digits` digits after the point, half away from zero. */
function round(v: Scaled, digits: number): bigint {
  return digits >= v.scale ? rescale(v, digits) : divide(v.units, 10n ** BigInt(v.scale - digits));
}

function checkDigits(digits: number): void {
  if (!Number.isInteger(digits) || digits < 0) throw new Error(`digits must be a whole number of 0 or more, not ${digits}`);
}

function render(units: bigint, scale: number): string {
  const digits = abs(units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale);
  return `${units < 0n ? '-' : ''}${whole}${scale > 0 ? `.${frac}` : ''}`;
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

/** sumDecimals returns the exact sum of the amounts, at the largest scale among them; '0' for none. */
export function sumDecimals(values: Iterable<string>): string {
  let units = 0n;
  let scale = 0;
  for (const value of values) {
    const v = parse(value);
    if (v.scale > scale) {
      units *= 10n ** BigInt(v.scale - scale);
      scale = v.scale;
    }
    units += rescale(v, scale);
  }
  return render(units, scale);
}

/** addDecimal returns a + b exactly, at the larger scale of the two ('0.1' + '0.2' = '0.3'). */
export function addDecimal(a: string, b: string): string {
  return sumDecimals([a, b]);
}

/** negateDecimal returns −a, at a's scale ('-0' is '0'). */
export function negateDecimal(a: string): string {
  const v = parse(a);
  return render(-v.units, v.scale);
}

/** subDecimal returns a − b exactly, at the larger scale of the two. */
export function subDecimal(a: string, b: string): string {
  return sumDecimals([a, negateDecimal(b)]);
}

/** compareDecimal returns -1, 0 or 1 as a is below, equal to or above b ('1.50' equals '1.5'). */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  const d = rescale(x, scale) - rescale(y, scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** roundDecimal returns an amount with exactly `digits` digits after the point, half away from zero: ('1.005', 2) → '1.01', ('7', 2) → '7.00'. */
export function roundDecimal(value: string, digits: number): string {
  checkDigits(digits);
  return render(round(parse(value), digits), digits);
}

/** divideDecimal returns value ÷ divisor (a whole number, not 0) with `digits` digits after the point, half away from zero: an average. */
export function divideDecimal(value: string, divisor: number | bigint, digits: number): string {
  checkDigits(digits);
  if (typeof divisor === 'number' && !Number.isSafeInteger(divisor)) throw new Error(`divisor must be a whole number, not ${divisor}`);
  const d = BigInt(divisor);
  if (d === 0n) throw new Error('divisor must not be 0');
  const v = parse(value);
  // value ÷ d = units ÷ (10^scale · d); times 10^digits to keep `digits` of them.
  return render(divide(v.units * 10n ** BigInt(digits), 10n ** BigInt(v.scale) * d), digits);
}

/** trimDecimal writes an amount without the zeros that end its fraction: '1.5000' → '1.5', '15.00' → '15', '-0.0' → '0'. */
export function trimDecimal(value: string): string {
  const v = parse(value);
  let { units, scale } = v;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return render(units, scale);
}

/**
 * formatDecimal renders an amount with `digits` decimals (2 unless said;
 * half away from zero) and thousands separators: '-1234567.895' →
 * '-1,234,567.90'. An amount that rounds to zero shows no sign.
 */
export function formatDecimal(value: string, digits: number = MONEY_DIGITS): string {
  const text = roundDecimal(value, digits);
  const negative = text.startsWith('-');
  const [whole = '0', frac] = (negative ? text.slice(1) : text).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative ? '-' : ''}${grouped}${frac === undefined ? '' : `.${frac}`}`;
}

/**
 * formatMoney renders an amount with its currency: '1,234.50 USD'. `digits`
 * is the currency's digits after the point (the gateway's currencies list
 * says them, e.g. 0 for JPY); 2 unless said.
 */
export function formatMoney(value: string, currency: string, digits: number = MONEY_DIGITS): string {
  return `${formatDecimal(value, digits)} ${currency}`.trim();
}

/**
 * formatAmount is formatMoney for an amount read from the wire: a value that
 * is not a decimal amount is shown as it came rather than throwing.
 */
export function formatAmount(value: string, currency: string, digits: number = MONEY_DIGITS): string {
  return isDecimal(value) ? formatMoney(value, currency, digits) : `${value} ${currency}`.trim();
}
