/**
 * A test-only Refine page for spec/browser/refine-bulk.spec.ts: Refine's bulk hooks (`useCreateMany`, `useUpdateMany`,
 * `useDeleteMany`) on the demo's `products` through the shipped provider with `batch: true`, one button each. The
 * category of the records it creates comes in the page's query string (`?categoryId=`); what each call answered is
 * written, one line per call, into `<ol id="log">`.
 */
import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Refine, useCreateMany, useDeleteMany, useUpdateMany, type HttpError } from '@refinedev/core';
import { dataProvider } from 'koa-fast-crud/refine';

const categoryId = new URLSearchParams(location.search).get('categoryId') ?? '';
const resource = 'products';

interface Product {
  id: string;
  sku: string;
  price: number;
}

function BulkPage() {
  const [ids, setIds] = useState<string[]>([]);
  const [log, setLog] = useState<string[]>([]);
  const { mutate: createMany } = useCreateMany<Product>();
  const { mutate: updateMany } = useUpdateMany<Product>();
  const { mutate: deleteMany } = useDeleteMany<Product>();
  const write = (line: string) => setLog((lines) => [...lines, line]);
  const failed = (error: HttpError) =>
    write(`failed ${error.statusCode}: ${Object.keys(error.errors ?? {}).join(',')}`);
  const product = (n: number, price: number) => ({ sku: `RF-00${n}`, name: `Refine ${n}`, price, categoryId });
  return (
    <main>
      <button
        onClick={() =>
          createMany(
            { resource, values: [product(1, 11), product(2, 12)] },
            {
              onSuccess: ({ data }) => {
                setIds(data.map((row) => row.id));
                write(`created ${data.map((row) => row.sku).join(',')}`);
              },
              onError: failed,
            },
          )
        }
      >
        Create two
      </button>
      <button
        onClick={() =>
          createMany(
            { resource, values: [product(3, 13), product(4, -1)] },
            { onSuccess: () => write('created'), onError: failed },
          )
        }
      >
        Create a bad pair
      </button>
      <button
        onClick={() =>
          updateMany(
            { resource, ids, values: { price: 9.5 } },
            {
              onSuccess: ({ data }) => write(`updated ${data.map((row) => `${row.sku}:${row.price}`).join(',')}`),
              onError: failed,
            },
          )
        }
      >
        Update
      </button>
      <button
        onClick={() =>
          deleteMany({ resource, ids }, { onSuccess: ({ data }) => write(`deleted ${data.length}`), onError: failed })
        }
      >
        Delete
      </button>
      <ol id="log">
        {log.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ol>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Refine
      dataProvider={dataProvider('/api', { batch: true })}
      resources={[{ name: resource }]}
      options={{ disableTelemetry: true, mutationMode: 'pessimistic' }}
    >
      <BulkPage />
    </Refine>
  </StrictMode>,
);
