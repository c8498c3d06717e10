'use strict';
// One match, live. Everyone sees its public events (the moves as the referee applied them,
// who is to move, the result). A person who holds a seat of it (its token, kept in this tab's
// session storage by the play page, sent in a header) also sees that seat's own view and its
// legal actions, as buttons, with the time left. Anyone else watching sees the table as a
// watcher does (what every seat sees, no seat's own cards), drawn as it changes.

const matchId = new URLSearchParams(location.search).get('id') || '';
// The seats this tab holds: [{seat, token}], kept by the page that made the match.
const held = arena.heldSeats(matchId);
let players = [];
let shownVersion = -1;
let current = null;
let deadline = 0;
let gameName = '';
// What the last move acted on (its event's target): marked on the drawing.
let lastTarget = '';
// Watching, holding no seat: the table is drawn from the server's Table events.
let watching = held.length === 0;

function problem(message) {
  const p = document.getElementById('problem');
  p.textContent = message;
  p.hidden = !message;
}

function showResult(outcome) {
  const r = document.getElementById('result');
  r.textContent = arena.outcome(outcome, players);
  r.hidden = false;
  document.getElementById('status').textContent = 'The game is over.';
  const replay = document.getElementById('replay');
  replay.href = '/game?id=' + encodeURIComponent(matchId);
  replay.hidden = false;
}

function onEvent(e, source) {
  if (e.kind !== 'ended' && e.version <= shownVersion && e.kind === 'moved') return;
  if (e.kind === 'started') {
    const status = document.getElementById('status');
    if (!status.textContent) status.textContent = 'The game has started.';
  } else if (e.kind === 'moved') {
    shownVersion = e.version;
    lastTarget = e.target || '';
    for (const drawn of document.querySelectorAll('#table svg, #watched-table svg')) draw.mark(drawn, lastTarget);
    const li = arena.el('li', arena.seatName(players, e.seat) + ': ' + e.label);
    li.dataset.version = e.version;
    document.getElementById('moves').append(li);
    document.getElementById('status').textContent =
      e.to_move === null || e.to_move === undefined ? '' : arena.seatName(players, e.to_move) + ' to move.';
  } else if (e.kind === 'table') {
    showTable(e);
  } else if (e.kind === 'ended') {
    // Over: no seat is left to sit at.
    document.getElementById('join').hidden = true;
    source.close();
    showResult(e.outcome);
  }
}

// The table as anyone watching sees it (a Table event), for whoever holds no seat here.
function showTable(e) {
  if (!watching || !e.observation || typeof draw === 'undefined') return;
  const place = document.getElementById('watched-table');
  const drawn = draw.table(e.observation.game, e.observation.view, [], () => {}, () => {}, place.clientWidth < 560);
  if (drawn && lastTarget) draw.mark(drawn, lastTarget);
  place.replaceChildren(...(drawn ? [drawn] : []));
  place.dataset.version = e.version;
  document.getElementById('watched-text').textContent = e.text || '';
  document.getElementById('watched').hidden = !drawn;
}

function tick() {
  const clock = document.getElementById('clock');
  if (!current || !deadline || current.outcome || current.to_move !== current.seat) {
    clock.textContent = '';
    return;
  }
  const left = Math.max(0, deadline - Date.now());
  clock.textContent = (left / 1000).toFixed(0) + ' s left';
}

async function choose(seat, action) {
  for (const b of document.querySelectorAll('#legal button')) b.disabled = true;
  document.getElementById('table').classList.add('waiting');
  try {
    const s = await arena.call('/api/matches/' + encodeURIComponent(matchId) + '/act',
      { method: 'POST', token: seat.token, body: { action, version: current.version } });
    problem('');
    // Through the seats' states: with several held, another may be the one to show now.
    if (s) onState(seat, s);
  } catch (e) {
    problem('Your move was refused: ' + e.message);
    for (const b of document.querySelectorAll('#legal button')) b.disabled = false;
    document.getElementById('table').classList.remove('waiting');
  }
}

