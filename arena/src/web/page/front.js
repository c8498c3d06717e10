'use strict';
// The front page: a ladder's or a tournament's standings as they change, the matches in play
// and those finished.

let kind = 'ladder';

function showStandings(s) {
  document.getElementById('ladder-name').textContent = (kind === 'tournament' ? 'Tournament ' : 'Ladder ') + s.name;
  const played = kind === 'tournament'
    ? s.games + ' of ' + s.scheduled + ' games played' + (s.games === s.scheduled ? ' (the tournament is over)' : '')
    : s.games + ' games played';
  const inPlay = kind === 'tournament' ? '' : '; ' + s.in_play + ' in play';
  document.getElementById('standings-summary').textContent =
    played + ', ' + s.rated_games + ' rated' + inPlay + '. Ratings are Elo (Bradley–Terry) with 95% intervals.';
  const lists = document.getElementById('lists');
  lists.replaceChildren();
  for (const list of s.lists) {
    lists.append(arena.el('h2', list.label));
    const table = arena.el('table');
    table.className = 'standings';
    const head = arena.el('tr');
    for (const h of ['rank', 'agent', 'Elo', '95% interval', 'results', 'score', 'note']) {
      head.append(arena.el('th', h));
    }
    table.append(head);
    const row = (r, rank) => {
      const tr = arena.el('tr');
      const who = arena.el('td', '', r.connected ? 'connected' : 'away');
      tr.dataset.agent = r.agent.toLowerCase();
      if (kind === 'ladder') {
        const link = arena.el('a', r.agent);
        link.href = '/agent?name=' + encodeURIComponent(r.agent);
        who.append(link, r.anchor ? ' (anchor)' : '', r.person ? ' (person)' : '');
      } else {
        who.textContent = r.agent + (r.anchor ? ' (anchor)' : '');
      }
      // A rating that is only a bound ("no wins": its real results put it below everyone it
      // met) is written as the report and `arena ladder standings` write it: "≤ -72.0" and
      // "[no wins]", never as a plain number; and a rest.
      const note = [r.bound ? '[' + r.bound + ']' : '', r.rested ? 'rested: ' + r.rested : '']
        .filter(Boolean).join('; ');
      // Signed, one decimal, as the report writes it; what rounds to zero is 0.0, never -0.0.
      const shown = r.rating.toFixed(1);
      const signed = /^-?0\.0$/.test(shown) ? '0.0' : (r.rating > 0 ? '+' : '') + shown;
      const elo = arena.el('td', r.bound_sign ? r.bound_sign + ' ' + signed : signed, r.bound ? 'num bound' : 'num');
      if (r.bound) elo.title = 'only a bound (' + r.bound + '): see the note';
      tr.append(arena.el('td', rank, 'num'), who, elo,
        arena.el('td', r.lower.toFixed(0) + ' … ' + r.upper.toFixed(0), 'num'), arena.el('td', r.results, 'num'),
        arena.el('td', (100 * r.score).toFixed(1) + '%', 'num'), arena.el('td', note, 'note'));
      return tr;
    };
    for (const r of list.rows) table.append(row(r, r.rank));
    lists.append(table);
    if (list.total > list.offset + list.rows.length) {
      lists.append(arena.el('p', 'The first ' + list.rows.length + ' of ' + list.total + ' ranked agents.', 'unrated'));
    }
    if (list.provisional && list.provisional.length) {
      // New agents, rated but not ranked until they have their results against established ones.
      lists.append(arena.el('p', 'Provisional (' + list.provisional_total + '): ranked after ' +
        s.provisional_games + ' results against established agents.', 'unrated'));
      const apart = arena.el('table');
      apart.className = 'standings provisional';
      for (const r of list.provisional) apart.append(row(r, r.qualifying + '/' + s.provisional_games));
      lists.append(apart);
    }
    if (list.unrated && list.unrated.length) {
      const who = list.unrated.map((u) => u.agent + (u.anchor ? ' (anchor)' : '') + ': ' + u.reason);
      lists.append(arena.el('p', 'Not rated yet: ' + who.join('; ') + '.', 'unrated'));
    }
  }
  document.getElementById('standings').hidden = false;
  filter();
}

