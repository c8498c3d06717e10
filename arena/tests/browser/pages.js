'use strict';
// Pages opened in headless Chromium (Debian's, driven by playwright-core), and what each
// showed: for the Rust tests that make pages and need a browser to look at them
// (arena/tests/it/inert.rs). They write the pages as JSON on standard input and read the
// findings as JSON on standard output; the assertions are theirs.
//
// In: [{ "name", "url", "steps": [{ "wait": SELECTOR } | { "select": [SELECTOR, VALUE] } |
//        { "fill": [SELECTOR, VALUE] } | { "click": SELECTOR }] }]
// (a `wait` is met once its selector, playwright's, selects an element of the page, within
// 30 s: selectors and not script, which the pages' content security policy keeps from running).
// Out: per page, in order: { "name", "done" (every step was met), "failed_step", "problem",
// "console" (every message), "errors" (uncaught), "responses" (4xx and 5xx, and requests that
// failed, but an event stream the page closed itself), "dialogs", "title", "text" (the body's innerText), "scripts" (each script element's
// `src`, or `inline TYPE`), "suspects" (the markup of any img, iframe, object, embed, element
// with an inline `on…` handler, or #injected), "pwned" (body's data-pwned, if set), "links"
// (every link's href) }.

const fs = require('node:fs');
const { chromium } = require('playwright-core');

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(p => fs.existsSync(p));

async function look(browser, { name, url, steps = [] }) {
  // A context of its own: no storage shared between pages.
  const context = await browser.newContext();
  const page = await context.newPage();
  const found = { name, done: false, failed_step: null, problem: null, console: [], errors: [], responses: [], dialogs: [] };
  page.on('console', m => found.console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', e => found.errors.push(e.message));
  page.on('response', r => {
    if (r.status() >= 400) found.responses.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on('requestfailed', r => {
    // An event stream the page closed itself (a match's, at its end: an EventSource would
    // otherwise reconnect) is aborted by design, whether or not the server had closed it first.
    const closedByThePage = r.failure()?.errorText === 'net::ERR_ABORTED' && new URL(r.url()).pathname.endsWith('/events');
    if (!closedByThePage) found.responses.push(`failed ${r.method()} ${r.url()}: ${r.failure()?.errorText}`);
  });
  page.on('dialog', d => {
    found.dialogs.push(`${d.type()}: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  try {
    await page.goto(url, { waitUntil: 'load' });
    for (const [k, step] of steps.entries()) {
      found.failed_step = k;
      if (step.wait !== undefined) await page.waitForSelector(step.wait, { state: 'attached', timeout: 30000 });
      else if (step.select) await page.selectOption(...step.select);
      else if (step.fill) await page.fill(...step.fill);
      else if (step.click) await page.click(step.click);
      else throw new Error(`an unknown step: ${JSON.stringify(step)}`);
    }
    found.failed_step = null;
    found.done = true;
  } catch (e) {
    found.problem = String(e.message || e);
  }
  Object.assign(
    found,
    await page.evaluate(() => ({
      title: document.title,
      text: document.body ? document.body.innerText : '',
      scripts: [...document.scripts].map(s => s.getAttribute('src') || 'inline ' + (s.type || 'text/javascript')),
      suspects: [...document.querySelectorAll('*')]
        .filter(e => e.matches('img, iframe, object, embed, #injected') || [...e.attributes].some(a => /^on/i.test(a.name)))
        .map(e => e.outerHTML.slice(0, 200)),
      pwned: (document.body && document.body.dataset.pwned) || null,
      links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
    })),
  );
  await context.close();
  return found;
}

async function main() {
  if (!CHROMIUM) throw new Error("headless Chromium is required (Debian's `chromium`, installed by .ci/run)");
  const pages = JSON.parse(fs.readFileSync(0, 'utf8'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const out = [];
  try {
    for (const p of pages) out.push(await look(browser, p));
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
