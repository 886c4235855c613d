/**
 * readYourWrites: a client reads what it wrote, even when reads go to replicas that lag behind the primary.
 */
import { formatToken, parseToken, requirementOf } from '../core/consistency-token.js';
import type { CrudPlugin } from '../types.js';

/** The request and reply header of the token (the cookie carries the same value). */
export const CONSISTENCY_HEADER = 'Consistency-Token';

/** readYourWrites' settings; every one has a default. */
export interface ReadYourWritesOptions {
  /** The cookie's name; `false`: no cookie, the `Consistency-Token` header only. Default `fast-crud-consistency`. */
  readonly cookie?: string | false;
  /**
   * Where a write has no transaction id to compare (MariaDB, SQLite, PostgreSQL without replicas): how
   * long after it, in ms, the client's reads go to the primary. Default 2000.
   */
  readonly window?: number;
  /** How long a PostgreSQL transaction id's cookie lives, in seconds. Default 60. */
  readonly maxAge?: number;
}

/**
 * A plugin that lets a client read its own writes through read replicas. After a write commits
 * (create, update, delete, softDelete, restore) the reply carries a token, as an HttpOnly,
 * SameSite=Lax cookie and as a `Consistency-Token` header. A read (search, options, read) that sends
 * it back (cookie, or the `Consistency-Token` request header) runs on a standby only if that
 * standby's snapshot already sees the write (PostgreSQL: the write's transaction id, checked with
 * `pg_visible_in_snapshot` on the connection the read uses), else on the primary, without waiting.
 * Elsewhere the token is the commit time, and reads go to the primary for `window` ms after it. A
 * malformed token is ignored; the worst a forged one does is send its own reads to the primary.
 * Give it to a resource, a `crud` call or `createFastCrud`.
 * @example createFastCrud({ plugins: [readYourWrites()] })
 */
export function readYourWrites(options: ReadYourWritesOptions = {}): CrudPlugin {
  const cookie = options.cookie ?? 'fast-crud-consistency';
  const window = options.window ?? 2000;
  const maxAge = options.maxAge ?? 60;
  if (!Number.isInteger(window) || window < 0)
    throw new RangeError(`readYourWrites: window must be ms ≥ 0, got ${window}`);
  if (!Number.isInteger(maxAge) || maxAge <= 0)
    throw new RangeError(`readYourWrites: maxAge must be s > 0, got ${maxAge}`);
  return {
    name: 'readYourWrites',
    readFrom: ({ ctx }) => {
      const header = ctx.get(CONSISTENCY_HEADER);
      const text = header !== '' ? header : cookie === false ? undefined : ctx.cookies.get(cookie);
      const now = Date.now();
      return requirementOf(parseToken(text, now, window), now, window);
    },
    committed: ({ ctx, transactionId, committedAt }) => {
      const token =
        transactionId !== undefined
          ? formatToken({ kind: 'transaction', xid: transactionId })
          : formatToken({ kind: 'time', at: committedAt });
      ctx.set(CONSISTENCY_HEADER, token);
      if (cookie === false) return;
      const lifetime = transactionId !== undefined ? maxAge * 1000 : Math.max(window, 1000);
      ctx.cookies.set(cookie, token, { httpOnly: true, sameSite: 'lax', path: '/', maxAge: lifetime, overwrite: true });
    },
  };
}
