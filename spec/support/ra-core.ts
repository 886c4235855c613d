/**
 * react-admin's side of the provider specs: the provider as its components get it (ra-core's `useDataProvider()`
 * proxy), rejections with ra-core's logging silenced, and the development mode in which the proxy checks replies.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { DataProviderContext, useDataProvider, type DataProvider } from 'ra-core';

/** The provider as react-admin components get it: ra-core's `useDataProvider()` proxy over ours, typed as `T`. */
export function throughRaCore<T extends DataProvider = DataProvider>(provider: DataProvider): T {
  let grabbed: DataProvider | undefined;
  const Grab = () => {
    grabbed = useDataProvider();
    return null;
  };
  renderToString(
    h(
      MemoryRouter,
      null,
      h(
        QueryClientProvider,
        { client: new QueryClient() },
        h(DataProviderContext.Provider, { value: provider }, h(Grab)),
      ),
    ),
  );
  assert.ok(grabbed, 'useDataProvider gave nothing');
  return grabbed as T;
}

/** Runs `fn` with console.error silenced (ra-core logs every rejected call in development). */
export async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const original = console.error;
  console.error = () => undefined;
  try {
    return await fn();
  } finally {
    console.error = original;
  }
}

/** The rejection of `promise`, which must be one, with ra-core's logging of it silenced. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return quietly(() =>
    promise.then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    ),
  );
}

/** Runs the file's suites with NODE_ENV=development, where ra-core's proxy validates reply shapes. */
export function inDevelopmentMode(): void {
  const previous = process.env['NODE_ENV'];
  before(() => {
    process.env['NODE_ENV'] = 'development';
  });
  after(() => {
    process.env['NODE_ENV'] = previous;
  });
}
