/** A real Koa server on a loopback port, and a small client for it. */
import type Koa from 'koa';
import type { AddressInfo } from 'node:net';

/** A response as the tests read it. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  readonly body: any;
}

/** A running server: request it, then close it. */
export interface TestServer {
  readonly url: string;
  request(method: string, path: string, init?: RequestInit): Promise<TestResponse>;
  get(path: string): Promise<TestResponse>;
  close(): Promise<void>;
}

/** Starts the app on 127.0.0.1 with a free port. Server faults are collected instead of printed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any app, whatever its state and context types
export async function serve(app: Koa<any, any>, errors: unknown[] = []): Promise<TestServer> {
  app.silent = true;
  app.on('error', (err: unknown) => errors.push(err));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request = async (method: string, path: string, init: RequestInit = {}): Promise<TestResponse> => {
    const response = await fetch(url + path, { ...init, method });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: parseJson(text) };
  };
  return {
    url,
    request,
    get: (path) => request('GET', path),
    // A browser keeps idle connections open (and opens some ahead of requests); close them too, or
    // close() waits for Node's headers timeout.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
