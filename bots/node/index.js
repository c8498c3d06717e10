// A Tabletop Arena client in Node.js: the contract is loaded from proto/ at run time
// (@grpc/proto-loader), never copied. `play(agent, {server, name})` serves an agent over the
// Play stream: it says Hello, answers every DecisionRequest with agent(request) — one of
// request.legal's ids, or a resignation (throw or return a `Resign`) — and resolves when the
// server ends the stream.
'use strict';

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
 * A ladder's client: `standings({offset, limit})` (a page of each list: from rank `offset`, at
 * most `limit` rows, 50 by default), `agentGames(agent, limit)`, `record(gameId)`, each a Promise.
 */
function ladder(server) {
  const v1 = contract();
  const client = new v1.Ladder(target(server), grpc.credentials.createInsecure());
  const call = (method, request) =>
    new Promise((resolve, reject) => client[method](request, (e, r) => (e ? reject(e) : resolve(r))));
  return {
    standings: ({ offset = 0, limit = 0 } = {}) => call('Standings', { offset, limit }),
    agentGames: (agent, limit = 20) => call('AgentGames', { agent, limit }),
    record: (gameId) => call('GetLadderRecord', { game_id: gameId }),
    close: () => client.close(),
  };
}

module.exports = { contract, ladder, play, randomAgent, Resign, target };