// The rows whose agent's name holds what the search box holds (every row when empty): a
// ladder's server lists only those (each list's pages count them); here the rows shown are
// kept to them too (a tournament's lists come whole).
function filter() {
  const wanted = document.getElementById('search').value.trim().toLowerCase();
  for (const tr of document.querySelectorAll('#lists tr[data-agent]')) {
    tr.hidden = Boolean(wanted) && !tr.dataset.agent.includes(wanted);
  }
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#7f7f7f'];
let drawnAt = 0;

function svg(tag, attrs) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// The ladder's leaders' ratings over the rated results, one line each (drawn here: no library).
async function drawProgression() {
  drawnAt = Date.now();
  let agents;
  try {
    ({ agents } = await arena.call('/api/progression'));
  } catch (e) {
    return;
  }
  agents = agents.filter(a => a.points.length > 0);
  const figure = document.getElementById('progression-figure');
  figure.hidden = agents.length === 0;
  if (!agents.length) return;
  const all = agents.flatMap(a => a.points);
  const [x0, x1] = [Math.min(...all.map(p => p[0])), Math.max(...all.map(p => p[0]))];
  const [y0, y1] = [Math.min(...all.map(p => p[1])) - 20, Math.max(...all.map(p => p[1])) + 20];
  const [left, right, top, bottom] = [50, 710, 10, 270];
  const x = v => left + (x1 === x0 ? 0 : ((v - x0) / (x1 - x0)) * (right - left));
  const y = v => bottom - ((v - y0) / (y1 - y0)) * (bottom - top);
  const chart = document.getElementById('progression');
  chart.replaceChildren();
  chart.append(svg('line', { x1: left, y1: bottom, x2: right, y2: bottom, stroke: '#999' }));
  chart.append(svg('line', { x1: left, y1: top, x2: left, y2: bottom, stroke: '#999' }));
  for (const v of [y0 + 20, (y0 + y1) / 2, y1 - 20]) {
    const label = svg('text', { x: 4, y: y(v) + 4 });
    label.textContent = v.toFixed(0);
    chart.append(label);
  }
  const games = svg('text', { x: right - 140, y: 290 });
  games.textContent = x0 + ' … ' + x1 + ' rated results';
  chart.append(games);
  const key = document.getElementById('progression-key');
  key.replaceChildren();
  agents.forEach((a, i) => {
    const points = a.points.map(p => x(p[0]).toFixed(1) + ',' + y(p[1]).toFixed(1)).join(' ');
    chart.append(svg('polyline', { points, fill: 'none', stroke: COLOURS[i % COLOURS.length], 'stroke-width': 2 }));
    key.append(arena.el('span', a.name, 'c' + (i % COLOURS.length)));
  });
}

// The page of each list shown: from this rank on, this many rows.
const PAGE = 50;
let offset = 0;
let source = null;
// The search the server was last asked for (a ladder's), and a pending one.
let searched = '';
let searchTimer = 0;

function showPaging(s) {
  const longest = Math.max(0, ...s.lists.map(l => l.total));
  const paging = document.getElementById('paging');
  paging.hidden = longest <= PAGE;
  document.getElementById('page-where').textContent = (searched ? 'matches ' : 'ranks ') + (offset + 1) + ' to ' +
    Math.min(offset + PAGE, longest) + ' of ' + longest + (searched ? ' named “' + searched + '”' : '');
  document.getElementById('page-prev').disabled = offset === 0;
  document.getElementById('page-next').disabled = offset + PAGE >= longest;
}

function turnPage(by) {
  offset = Math.max(0, offset + by * PAGE);
  followPage();
}

// The standings' stream, for the page shown.
function followPage() {
  if (source) source.close();
  source = new EventSource('/api/standings?offset=' + offset + '&limit=' + PAGE +
    (searched ? '&search=' + encodeURIComponent(searched) : ''));
  source.addEventListener('standings', e => {
    const s = JSON.parse(e.data);
    showStandings(s);
    showPaging(s);
    // Redrawn at most every 5 s, and at a tournament's end.
    const over = kind === 'tournament' && s.games === s.scheduled;
    if (over || Date.now() - drawnAt > 5000) drawProgression();
  });
}

async function followStandings() {
  const face = await arena.call('/api/face');
  if (!face.name) return;
  kind = face.kind;
  document.getElementById('page-prev').addEventListener('click', () => turnPage(-1));
  document.getElementById('page-next').addEventListener('click', () => turnPage(1));
  followPage();
}


// Fill table `id` with a row per match (its id linked to `page`, then `cells`), or show the
// `none` line instead.
function fillMatches(id, none, matches, page, cells) {
  const body = document.querySelector('#' + id + ' tbody');
  body.replaceChildren();
  for (const m of matches) {
    const tr = arena.el('tr');
    const link = arena.el('a', m.id);
    link.href = page + '?id=' + encodeURIComponent(m.id);
    const td = arena.el('td');
    td.append(link);
    tr.append(td, arena.el('td', m.game), arena.el('td', m.players.map(arena.player).join(', ')), cells(m));
    body.append(tr);
  }
  document.getElementById(id).hidden = matches.length === 0;
  document.getElementById(none).hidden = matches.length > 0;
}

async function listMatches() {
  try {
    const { matches, finished } = await arena.call('/api/matches');
    // A match whose deal is played at other tables still shows no moves, nor how many.
    fillMatches('matches', 'no-matches', matches, '/match', m =>
      m.version === null ? arena.el('td', 'held', 'num') : arena.el('td', m.version, 'num'));
    fillMatches('finished', 'no-finished', finished, '/game', m => arena.el('td', arena.outcome(m.outcome, m.players)));
  } catch (e) {
    document.getElementById('no-matches').textContent = 'The matches cannot be listed: ' + e.message;
  }
}

followStandings();
listMatches();
setInterval(listMatches, 2000);
document.getElementById('search').addEventListener('input', () => {
  filter();
  // A ladder lists the matching agents of all its ranks, a page at a time: asked once the
  // typing pauses.
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    let wanted = document.getElementById('search').value.trim();
    while (new TextEncoder().encode(wanted).length > 64) wanted = wanted.slice(0, -1);
    if (kind !== 'ladder' || wanted === searched) return;
    searched = wanted;
    offset = 0;
    followPage();
  }, 300);
});
