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
    for (const h of ['rank', 'agent', 'Elo', '95% interval', 'results', 'score']) head.append(arena.el('th', h));
    table.append(head);
    for (const r of list.rows) {
      const tr = arena.el('tr');
      const who = arena.el('td', r.agent + (r.anchor ? ' (anchor)' : ''), r.connected ? 'connected' : 'away');
      tr.append(arena.el('td', r.rank, 'num'), who, arena.el('td', r.rating.toFixed(0), 'num'),
        arena.el('td', r.lower.toFixed(0) + ' … ' + r.upper.toFixed(0), 'num'), arena.el('td', r.results, 'num'),
        arena.el('td', (100 * r.score).toFixed(1) + '%', 'num'));
      table.append(tr);
    }
    lists.append(table);
  }
  document.getElementById('standings').hidden = false;
}

async function followStandings() {
  const face = await arena.call('/api/face');
  if (!face.name) return;
  kind = face.kind;
  const source = new EventSource('/api/standings');
  source.addEventListener('standings', e => showStandings(JSON.parse(e.data)));
}

async function listMatches() {
  try {
    const { matches, finished } = await arena.call('/api/matches');
    const body = document.querySelector('#matches tbody');
    body.replaceChildren();
    for (const m of matches) {
      const tr = arena.el('tr');
      const link = arena.el('a', m.id);
      link.href = '/match?id=' + encodeURIComponent(m.id);
      const td = arena.el('td');
      td.append(link);
      tr.append(td, arena.el('td', m.game), arena.el('td', m.players.join(', ')), arena.el('td', m.version, 'num'));
      body.append(tr);
    }
    document.getElementById('matches').hidden = matches.length === 0;
    document.getElementById('no-matches').hidden = matches.length > 0;
    const done = document.querySelector('#finished tbody');
    done.replaceChildren();
    for (const m of finished) {
      const tr = arena.el('tr');
      const link = arena.el('a', m.id);
      link.href = '/game?id=' + encodeURIComponent(m.id);
      const td = arena.el('td');
      td.append(link);
      tr.append(td, arena.el('td', m.game), arena.el('td', m.players.join(', ')), arena.el('td', arena.outcome(m.outcome, m.players)));
      done.append(tr);
    }
    document.getElementById('finished').hidden = finished.length === 0;
    document.getElementById('no-finished').hidden = finished.length > 0;
  } catch (e) {
    document.getElementById('no-matches').textContent = 'The matches cannot be listed: ' + e.message;
  }
}

followStandings();
listMatches();
setInterval(listMatches, 2000);
