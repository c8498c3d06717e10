'use strict';
// The drawn table's figures, in headless Chromium (`npm run bench:draw`, ARENA the arena binary,
// a release build for figures to quote): the weight of the match page (its HTML, style and
// scripts, as served), and the time from a person's click on a drawn thing to the drawing of
// the state after that move (the act call, the referee, the seat's event stream, the SVG
// drawn), over ROUNDS moves against a random agent: median, 99th percentile, range.

const { chromium } = require('playwright-core');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const ARENA = process.env.ARENA || path.resolve(__dirname, '../../../target/release/arena');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(p => fs.existsSync(p));
const ROUNDS = Number(process.env.ROUNDS || 300);

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function main() {
  const proc = spawn(ARENA, ['serve', '--addr', '127.0.0.1:0', '--http', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise((resolve, reject) => {
    readline.createInterface({ input: proc.stdout }).on('line', l => {
      const m = /^the web face: (\S+)$/.exec(l);
      if (m) resolve(m[1]);
    });
    proc.on('exit', c => reject(new Error('arena serve exited ' + c)));
  });
  const b = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    let bytes = 0;
    const parts = [];
    for (const p of ['match?id=x', 'static/arena.css', 'static/draw.css', 'static/arena.js', 'static/draw.js', 'static/match.js']) {
      const n = (await (await fetch(url + p)).arrayBuffer()).byteLength;
      bytes += n;
      parts.push(`${p.replace(/\?.*/, '')} ${n}`);
    }
    console.log(`page weight: ${bytes} bytes uncompressed (${parts.join(', ')}), no other request`);
    for (const [game, preset] of [['expedition', 'no-dice'], ['journey', 'classic']]) {
      const times = [];
      while (times.length < ROUNDS) {
        const page = await b.newPage({ viewport: { width: 1000, height: 900 } });
        await page.goto(url + 'play');
        await page.selectOption('#game', game);
        await page.selectOption('#preset', preset);
        await page.selectOption('#seat-count', '2');
        await page.selectOption('#seat-1', 'bot:random');
        await page.selectOption('#seat-0', 'person');
        await Promise.all([page.waitForURL(/\/match\?id=/), page.click('#start')]);
        for (;;) {
          const state = await Promise.race([
            page.waitForSelector('#result:not([hidden])', { timeout: 30000 }).then(() => 'over'),
            page.waitForSelector('#seat[data-to-move="yes"] #table:not(.waiting) svg .legal', { timeout: 30000 }).then(() => 'move'),
          ]);
          if (state === 'over' || times.length >= ROUNDS) break;
          // A thing with one action on it (its title one line): clicked in the page, timed to
          // the drawing of the next state.
          const ms = await page.evaluate(() => new Promise(resolve => {
            const table = document.getElementById('table');
            const before = Number(table.dataset.version);
            const one = [...table.querySelectorAll('svg .legal')].find(g => !g.querySelector('title').textContent.includes('\n'));
            if (!one) return resolve(null);
            const seen = new MutationObserver(() => {
              if (Number(table.dataset.version) > before && table.querySelector('svg')) {
                seen.disconnect();
                resolve(performance.now() - start);
              }
            });
            seen.observe(table, { attributes: true, childList: true });
            const start = performance.now();
            one.dispatchEvent(new MouseEvent('click', { bubbles: true }));
          }));
          if (ms === null) break;
          times.push(ms);
        }
        await page.close();
      }
      times.sort((a, b) => a - b);
      console.log(`${game} ${preset}: a click to its drawing: median ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms (${times[0].toFixed(1)}–${times[times.length - 1].toFixed(1)}), ${times.length} moves`);
    }
  } finally {
    await b.close();
    proc.kill();
  }
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
