'use strict';
// The web face in real headless Chromium (Debian's, driven by playwright-core): a person sits
// at a table by clicking, plays whole games against built-in agents, a spectator follows the
// same game, and the server's record of it replays. Run by .ci/run (`npm test` here), against
// the arena binary the Rust tests built (or $ARENA).

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { chromium } = require('playwright-core');

const ARENA = process.env.ARENA || path.resolve(__dirname, '../../../target/debug/arena');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(p => fs.existsSync(p));
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-face-'));
const running = [];

after(() => {
  for (const p of running) p.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

// An arena command with a web face (`--http 127.0.0.1:0` among `args`); resolves once the
// face's address is printed, with the process, the address, its output lines as they come and
// every line so far.
function withFace(args) {
  const proc = spawn(ARENA, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(proc);
  const lines = readline.createInterface({ input: proc.stdout });
  const said = [];
  const warned = [];
  readline.createInterface({ input: proc.stderr }).on('line', line => warned.push(line));
  return new Promise((resolve, reject) => {
    lines.on('line', line => {
      said.push(line);
      const m = /^the web face: (http:\/\/\S+)$/.exec(line);
      if (m) resolve({ proc, url: m[1], lines, said, warned });
    });
    proc.on('exit', code => reject(new Error(`arena ${args[0]} exited (${code}) before its web face was up: ${said.join('\n')}`)));
  });
}

// The first truthy value of `f`, polled (what a process printed, say), within `ms`.
async function until(f, ms = 30000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise(r => setTimeout(r, 50))) {
    const v = await f();
    if (v) return v;
  }
  throw new Error(`not within ${ms} ms: ${f}`);
}

// `arena serve` on free ports, with its web face.
function serve(records) {
  return withFace(['serve', '--addr', '127.0.0.1:0', '--http', '127.0.0.1:0', '--records', records]);
}

function stopped(proc) {
  return new Promise(resolve => {
    proc.on('exit', resolve);
    proc.kill('SIGTERM');
  });
}

async function browser() {
  assert.ok(CHROMIUM, "headless Chromium is required (Debian's `chromium`, installed by .ci/run)");
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

// Every console message and page error of a page (none is expected).
function watchConsole(page, into) {
  page.on('console', m => into.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', e => into.push(`pageerror: ${e.message}`));
  page.on('response', r => {
    if (r.status() >= 400) into.push(`${r.status()}: ${r.url()}`);
  });
}

// A small seeded generator, so that a failing game can be played again.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// On the play page: pick the game, its preset, the seats (the person first), start.
async function newMatch(page, url, game, preset, others) {
  await page.goto(url + 'play');
  await page.selectOption('#game', game);
  await page.selectOption('#preset', preset);
  await page.selectOption('#seat-count', String(others.length + 1));
  for (const [i, who] of others.entries()) await page.selectOption(`#seat-${i + 1}`, who);
  await page.selectOption('#seat-0', 'person');
  await Promise.all([page.waitForURL(/\/match\?id=/), page.click('#start')]);
  return new URL(page.url()).searchParams.get('id');
}

// Click legal actions (chosen at random) until the result shows; the number of clicks.
async function playToTheEnd(page, seed) {
  const pick = rng(seed);
  let clicks = 0;
  for (;;) {
    const next = await Promise.race([
      page.waitForSelector('#result:not([hidden])', { timeout: 60000 }).then(() => 'over'),
      page.waitForSelector('#seat[data-to-move="yes"] #legal button:not([disabled])', { timeout: 60000 }).then(() => 'move'),
    ]);
    if (next === 'over') return clicks;
    const buttons = await page.$$('#legal button:not([disabled])');
    if (buttons.length === 0) continue;
    const label = await buttons[Math.floor(pick() * buttons.length)].textContent();
    // The buttons are rebuilt with every state: click the one with this label, if still there.
    const clicked = await page
      .locator('#legal button:not([disabled])', { hasText: label })
      .first()
      .click({ timeout: 2000 })
      .then(() => true, () => false);
    if (clicked) clicks += 1;
    assert.ok(clicks < 5000, 'the game does not end');
  }
}

// Every seat's view before each move and after the last, and the moves' labels, from the
// server's record of the game (`arena replay --text --seat S`): the full state, seat by seat.
function viewsOf(records, seats) {
  const views = [];
  let labels = [];
  for (let seat = 0; seat < seats; seat++) {
    const text = execFileSync(ARENA, ['replay', records, '--text', '--seat', String(seat)], { encoding: 'utf8' });
    const mine = [''];
    const moves = [];
    for (const line of text.split('\n').slice(1)) {
      const move = /^\s+\d+\. seat \d+ \(.*?\): (.*)$/.exec(line);
      if (move) {
        moves.push(move[1]);
        mine.push('');
      } else if (!/^\s+seat \d+: /.test(line) && !/^game \d+: /.test(line)) {
        mine[mine.length - 1] += line + '\n';
      }
    }
    views.push(mine);
    labels = moves;
  }
  return { views, labels };
}

// The cards a label names: a quoted name (expedition's missions and discoveries, "Dice card"),
// or a playing card (journey's ranks and suits, the Joker).
function cardsNamed(label) {
  const quoted = [...label.matchAll(/"([^"]+)"/g)].map(m => m[1]);
  const dice = label.includes('Dice card') ? ['Dice card'] : [];
  const playing = [...label.matchAll(/(?<![\w])(10|[2-9JQKA])[♠♥♦♣]/g)].map(m => m[0]);
  const joker = /\bJoker\b/.test(label) ? ['Joker'] : [];
  return [...quoted, ...dice, ...playing, ...joker];
}

// A spectator's move list shows exactly the record's labels, and no label names a card some
// seat could not see: every card named was in every seat's view before the move, or is after
// it (the move showed it to all), or is the card the mover plays from their own hand (playing
// it shows it: "discard a Dice card: …"). Checked against every seat's view at every position.
function checkPublic(shown, records, seats) {
  const { views, labels } = viewsOf(records, seats);
  return checkLabels(shown, views, labels);
}

function checkLabels(shown, views, labels) {
  assert.deepEqual(shown.map(l => l.replace(/^seat \d+ \(.*?\): /, '')), labels, 'the spectator page lists the moves made');
  let named = 0;
  labels.forEach((label, k) => {
    const mover = Number(/^seat (\d+) /.exec(shown[k])[1]);
    for (const card of cardsNamed(label)) {
      named += 1;
      const seen = view => view.includes(card);
      const before = views.every(v => seen(v[k]));
      const after = views.every(v => v[k + 1] !== undefined && seen(v[k + 1]));
      const played = playedCard(label) === card && seen(views[mover][k]);
      assert.ok(before || after || played, `move ${k + 1} (${label}) names ${card}, which not every seat could see`);
    }
  });
  return named;
}

// The card a move plays from its mover's hand: the one named right after "play" or "discard".
function playedCard(label) {
  const m = /^(?:play|discard)(?: a)? ("[^"]+"|Dice card|\S+)/.exec(label);
  return m ? cardsNamed(m[1])[0] : undefined;
}

test('the hidden-card check catches a label that names a card only its mover saw', () => {
  const views = [
    ['hand: "Secret Map"\n', 'hand: none\n'],
    ['cards: 1 (hidden)\n', 'cards: 0 (hidden)\n'],
  ];
  // Naming a card that was drawn unseen is a leak; playing it from one's hand shows it.
  assert.throws(() => checkLabels(['seat 0 (x): draw "Secret Map"'], views, ['draw "Secret Map"']), /Secret Map/);
  assert.equal(checkLabels(['seat 0 (x): discard "Secret Map"'], views, ['discard "Secret Map"']), 1);
  // Only by its holder.
  assert.throws(() => checkLabels(['seat 1 (x): discard "Secret Map"'], views, ['discard "Secret Map"']), /Secret Map/);
  const shown = [['face-up: "Open Map"\n', 'hand: "Open Map"\n'], ['face-up: "Open Map"\n', 'seen taken: "Open Map"\n']];
  assert.equal(checkLabels(['seat 0 (x): take "Open Map"'], shown, ['take "Open Map"']), 1);
  assert.deepEqual(cardsNamed('strike 10♦, then J♣ and the Joker'), ['10♦', 'J♣', 'Joker']);
  assert.equal(playedCard('discard a Dice card: draw two tools'), 'Dice card');
  assert.equal(playedCard('play 10♦ on the fight'), '10♦');
});

// The records file's games, as `arena replay` checks them.
function replayed(records) {
  return execFileSync(ARENA, ['replay', records], { encoding: 'utf8' });
}

for (const [game, preset, others, seed] of [
  ['expedition', 'no-dice', ['bot:greedy'], 7],
  ['journey', 'classic', ['bot:greedy'], 11],
]) {
  test(`a person plays a whole ${game} ${preset} game against greedy by clicking, watched by a spectator`, async () => {
    const records = path.join(scratch, `${game}.jsonl`);
    const { proc, url } = await serve(records);
    const b = await browser();
    const problems = [];
    let spectatorMoves = [];
    let watchedTables = [];
    try {
      const player = await b.newPage();
      watchConsole(player, problems);
      const front = await player.goto(url);
      const csp = front.headers()['content-security-policy'];
      assert.match(csp, /script-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      const id = await newMatch(player, url, game, preset, others);
      // A spectator in a browser of its own: no token, the public view alone.
      const spectatorContext = await b.newContext();
      const spectator = await spectatorContext.newPage();
      watchConsole(spectator, problems);
      const asked = [];
      spectator.on('request', r => asked.push(new URL(r.url()).pathname));
      await spectator.goto(url + 'match?id=' + id);
      // The table as a watcher sees it, drawn: what it held at each version it showed.
      await spectator.waitForSelector('#watched:not([hidden]) #watched-table svg.table', { timeout: 10000 });
      await spectator.evaluate(() => {
        const place = document.getElementById('watched-table');
        const note = () => window.watchedTables.push({
          version: Number(place.dataset.version),
          text: document.getElementById('watched').textContent,
        });
        window.watchedTables = [];
        note();
        new MutationObserver(note).observe(place, { attributes: true, attributeFilter: ['data-version'] });
      });
      // While the game is played, a seat's token may be typed here to sit at it.
      await spectator.waitForSelector('#join:not([hidden])', { timeout: 5000 });
      // The table links to the game's rules, a page of the face with a named section each.
      await spectator.waitForSelector('#rules:not([hidden])', { timeout: 5000 });
      const rulesHref = await spectator.getAttribute('#rules', 'href');
      assert.equal(rulesHref, '/rules/' + game);
      const rules = await spectatorContext.newPage();
      watchConsole(rules, problems);
      await rules.goto(url + rulesHref.slice(1));
      assert.match(await rules.textContent('h1'), /the rules as implemented/);
      assert.ok((await rules.$$('h2[id]')).length >= 5, 'the sections have ids');
      await rules.close();
      // The front page lists the match in play.
      const lister = await spectatorContext.newPage();
      watchConsole(lister, problems);
      await lister.goto(url);
      await lister.waitForSelector(`#matches a[href="/match?id=${id}"]`, { timeout: 5000 });
      await lister.close();

      // Each action's button links to the rule it applies, a section of the rules page.
      await player.waitForSelector('#legal button', { timeout: 10000 });
      const ruleLinks = await player.$$eval('#legal a.rule', links => links.map(a => a.getAttribute('href')));
      assert.ok(ruleLinks.length > 0 && ruleLinks.every(h => h.startsWith('/rules/' + game + '#')), ruleLinks.join(' '));
      const clicks = await playToTheEnd(player, seed);
      assert.ok(clicks > 0, 'the person moved');
      const result = await player.textContent('#result');
      assert.ok(result.length > 10, result);
      await spectator.waitForSelector('#result:not([hidden])', { timeout: 10000 });
      assert.equal(await spectator.isVisible('#join'), false, 'no seat to sit at once the game is over');
      const seen = (await spectator.textContent('#result')).replaceAll('a person', 'you');
      assert.equal(seen, result, 'the spectator sees the same end (the person named as such)');
      // The spectator saw every move and no seat's view: it never asked for one.
      const shownMoves = await spectator.$$eval('#moves li', lis => lis.map(li => li.textContent));
      const moves = shownMoves.length;
      spectatorMoves = shownMoves;
      assert.ok(moves >= clicks, `${moves} moves shown, ${clicks} of them the person's`);
      assert.equal(await spectator.isVisible('#seat'), false);
      assert.equal((await spectator.textContent('#view')).trim(), '');
      assert.ok(!asked.some(p => p.endsWith('/seat') || p.endsWith('/act')), asked.join(' '));
      watchedTables = await spectator.evaluate(() => window.watchedTables);
      assert.equal(await spectator.$$eval('#watched-table svg title', t => t[0].textContent), 'The table as anyone watching sees it');
      await spectatorContext.close();
      // The front page lists it among the finished, linked to the viewer.
      const front2 = await b.newPage();
      watchConsole(front2, problems);
      await front2.goto(url);
      await front2.waitForSelector(`#finished a[href="/game?id=${id}"]`, { timeout: 5000 });
      await front2.close();
      // The finished game in the step-through viewer: every position, every seat's view.
      await Promise.all([player.waitForURL(/\/game\?id=/), player.click('#replay')]);
      const where = await player.textContent('#where');
      const positions = Number(/of (\d+)/.exec(where)[1]);
      assert.ok(positions >= moves, `${where}: ${moves} moves were played`);
      assert.equal(await player.$$eval('#seats section', s => s.length), others.length + 1);
      await player.click('#next');
      assert.match(await player.textContent('#where'), /position 1 of/);
    } finally {
      await b.close();
      await stopped(proc);
    }
    assert.deepEqual(problems, [], 'console messages or page errors');
    // The record the server kept of the game replays, move for move.
    const out = replayed(records);
    assert.match(out, new RegExp(`^game 1: ${game} seed \\d+, \\d+ actions`), out);
    assert.doesNotMatch(out, /game 2/, out);
    // What the spectator saw, against the full state.
    const named = checkPublic(spectatorMoves, records, others.length + 1);
    assert.ok(named > 0, 'the labels name cards: the check checked something');
    // The spectator's drawn table followed the game to its last position, and at every version
    // it showed named no card that some seat could not see then.
    const { views } = viewsOf(records, others.length + 1);
    const versions = watchedTables.map(t => t.version);
    assert.ok(versions.length >= 3, `the table was drawn ${versions.length} times`);
    assert.ok(versions.every((v, i) => i === 0 || v > versions[i - 1]), versions.join(' '));
    assert.equal(versions[versions.length - 1], views[0].length - 1, 'the last position drawn');
    let checked = 0;
    for (const { version, text } of watchedTables) {
      for (const thing of thingsNamed(game, views)) {
        if (!text.includes(thing)) continue;
        checked += 1;
        const hidden = views.findIndex(v => !v[version].includes(thing));
        assert.equal(hidden, -1, `at version ${version} the watched table names ${thing}, which seat ${hidden} could not see`);
      }
    }
    assert.ok(checked > 0, 'the watched tables named cards: the check checked something');
  });
}

// How many times a drawn thing's hint linked to its rule (playByDrawing's last game).
let hints = 0;

// Click the drawn things the seat may act on (chosen at random; where several actions share a
// thing, one of those offered) until the result shows. Before each click and at the end, what
// the seat's part of the page holds (its text, the drawing's titles) and the state's version.
async function playByDrawing(page, seed, seen) {
  const pick = rng(seed);
  let clicks = 0;
  hints = 0;
  for (;;) {
    const next = await Promise.race([
      page.waitForSelector('#result:not([hidden])', { timeout: 60000 }).then(() => 'over'),
      page.waitForSelector('#seat[data-to-move="yes"] #table:not(.waiting) svg .legal', { timeout: 60000 }).then(() => 'move'),
    ]);
    seen.push(await page.evaluate(() => ({
      version: Number(document.getElementById('table').dataset.version),
      text: document.getElementById('seat').textContent + '\n' +
        [...document.querySelectorAll('#table title')].map(t => t.textContent).join('\n'),
    })));
    if (next === 'over') return clicks;
    const things = await page.$$eval('#table svg .legal', gs => gs.map(g => g.dataset.target));
    if (things.length === 0) continue;
    const target = things[Math.floor(pick() * things.length)];
    if (clicks === 0) {
      // The pointer on a drawn thing says its actions beside the drawing, their rules linked
      // to sections of the rules page that exist.
      await page.hover(`#table:not(.waiting) svg .legal[data-target="${target}"]`, { timeout: 2000 }).catch(() => {});
      const hinted = await page.waitForSelector('#hint:not([hidden]) a.rule', { timeout: 2000 }).then(() => true, () => false);
      if (hinted) {
        const href = await page.getAttribute('#hint a.rule', 'href');
        const [rulesPath, section] = href.split('#');
        const rules = await (await page.request.get(new URL(rulesPath, page.url()).href)).text();
        assert.ok(rules.includes(`id="${decodeURIComponent(section)}"`), `${href}: no such section`);
        hints += 1;
      }
    }
    const clicked = await page
      .locator(`#table:not(.waiting) svg .legal[data-target="${target}"]`)
      .first()
      .click({ timeout: 2000 })
      .then(() => true, () => false);
    if (!clicked) continue;
    if (await page.isVisible('#chooser')) {
      const offered = await page.$$('#chooser button[data-action]');
      assert.ok(offered.length >= 2, 'a chooser offers the actions its thing shares');
      await offered[Math.floor(pick() * offered.length)].click();
    }
    clicks += 1;
    assert.ok(clicks < 5000, 'the game does not end');
  }
}

// What a drawing may name that another seat could hide: journey's playing cards, expedition's
// cards (quoted in the views: missions, discoveries).
function thingsNamed(game, views) {
  if (game === 'journey') return [...new Set(views.flat().flatMap(v => cardsNamed(v)))].filter(c => c !== 'Joker');
  return [...new Set(views.flat().flatMap(v => [...v.matchAll(/"([^"]+)"/g)].map(m => m[1])))];
}

for (const [game, preset, others, seed, width] of [
  ['expedition', 'no-dice', ['bot:greedy'], 3, 1000],
  ['expedition', 'dice', ['bot:greedy', 'bot:random'], 5, 375],
  ['expedition', 'no-dice', ['bot:random', 'bot:greedy', 'bot:random'], 9, 1000],
  ['journey', 'classic', ['bot:greedy'], 13, 1000],
  ['journey', 'martian', ['bot:greedy', 'bot:random'], 17, 375],
  ['journey', 'dunwich', ['bot:random', 'bot:greedy', 'bot:greedy'], 19, 1000],
]) {
  test(`a person plays ${game} ${preset} with ${others.length + 1} seats by clicking the drawn table (${width} px)`, async () => {
    const records = path.join(scratch, `drawn-${game}-${preset}-${others.length}.jsonl`);
    const { proc, url } = await serve(records);
    const b = await browser();
    const problems = [];
    const seen = [];
    let clicks = 0;
    let widest = 0;
    try {
      const context = await b.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      watchConsole(page, problems);
      await newMatch(page, url, game, preset, others);
      await page.waitForSelector('#table svg', { timeout: 20000 });
      clicks = await playByDrawing(page, seed, seen);
      widest = await page.evaluate(() => document.documentElement.scrollWidth);
      // The finished game steps through drawn: every seat's view at every position.
      await Promise.all([page.waitForURL(/\/game\?id=/), page.click('#replay')]);
      const missing = await page.evaluate(seats => {
        const short = [];
        const total = Number(/of (\d+)/.exec(document.getElementById('where').textContent)[1]);
        let marked = 0;
        for (let k = 0; k <= total; k++) {
          if (document.querySelectorAll('#seats svg.table').length !== seats) short.push(k);
          if (document.querySelector('#seats svg.table .last')) marked += 1;
          document.getElementById('next').click();
        }
        return { short, total, marked };
      }, others.length + 1);
      assert.deepEqual(missing.short, [], `positions not drawn for every seat (of ${missing.total})`);
      assert.ok(missing.total > 5, 'the game had positions to step through');
      assert.ok(missing.marked > 0, 'the thing the last move acted on is marked');
    } finally {
      await b.close();
      await stopped(proc);
    }
    assert.deepEqual(problems, [], 'console messages or page errors');
    assert.ok(clicks > 0, 'the person moved by clicking the drawing');
    assert.equal(hints, 1, "the first drawn thing's hint linked to its rule");
    assert.ok(widest <= width, `the page is ${widest} px wide in a ${width} px viewport: no sideways scrolling`);
    // Nothing the person's page held at any step named a card their seat could not see then.
    const { views } = viewsOf(records, others.length + 1);
    const named = thingsNamed(game, views);
    let checked = 0;
    for (const { version, text } of seen) {
      const mine = views[0][version];
      assert.ok(mine !== undefined, `a state of version ${version}: the record has ${views[0].length} positions`);
      for (const thing of named) {
        if (!text.includes(thing)) continue;
        checked += 1;
        assert.ok(mine.includes(thing), `at version ${version} the page names ${thing}, which seat 0 could not see`);
      }
    }
    assert.ok(checked > 0, 'the pages named cards: the check checked something');
    assert.match(replayed(records), new RegExp(`^game 1: ${game} seed`));
  });
}

// A whole game with the keyboard alone: Tab to a legal action's button, Enter; no mouse.
test('a person plays a whole expedition game with the keyboard alone', async () => {
  const records = path.join(scratch, 'keyboard.jsonl');
  const { proc, url } = await serve(records);
  const b = await browser();
  const problems = [];
  let moves = 0;
  try {
    const page = await b.newPage();
    watchConsole(page, problems);
    await newMatch(page, url, 'expedition', 'no-dice', ['bot:greedy']);
    for (;;) {
      const next = await Promise.race([
        page.waitForSelector('#result:not([hidden])', { timeout: 60000 }).then(() => 'over'),
        page.waitForSelector('#seat[data-to-move="yes"] #legal button:not([disabled])', { timeout: 60000 }).then(() => 'move'),
      ]);
      if (next === 'over') break;
      // Tab until a legal action's button has the focus (the page's own order), then Enter.
      let focused = false;
      for (let k = 0; k < 60 && !focused; k++) {
        await page.keyboard.press('Tab');
        focused = await page.evaluate(() => Boolean(document.activeElement && document.activeElement.closest('#legal') &&
          document.activeElement.tagName === 'BUTTON' && !document.activeElement.disabled));
      }
      if (!focused) continue;
      const before = await page.getAttribute('#table', 'data-version');
      await page.keyboard.press('Enter');
      moves += 1;
      await page.waitForFunction(v => document.getElementById('table').dataset.version !== v ||
        !document.getElementById('result').hidden, before, { timeout: 30000 });
      assert.ok(moves < 2000, 'the game does not end');
    }
  } finally {
    await b.close();
    await stopped(proc);
  }
  assert.deepEqual(problems, [], 'console messages or page errors');
  assert.ok(moves > 0, 'the person moved by keyboard');
  assert.match(replayed(records), /^game 1: expedition seed/);
});

test('the face refuses what a stranger may not do, with a message that names it', async () => {
  const { proc, url } = await serve(path.join(scratch, 'refusals.jsonl'));
  try {
    const post = (p, body, headers = {}) =>
      fetch(url + p.slice(1), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    let r = await post('/api/matches', '{"game": "chess", "seats": ["person"]}');
    assert.equal(r.status, 400);
    assert.match((await r.json()).error, /unknown game `chess`/);
    r = await post('/api/matches', '{"game": "expedition", "seats": ["person", {"bot": "greedy"}], "extra": 1}');
    assert.equal(r.status, 422);
    assert.match((await r.json()).error, /extra/);
    r = await post('/api/matches', 'x'.repeat(100000));
    assert.equal(r.status, 413);
    r = await post('/api/matches', '{"game": "expedition", "preset": "no-dice", "seats": ["person", {"bot": "greedy"}]}');
    assert.equal(r.status, 200);
    const made = await r.json();
    assert.equal(made.seats.length, 1);
    const act = `/api/matches/${made.match_id}/act`;
    r = await post(act, '{"action": 0}');
    assert.equal(r.status, 401);
    r = await post(act, '{"action": 0}', { authorization: 'Bearer not-a-token' });
    assert.equal(r.status, 403);
    // (The deal may give greedy the first move: the person's seat is asked once greedy has
    // moved; until then an action is refused as out of turn, 409.)
    for (let i = 0; i < 200; i += 1) {
      r = await post(act, '{"action": 999999}', { authorization: 'Bearer ' + made.seats[0].token });
      if (r.status !== 409) break;
      await new Promise((done) => setTimeout(done, 50));
    }
    assert.equal(r.status, 400);
    assert.match((await r.json()).error, /not legal now/);
    r = await fetch(url + 'static/..%2f..%2fCargo.toml');
    assert.equal(r.status, 404);
    r = await fetch(url + 'api/standings');
    assert.equal(r.status, 404);
    assert.match((await r.json()).error, /no ladder/);
  } finally {
    await stopped(proc);
  }
});

// `arena ladder FILE` with its web face (its anchors play at once).
function ladder(file, data) {
  return withFace(['ladder', file, '--addr', '127.0.0.1:0', '--http', '127.0.0.1:0', '--data', data]);
}

test("the front page follows a ladder's standings as games are rated", async () => {
  // Quick anchors, so that the rating history has points within seconds.
  const file = path.join(scratch, 'ladder.yaml');
  fs.writeFileSync(
    file,
    [
      'name: quick',
      'games:',
      '  - { game: expedition, preset: no-dice, params: { players: 2 } }',
      'anchors:',
      '  - { name: random, bot: random }',
      '  - { name: greedy, bot: greedy }',
      '  - { name: rules, bot: rules }',
      'refit_ms: 300',
      // The anchors keep meeting while the page is open (by default they stop once their
      // intervals are 100 Elo wide, which a fast machine reaches before the page loads).
      'anchor_interval: 1',
      '',
    ].join('\n'),
  );
  const { proc, url } = await ladder(file, path.join(scratch, 'ladder'));
  const b = await browser();
  const problems = [];
  try {
    const page = await b.newPage();
    watchConsole(page, problems);
    await page.goto(url);
    await page.waitForSelector('#standings:not([hidden]) table.standings td', { timeout: 30000 });
    const games = async () => Number((await page.textContent('#standings-summary')).split(' ')[0]);
    const first = await games();
    // The standings move without a reload: more games rated, the anchors listed with intervals.
    await page.waitForFunction(
      n => Number(document.getElementById('standings-summary').textContent.split(' ')[0]) > n,
      first,
      { timeout: 30000 },
    );
    // Every anchor is rated before long, each marked as one.
    await page.waitForFunction(() => document.querySelectorAll('table.standings')[0]?.rows.length === 4, null, {
      timeout: 60000,
    });
    const agents = await page.$$eval('table.standings:first-of-type tr td:nth-child(2)', tds => tds.map(t => t.textContent));
    assert.deepEqual([...agents].sort(), ['greedy (anchor)', 'random (anchor)', 'rules (anchor)']);
    const interval = await page.textContent('table.standings td:nth-child(4)');
    assert.match(interval, /^-?\d+ … -?\d+$/);
    assert.equal(await page.textContent('#ladder-name'), 'Ladder quick');
    // Every mark has its legend: the colours of connected and away agents are said in words,
    // in the very classes the names are drawn with.
    const legend = await page.$$eval('#standings-legend span', spans => spans.map(s => [s.className, s.textContent]));
    assert.deepEqual(legend.map(l => l[0]), ['connected', 'away']);
    const named = await page.$$eval('table.standings td:nth-child(2) .connected, table.standings td:nth-child(2).connected', e => e.length);
    assert.ok(named > 0, 'the anchors are drawn as connected, the class the legend explains');
    // The progression: a line per leader once the history has points.
    await page.waitForSelector('#progression-figure:not([hidden]) svg polyline', { timeout: 60000 });
    const keyed = await page.$$eval('#progression-key span', spans => spans.map(s => s.textContent));
    assert.ok(keyed.length >= 1 && keyed.every(k => ['greedy', 'random', 'rules'].includes(k)), keyed.join(', '));
    // The search keeps the rows of the names that hold what is typed.
    await page.fill('#search', 'GRE');
    const shown = await page.$$eval('table.standings tr[data-agent]:not([hidden]) td:nth-child(2)', tds => tds.map(t => t.textContent));
    assert.ok(shown.length >= 1 && shown.every(t => t.startsWith('greedy')), shown.join(', '));
    // A name opens the agent's page: its rating over time, head-to-head, its games.
    await Promise.all([page.waitForURL(/\/agent\?name=greedy/), page.click('table.standings a[href="/agent?name=greedy"]')]);
    await page.waitForSelector('#games a[href^="/game?ladder="]', { timeout: 10000 });
    assert.equal(await page.textContent('#title'), 'greedy');
    const opponents = await page.$$eval('#head-to-head a', as => as.map(a => a.textContent).sort());
    assert.ok(opponents.length >= 1 && opponents.every(o => ['random', 'rules'].includes(o)), opponents.join(', '));
    await page.waitForSelector('#history-figure:not([hidden]) polyline.rating', { timeout: 30000 }).catch(() => {});
    // A game of its list steps through, drawn.
    await Promise.all([page.waitForURL(/\/game\?ladder=/), page.click('#games a[href^="/game?ladder="]')]);
    await page.waitForSelector('#seats svg.table', { timeout: 10000 });
    assert.equal(await page.$$eval('#seats svg.table', s => s.length), 2);
  } finally {
    await b.close();
    await stopped(proc);
  }
  assert.deepEqual(problems, [], 'console messages or page errors');
});

test('a person challenges an anchor from its page to a game and to a cooperative deal, plays both on the drawing, and is rated as a person', async () => {
  const file = path.join(scratch, 'people.yaml');
  fs.writeFileSync(
    file,
    [
      'name: people',
      'games:',
      '  - { game: expedition, preset: no-dice, params: { players: 2 } }',
      '  - { game: expedition, preset: no-dice, params: { players: 3 } }',
      '  - { game: journey, preset: classic, params: { travellers: 2 } }',
      'anchors:',
      '  - { name: random, bot: random }',
      '  - { name: greedy, bot: greedy }',
      'refit_ms: 300',
      'provisional_games: 0',
      '',
    ].join('\n'),
  );
  const { proc, url } = await ladder(file, path.join(scratch, 'people'));
  const b = await browser();
  const problems = [];
  try {
    const page = await b.newPage();
    watchConsole(page, problems);
    await page.goto(url + 'agent?name=greedy');
    await page.waitForSelector('#challenge:not([hidden]) #challenge-entry option', { state: 'attached' });
    // The two-seat competitive entry and the cooperative one are offered, not three seats.
    const offered = await page.$$eval('#challenge-entry option', os => os.map(o => o.textContent));
    assert.equal(offered.length, 2, offered.join(', '));
    assert.ok(!offered.some(o => o.includes('players: 3') || o.includes('3p')), offered.join(', '));
    // A name an anchor holds is refused, by name.
    await page.fill('#challenge-name', 'random');
    await page.click('#challenge-start');
    await page.waitForSelector('#problem:not([hidden])');
    assert.match(await page.textContent('#problem'), /agent's name on this ladder/);
    await page.fill('#challenge-name', 'ada');
    await Promise.all([page.waitForURL(/\/match\?id=/), page.click('#challenge-start')]);
    await page.waitForSelector('#table svg', { timeout: 20000 });
    assert.ok((await playByDrawing(page, 23, [])) > 0, 'the person played');
    // A cooperative deal: the person plays it at both seats (the page shows the seat to move),
    // greedy plays the same deal at both in a match of its own; the plays are compared.
    await page.goto(url + 'agent?name=greedy');
    await page.waitForSelector('#challenge:not([hidden]) #challenge-entry option', { state: 'attached' });
    const journey = await page.$$eval('#challenge-entry option', os => os.find(o => /journey/.test(o.textContent)).value);
    await page.selectOption('#challenge-entry', journey);
    await page.fill('#challenge-name', 'ada');
    await Promise.all([page.waitForURL(/\/match\?id=/), page.click('#challenge-start')]);
    await page.waitForSelector('#table svg', { timeout: 20000 });
    assert.match(await page.textContent('#seat-title'), /Your seats: .*seat 0.*seat 1|Your seats:/);
    assert.ok((await playByDrawing(page, 29, [])) > 0, 'the person played the deal');
    // Rated, and marked as a person, in the standings: overall, and in each entry's list.
    await page.goto(url);
    await page.waitForFunction(
      () => [...document.querySelectorAll('table.standings td:nth-child(2)')].filter(td => td.textContent === 'ada (person)').length >= 3,
      null,
      { timeout: 30000 },
    );
    assert.match(await page.textContent('#standings-legend'), /\(person\)/);
  } finally {
    await b.close();
    await stopped(proc);
  }
  // The refused name's 403 was the page's to report: expected, not a fault.
  assert.deepEqual(problems.filter(p => !/403/.test(p)), [], 'console messages or page errors');
});

test("the front page follows a tournament's standings to its last game", async () => {
  const file = path.join(scratch, 'watched.yaml');
  fs.writeFileSync(
    file,
    [
      'name: watched',
      'seed: 3',
      'games_per_pairing: 15',
      'participants:',
      '  - { name: random, bot: random }',
      '  - { name: rules, bot: rules }',
      // The tournament waits for this one: the page is open before any game is played.
      '  - { name: visitor, connect: true }',
      'games:',
      '  - { game: expedition, preset: no-dice, params: { players: 2 } }',
      '',
    ].join('\n'),
  );
  const out = path.join(scratch, 'watched');
  // The browser first: the page must be open while the games are played.
  const b = await browser();
  const { proc, url, lines, said, warned } = await withFace([
    'tournament',
    file,
    '--out',
    out,
    '--quiet',
    '--http',
    '127.0.0.1:0',
  ]);
  const problems = [];
  let visitor;
  try {
    const page = await b.newPage();
    watchConsole(page, problems);
    await page.goto(url);
    await page.waitForSelector('#standings:not([hidden])', { timeout: 30000 });
    // Every count the page shows, as it changes (no reload).
    await page.evaluate(() => {
      window.seen = [];
      const summary = document.getElementById('standings-summary');
      const note = () => window.seen.push(summary.textContent);
      note();
      new MutationObserver(note).observe(summary, { childList: true, characterData: true, subtree: true });
    });
    // Now the visitor: the games begin.
    const server = await until(() => warned.map(l => / connect to (\S+)$/.exec(l)).find(Boolean)?.[1]);
    visitor = spawn(ARENA, ['bot', 'greedy', '--server', server, '--name', 'visitor'], { stdio: 'ignore' });
    running.push(visitor);
    await page.waitForFunction(
      () => /^(\d+) of \1 games played \(the tournament is over\)/.test(document.getElementById('standings-summary').textContent),
      null,
      { timeout: 120000 },
    );
    // The progression chart: a line per participant.
    await page.waitForFunction(() => document.querySelectorAll('#progression polyline').length === 3, null, {
      timeout: 10000,
    });
    const seen = await page.evaluate(() => window.seen);
    const counts = [...new Set(seen.map(s => Number(s.split(' ')[0])))];
    assert.ok(counts.length >= 2, `the standings moved while the page was open: ${seen.join(' | ')}`);
    assert.equal(await page.textContent('#ladder-name'), 'Tournament watched');
    // The page's last standings are the report's: the same agents in the same order, the
    // same ratings (the report's standings, as the command prints them once it is written).
    // The page writes one decimal and a bound's sign (≥, ≤) before it; the command rounds to
    // whole points.
    const rows = await page.$$eval('table.standings:first-of-type tr', trs =>
      trs.slice(1).map(tr => [tr.cells[1].textContent, Number(tr.cells[2].textContent.replace(/^[≥≤?] /, ''))]),
    );
    await new Promise(resolve => {
      if (said.some(l => l.startsWith('the tournament is over'))) return resolve();
      lines.on('line', line => line.startsWith('the tournament is over') && resolve());
    });
    const printed = said
      .map(l => /^\s+\d+\s+(\S+)\s+([+-]?\d+) \[[+-]?\d+, [+-]?\d+\]/.exec(l))
      .filter(Boolean)
      .map(m => [m[1], Number(m[2])]);
    assert.equal(printed.length, 3, said.join('\n'));
    assert.deepEqual(rows.map(r => r[0]), printed.map(p => p[0]), 'the same agents in the same order');
    rows.forEach(([name, rating], k) =>
      assert.ok(Math.abs(rating - printed[k][1]) <= 0.5, `${name}: ${rating} on the page, ${printed[k][1]} printed`),
    );
  } finally {
    await b.close();
    await stopped(proc);
    visitor?.kill();
  }
  assert.deepEqual(problems, [], 'console messages or page errors');
});

test("a tournament's games are watched live, move by move, and step through once over", async () => {
  const file = path.join(scratch, 'live.yaml');
  fs.writeFileSync(
    file,
    [
      'name: live',
      'seed: 4',
      'games_per_pairing: 2',
      'participants:',
      // A search that takes its time: a game lasts seconds, long enough to be watched.
      '  - { name: thinker, bot: "mcts:iterations=3000" }',
      '  - { name: random, bot: random }',
      'games:',
      '  - { game: expedition, preset: no-dice, params: { players: 2 } }',
      '',
    ].join('\n'),
  );
  const out = path.join(scratch, 'live');
  const b = await browser();
  const { proc, url, lines, said } = await withFace([
    'tournament', file, '--out', out, '--quiet', '--concurrency', '1', '--http', '127.0.0.1:0',
  ]);
  const problems = [];
  try {
    const page = await b.newPage();
    watchConsole(page, problems);
    await page.goto(url);
    // The front page lists the tournament's match in play, with its players.
    const row = await page.waitForSelector('#matches tbody tr', { timeout: 30000 });
    assert.match(await row.textContent(), /thinker, random|random, thinker/);
    // A match early in its game (as the list has it, polled here more often than the page does).
    const early = await until(async () => {
      const r = await fetch(url + 'api/matches');
      return (await r.json()).matches.find(m => m.version !== null && m.version < 30);
    }, 60000);
    await page.goto(url + 'match?id=' + early.id);
    // Every batch of moves the page shows, as it shows them.
    await page.evaluate(() => {
      window.batches = [];
      const moves = document.getElementById('moves');
      new MutationObserver(() => window.batches.push(moves.children.length)).observe(moves, { childList: true });
    });
    await page.waitForSelector('#result:not([hidden])', { timeout: 120000 });
    const batches = await page.evaluate(() => window.batches);
    assert.ok(new Set(batches).size >= 3, `the moves arrived as they were played: ${batches.join(' ')}`);
    const shown = await page.$$eval('#moves li', lis => lis.length);
    await new Promise(resolve => {
      if (said.some(l => l.startsWith('the tournament is over'))) return resolve();
      lines.on('line', line => line.startsWith('the tournament is over') && resolve());
    });
    // The game the page showed is the one the tournament logged, move for move.
    const logged = fs
      .readFileSync(path.join(out, 'games.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l));
    assert.ok(logged.some(r => r.actions.length === shown), `${shown} moves shown; logged: ${logged.map(r => r.actions.length)}`);
    // Over, it steps through in the viewer.
    await Promise.all([page.waitForURL(/\/game\?id=/), page.click('#replay')]);
    const where = await page.textContent('#where');
    assert.ok(Number(/of (\d+)/.exec(where)[1]) >= shown, `${where}: ${shown} moves were played`);
  } finally {
    await b.close();
    await stopped(proc);
  }
  assert.deepEqual(problems, [], 'console messages or page errors');
});

test("a person sits at a seat of a match a program made, by typing the seat's token", async () => {
  const { proc, url } = await serve(path.join(scratch, 'joined.jsonl'));
  const b = await browser();
  const problems = [];
  try {
    // A program makes the match (the face's API here; CreateMatch over gRPC is the same call).
    const made = await (
      await fetch(url + 'api/matches', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ game: 'journey', preset: 'martian', seats: ['person', { bot: 'random' }] }),
      })
    ).json();
    const page = await b.newPage();
    watchConsole(page, problems);
    await page.goto(url + 'match?id=' + made.match_id);
    await page.waitForSelector('#join:not([hidden])');
    assert.equal(await page.isVisible('#seat'), false, 'no seat before a token');
    await page.fill('#join-token', 'not-the-token');
    await page.click('#join button');
    await page.waitForSelector('#problem:not([hidden])');
    assert.match(await page.textContent('#problem'), /opens no seat/);
    await page.fill('#join-token', made.seats[0].token);
    await page.click('#join button');
    await page.waitForSelector('#seat:not([hidden]) #table svg');
    assert.ok((await page.textContent('#view')).length > 0, "the seat's view as text, for a screen reader");
    assert.equal(await page.isVisible('#join'), false);
    assert.match(await page.textContent('#seat-title'), /seat 0 \(you\)/);
    // The token is nowhere in the address.
    assert.ok(!page.url().includes(made.seats[0].token));
    // Play it to the end like any seat.
    assert.ok((await playToTheEnd(page, 5)) > 0);
  } finally {
    await b.close();
    await stopped(proc);
  }
  // Its refusal of the wrong token was a 403 the page reported: expected, not a fault.
  assert.deepEqual(problems.filter(p => !/403/.test(p)), [], 'console messages or page errors');
});

test('a person with a client key uses the face of a server that serves its clients by key', async () => {
  const key = 'lab-key-0123456789abcdef';
  const keys = path.join(scratch, 'keys');
  fs.writeFileSync(keys, `lab=${key}\n`);
  const records = path.join(scratch, 'keyed.jsonl');
  const { proc, url } = await withFace([
    'serve', '--addr', '127.0.0.1:0', '--http', '127.0.0.1:0', '--records', records,
    '--require-key', 'always', '--client-keys', keys,
  ]);
  const b = await browser();
  const problems = [];
  try {
    const context = await b.newContext();
    const page = await context.newPage();
    watchConsole(page, problems);
    // Without a key, a page is the form that takes one (a 401), saying why.
    const refused = await page.goto(url);
    assert.equal(refused.status(), 401);
    await page.waitForFunction(() => document.getElementById('key-status').textContent !== '');
    assert.match(await page.textContent('#key-status'), /serves its clients by key/);
    // A key that is not one is refused, in words.
    await page.fill('#key', 'not-a-key-of-this-server');
    await page.click('#use-key');
    await page.waitForSelector('#problem:not([hidden])');
    assert.match(await page.textContent('#problem'), /not a client key of this server/);
    // The operator's key opens the page that was refused; no script can read it.
    await page.fill('#key', key);
    await page.click('#use-key');
    await page.waitForSelector('#no-matches');
    assert.equal(await page.evaluate(() => document.cookie), '');
    const [cookie] = await context.cookies();
    assert.equal(cookie.name, 'arena-key');
    assert.ok(cookie.httpOnly && cookie.sameSite === 'Strict', JSON.stringify(cookie));
    // A whole game, its moves read from the match's event stream (which sends the cookie too).
    await newMatch(page, url, 'expedition', 'no-dice', ['bot:greedy']);
    const clicks = await playToTheEnd(page, 3);
    assert.ok(clicks > 0, 'the person moved');
    const moves = await page.$$eval('#moves li', lis => lis.length);
    assert.ok(moves >= clicks, `${moves} moves shown, ${clicks} of them the person's`);
    // A page opened from another site is sent without the cookie (SameSite=Strict): the form
    // the face answers opens it again from here, with the cookie.
    const other = await context.newPage();
    watchConsole(other, problems);
    const id = new URL(page.url()).searchParams.get('id');
    await other.goto('data:text/html,<a id="go" href="' + url + 'match?id=' + id + '">the match</a>');
    await Promise.all([other.waitForSelector('#moves li'), other.click('#go')]);
    assert.equal(new URL(other.url()).pathname, '/match');
    assert.ok(problems.some(p => p === '401: ' + url + 'match?id=' + id), 'first answered with the form: ' + problems);
    // The key page names whose key it is; forgotten, the pages need it again.
    await page.goto(url + 'key');
    await page.waitForFunction(() => /client lab/.test(document.getElementById('key-status').textContent));
    await page.click('#forget');
    await page.waitForFunction(() => /serves its clients by key/.test(document.getElementById('key-status').textContent));
    assert.equal((await page.goto(url + 'play')).status(), 401);
  } finally {
    await b.close();
    await stopped(proc);
  }
  // The refusals were the test's own (401s, expected): nothing else went wrong.
  assert.deepEqual(problems.filter(p => !/^401: |status of 401/.test(p)), [], 'console messages or page errors');
  assert.match(replayed(records), /^game 1: expedition seed \d+/);
});
