// A Tabletop Arena client in Node.js: the contract is loaded from proto/ at run time
// (@grpc/proto-loader), never copied. `play(agent, {server, name})` serves an agent over the
// Play stream: it says Hello, answers every DecisionRequest with agent(request) — one of
// request.legal's ids, or a resignation (throw or return a `Resign`) — and resolves when the
// server ends the stream.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.join(__dirname, '..', '..', 'proto', 'proto');

/** The contract's services and messages, loaded from the project's .proto file. */
function contract() {
  const def = protoLoader.loadSync('tabletop/arena/v1/arena.proto', {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(def).tabletop.arena.v1;
}

/**
 * An agent throws (or returns) a Resign instead of choosing an action to give up the seat it
 * was asked for: `play` sends a Resign of the request's match and seat, the seat loses and its
 * match ends (verdict `resigned`, `forfeited_by` that seat). The message stays in this process.
 */
class Resign extends Error {
  constructor(message = 'resigned') {
    super(message);
    this.name = 'Resign';
  }
}

function target(server) {
  return server.replace(/^https?:\/\//, '');
}

/**
 * Serve `agent` over the Play stream until the server closes it.
 * @param {(request: object) => number|Resign|Promise<number|Resign>} agent picks an action id
 *   (or throws or returns a Resign to give the seat up)
 * @param {{server: string, name: string, games?: string[], key?: string, clientKey?: string,
 *   version?: string, maxGames?: number, leaveAfter?: number, signal?: AbortSignal,
 *   text?: boolean, observation?: boolean, acceptChallenges?: boolean}} options
 *   `key` is the name's key; `clientKey` (default: ARENA_CLIENT_KEY) the key the operator gave
 *   this client, sent as the `x-arena-key` metadata. On a ladder (`arena ladder`), saying Hello
 *   is joining: `version` plays it as `name@version`, rated apart; `maxGames` is how many games
 *   it takes at once (0: the ladder's default); `acceptChallenges` lets others seat it in matches
 *   they create (else it plays the ladder's pairings alone). Once `leaveAfter` of its games have ended, or
 *   `signal` aborts, it leaves (the contract's `Leave`): no new games, those in play played
 *   out, and the promise resolves when the server then ends the stream, its name free.
 *   `text: false` leaves each request's observation text out; `observation: false` the whole
 *   observation (an agent that reads only `request.legal` is served several times faster).
 * @returns {Promise<{decisions: number, resigned: number, ended: number, endings: object[], errors: object[]}>}
 *   `endings`: every MatchEnded (its outcome carries the verdicts and `forfeited_by`).
 */
function play(agent, {
  server, name, games = [], key = '', clientKey = process.env.ARENA_CLIENT_KEY || '', version = '', maxGames = 0,
  leaveAfter = 0, signal, text = true, observation = true, acceptChallenges = false,
}) {
  const v1 = contract();
  const client = new v1.Play(target(server), grpc.credentials.createInsecure());
  const stats = { decisions: 0, resigned: 0, ended: 0, endings: [], errors: [] };
  return new Promise((resolve, reject) => {
    const metadata = new grpc.Metadata();
    if (clientKey) metadata.set('x-arena-key', clientKey);
    const stream = client.Play(metadata);
    let leaving = false;
    const leave = () => {
      if (!leaving) {
        leaving = true;
        stream.write({ leave: {} });
      }
    };
    if (signal) {
      if (signal.aborted) leave();
      else signal.addEventListener('abort', leave, { once: true });
    }
    stream.on('data', async (message) => {
      if (message.request) {
        const r = message.request;
        try {
          const action = await agent(r);
          if (action instanceof Resign) throw action;
          stats.decisions += 1;
          stream.write({ decision: { request_id: r.request_id, action } });
        } catch (e) {
          if (e instanceof Resign) {
            stats.resigned += 1;
            stream.write({ resign: { match_id: r.match_id, seat: r.seat } });
          } else {
            stats.errors.push({ code: 'agent', message: String(e) });
          }
        }
      } else if (message.ended) {
        stats.ended += 1;
        stats.endings.push(message.ended);
        if (leaveAfter > 0 && stats.ended >= leaveAfter) leave();
      } else if (message.error) {
        stats.errors.push(message.error);
      }
    });
    stream.on('end', () => {
      if (signal) signal.removeEventListener('abort', leave);
      client.close();
      resolve(stats);
    });
    stream.on('error', (e) => {
      client.close();
      if (e.code === grpc.status.CANCELLED || e.code === grpc.status.UNAVAILABLE) resolve(stats);
      else reject(e);
    });
    stream.write({
      hello: {
        name, games, key, version, max_games: maxGames, omit_text: !text, omit_observation: !observation,
        accept_challenges: acceptChallenges,
      },
    });
  });
}

/** A seeded random agent (xorshift): uniform among the legal actions. */
function randomAgent(seed = 1) {
  let x = (seed >>> 0) || 1;
  return (request) => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return request.legal[x % request.legal.length].id;
  };
}

/**
 * An agent's folder as the gzipped tar a ladder takes (`Ladder.Submit`): its files and folders
 * under their relative paths (links followed to what they name), in the POSIX ustar format.
 * Throws if the folder has no `agent.yaml` (its manifest: `command: node agent.js`).
 */
function pack(folder) {
  const zlib = require('zlib');
  if (!fs.existsSync(path.join(folder, 'agent.yaml'))) {
    throw new Error(`${folder}: no agent.yaml (its manifest: \`command: node agent.js\`)`);
  }
  const blocks = [];
  const header = (name, size, type, mode) => {
    const h = Buffer.alloc(512);
    let [prefix, rest] = ['', name];
    if (Buffer.byteLength(name) > 100) {
      const cut = name.lastIndexOf('/', 155);
      [prefix, rest] = [name.slice(0, cut), name.slice(cut + 1)];
      if (cut < 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(rest) > 100) {
        throw new Error(`${name}: a path too long for an archive`);
      }
    }
    const put = (text, at, len) => h.write(text, at, len, 'utf8');
    const octal = (n, at, len) => put(n.toString(8).padStart(len - 1, '0'), at, len - 1);
    put(rest, 0, 100);
    octal(mode, 100, 8);
    octal(0, 108, 8);
    octal(0, 116, 8);
    octal(size, 124, 12);
    octal(0, 136, 12);
    h.fill(' ', 148, 156);
    put(type, 156, 1);
    put('ustar\0', 257, 6);
    put('00', 263, 2);
    put(prefix, 345, 155);
    let sum = 0;
    for (const b of h) sum += b;
    put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
    return h;
  };
  const walk = (dir, rel) => {
    for (const entry of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      const name = rel ? `${rel}/${entry}` : entry;
      const st = fs.statSync(full);
      if (st.isDirectory()) {
        blocks.push(header(`${name}/`, 0, '5', 0o755));
        walk(full, name);
      } else if (st.isFile()) {
        const data = fs.readFileSync(full);
        blocks.push(header(name, data.length, '0', st.mode & 0o111 ? 0o755 : 0o644), data);
        if (data.length % 512) blocks.push(Buffer.alloc(512 - (data.length % 512)));
      }
    }
  };
  walk(folder, '');
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks));
}