// The rule an action applies: a link to its section of the game's rules page (or nothing).
function ruleLink(a, text = '§') {
  if (!a.section) return null;
  const rule = arena.el('a', text, 'rule');
  rule.href = '/rules/' + encodeURIComponent(gameName) + '#' + encodeURIComponent(a.section);
  rule.target = '_blank';
  rule.rel = 'noopener';
  rule.title = 'The rule: ' + a.section.replace(/-/g, ' ');
  rule.setAttribute('aria-label', 'the rule for ' + a.label);
  return rule;
}

// The actions of the drawn thing the pointer is on: each in words, with its rule linked.
function hint(actions) {
  const line = document.getElementById('hint');
  line.replaceChildren();
  actions.forEach((a, i) => {
    if (i) line.append('; ');
    line.append(a.label);
    const rule = ruleLink(a, 'the rule: ' + (a.section || '').replace(/-/g, ' '));
    if (rule) line.append(' (', rule, ')');
  });
  line.hidden = actions.length === 0;
}

// Several actions on one drawn thing: offered by name, under the drawing.
function ask(seat, actions) {
  const chooser = document.getElementById('chooser');
  chooser.replaceChildren(arena.el('span', 'Which? ', 'sub'));
  for (const a of actions) {
    const b = arena.el('button', a.label);
    b.type = 'button';
    b.dataset.action = a.id;
    b.addEventListener('click', () => {
      chooser.hidden = true;
      choose(seat, a.id);
    });
    const rule = ruleLink(a);
    const choice = arena.el('span', '', 'choice');
    choice.append(b, ...(rule ? [rule] : []));
    chooser.append(choice);
  }
  const cancel = arena.el('button', 'none of these');
  cancel.type = 'button';
  cancel.addEventListener('click', () => { chooser.hidden = true; });
  chooser.append(cancel);
  chooser.hidden = false;
}

function showState(seat, s) {
  if (current && s.version < current.version) return;
  current = s;
  document.getElementById('view').textContent = s.text;
  document.getElementById('chooser').hidden = true;
  document.getElementById('hint').hidden = true;
  const mineNow = !s.outcome && s.to_move === s.seat;
  const drawn = s.observation && typeof draw !== 'undefined'
    ? draw.table(s.observation.game, s.observation.view, mineNow ? s.legal : [], id => choose(seat, id),
      actions => ask(seat, actions), document.getElementById('table').clientWidth < 560, hint)
    : null;
  const table = document.getElementById('table');
  if (drawn && lastTarget) draw.mark(drawn, lastTarget);
  table.replaceChildren(...(drawn ? [drawn] : []));
  table.dataset.version = s.version;
  const legal = document.getElementById('legal');
  legal.replaceChildren();
  const mine = !s.outcome && s.to_move === s.seat;
  if (mine) {
    for (const a of s.legal) {
      const b = arena.el('button', a.label);
      b.type = 'button';
      b.dataset.action = a.id;
      b.addEventListener('click', () => choose(seat, a.id));
      const choice = arena.el('span', '', 'choice');
      choice.append(b);
      // The rule the action applies: its section of the game's rules, a click away.
      const rule = ruleLink(a);
      if (rule) {
        b.title = rule.title;
        choice.append(rule);
      }
      legal.append(choice);
    }
    deadline = s.time_left_ms ? Date.now() + s.time_left_ms : 0;
  } else if (!s.outcome) {
    legal.append(arena.el('p', 'Waiting for ' + arena.seatName(players, s.to_move) + '.', 'sub'));
  }
  document.getElementById('seat').dataset.toMove = mine ? 'yes' : 'no';
  document.getElementById('table').classList.remove('waiting');
  document.getElementById('resign').hidden = Boolean(s.outcome);
  if (s.outcome) showResult(s.outcome);
  tick();
}

