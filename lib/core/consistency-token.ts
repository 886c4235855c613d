/**
 * The consistency token of readYourWrites, as plain values: what a committed write hands its client
 * (`formatToken`), what a later request's token says (`parseToken`) and where its reads must run
 * (`requirementOf`). The token is the client's to send or to forge, so it is parsed strictly.
 */
import type { ReadRequirement } from '../types.js';

/**
 * A write a client made: a PostgreSQL transaction id (decimal xid8), compared on the reader itself, or
 * the time it committed, where no reader can compare (MariaDB, SQLite, no replicas).
 */
export type ConsistencyToken =
  { readonly kind: 'transaction'; readonly xid: string } | { readonly kind: 'time'; readonly at: number };

/** The largest xid8 PostgreSQL parses: a longer number would make its cast fail. */
const MAX_XID = 2n ** 63n - 1n;
const TRANSACTION = /^x([0-9]{1,19})$/;
const TIME = /^t([0-9]{1,15})$/;

/**
 * The token's text: `x` and the transaction id, or `t` and the commit time in ms since the epoch.
 * @example formatToken({ kind: 'transaction', xid: '7412' }) // 'x7412'
 * @example formatToken({ kind: 'time', at: 1764107000000 }) // 't1764107000000'
 */
export function formatToken(token: ConsistencyToken): string {
  return token.kind === 'transaction' ? `x${token.xid}` : `t${token.at}`;
}

/**
 * The token a request carries, or undefined for none or one that is not exactly what `formatToken`
 * writes (a transaction id past xid8's range, a time more than `window` ms after `now`): such a
 * request is served as one without a token.
 * @example parseToken('x7412', Date.now(), 2000) // { kind: 'transaction', xid: '7412' }
 * @example parseToken("x1'; DROP TABLE users; --", Date.now(), 2000) // undefined
 */
export function parseToken(text: string | undefined, now: number, window: number): ConsistencyToken | undefined {
  if (text === undefined) return undefined;
  const transaction = TRANSACTION.exec(text);
  if (transaction !== null) {
    const xid = BigInt(transaction[1]!);
    return xid <= MAX_XID ? { kind: 'transaction', xid: xid.toString() } : undefined;
  }
  const time = TIME.exec(text);
  if (time === null) return undefined;
  const at = Number(time[1]);
  return at <= now + window ? { kind: 'time', at } : undefined;
}

/**
 * Where the reads of a request with `token` must run: where the transaction is visible; on the primary
 * until `window` ms after the commit time; anywhere (undefined) after it or without a token.
 * @example requirementOf({ kind: 'transaction', xid: '7412' }, Date.now(), 2000) // { visible: '7412' }
 * @example requirementOf({ kind: 'time', at: Date.now() - 500 }, Date.now(), 2000) // { primary: true }
 */
export function requirementOf(
  token: ConsistencyToken | undefined,
  now: number,
  window: number,
): ReadRequirement | undefined {
  if (token === undefined) return undefined;
  if (token.kind === 'transaction') return { visible: token.xid };
  return now - token.at < window ? { primary: true } : undefined;
}
