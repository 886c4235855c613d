/** The request deadline's own bookkeeping: steps race the request's stop, and nothing a step gave is kept after it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Sequelize } from 'sequelize';
import {
  RequestWork,
  runUnderDeadline,
  underFreshDeadline,
  underRequestDeadline,
  watchQueries,
} from '../../lib/execute/deadline.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the request deadline', () => {
  it('keeps no step result alive once the step is done, however long the request runs', async () => {
    // An export reads a thousand batches under one request; each must be collectable once written.
    const results: WeakRef<object>[] = [];
    await runUnderDeadline(new RequestWork(10_000), async () => {
      for (let i = 0; i < 3; i++)
        results.push(
          new WeakRef(await underFreshDeadline(async () => ({ batch: i, rows: new Array(10_000).fill(i) }))),
        );
      await nextTurn();
      gc();
      assert.deepEqual(
        results.map((result) => result.deref()),
        [undefined, undefined, undefined],
      );
    });
  });

  it('rejects the waiting step with the reason the request stopped, and refuses the next one', async () => {
    const request = new RequestWork(10_000);
    const reason = new Error('the client left');
    let ran = false;
    let checked: Promise<unknown> | undefined;
    // The request itself rejects with the reason too: that is what answers the client.
    await assert.rejects(
      runUnderDeadline(request, async () => {
        const waiting = underFreshDeadline(() => new Promise<never>(() => undefined));
        checked = Promise.allSettled([waiting]);
        request.stop(reason);
        await checked;
        await underFreshDeadline(async () => (ran = true));
      }),
      (error) => error === reason,
    );
    assert.deepEqual(await checked, [{ status: 'rejected', reason }]);
    assert.equal(ran, false);
  });

  it('stops with a named deadline error once a step takes longer than timeout_ms', async () => {
    let step: Promise<unknown> | undefined;
    await assert.rejects(
      runUnderDeadline(new RequestWork(20), async () => {
        // The step would answer after 500 ms (a timer that keeps the test's process alive; the deadline's does not).
        step = Promise.allSettled([underFreshDeadline(() => new Promise((resolve) => setTimeout(resolve, 500)))]);
        await step;
      }),
      { name: 'FastCrudDeadlineError' },
    );
    assert.equal(((await step) as PromiseRejectedResult[])[0]!.reason.name, 'FastCrudDeadlineError');
  });

  it('gives a step its own value or error when the request goes on', async () => {
    await runUnderDeadline(new RequestWork(10_000), async () => {
      assert.equal(await underFreshDeadline(async () => 42), 42);
      await assert.rejects(
        underFreshDeadline(async () => Promise.reject(new Error('constraint'))),
        { message: 'constraint' },
      );
    });
  });

  it('clears the deadline of a step that throws before it returns a promise', async () => {
    const request = new RequestWork(20);
    const thrown = new Error('thrown at once');
    await assert.rejects(
      runUnderDeadline(request, () => {
        throw thrown;
      }),
      (error) => error === thrown,
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(request.reason, undefined);
  });

  it('runs a driver query of a running request, and refuses one of a stopped request without running it', async () => {
    // SQLite: no statement limit to set first, so the query starts at once (the path without a promise of its own).
    const sequelize = new Sequelize({ dialect: 'sqlite', storage: ':memory:', logging: false });
    watchQueries(sequelize);
    const connection = {};
    try {
      const request = new RequestWork(10_000);
      await runUnderDeadline(request, async () => {
        assert.equal(await underRequestDeadline(sequelize, connection, async () => 42), 42);
        await assert.rejects(
          underRequestDeadline(sequelize, connection, async () => Promise.reject(new Error('syntax'))),
          { message: 'syntax' },
        );
      });
      const stopped = new RequestWork(10_000);
      const reason = new Error('the client left');
      let ran = false;
      let query: Promise<unknown> | undefined;
      await assert.rejects(
        runUnderDeadline(stopped, async () => {
          stopped.stop(reason);
          query = underRequestDeadline(sequelize, connection, async () => (ran = true));
          await query;
        }),
        (error) => error === reason,
      );
      await assert.rejects(query!, (error) => error === reason);
      assert.equal(ran, false);
    } finally {
      await sequelize.close();
    }
  });
});