// Each held seat's latest state; the page shows the seat to move among them (else the first),
// so one person may hold several (a cooperative deal played alone, a match made so).
const states = new Map();
let shownSeat = null;

function onState(seat, s) {
  const had = states.get(seat.seat);
  if (had && s.version < had.version) return;
  states.set(seat.seat, s);
  const newest = Math.max(...[...states.values()].map(x => x.version));
  const at = h => states.get(h.seat) && states.get(h.seat).version === newest;
  const shown = held.find(h => at(h) && states.get(h.seat).to_move === h.seat) || held.find(at);
  if (!shown) return;
  shownSeat = shown;
  if (held.length > 1) {
    document.getElementById('seat-title').textContent = 'Your seats: ' +
      held.map(h => arena.seatName(players, h.seat)).join(', ') + ' — showing ' + arena.seatName(players, shown.seat);
  }
  showState(shown, states.get(shown.seat));
}

async function followSeats() {
  watching = false;
  document.getElementById('watched').hidden = true;
  document.getElementById('seat').hidden = false;
  document.getElementById('seat-title').textContent = 'Your seat: ' + arena.seatName(players, held[0].seat);
  document.getElementById('resign').addEventListener('click', async () => {
    const seat = shownSeat || held[0];
    try {
      onState(seat, await arena.call('/api/matches/' + encodeURIComponent(matchId) + '/resign', { method: 'POST', token: seat.token }));
    } catch (e) {
      problem('Resign refused: ' + e.message);
    }
  });
  await Promise.all(held.map(seat => arena
    .stream('/api/matches/' + encodeURIComponent(matchId) + '/seat', seat.token, (name, data) => {
      if (name === 'state') onState(seat, JSON.parse(data));
      else if (name === 'error') problem(data);
    })
    .catch(e => problem('Your seat cannot be followed: ' + e.message))));
}

async function start() {
  let m;
  try {
    m = await arena.call('/api/matches/' + encodeURIComponent(matchId));
    // A token seat (the record names it `token`) is a person's: this one's if held here.
    players = m.players.map((p, i) => (held.some(h => h.seat === i) ? 'you' : arena.player(p)));
    document.getElementById('title').textContent = m.game + ' — match ' + m.id;
    gameName = m.game;
    const rules = document.getElementById('rules');
    rules.href = '/rules/' + encodeURIComponent(m.game);
    rules.textContent = 'The rules of ' + m.game + ', as the arena plays them';
    rules.hidden = false;
    document.getElementById('players').textContent = players.map((p, i) => 'seat ' + i + ': ' + p).join(' · ');
  } catch (e) {
    problem('No such match: ' + e.message);
    return;
  }
  if (m.held) {
    document.getElementById('status').textContent =
      'Its deal is being played at other tables too: its moves are shown once every game on it is over.';
  }
  const source = new EventSource('/api/matches/' + encodeURIComponent(matchId) + '/events' + (watching ? '?table=true' : ''));
  source.addEventListener('event', e => onEvent(JSON.parse(e.data), source));
  source.addEventListener('error', e => {
    if (e.data) {
      problem(e.data);
      source.close();
    }
  });
  setInterval(tick, 250);
  if (held.length) {
    followSeats();
  } else if (!m.over) {
    // A seat's token given by whoever made the match (a program's CreateMatch): typed here,
    // kept in this tab's session storage, never in the address.
    const join = document.getElementById('join');
    join.hidden = false;
    join.addEventListener('submit', async event => {
      event.preventDefault();
      const token = document.getElementById('join-token').value.trim();
      try {
        const state = await arena.call('/api/matches/' + encodeURIComponent(matchId) + '/state', { token });
        const seat = { seat: state.seat, token };
        held.push(seat);
        arena.holdSeats(matchId, held);
        join.hidden = true;
        players[seat.seat] = 'you';
        followSeats();
      } catch (e) {
        problem('That token opens no seat here: ' + e.message);
      }
    });
  }
}

start();
