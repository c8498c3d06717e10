'use strict';
// The table drawn: a seat's own observation (or a watcher's, which is no seat's) (what the server sent this seat, nothing more) as
// SVG made here, no external asset. What the seat cannot see is drawn as a card's back with a
// count. Each legal action is offered on the thing it acts on (its `target`, from the engine:
// `column:2`, `satchel:7♦`, `supply`, `end-turn`): a click plays it, or, when several actions
// share the thing, offers them by name; its title names the actions and the rule each applies.
// Every text is set as text (never markup): a name a stranger chose stays inert.

const draw = (() => {
  const NS = 'http://www.w3.org/2000/svg';

  function node(tag, attrs = {}, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function label(parent, x, y, text, cls) {
    parent.append(node('text', { x, y, class: cls }, text));
  }

  // Two facts on one line (`first`'s class), or on a narrow screen one line each: the y of the
  // last line written.
  function lines(parent, x, y, [first, second], [cls, secondCls], narrow) {
    if (!narrow) {
      label(parent, x, y, first + ' · ' + second, cls);
      return y;
    }
    label(parent, x, y, first, cls);
    label(parent, x, y + 14, second, secondCls);
    return y + 14;
  }

  const red = c => /[♥♦]/.test(c);

  // A name cut to `n` characters to fit its box (the whole in the box's title).
  const fit = (text, n) => (String(text).length > n ? String(text).slice(0, n - 1) + '…' : String(text));

  // A playing card (journey) or a named card, face up.
  function card(parent, x, y, text, { w = 34, h = 48, cls = '' } = {}) {
    const g = node('g', { class: 'card ' + cls });
    g.append(node('rect', { x, y, width: w, height: h, rx: 4, class: 'face' }));
    g.append(node('text', { x: x + w / 2, y: y + h / 2 + 5, 'text-anchor': 'middle', class: red(text) ? 'red' : 'black' }, text));
    parent.append(g);
    return g;
  }

  // Cards that are not shown: a back, and how many.
  function back(parent, x, y, count, what, { w = 34, h = 48 } = {}) {
    const g = node('g', { class: 'card back' });
    g.append(node('rect', { x, y, width: w, height: h, rx: 4, class: 'back' }));
    g.append(node('text', { x: x + w / 2, y: y + h / 2 + 5, 'text-anchor': 'middle', class: 'count' }, String(count)));
    g.append(node('title', {}, count + ' ' + what));
    parent.append(g);
    return g;
  }

  // A drawn button (an action with no thing of its own: end the turn, pass).
  function button(parent, x, y, text, w = 110) {
    const g = node('g', { class: 'button' });
    g.append(node('rect', { x, y, width: w, height: 26, rx: 13, class: 'button' }));
    g.append(node('text', { x: x + w / 2, y: y + 17, 'text-anchor': 'middle' }, text));
    parent.append(g);
    return g;
  }

  // Mark `g` as the thing `target` names: offered if legal actions act on it.
  function offer(g, target, ctx) {
    g.dataset.target = target;
    const actions = ctx.byTarget.get(target);
    if (!actions || !actions.length) return g;
    g.classList.add('legal');
    const title = actions.map(a => a.label + (a.section ? ' (rule: ' + a.section.replace(/-/g, ' ') + ')' : '')).join('\n');
    const old = g.querySelector('title');
    if (old) old.remove();
    g.append(node('title', {}, title));
    g.addEventListener('click', () => ctx.pick(actions));
    // The page may say more of them beside the drawing (the rules they apply, as links).
    if (ctx.hint) g.addEventListener('mouseenter', () => ctx.hint(actions));
    return g;
  }

  // ---- expedition ---------------------------------------------------------------------------

  const TOOLS = ['compass', 'map', 'rope', 'shovel'];

  function tokens(parent, x, y, tools, ctx, mine) {
    // One token per tool (a list) or per count (a mapping).
    let i = 0;
    const list = Array.isArray(tools) ? tools : TOOLS.flatMap(t => Array(tools[t] || 0).fill(t));
    for (const t of list) {
      const g = node('g', { class: 'token ' + t });
      g.append(node('circle', { cx: x + 9 + i * 20, cy: y, r: 8, class: 'tool ' + t }));
      g.append(node('text', { x: x + 9 + i * 20, y: y + 4, 'text-anchor': 'middle', class: 'tool-letter' }, t[0].toUpperCase()));
      g.append(node('title', {}, t));
      if (mine) offer(g, 'tool:' + t, ctx);
      parent.append(g);
      i += 1;
    }
    return i * 20;
  }

  function tile(parent, x, y, t, { w = 165, h = 40 } = {}) {
    const g = node('g', { class: 'tile ' + (t.kind || '') });
    g.append(node('rect', { x, y, width: w, height: h, rx: 4, class: 'tile' }));
    label(g, x + 5, y + 15, fit(t.name, Math.floor(w / 7)), 'name');
    g.append(node('title', {}, t.name + ' — ' + (t.kind || '') + ': ' + (t.tools || []).join('+')));
    label(g, x + 5, y + 32, (t.kind || '') + ': ' + (t.tools || []).join('+'), 'small');
    parent.append(g);
    return g;
  }

  function missionText(c) {
    if (!c) return ['(empty)'];
    const lines = [c.name || c.kind];
    if (c.tiles) lines.push(...c.tiles);
    if (c.coins !== undefined) lines.push(c.coins + ' coins');
    return lines;
  }

  function expeditionCard(parent, x, y, c, w = 140, h = 78) {
    const g = node('g', { class: 'xcard ' + ((c && c.kind) || '') });
    g.append(node('rect', { x, y, width: w, height: h, rx: 5, class: 'xcard' }));
    missionText(c).slice(0, 5).forEach((line, k) => label(g, x + 5, y + 14 + k * 14, fit(line, Math.floor(w / 7)), k === 0 ? 'name' : 'small'));
    g.append(node('title', {}, missionText(c).join(' · ')));
    parent.append(g);
    return g;
  }

  function expedition(v, ctx) {
    // Four columns across, or (a narrow screen) two.
    const narrow = ctx.narrow;
    const W = narrow ? 390 : 760;
    const per = narrow ? 2 : 4;
    const root = node('g');
    // A watcher's view (a spectator's) is no seat's.
    const me = v.watcher ? -1 : v.seat;
    let y = 16;
    const pile = v.pile_count + ' tiles' + (v.pile_top_is_place === null || v.pile_top_is_place === undefined ? '' :
      ' (top: ' + (v.pile_top_is_place ? 'a place' : 'an artifact') + ')');
    const round = 'Round ' + v.round + ' of at most ' + v.max_rounds + (v.last_round ? ' (the last)' : '') + ' · pile: ' + pile;
    const bag = 'bag: ' + TOOLS.map(t => t + ' ' + (v.bag[t] || 0)).join(', ');
    y = lines(root, 10, y, [round, bag], ['head', 'head'], narrow) + 12;
    label(root, 10, y + 10, 'Headquarters', 'zone-name');
    y += 16;
    v.hq.forEach((col, i) => {
      const x = 10 + (i % per) * 185;
      const cy = y + Math.floor(i / per) * 96;
      const g = node('g', { class: 'column' });
      g.append(node('rect', { x, y: cy, width: 175, height: 86, rx: 6, class: 'zone' }));
      label(g, x + 6, cy + 14, 'column ' + (i + 1), 'small');
      if (col.tile) tile(g, x + 5, cy + 20, col.tile);
      tokens(g, x + 5, cy + 74, col.tools || [], ctx, false);
      offer(g, 'column:' + i, ctx);
      root.append(g);
    });
    y += 96 * Math.max(1, Math.ceil(v.hq.length / per));
    label(root, 10, y + 10, 'Face-up cards', 'zone-name');
    y += 16;
    const step = narrow ? 185 : 148;
    v.face_up.forEach((c, i) => {
      const g = expeditionCard(root, 10 + (i % per) * step, y + Math.floor(i / per) * 86, c, narrow ? 175 : 140);
      offer(g, 'face-up:' + i, ctx);
    });
    let x = 610;
    if (narrow) {
      y += 86 * Math.max(1, Math.ceil(v.face_up.length / per));
      x = 10;
    }
    const deck = back(root, x, y, v.deck_count, 'cards in the deck', { w: 60, h: 78 });
    label(deck, x + 5, y + 92, 'deck', 'small');
    offer(deck, 'deck', ctx);
    if (v.dice_game || v.die !== null) {
      const g = node('g', { class: 'die' });
      g.append(node('rect', { x: x + 80, y, width: 60, height: 60, rx: 10, class: 'die' }));
      label(g, x + 88, y + 36, v.die === null || v.die === undefined ? 'die' : String(v.die), 'name');
      root.append(g);
      offer(g, 'die', ctx);
    }
    y += 100;
    for (const s of v.seats) {
      const mine = s.seat === me;
      const g = node('g', { class: 'player' + (mine ? ' mine' : '') + (v.to_move === s.seat ? ' to-move' : '') });
      const panel = node('rect', { x: 10, y, width: W - 20, height: 0, rx: 6, class: 'zone' });
      g.append(panel);
      const who = 'seat ' + s.seat + (mine ? ' (you)' : '') + ': ' + s.character;
      const state = 'score ' + s.score + ' · torch ' + (s.torch_lit ? 'lit' : 'out') + ' · favourite ' + s.favourite +
        (v.to_move === s.seat ? ' · to move' : '');
      let py = lines(g, 16, y + 16, [who, state], ['name', 'small'], narrow) + 20;
      label(g, 16, py, 'backpack', 'small');
      tokens(g, 70, py - 4, s.tools, ctx, mine);
      py += 10;
      const tiles = s.tiles || [];
      const tileX = narrow ? 16 : 70;
      if (!narrow) label(g, 16, py + 14, 'tiles', 'small');
      tiles.forEach((t, k) => {
        const tg = tile(g, tileX + (k % per) * 172, py + Math.floor(k / per) * 44, t, { w: 165 });
        if (mine) offer(tg, 'tile:' + t.id, ctx);
      });
      py += 44 * Math.max(1, Math.ceil(tiles.length / per)) + 8;
      label(g, 16, py + 10, 'discoveries: ' + (s.discoveries || []).length + ' · coins visible: ' + s.coins_visible, 'small');
      // The cards: beside that line, or (narrow) beneath it.
      let cx = 250;
      let cy = py - 4;
      if (narrow) {
        cx = 16;
        cy = py + 18;
      }
      if (s.cards) {
        const shown = s.cards.slice(0, 3);
        shown.forEach((c, k) => {
          const at = narrow ? { x: cx + (k % 2) * 178, y: cy + Math.floor(k / 2) * 42 } : { x: cx + k * 165, y: cy };
          const cg = node('g', { class: 'xcard ' + ((c && c.kind) || '') });
          cg.append(node('rect', { x: at.x, y: at.y, width: 160, height: 38, rx: 5, class: 'xcard' }));
          label(cg, at.x + 5, at.y + 14, fit((c && c.name) || (c && c.kind) || '', 22), 'name');
          label(cg, at.x + 5, at.y + 30, ((c && c.tiles) || []).length + ' tiles · ' + ((c && c.coins) || 0) + ' coins', 'small');
          cg.append(node('title', {}, missionText(c).join(' · ')));
          g.append(cg);
        });
        if (s.cards.length > 3) label(g, narrow ? cx + 178 : cx + 3 * 165, narrow ? cy + 72 : cy + 24, '+' + (s.cards.length - 3), 'small');
        py = narrow ? cy + 42 * Math.max(1, Math.ceil(shown.length / 2)) : py + 40;
      } else {
        back(g, cx, cy, s.cards_held, 'cards held (hidden)', { w: 40, h: 38 });
        label(g, cx + 46, cy + 24, s.cards_held + ' cards (hidden)', 'small');
        py = narrow ? cy + 42 : py + 40;
      }
      panel.setAttribute('height', String(py - y + 4));
      root.append(g);
      y = py + 12;
    }
    // The actions with no thing of their own.
    x = 10;
    for (const [t, text] of [['dice-card', 'Dice card'], ['end-turn', 'End turn']]) {
      if (!ctx.byTarget.has(t)) continue;
      offer(button(root, x, y, text), t, ctx);
      x += 120;
    }
    y += 36;
    return { root, width: W, height: y };
  }

  // ---- journey ------------------------------------------------------------------------------

  // Cards in rows of `per`: how many rows they took (at least one).
  function row(parent, x, y, cards, kind, ctx, { offerIt = true, per = 18 } = {}) {
    (cards || []).forEach((c, k) => {
      const g = card(parent, x + (k % per) * 38, y + Math.floor(k / per) * 52, c);
      if (offerIt) offer(g, kind + ':' + c, ctx);
    });
    return Math.max(1, Math.ceil((cards || []).length / per));
  }

  function journey(v, ctx) {
    const narrow = ctx.narrow;
    const W = narrow ? 390 : 760;
    const per = narrow ? 9 : 18;
    const root = node('g');
    let y = 16;
    label(root, 10, y, (v.doing || '') + ' · turn ' + v.turns + ' · score ' + v.score, 'head');
    y += 10;
    // The adversary, the decks and the refuge.
    const foe = node('g', { class: 'adversary' });
    foe.append(node('rect', { x: 10, y, width: 150, height: 70, rx: 6, class: 'zone' }));
    if (v.adversary) {
      card(foe, 16, y + 12, v.adversary);
      label(foe, 56, y + 28, 'health ' + v.adversary_health, 'small');
      label(foe, 56, y + 44, 'attack ' + v.adversary_attack, 'small');
    } else {
      label(foe, 16, y + 38, 'no adversary', 'small');
    }
    root.append(foe);
    offer(foe, 'adversary', ctx);
    const journeyDeck = back(root, 175, y + 10, v.journey_count, 'cards in the journey deck');
    label(root, 170, y + 72, 'journey', 'small');
    const supply = back(root, 225, y + 10, v.supply_count, 'cards in the supply');
    label(root, 222, y + 72, 'supply', 'small');
    offer(supply, 'supply', ctx);
    void journeyDeck;
    let x = 280;
    if (narrow) {
      // The destination, refuge and companion on a row of their own.
      y += 86;
      x = 10;
    }
    for (const [name, c] of [['destination', v.destination], ['refuge', v.refuge], ['companion', v.companion]]) {
      if (!c) continue;
      const g = card(root, x, y + 10, c);
      label(root, x - 4, y + 72, name, 'small');
      if (name === 'companion') offer(g, 'companion', ctx);
      x += 70;
    }
    if (v.offer) {
      const g = node('g', { class: 'offer' });
      g.append(node('rect', { x, y: y + 10, width: 120, height: 48, rx: 4, class: 'zone' }));
      label(g, x + 5, y + 30, 'offered: ' + (typeof v.offer === 'string' ? v.offer : JSON.stringify(v.offer)).slice(0, 18), 'small');
      root.append(g);
      offer(g, 'offer', ctx);
    }
    y += 86;
    // The travellers' satchels.
    for (const t of v.travellers) {
      const mine = !v.watcher && t.seat === v.seat;
      const g = node('g', { class: 'traveller' + (mine ? ' mine' : '') + (v.to_move === t.seat ? ' to-move' : '') });
      const panel = node('rect', { x: 10, y, width: W - 20, height: 76, rx: 6, class: 'zone' });
      g.append(panel);
      label(g, 16, y + 16, 'traveller ' + t.seat + (mine ? ' (you)' : '') + ' · ' + t.status +
        (v.to_move === t.seat ? ' · to move' : '') + ' · satchel of ' + v.satchel_limit + ' at most', 'name');
      const rows = row(g, 16, y + 22, t.satchel, 'satchel', ctx, { offerIt: mine, per });
      panel.setAttribute('height', String(24 + rows * 52));
      root.append(g);
      y += 32 + rows * 52;
    }
    // The discard and the wreckage.
    // The discard and the wreckage: beside their names, or (narrow) beneath them.
    const pileX = narrow ? 10 : 70;
    label(root, 10, y + 12, 'discard', 'zone-name');
    if (narrow) y += 18;
    y += 4 + 52 * row(root, pileX, y, v.discard, 'discard', ctx, { per: narrow ? 9 : 17 });
    label(root, 10, y + 12, 'wreckage', 'zone-name');
    if (narrow) y += 18;
    y += 4 + 52 * row(root, pileX, y, v.wreckage, 'wreckage', ctx, { per: narrow ? 9 : 17 });
    if ((v.boxed || []).length) {
      label(root, 10, y + 4, 'out of the game: ' + v.boxed.join(' '), 'small');
      y += 16;
    }
    x = 10;
    for (const [t, text] of [['pass', 'Pass'], ['end-refuge', 'End the refuge'], ['reckoning', 'The Reckoning'], ['deliverance', 'The Deliverance']]) {
      if (!ctx.byTarget.has(t)) continue;
      if (x + 130 > W) {
        x = 10;
        y += 34;
      }
      offer(button(root, x, y, text, 130), t, ctx);
      x += 140;
    }
    y += 36;
    return { root, width: W, height: y };
  }

  // The table of `game` from the seat's observation `view`; `legal` the seat's legal actions
  // now (empty when it is not to move); `choose(id)` plays one; `ask(actions)` offers several.
  // `narrow`: laid out for a narrow screen (half as wide, taller). `hint(actions)`, if given, is
  // told the actions of a thing the pointer comes onto.
  function table(game, view, legal, choose, ask, narrow = false, hint = null) {
    const byTarget = new Map();
    for (const a of legal || []) {
      if (!a.target) continue;
      if (!byTarget.has(a.target)) byTarget.set(a.target, []);
      byTarget.get(a.target).push(a);
    }
    const ctx = { byTarget, narrow, hint, pick: actions => (actions.length === 1 ? choose(actions[0].id) : ask(actions)) };
    const drawn = game === 'expedition' ? expedition(view, ctx) : game === 'journey' ? journey(view, ctx) : null;
    if (!drawn) return null;
    const svg = node('svg', { viewBox: `0 0 ${drawn.width} ${drawn.height}`, class: 'table', role: 'img' });
    svg.append(node('title', {}, view.watcher ? 'The table as anyone watching sees it' : 'The table as seat ' + view.seat + ' sees it'));
    svg.append(drawn.root);
    return svg;
  }

  // Mark the drawn things `target` names (the last move's): a class, for the style to show.
  function mark(svgEl, target) {
    for (const g of svgEl.querySelectorAll('[data-target]')) g.classList.toggle('last', g.dataset.target === target);
  }

  return { table, mark };
})();
