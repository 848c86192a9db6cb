import { isHttpUrl } from './url';

/** DraftErrors holds one message per invalid field of a form's draft. */
export type DraftErrors<F extends string> = Partial<Record<F, string>>;

/** hasErrors tells whether a validation found anything. */
export const hasErrors = (e: object) => Object.keys(e).length > 0;

/** urlError checks a required http(s) URL typed into a form; undefined means valid. */
export function urlError(value: string, texts: { required: string; invalid: string }): string | undefined {
  const url = value.trim();
  if (url === '') return texts.required;
  return isHttpUrl(url) ? undefined : texts.invalid;
}

/** wholeNumberError checks a required whole number from min to max typed into a form; undefined means valid. */
export function wholeNumberError(value: string, min: number, max: number, texts: { required: string; range: string }): string | undefined {
  const text = value.trim();
  if (text === '') return texts.required;
  const n = Number(text);
  return Number.isInteger(n) && n >= min && n <= max ? undefined : texts.range;
}
