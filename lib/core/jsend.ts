/** JSend replies as values: success, fail and error bodies with their statuses. */
import type { ErrorCode, FailItem, OptionsError, Reply } from '../types.js';


/**
 * A success reply.
 * @example success([{ label: 'Books', value: 1 }]) // { status: 200, body: { status: 'success', data: [...], meta: {} } }
 */
export function success(data: unknown, status = 200, meta: Readonly<Record<string, unknown>> = {}): Reply {
  return { status, body: { status: 'success', data, meta } };
}

/**
 * A fail reply: the client's request is at fault, for the reasons listed.
 * @example fail(403, [{ field: null, error: 'forbidden', message: 'Forbidden' }])
 */
export function fail(status: number, items: readonly FailItem[], meta: Readonly<Record<string, unknown>> = {}): Reply {
  return { status, body: { status: 'fail', data: items, meta } };
}

/**
 * An error reply: the server is at fault. The message is fixed so nothing internal leaks.
 * @example error() // { status: 500, body: { status: 'error', message: 'Internal Server Error' } }
 */
export function error(status = 500, message = 'Internal Server Error'): Reply {
  return { status, body: { status: 'error', message } };
}

/**
 * The fail item of an options planning error, with a message a person can act on.
 * @example failItemOf({ _tag: 'required', field: 'label' }) // { field: 'label', error: 'required', message: 'The label field is required' }
 */
export function failItemOf(optionsError: OptionsError): FailItem<ErrorCode> {
  const { _tag, field } = optionsError;
  switch (_tag) {
    case 'required':
      return { field, error: _tag, message: `The ${field} field is required` };
    case 'columnNotFound':
      return { field, error: _tag, message: `The column ${JSON.stringify(field)} was not found` };
  }
}
