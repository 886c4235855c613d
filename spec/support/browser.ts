/**
 * Debian's Chromium driven by playwright-core, for the browser suites (spec/browser/). No browser is
 * ever downloaded: `.ci/run` installs Debian's `chromium` when /usr/bin/chromium is missing. Outside CI
 * a machine without it skips the suite visibly; with CI=true a missing browser fails the run.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian's chromium package puts the browser; FAST_CRUD_CHROMIUM overrides. */
export const CHROMIUM = process.env['FAST_CRUD_CHROMIUM'] ?? '/usr/bin/chromium';

/** Screenshots of what the browser suites saw, for a person to look at (gitignored). */
export const SCREENSHOTS = 'screenshots';

/** Why the browser suites cannot run here, or undefined when they can. Throws in CI. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is missing (apt-get install chromium; .ci/run does)`;
  if (process.env['CI'] === 'true') throw new Error(reason);
  return reason;
}

const ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A page that records console errors and uncaught exceptions; `problems` lists them. */
export interface WatchedPage {
  readonly page: Page;
  readonly problems: string[];
}

/**
 * Registers before/after hooks that launch one browser for the calling suite. `open()` gives a fresh
 * page (its own context, so downloads and storage never leak between tests) that records problems.
 */
export function browserInSuite(): { open(): Promise<WatchedPage>; shot(page: Page, name: string): Promise<void> } {
  let browser: Browser | undefined;
  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  });
  after(async () => {
    await browser?.close();
  });
  return {
    async open() {
      const context = await browser!.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
      page.on('requestfailed', (request) => {
        // A navigation cancels the prefetches of the page it leaves; that is not a failure.
        const reason = request.failure()?.errorText ?? '';
        if (reason !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} ${reason}`);
      });
      return { page, problems };
    },
    async shot(page, name) {
      await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
    },
  };
}

/**
 * Retries an assertion until it holds, like Playwright's `expect.poll`; after `timeout` ms its last
 * failure is thrown.
 */
export async function eventually(check: () => Promise<void>, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * react-admin 5.15.4 passes `InputProps`/`inputProps` to Material UI 9's TextField, which no longer
 * takes them (MUI moved them to `slotProps`), so React's development build warns that they reach a
 * DOM element. These two warnings, and nothing else, are let through; any other console error fails.
 */
const REACT_ADMIN_WARNINGS = [
  /^console: React does not recognize the `%s` prop on a DOM element\. .* InputProps inputprops \(/,
  /^console: React does not recognize the `%s` prop on a DOM element\. .* inputProps inputprops \(/,
];

/**
 * A react-admin page's problems (`WatchedPage.problems`) without react-admin's two known warnings.
 * @example assert.deepEqual(adminProblems(problems), []);
 */
export function adminProblems(problems: readonly string[]): string[] {
  return problems.filter((p) => !REACT_ADMIN_WARNINGS.some((known) => known.test(p)));
}
