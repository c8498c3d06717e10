'use strict';
// The client key this browser shows the face: typed once, checked, then kept in a cookie no
// script can read (HttpOnly) and that is sent on the face's own pages' requests only
// (SameSite=Strict), event streams included. Served at /key, and in place of any page the face
// refuses for want of a key (401): once a key is taken, that page is opened again.

const refusedPage = location.pathname !== '/key';

function problem(message) {
  const p = document.getElementById('problem');
  p.textContent = message;
  p.hidden = !message;
}

// At most once in 10 s: a page opened from another site was sent without the cookie (it is
// SameSite=Strict), while this page's own requests are; opened again from here, it is too.
function mayOpenAgain() {
  const last = Number(sessionStorage.getItem('arena-key-reopened') || 0);
  if (Date.now() - last < 10000) return false;
  sessionStorage.setItem('arena-key-reopened', String(Date.now()));
  return true;
}

async function showStatus() {
  const status = document.getElementById('key-status');
  const forget = document.getElementById('forget');
  const r = await fetch('/api/key');
  const data = await r.json().catch(() => ({}));
  forget.hidden = !(r.ok && data.client);
  if (r.status === 401) {
    status.textContent = 'This server serves its clients by key: enter the one its operator gave you.';
  } else if (!r.ok) {
    status.textContent = data.error || r.status + ' ' + r.statusText;
  } else if (data.client) {
    if (refusedPage && mayOpenAgain()) {
      location.replace(location.href);
      return;
    }
    status.textContent = 'This browser shows the key of client ' + data.client + '.';
  } else if (data.required === 'create') {
    status.textContent = 'This browser shows no client key: this server makes new matches for its clients by key.';
  } else {
    status.textContent = 'This browser shows no client key: the server knows it by its address.';
  }
}

document.getElementById('key-form').addEventListener('submit', async event => {
  event.preventDefault();
  problem('');
  const input = document.getElementById('key');
  try {
    await arena.call('/api/key', { method: 'POST', body: { key: input.value } });
    input.value = '';
    if (refusedPage) {
      location.replace(location.href);
      return;
    }
    await showStatus();
  } catch (e) {
    problem('That key was refused: ' + e.message);
  }
});

document.getElementById('forget').addEventListener('click', async () => {
  problem('');
  try {
    await arena.call('/api/key', { method: 'DELETE' });
  } catch (e) {
    problem(e.message);
  }
  await showStatus();
});

showStatus();
