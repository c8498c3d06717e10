// Node agents join a real `arena ladder` (the binary the project builds), are matched and
// rated, and read their standings, games and records through the Ladder service.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawn } = require('child_process');
const { arenaBinary } = require('../testing');
const { ladder, play, randomAgent } = require('..');

const LADDER = `name: node
games:
  - { game: expedition, preset: no-dice, params: { players: 2 } }
anchors:
  - { name: random, bot: random }
  - { name: greedy, bot: greedy }
move_time_ms: 5000
refit_ms: 200
bootstrap: 100
provisional_games: 2
`;

/** Start `arena ladder` on a free port; resolves with its URL and process. */
function startLadder(dir) {
  fs.writeFileSync(path.join(dir, 'ladder.yaml'), LADDER);
  return new Promise((resolve, reject) => {
    const args = ['ladder', path.join(dir, 'ladder.yaml'), '--addr', '127.0.0.1:0', '--data', path.join(dir, 'data')];
    const child = spawn(arenaBinary(), args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /serving on (\S+)/.exec(out);
      if (m) resolve({ url: `http://${m[1]}`, child });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`arena ladder exited (${code})`)));
  });
}

test('Node agents join a ladder, are rated, and read their games', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-ladder-'));
  const { url, child } = await startLadder(dir);
  const reader = ladder(url);
  try {
    const playing = [
      play(randomAgent(3), { server: url, name: 'node-a' }),
      play(randomAgent(4), { server: url, name: 'node-a', version: '2', maxGames: 1 }),
    ];
    const row = (s, agent) => s.lists[0].rows.find((r) => r.agent === agent);
    let s;
    for (let i = 0; i < 600; i += 1) {
      s = await reader.standings();
      if (['node-a', 'node-a@2'].every((a) => row(s, a) && Number(row(s, a).results) >= 4)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const a of ['node-a', 'node-a@2']) {
      assert.ok(row(s, a), `${a} is rated: ${JSON.stringify(s)}`);
      assert.ok(row(s, a).upper > row(s, a).lower, 'with an interval');
    }
    const page = (await reader.standings({ offset: 1, limit: 1 })).lists[0];
    assert.ok(page.rows.length === 1 && page.rows[0].rank === 2 && page.offset === 1, JSON.stringify(page));
    const games = await reader.agentGames('node-a', 50);
    assert.ok(games.games.length > 0);
    const record = await reader.record(games.games[0].game_id);
    assert.ok(record.players.includes('node-a') && record.actions.length > 0);
    child.kill('SIGTERM');
    await Promise.all(playing);
  } finally {
    reader.close();
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an author submits a folder, lists its versions, reads a log and retires one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-submit-'));
  fs.writeFileSync(
    path.join(dir, 'ladder.yaml'),
    `name: node-submissions
games:
  - { game: expedition, preset: no-dice, params: { players: 2 } }
anchors:
  - { name: random, bot: random }
move_time_ms: 5000
keys: keys.txt
provisional_games: 0
submissions: { limits: none, connect_timeout_ms: 10000 }
`,
  );
  fs.writeFileSync(path.join(dir, 'keys.txt'), 'author=author-key-0123456789\n');
  const args = ['ladder', path.join(dir, 'ladder.yaml'), '--addr', '127.0.0.1:0', '--data', path.join(dir, 'data')];
  const child = spawn(arenaBinary(), args, { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /serving on (\S+)/.exec(out);
      if (m) resolve(`http://${m[1]}`);
    });
    child.on('exit', (code) => reject(new Error(`arena ladder exited (${code})`)));
  });
  const author = ladder(url, { key: 'author-key-0123456789' });
  try {
    // The arena's own random agent (its binary is in every sandbox), a nested file beside it
    // whose path is longer than a tar name's 100 bytes.
    const agent = path.join(dir, 'agent');
    const deep = path.join(agent, 'a'.repeat(60), 'b'.repeat(60));
    fs.mkdirSync(deep, { recursive: true });
    fs.writeFileSync(path.join(deep, 'notes.txt'), 'kept\n');
    fs.writeFileSync(
      path.join(agent, 'agent.yaml'),
      `command: "cat ${'a'.repeat(60)}/${'b'.repeat(60)}/notes.txt >&2; exec /run/bin/arena bot random --server $ARENA_SERVER --name $ARENA_NAME"\n`,
    );
    const s = await author.submit('author', '1', agent);
    assert.strictEqual(s.state, 'active', JSON.stringify(s));
    assert.ok(Buffer.from(s.stderr).toString().includes('kept'), 'its validation read its nested file');
    assert.ok(Buffer.from(await author.submissionLog('author', '1')).toString().includes('kept'));
    const versions = await author.submissions('author');
    assert.deepStrictEqual(versions.map((v) => [v.version, v.state]), [['1', 'active']]);
    assert.strictEqual((await author.retire('author', '1')).state, 'retired');
    await assert.rejects(ladder(url, { key: 'wrong' }).submit('author', '2', agent), /key/);
    assert.throws(() => require('..').pack(dir + '/nowhere'), /no agent\.yaml/);
  } finally {
    author.close();
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
