'use strict';
// What every page of the web face shares: calls to the face's API, event streams, the outcome
// of a match in words. No page holds a script of its own (the content security policy forbids
// inline scripts): each loads this file and its own.

const arena = {
  // A JSON call; a refusal throws an Error carrying the server's message.
  async call(path, { method = 'GET', body, token } = {}) {
    const headers = {};
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (token) headers['Authorization'] = 'Bearer ' + token;
    const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.error || r.status + ' ' + r.statusText);
    return data;
  },

  // A stream of server-sent events read with fetch, so that a seat's token travels in a
  // header and never in an address. Calls onEvent(name, data) for each event; returns when the
  // stream ends.
  async stream(path, token, onEvent, signal) {
    const r = await fetch(path, { headers: { Authorization: 'Bearer ' + token }, signal });
    if (!r.ok) {
      const data = await r.json().catch(() => ({}));
      throw new Error(data.error || r.status + ' ' + r.statusText);
    }
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length) onEvent(name, data.join('\n'));
      }
    }
  },

  // An element with text (never HTML: what the server sends is shown as text).
  // The seats of match `id` this tab holds ([{seat, token}]), kept in its session storage (never
  // in an address) by the page that made or joined the match, read by the match page.
  heldSeats(id) {
    return JSON.parse(sessionStorage.getItem('arena-seats:' + id) || '[]');
  },

  // Hold `seats` of match `id` in this tab.
  holdSeats(id, seats) {
    sessionStorage.setItem('arena-seats:' + id, JSON.stringify(seats));
  },

  // Hold `seats` of match `id` in this tab, and go to its page.
  sitAt(id, seats) {
    arena.holdSeats(id, seats);
    location.href = '/match?id=' + encodeURIComponent(id);
  },

  el(tag, text, className) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (className) e.className = className;
    return e;
  },

  // Who sat at a seat, as the pages name them: a token seat (`token` in a match's players) is
  // a person's, as the step-through game page says.
  player(p) {
    return p === 'token' ? 'a person' : p;
  },

  seatName(players, seat) {
    const who = players && players[seat] && arena.player(players[seat]);
    return 'seat ' + seat + (who ? ' (' + who + ')' : '');
  },

  // How a match ended, in words.
  outcome(o, players) {
    if (!o) return '';
    if (o.cancelled) return 'The match was cancelled.';
    const verdicts = (o.verdicts || []).map(v => ' ' + arena.seatName(players, v.seat) + ': ' + v.kind + ' (' + v.detail + ').');
    if (o.team_score !== null && o.team_score !== undefined) {
      const achieved = (o.achieved || []).length ? ' (' + o.achieved.join(', ') + ')' : '';
      return 'The game is over: team score ' + o.team_score + achieved + '.' + verdicts.join('');
    }
    const best = Math.min(...o.ranks);
    const winners = o.ranks.map((r, i) => (r === best ? i : -1)).filter(i => i >= 0);
    const scores = o.scores.map((s, i) => arena.seatName(players, i) + ' ' + s).join(', ');
    const head = winners.length === o.ranks.length ? 'A draw' :
      winners.map(i => arena.seatName(players, i)).join(' and ') + (winners.length > 1 ? ' share the win' : ' wins');
    return head + ' (scores: ' + scores + ').' + verdicts.join('');
  },
};
