#!/usr/bin/env node
// A random agent over the Play stream:
//   node random_agent.js --server http://127.0.0.1:50051 --name node-random [--seed 1]
// (in a tournament: `command: "node bots/node/random_agent.js"`; the arena sets ARENA_SERVER
// and ARENA_NAME).
'use strict';

const { play, randomAgent } = require('./index');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const server = arg('server', process.env.ARENA_SERVER || 'http://127.0.0.1:50051');
const name = arg('name', process.env.ARENA_NAME || 'node-random');
const seed = Number(arg('seed', '1'));

// It reads only the legal actions: the requests carry no observation.
play(randomAgent(seed), { server, name, key: process.env.ARENA_KEY || '', observation: false })
  .then((s) => {
    console.error(`${s.decisions} decisions, ${s.ended} seats played to the end`);
  })
  .catch((e) => {
    console.error(`the Play stream failed: ${e.message}`);
    process.exit(1);
  });
