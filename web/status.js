// What the panel says of the daemon and of requests: the connection, the activity indicator and
// the phase, the rate-limit line, and a request's error (the notice). Screen readers: the phase and
// the connection are polite live regions, set only when their text changes so that each is said
// once (the reconnect countdown is shown, not read out); the notice is an alert; a rate limit's start
// and end are said through a hidden polite region (index.html, #announcer), not each request count.

import { $ } from './dom.js';
import { budgetText, phaseText } from './format.js';
import { providerTitle } from './credits.js';

export function createStatus() {
  const connectionBox = $('[data-testid="connection"]');
  const connectionText = connectionBox.querySelector('.connection-text');
  const connectionRetry = connectionBox.querySelector('.connection-retry');
  const activity = $('[data-testid="activity"]');
  const phase = $('[data-testid="phase"]');
  const budgetLine = $('[data-testid="budget"]');
  const announcer = $('#announcer');
  const notice = $('#notice');

  // The connection as web/connection.js says it is: { open, text, retry }.
  function showConnection({ open, text, retry }) {
    connectionBox.dataset.connected = open ? 'true' : 'false';
    if (connectionText.textContent !== text) connectionText.textContent = text;
    connectionRetry.textContent = retry ? ' — ' + retry : '';
    document.body.classList.toggle('disconnected', !open);
  }

  function setRunning(running) {
    activity.dataset.running = running ? 'true' : 'false';
    activity.hidden = !running;
  }

  // A `state` notification, with the number of places on the map (the phase line counts them).
  function showState(state, places) {
    setRunning(state.running === true);
    const name = typeof state.phase === 'string' ? state.phase : '';
    phase.dataset.phase = name;
    phase.className = 'phase phase-' + (name || 'unknown');
    const text = phaseText(state, places);
    if (phase.textContent !== text) phase.textContent = text;  // a live region: said once
    if (name === 'error' && state.error && state.error.message) phase.title = state.error.message;
    else phase.removeAttribute('title');
    showBudget(state.budget, Array.isArray(state.providers) ? state.providers : []);
  }

  // The first provider answered 429: no request goes to it until the block ends (a state
  // notification says when it starts and when it ends). The line follows every count.
  let announcedBlock = null;
  function showBudget(budget, providers) {
    const block = budgetText(budget, providers, providerTitle);
    budgetLine.hidden = !block;
    budgetLine.dataset.blocked = block ? 'true' : 'false';
    if (!block) {
      budgetLine.textContent = '';
      if (announcedBlock) announce('The rate limit is over: lookups go out again.');
      announcedBlock = null;
      return;
    }
    if (block.until !== announcedBlock) announce(block.said);
    announcedBlock = block.until;
    budgetLine.textContent = block.shown;
  }

  function announce(text) {
    announcer.textContent = text;
  }

  // A request's error (kind 'error') or what the page waits for ('info'); '' hides it. It goes
  // after 8 s.
  let noticeTimer = null;
  function showNotice(text, kind) {
    notice.textContent = text;
    notice.className = 'notice' + (kind ? ' notice-' + kind : '');
    notice.hidden = !text;
    clearTimeout(noticeTimer);
    if (text) noticeTimer = setTimeout(() => { notice.hidden = true; }, 8000);
  }

  return { showConnection: showConnection, setRunning: setRunning, showState: showState, showNotice: showNotice };
}
