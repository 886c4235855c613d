/**
 * Nesting depth of JSON-like values, measured without recursion, so a value nested 100,000 levels deep cannot overflow
 * the stack.
 */
import type { ErrorCode, FailItem } from '../types.js';

/** The place of a value nested too deep: the path to it from the root (keys and list indexes). */
export type DepthPath = readonly (string | number)[];

/** What is wrong at a place in a value: nested past the limit, or a string (or key) holding a NUL character. */
export interface ValueProblem {
  readonly problem: 'tooDeep' | 'nul';
  readonly path: DepthPath;
}

/**
 * The path to the first array or object nested more than `max` levels deep in `value`, or
 * undefined when none is. A scalar is at depth 0, `[]` and `{}` at 1, `[[]]` at 2. Walks with an
 * explicit stack (no recursion), and stops at the first container past the limit.
 * @example tooDeepAt([[1]], 1) // [0]
 * @example tooDeepAt({ a: { b: 1 } }, 2) // undefined
 */
export function tooDeepAt(value: unknown, max: number): DepthPath | undefined {
  const found = walk(value, max, false);
  return found?.path;
}

/**
 * The first problem of a request body: a container nested deeper than `max`, or a NUL character in
 * a string or a key at any depth (SQLite cuts text there, PostgreSQL refuses it). Iterative, as `tooDeepAt`.
 * @example bodyProblem({ tags: ['a\u0000'] }, 64) // { problem: 'nul', path: ['tags', 0] }
 * @example bodyProblem({ name: 'Kite' }, 64) // undefined
 */
export function bodyProblem(value: unknown, max: number): ValueProblem | undefined {
  return walk(value, max, true);
}

/**
 * The field a problem is reported on: the body's top-level key, or `body` for the body itself (or a list body).
 * @example problemField(['meta', 0, 0]) // 'meta'
 * @example problemField([0, 0]) // 'body'
 */
export function problemField(path: DepthPath): string {
  return typeof path[0] === 'string' ? path[0] : 'body';
}

/**
 * The fail item for a value problem: `tooDeep` naming the field and the limit, or `invalidValue` for
 * a NUL character; the field is the body's key the problem is under, unless one is given (a filter's).
 * @example problemItem({ problem: 'tooDeep', path: ['meta', 0] }, 64)
 *   // { field: 'meta', error: 'tooDeep', message: 'meta nests arrays or objects deeper than 64 levels
 *   // (global.max_depth)' }
 */
export function problemItem(
  { problem, path }: ValueProblem,
  max: number,
  field = problemField(path),
): FailItem<ErrorCode> {
  return problem === 'tooDeep'
    ? {
        field,
        error: 'tooDeep',
        message: `${field} nests arrays or objects deeper than ${max} levels (global.max_depth)`,
      }
    : { field, error: 'invalidValue', message: `${field} must not contain NUL characters` };
}

type WalkNode = {
  readonly value: object;
  readonly depth: number;
  readonly parent: number;
  readonly key: string | number;
};

function walk(value: unknown, max: number, nul: boolean): ValueProblem | undefined {
  if (nul && typeof value === 'string' && value.includes('\u0000')) return { problem: 'nul', path: [] };
  if (!isContainer(value)) return undefined;
  // Each node: the container, its depth, and the index of its parent node with the key that leads to it.
  const nodes: WalkNode[] = [{ value, depth: 1, parent: -1, key: '' }];
  const pending: number[] = [0];
  while (pending.length > 0) {
    const index = pending.pop()!;
    const node = nodes[index]!;
    if (node.depth > max) return { problem: 'tooDeep', path: pathTo(nodes, index, []) };
    const children: [string | number, unknown][] = Array.isArray(node.value)
      ? node.value.map((child, i) => [i, child])
      : Object.entries(node.value);
    for (const [key, child] of children) {
      if (
        nul &&
        ((typeof key === 'string' && key.includes('\u0000')) || (typeof child === 'string' && child.includes('\u0000')))
      ) {
        return { problem: 'nul', path: pathTo(nodes, index, [key]) };
      }
      if (!isContainer(child)) continue;
      nodes.push({ value: child, depth: node.depth + 1, parent: index, key });
      pending.push(nodes.length - 1);
    }
  }
  return undefined;
}

/**
 * The JSON text of plain JSON data (objects, arrays, strings, numbers, booleans, null) at any
 * depth: `JSON.stringify`'s text, written with an explicit stack when `JSON.stringify` itself runs
 * out of stack. Object keys whose value is undefined or a function are left out, as JSON.stringify does.
 * @example stringifyJson([[['a']]]) // '[[["a"]]]'
 */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (thrown) {
    if (!(thrown instanceof RangeError)) throw thrown;
    return stringifyIteratively(value);
  }
}

type Frame = { readonly entries: readonly [string | number, unknown][]; readonly array: boolean; next: number };

function stringifyIteratively(root: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  const open = (value: unknown): void => {
    if (!isContainer(value) || hasToJson(value)) {
      out.push(JSON.stringify(value) ?? 'null');
      return;
    }
    const array = Array.isArray(value);
    const entries: [string | number, unknown][] = array
      ? (value as unknown[]).map((child, i) => [i, child])
      : Object.entries(value).filter(([, child]) => child !== undefined && typeof child !== 'function');
    out.push(array ? '[' : '{');
    stack.push({ entries, array, next: 0 });
  };
  open(root);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.entries.length) {
      out.push(frame.array ? ']' : '}');
      stack.pop();
      continue;
    }
    const [key, child] = frame.entries[frame.next]!;
    if (frame.next > 0) out.push(',');
    frame.next += 1;
    if (!frame.array) out.push(`${JSON.stringify(key)}:`);
    open(frame.array && (child === undefined || typeof child === 'function') ? null : child);
  }
  return out.join('');
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

function pathTo(nodes: readonly WalkNode[], index: number, tail: readonly (string | number)[]): DepthPath {
  const path: (string | number)[] = [];
  for (let at = index; nodes[at]!.parent !== -1; at = nodes[at]!.parent) path.push(nodes[at]!.key);
  return [...path.reverse(), ...tail];
}
