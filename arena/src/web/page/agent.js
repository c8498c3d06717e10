'use strict';
// One agent of a ladder: its overall rating over time (drawn here), its head-to-head results,
// its recent games, each linked to its step-through page.

const agentName = new URLSearchParams(location.search).get('name') || '';

function problem(message) {
  const p = document.getElementById('problem');
  p.textContent = message;
  p.hidden = !message;
}

function svg(tag, attrs, text) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// [rated results, rating, lower, upper] points: a line and its interval's band.
function drawHistory(points) {
  const figure = document.getElementById('history-figure');
  figure.hidden = points.length === 0;
  if (!points.length) return;
  const [left, right, top, bottom] = [50, 710, 10, 270];
  const xs = points.map(p => p[0]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...points.map(p => p[2])) - 10, Math.max(...points.map(p => p[3])) + 10];
  const x = v => left + (x1 === x0 ? (right - left) / 2 : ((v - x0) / (x1 - x0)) * (right - left));
  const y = v => bottom - ((v - y0) / (y1 - y0 || 1)) * (bottom - top);
  const chart = document.getElementById('history');
  chart.replaceChildren();
  chart.append(svg('line', { x1: left, y1: bottom, x2: right, y2: bottom, class: 'axis' }));
  chart.append(svg('line', { x1: left, y1: top, x2: left, y2: bottom, class: 'axis' }));
  const band = points.map(p => x(p[0]).toFixed(1) + ',' + y(p[3]).toFixed(1))
    .concat(points.slice().reverse().map(p => x(p[0]).toFixed(1) + ',' + y(p[2]).toFixed(1)));
  chart.append(svg('polygon', { points: band.join(' '), class: 'band' }));
  chart.append(svg('polyline', { points: points.map(p => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1)).join(' '), class: 'rating' }));
  for (const v of [y0 + 10, (y0 + y1) / 2, y1 - 10]) chart.append(svg('text', { x: 4, y: y(v) + 4 }, v.toFixed(0)));
  chart.append(svg('text', { x: right - 160, y: 292 }, x0 + ' … ' + x1 + ' rated results'));
}

// A person challenges this agent: the match made, its seat's token kept in this tab (as the
// play page keeps it), then the table.
async function offerChallenge() {
  let face;
  try {
    face = await arena.call('/api/face');
  } catch (e) {
    return;
  }
  if (face.kind !== 'ladder' || !face.challenges.length) return;
  const entry = document.getElementById('challenge-entry');
  for (const c of face.challenges) {
    const o = arena.el('option', c.label);
    o.value = String(c.entry);
    entry.append(o);
  }
  const form = document.getElementById('challenge');
  form.hidden = false;
  document.getElementById('challenge-name').value = localStorage.getItem('arena-person-name') || '';
  form.addEventListener('submit', async event => {
    event.preventDefault();
    problem('');
    const name = document.getElementById('challenge-name').value.trim();
    const button = document.getElementById('challenge-start');
    button.disabled = true;
    try {
      const made = await arena.call('/api/challenge', {
        method: 'POST',
        body: { agent: agentName, entry: Number(entry.value), name, key: document.getElementById('challenge-key').value },
      });
      localStorage.setItem('arena-person-name', name);
      arena.sitAt(made.match_id, made.seats);
    } catch (e) {
      problem('The challenge was not made: ' + e.message);
      button.disabled = false;
    }
  });
}

async function start() {
  document.getElementById('title').textContent = agentName;
  document.title = agentName + ' — Tabletop Arena';
  let a;
  try {
    a = await arena.call('/api/agents/' + encodeURIComponent(agentName));
  } catch (e) {
    problem('No such agent here: ' + e.message);
    return;
  }
  const last = a.history[a.history.length - 1];
  document.getElementById('summary').textContent = last
    ? 'Overall rating ' + last[1].toFixed(1) + ' (95%: ' + last[2].toFixed(0) + ' … ' + last[3].toFixed(0) + ') after ' + last[0] + ' rated results.'
    : 'Not rated yet.';
  drawHistory(a.history);
  offerChallenge();
  const h2h = document.getElementById('head-to-head');
  for (const h of a.head_to_head) {
    const tr = arena.el('tr');
    const who = arena.el('td');
    const link = arena.el('a', h.opponent);
    link.href = '/agent?name=' + encodeURIComponent(h.opponent);
    who.append(link);
    tr.append(who, arena.el('td', h.results, 'num'), arena.el('td', h.points, 'num'),
      arena.el('td', (100 * h.points / Math.max(1, h.results)).toFixed(1) + '%', 'num'));
    h2h.append(tr);
  }
  const games = document.getElementById('games');
  for (const g of a.games) {
    const tr = arena.el('tr');
    const id = arena.el('td');
    const link = arena.el('a', 'game ' + g.game_id);
    link.href = '/game?ladder=' + g.game_id;
    id.append(link);
    tr.append(id, arena.el('td', g.entry), arena.el('td', g.players.join(' · ')),
      arena.el('td', arena.outcome(g.outcome, g.players)), arena.el('td', new Date(g.finished_ms).toLocaleString()));
    games.append(tr);
  }
}

start();
