'use strict';
// A new match with a person at a seat: the game, its preset and seat count, who sits at each
// other seat (a built-in agent, or a connected client by name), the time per move. The
// person's seat tokens are kept in this tab's session storage, never in an address.

const BOTS = ['random', 'rules', 'greedy', 'mcts', 'strong'];
let games = [];

function problem(message) {
  const p = document.getElementById('problem');
  p.textContent = message;
  p.hidden = !message;
}

function option(value, text) {
  const o = arena.el('option', text === undefined ? value : text);
  o.value = value;
  return o;
}

function chosenGame() {
  return games.find(g => g.name === document.getElementById('game').value);
}

function showSeats() {
  const count = Number(document.getElementById('seat-count').value);
  const list = document.getElementById('seats');
  const before = [...list.querySelectorAll('select')].map(s => s.value);
  list.replaceChildren();
  for (let i = 0; i < count; i++) {
    const li = arena.el('li');
    const label = arena.el('label', 'seat ' + i + ' ');
    const select = arena.el('select');
    select.id = 'seat-' + i;
    select.append(option('person', 'me (a person here)'));
    for (const b of BOTS) select.append(option('bot:' + b, 'built-in ' + b));
    select.append(option('play', 'a connected client…'));
    select.value = before[i] || (i === 0 ? 'person' : 'bot:greedy');
    const name = arena.el('input');
    name.id = 'seat-' + i + '-name';
    name.placeholder = 'its name';
    name.hidden = select.value !== 'play';
    select.addEventListener('change', () => { name.hidden = select.value !== 'play'; });
    label.append(select);
    li.append(label, name);
    list.append(li);
  }
}

function showGame() {
  const g = chosenGame();
  const preset = document.getElementById('preset');
  preset.replaceChildren(...g.presets.map(p => option(p)));
  preset.value = g.default_preset;
  document.getElementById('game-summary').textContent = g.summary;
  const rules = document.getElementById('rules');
  rules.href = '/rules/' + encodeURIComponent(g.name);
  rules.textContent = 'The rules of ' + g.name + ', as the arena plays them';
  showPreset();
}

function showPreset() {
  const g = chosenGame();
  const preset = document.getElementById('preset').value;
  const seats = Number((g.seats_by_preset || {})[preset] || g.seats_default || 2);
  const count = document.getElementById('seat-count');
  count.replaceChildren(...[1, 2, 3, 4].map(n => option(String(n))));
  count.value = String(seats);
  showSeats();
}

async function startMatch(event) {
  event.preventDefault();
  problem('');
  const count = Number(document.getElementById('seat-count').value);
  const seats = [];
  for (let i = 0; i < count; i++) {
    const v = document.getElementById('seat-' + i).value;
    if (v === 'person') seats.push('person');
    else if (v === 'play') seats.push({ play: document.getElementById('seat-' + i + '-name').value.trim() });
    else seats.push({ bot: v.slice(4) });
  }
  const seconds = Number(document.getElementById('move-seconds').value) || 0;
  const button = document.getElementById('start');
  button.disabled = true;
  try {
    const made = await arena.call('/api/matches', {
      method: 'POST',
      body: { game: chosenGame().name, preset: document.getElementById('preset').value, seats, move_time_ms: Math.round(seconds * 1000) },
    });
    arena.sitAt(made.match_id, made.seats);
  } catch (e) {
    problem('The match was not made: ' + e.message);
    button.disabled = false;
  }
}

async function start() {
  try {
    const list = await arena.call('/api/games');
    games = list.games;
    if (list.max_move_time_ms) document.getElementById('move-seconds').max = String(list.max_move_time_ms / 1000);
    if (list.move_time_ms) document.getElementById('move-seconds').value = String(Math.min(60, list.max_move_time_ms / 1000 || 60));
  } catch (e) {
    problem('The games cannot be listed: ' + e.message);
    return;
  }
  const game = document.getElementById('game');
  game.replaceChildren(...games.map(g => option(g.name)));
  game.addEventListener('change', showGame);
  document.getElementById('preset').addEventListener('change', showPreset);
  document.getElementById('seat-count').addEventListener('change', showSeats);
  document.getElementById('new-match').addEventListener('submit', startMatch);
  showGame();
}

start();
