import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as E from 'fp-ts/lib/Either.js';
import fc from 'fast-check';
import {
  advance,
  changeKindOf,
  eventFor,
  frameComment,
  frameEvent,
  frameReset,
  frameRetry,
  parseFeedIds,
  parseLastEventId,
  type ChangeEvent,
  type ChangeKind,
  type FeedFilter,
} from '../../lib/core/live-feed.js';
import { planRoutes } from '../../lib/core/plan-routes.js';
import { LIVE_ROUTE, ROUTE_TABLE, routeTable } from '../../lib/core/route-table.js';

const KINDS: readonly ChangeKind[] = ['created', 'updated', 'deleted', 'softDeleted', 'restored'];
const kindArb = fc.constantFrom(...KINDS);
const idArb = fc.string({ minLength: 1, maxLength: 12 });
const tenantArb = fc.constantFrom('A', 'B', 'C', 1, 2);

/** An event of resource R or S, each record with a tenant, or none (written before the model was scoped). */
const eventArb: fc.Arbitrary<ChangeEvent> = fc
  .record({
    id: fc.bigInt({ min: 1n, max: 10n ** 18n }).map(String),
    resource: fc.constantFrom('R', 'S'),
    kind: kindArb,
    records: fc.array(fc.tuple(idArb, tenantArb), { minLength: 1, maxLength: 8 }),
    scoped: fc.boolean(),
  })
  .map(({ id, resource, kind, records, scoped }) => ({
    id,
    resource,
    kind,
    ids: records.map(([record]) => record),
    scopes: scoped ? records.map(([, tenant]) => ({ tenant })) : [],
  }));

const filterArb: fc.Arbitrary<FeedFilter> = fc.record({
  resource: fc.constantFrom('R', 'S'),
  ids: fc.option(
    fc.array(idArb, { maxLength: 6 }).map((ids) => new Set(ids)),
    { nil: null },
  ),
  scopes: fc
    .option(fc.array(tenantArb, { minLength: 1, maxLength: 2 }), { nil: undefined })
    .map((values) => (values === undefined ? [] : [{ attribute: 'tenant', values }])),
});

/** A frame's fields, as an EventSource reads them. */
function fields(frame: string): Record<string, string> {
  assert.ok(frame.endsWith('\n\n'), 'a frame ends with a blank line');
  const lines = frame.slice(0, -2).split('\n');
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
}