/**
 * A ladder's client: `standings({offset, limit})` (a page of each list: from rank `offset`, at
 * most `limit` rows, 50 by default), `agentGames(agent, limit)`, `record(gameId)`, each a Promise.
 * An author's, with the name's key (`key`, default `ARENA_KEY`), on a ladder that takes
 * submissions: `submit(name, version, folder)` (packs the folder: its answer once the validation
 * game is over, `state` `active` or `refused` with its `verdict`), `submissions(name)`,
 * `retire(name, version)`, `submissionLog(name, version, gameId)` (0: its validation game).
 */
function ladder(server, { key = process.env.ARENA_KEY || '' } = {}) {
  const v1 = contract();
  const client = new v1.Ladder(target(server), grpc.credentials.createInsecure());
  const call = (method, request) =>
    new Promise((resolve, reject) => client[method](request, (e, r) => (e ? reject(e) : resolve(r))));
  return {
    standings: ({ offset = 0, limit = 0 } = {}) => call('Standings', { offset, limit }),
    agentGames: (agent, limit = 20) => call('AgentGames', { agent, limit }),
    record: (gameId) => call('GetLadderRecord', { game_id: gameId }),
    submit: (name, version, folder) => call('Submit', { name, version, key, archive: pack(folder) }),
    submissions: (name) => call('ListSubmissions', { name, key }).then((r) => r.submissions),
    retire: (name, version) => call('RetireSubmission', { name, version, key }),
    submissionLog: (name, version, gameId = 0) =>
      call('SubmissionLog', { name, version, key, game_id: gameId }).then((r) => r.stderr),
    close: () => client.close(),
  };
}

module.exports = { contract, ladder, pack, play, randomAgent, Resign, target };
