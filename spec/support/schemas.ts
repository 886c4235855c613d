/** Hand-written Standard Schemas for the validation suites: the interface alone, no library. */
import type { StandardSchemaV1 } from '../../lib/core.js';

/** What a check finds: the issues, or the output value. */
export type Checked = { readonly issues: readonly StandardSchemaV1.Issue[] } | { readonly value: unknown };

/**
 * A Standard Schema whose `validate` is `check`, synchronous or (with `async`) answering a promise.
 * @example standardSchema((value) => ({ value }))
 */
export function standardSchema(
  check: (value: unknown) => Checked,
  options: { async?: boolean; vendor?: string } = {},
): StandardSchemaV1 {
  const validate = (value: unknown) => {
    const checked = check(value);
    const result = 'issues' in checked ? { issues: checked.issues } : { value: checked.value };
    return options.async ? new Promise<typeof result>((resolve) => setTimeout(() => resolve(result), 1)) : result;
  };
  return { '~standard': { version: 1, vendor: options.vendor ?? 'hand-written', validate } };
}

/** An error shaped like zod's ZodError or valibot's ValiError: an Error with a list of issues. */
export class IssuesError extends Error {
  constructor(readonly issues: readonly unknown[]) {
    super('Validation failed');
    this.name = 'IssuesError';
  }
}
