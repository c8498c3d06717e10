// The Node agent plays complete games against a real `arena serve` (the binary the project
// builds: ARENA, or target/debug/arena, or target/release/arena).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { spawn } = require('child_process');
const { arenaBinary } = require('../testing');
const grpc = require('@grpc/grpc-js');
const { contract, play, randomAgent, Resign, target } = require('..');

/** Start `arena serve` on a free port; resolves with its URL and process. */
function serve() {
  return new Promise((resolve, reject) => {
    const child = spawn(arenaBinary(), ['serve', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /serving tabletop\.arena\.v1 on (\S+)/.exec(out);
      if (m) resolve({ url: `http://${m[1]}`, child });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`arena serve exited (${code})`)));
  });
}

function call(client, method, request) {
  return new Promise((resolve, reject) => client[method](request, (e, r) => (e ? reject(e) : resolve(r))));
}

/** CreateMatch, retried while the Play client it names has not said Hello yet. */
async function createWhenConnected(matches, request) {
  for (let i = 0; i < 200; i += 1) {
    try {
      return await call(matches, 'CreateMatch', request);
    } catch (e) {
      if (e.code !== grpc.status.FAILED_PRECONDITION || !/no Play client/.test(e.details)) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`the Play client never connected: ${JSON.stringify(request.seats)}`);
}

test('a random Node agent plays complete games of both games', async () => {
  const { url, child } = await serve();
  try {
    const v1 = contract();
    const matches = new v1.Matches(target(url), grpc.credentials.createInsecure());
    // It reads only the legal actions and asks for no observation.
    const random = randomAgent(7);
    let observed = 0;
    const agent = (r) => {
      if (r.observation) observed += 1;
      return random(r);
    };
    const playing = play(agent, { server: url, name: 'node', observation: false });
    // Wait until the agent has said Hello: a match naming it succeeds.
    const seats = (n) => Array.from({ length: n }, () => ({ play: 'node' }));
    const create = (req) => createWhenConnected(matches, req);
    const ids = [];
    ids.push((await create({ game: 'expedition', preset: 'no-dice', seats: seats(2) })).match_id);
    ids.push((await create({ game: 'journey', preset: 'classic', params: { travellers: '2' }, seats: seats(2) })).match_id);
    for (const id of ids) {
      let record;
      for (let i = 0; i < 600 && !record; i += 1) {
        try {
          record = await call(matches, 'GetRecord', { match_id: id });
        } catch (e) {
          if (e.code !== grpc.status.FAILED_PRECONDITION) throw e;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      assert.ok(record, `match ${id} ended`);
      assert.ok(record.actions.length > 0, 'moves were played');
      assert.deepStrictEqual(record.outcome.verdicts, [], 'no verdicts: every answer legal and in time');
    }
    matches.close();
    child.kill('SIGTERM');
    const stats = await playing;
    assert.ok(stats.decisions > 10, `decisions: ${stats.decisions}`);
    assert.strictEqual(stats.ended, 4, 'a MatchEnded for each of its four seats');
    assert.strictEqual(observed, 0, 'no request carried an observation');
    assert.deepStrictEqual(stats.errors, []);
  } finally {
    child.kill('SIGKILL');
  }
});

test('an agent that throws Resign gives its seat up', async () => {
  const { url, child } = await serve();
  try {
    const v1 = contract();
    const matches = new v1.Matches(target(url), grpc.credentials.createInsecure());
    let asked = 0;
    const playing = play((r) => {
      asked += 1;
      if (asked > 2) throw new Resign();
      return r.legal[0].id;
    }, { server: url, name: 'node-resigns' });
    const created = await createWhenConnected(matches, {
      game: 'expedition', preset: 'no-dice', seed: 5, seats: [{ play: 'node-resigns' }, { bot: 'random' }],
    });
    let record;
    for (let i = 0; i < 600 && !record; i += 1) {
      try {
        record = await call(matches, 'GetRecord', { match_id: created.match_id });
      } catch (e) {
        if (e.code !== grpc.status.FAILED_PRECONDITION) throw e;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.ok(record, 'the match ended');
    assert.deepStrictEqual(record.outcome.verdicts.map((v) => [v.seat, v.kind]), [[0, 'resigned']]);
    assert.strictEqual(record.outcome.forfeited_by, 0);
    matches.close();
    child.kill('SIGTERM');
    const stats = await playing;
    assert.strictEqual(stats.resigned, 1);
    assert.strictEqual(stats.endings.length, 1);
    assert.strictEqual(stats.endings[0].outcome.forfeited_by, 0, 'the MatchEnded says who forfeited');
    assert.deepStrictEqual(stats.errors, []);
  } finally {
    child.kill('SIGKILL');
  }
});

test('an agent leaves after its games, or when told, and its name is free', async () => {
  const { url, child } = await serve();
  try {
    const v1 = contract();
    const matches = new v1.Matches(target(url), grpc.credentials.createInsecure());
    const createFor = (name, seed) => createWhenConnected(matches, {
      game: 'expedition', preset: 'no-dice', seed, seats: [{ play: name }, { bot: 'random' }],
    });
    // Two games, then it leaves: the promise resolves without the server stopping.
    const first = play(randomAgent(3), { server: url, name: 'node-leaves', leaveAfter: 2 });
    await createFor('node-leaves', 1);
    await createFor('node-leaves', 2);
    const stats = await first;
    assert.strictEqual(stats.ended, 2);
    assert.deepStrictEqual(stats.errors, []);
    // The name is free again; this one leaves when its signal aborts.
    const told = new AbortController();
    const second = play(randomAgent(4), { server: url, name: 'node-leaves', signal: told.signal });
    await createFor('node-leaves', 3);
    told.abort();
    const again = await second;
    assert.ok(again.ended >= 0 && again.errors.length === 0);
    matches.close();
  } finally {
    child.kill('SIGTERM');
  }
});
