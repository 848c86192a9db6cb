import type { z } from 'zod';

/** FieldErrors maps a form's fields to their first message. */
export type FieldErrors<F extends string = string> = Partial<Record<F, string>>;

/** fieldErrors collects the first message of each field of a failed zod parse. */
export function fieldErrors<F extends string = string>(error: z.ZodError): FieldErrors<F> {
  const out: FieldErrors<F> = {};
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? '') as F;
    if (key && !out[key]) out[key] = issue.message;
  }
  return out;
}
