import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repositoryRoot, type RunningPlatform } from './platform';

/** Debian's Chromium: Playwright's own browser downloads cannot be fetched here. */
const CHROMIUM_PATH = '/usr/bin/chromium';

export const DESKTOP_VIEWPORT = { width: 1280, height: 800 } as const;
export const PHONE_VIEWPORT = { width: 390, height: 844 } as const;

/** Where the screenshots a reader looks at instead of running the product are written. */
export const SCREENSHOTS_DIR = join(repositoryRoot, 'docs/screenshots');

/**
 * Starts headless Chromium. Playwright gives each launch a fresh temporary user-data-dir, so
 * no cookie, cache or permission carries over between runs.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A page of a new browser context (its own cookies) on the platform: desktop size, paths
 * relative to the platform's URL (or `options.origin`, another name of it), and the clipboard
 * allowed as a person would allow it. `acceptAnyCertificate` lets the page visit a test
 * server whose certificate a throw-away CA signed.
 */
export async function openAppPage(
  browser: Browser,
  platform: RunningPlatform,
  options: { origin?: string; acceptAnyCertificate?: boolean } = {},
): Promise<Page> {
  const origin = options.origin ?? platform.url;
  const context = await browser.newContext({
    baseURL: origin,
    viewport: DESKTOP_VIEWPORT,
    ignoreHTTPSErrors: options.acceptAnyCertificate === true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  pageProblems.set(page, problems);
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy/i.test(message.text())) {
      problems.push(`CSP: ${message.text()}`);
    }
  });
  return page;
}

/** Uncaught exceptions and Content-Security-Policy refusals of each page opened by openAppPage. */
const pageProblems = new WeakMap<Page, string[]>();

/**
 * Fails when the page threw an uncaught exception or the browser refused something under the
 * Content-Security-Policy since it was opened (failed API calls are the app's to show, not these).
 */
export function expectNoPageErrors(page: Page): void {
  expect(pageProblems.get(page) ?? []).toEqual([]);
}

/**
 * Signs in through the sign-in page's development form, as a person does, and waits until
 * the app has opened (their first workspace, or the page that creates one).
 */
export async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/app/sign-in');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

/** Fails with the findings when axe reports any serious or critical accessibility violation. */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      help: violation.help,
      elements: violation.nodes.map((node) => node.target.join(' ')),
    }));
  expect({ url: page.url(), violations: serious }).toEqual({ url: page.url(), violations: [] });
}

/**
 * Writes `docs/screenshots/<name>-desktop.png` (1280×800) and `<name>-phone.png` (390×844)
 * of the page as it is now, then puts the desktop size back.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  for (const [suffix, viewport] of [
    ['phone', PHONE_VIEWPORT],
    ['desktop', DESKTOP_VIEWPORT],
  ] as const) {
    await page.setViewportSize(viewport);
    await settled(page);
    await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}-${suffix}.png`), fullPage: true });
  }
}

/** Waits until the layout has followed a resize and no request is on its way. */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
      ),
  );
}
