/** A TCP proxy of the tests' own (node:net) between an app and its database: cut it, slow it, restore it. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A running proxy: `port` on 127.0.0.1 forwards to the database. */
export interface TcpProxy {
  readonly port: number;
  /** Resets every open connection and every new one (the database looks gone: ECONNRESET). */
  cut(): void;
  /** Delays every chunk, both ways, by `ms` (the database looks slow). */
  slow(ms: number): void;
  /** Forwards again, at once. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free loopback port that forwards to `host:port`.
 * @example const proxy = await startProxy('127.0.0.1', 5432); proxy.cut(); … proxy.restore();
 */
export async function startProxy(host: string, port: number): Promise<TcpProxy> {
  let cut = false;
  let delay = 0;
  const pairs = new Set<[net.Socket, net.Socket]>();
  /** Pipes `from` into `to`, each chunk `delay` ms late, in order (a chunk is never written before an earlier one). */
  const forward = (from: net.Socket, to: net.Socket) => {
    let lastDue = 0;
    from.on('data', (chunk) => {
      const write = () => to.destroyed || to.write(chunk);
      const due = Math.max(Date.now() + delay, lastDue);
      lastDue = due;
      if (due <= Date.now()) write();
      else setTimeout(write, due - Date.now());
    });
  };
  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (cut) return void client.resetAndDestroy();
    const upstream = net.connect(port, host);
    upstream.on('error', () => client.destroy());
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      cut = true;
      for (const [client, upstream] of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    slow(ms) {
      delay = ms;
    },
    restore() {
      cut = false;
      delay = 0;
    },
    close: () =>
      new Promise((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