describe('the change feed plan', () => {
  it('names each write action’s event kind, and no kind for a read', () => {
    assert.deepEqual(
      (['create', 'update', 'delete', 'softDelete', 'restore', 'search', 'read', 'options', 'exportCsv'] as const).map(
        changeKindOf,
      ),
      ['created', 'updated', 'deleted', 'softDeleted', 'restored', undefined, undefined, undefined, undefined],
    );
  });

  it('frames an event as id, event and a data line of its ids only, which an EventSource reads back', () => {
    assert.equal(
      frameEvent({ id: '3', kind: 'created', ids: ['7'] }),
      'id: 3\nevent: created\ndata: {"ids":["7"]}\n\n',
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), kindArb, fc.array(fc.string()), (id, kind, ids) => {
        const read = fields(frameEvent({ id: String(id), kind, ids }));
        assert.deepEqual(Object.keys(read), ['id', 'event', 'data']);
        assert.equal(read['id'], String(id));
        assert.equal(read['event'], kind);
        assert.deepEqual(JSON.parse(read['data']!), { ids });
      }),
    );
  });

  it('frames the retry hint, a reset with the position to resume from, and comments on one line', () => {
    assert.equal(frameRetry(3000), 'retry: 3000\n\n');
    assert.equal(frameReset('40'), 'id: 40\nevent: reset\ndata: {}\n\n');
    assert.equal(frameReset(undefined), 'event: reset\ndata: {}\n\n');
    fc.assert(
      fc.property(fc.string(), (text) => {
        const frame = frameComment(text);
        assert.ok(frame.startsWith(': '));
        assert.equal(frame.indexOf('\n'), frame.length - 2);
        assert.ok(!frame.includes('\r'));
      }),
    );
  });

  it('reads Last-Event-ID: absent or empty is a fresh start, a decimal id its text, anything else a fail naming it', () => {
    assert.deepEqual(parseLastEventId(undefined), E.right(undefined));
    assert.deepEqual(parseLastEventId(''), E.right(undefined));
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 19n - 1n }), (id) => {
        assert.deepEqual(parseLastEventId(String(id)), E.right(String(id)));
      }),
    );
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((text) => !/^\s*(0|[1-9]\d{0,18})\s*$/.test(text)),
        (text) => {
          const read = parseLastEventId(text);
          assert.ok(E.isLeft(read));
          assert.equal(read.left.field, 'Last-Event-ID');
          assert.equal(read.left.error, 'invalidValue');
        },
      ),
    );
    for (const bad of ['-1', '01', '1e3', '12345678901234567890', 'x']) assert.ok(E.isLeft(parseLastEventId(bad)), bad);
  });

  it('reads ?ids= as a set of the listed values, and refuses an empty item or a repeated parameter', () => {
    assert.deepEqual(parseFeedIds(undefined), E.right(null));
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z0-9-]{1,10}$/), { minLength: 1, maxLength: 20 }), (ids) => {
        assert.deepEqual(parseFeedIds(ids.join(',')), E.right(new Set(ids)));
      }),
    );
    for (const bad of ['', 'a,,b', ',', 'a,']) {
      const read = parseFeedIds(bad);
      assert.ok(E.isLeft(read) && read.left.field === 'ids', bad);
    }
    assert.ok(E.isLeft(parseFeedIds(['a', 'b'])));
    assert.ok(E.isLeft(parseFeedIds(Array.from({ length: 1001 }, (_, i) => i).join(','))));
  });

  it("shows a subscriber only its resource's records, within its scopes and its ids, in order, or nothing", () => {
    fc.assert(
      fc.property(filterArb, eventArb, (filter, event) => {
        const shown = eventFor(filter, event);
        const allowed = event.ids.filter((id, index) => {
          if (filter.ids !== null && !filter.ids.has(id)) return false;
          if (filter.scopes.length === 0) return true;
          const scope = event.scopes[index];
          return scope !== undefined && filter.scopes[0]!.values.includes(scope['tenant'] as never);
        });
        if (event.resource !== filter.resource || allowed.length === 0) assert.equal(shown, undefined);
        else assert.deepEqual(shown, { id: event.id, kind: event.kind, ids: allowed });
      }),
    );
  });

  it('compares scope values as the outbox keeps them: a number and its text are one tenant', () => {
    const event: ChangeEvent = { id: '1', resource: 'R', kind: 'created', ids: ['9'], scopes: [{ tenant: '7' }] };
    assert.deepEqual(eventFor({ resource: 'R', ids: null, scopes: [{ attribute: 'tenant', values: [7] }] }, event), {
      id: '1',
      kind: 'created',
      ids: ['9'],
    });
    assert.equal(
      eventFor({ resource: 'R', ids: null, scopes: [{ attribute: 'tenant', values: [] }] }, event),
      undefined,
    );
  });

  it('advances only over ids without a hole, until a hole is older than the grace', () => {
    assert.deepEqual(advance({ cursor: 4n, gapSince: undefined }, [5n, 7n], 100, 1000), {
      deliver: [5n],
      position: { cursor: 5n, gapSince: 100 },
    });
    assert.deepEqual(advance({ cursor: 5n, gapSince: 100 }, [7n], 1100, 1000), {
      deliver: [7n],
      position: { cursor: 7n, gapSince: undefined },
    });
    const idsArb = fc
      .uniqueArray(fc.bigInt({ min: 1n, max: 60n }), { maxLength: 30 })
      .map((ids) => ids.sort((a, b) => (a < b ? -1 : 1)));
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 30n }), idsArb, fc.nat(5000), fc.nat(3000), (cursor, ids, now, grace) => {
        const { deliver, position } = advance({ cursor, gapSince: undefined }, ids, now, grace);
        // In order, after the cursor, each one read; the cursor is the last handed out.
        deliver.forEach((id, i) => assert.ok(id > (i === 0 ? cursor : deliver[i - 1]!)));
        assert.ok(deliver.every((id) => ids.includes(id)));
        assert.equal(position.cursor, deliver.at(-1) ?? cursor);
        const after = ids.filter((id) => id > cursor);
        if (grace === 0) assert.deepEqual(deliver, after);
        else {
          // A fresh hole holds everything after it back.
          deliver.forEach((id, i) => assert.equal(id, cursor + BigInt(i) + 1n));
          assert.equal(position.gapSince !== undefined, deliver.length < after.length);
        }
      }),
    );
  });

  it('plans GET <uri>/changes only with live, before the {id} routes, under the search ability', () => {
    assert.equal(routeTable(false), ROUTE_TABLE);
    fc.assert(
      fc.property(fc.boolean(), (batch) => {
        assert.ok(!routeTable(batch).includes(LIVE_ROUTE));
        const table = routeTable(batch, true);
        const at = table.indexOf(LIVE_ROUTE);
        assert.ok(at > 0 && at < table.findIndex((entry) => entry.suffix.startsWith('/{')));
        assert.deepEqual(
          table.filter((entry) => entry !== LIVE_ROUTE),
          routeTable(batch),
        );
      }),
    );
    const resource = { actions: ['search', 'read'] as const };
    assert.deepEqual(
      planRoutes(resource, { uri: 'tags', moduleName: 'shop', live: true }).map((def) => def.path),
      ['tags', 'tags/changes', 'tags/{id:uuid}'],
    );
    assert.equal(planRoutes(resource, { uri: 'tags', live: true, except: ['changes'] }).length, 2);
    assert.equal(
      planRoutes(resource, { uri: 'tags', moduleName: 'shop', live: true })[1]!.ability,
      'shop.access.search',
    );
  });
});
