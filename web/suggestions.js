// Place suggestions while the user types a city: the search field becomes a WAI-ARIA 1.2 combobox
// with a listbox of the places the daemon's `places` method knows by that name.
//
//   import { attach } from './suggestions.js';
//   attach(input, {
//     request,             // (method, params) => Promise: the page's JSON-RPC helper
//     enabled,             // () => bool: false on a read-only page (places is refused there)
//     onPick(place),       // a place was chosen: search it as given ({"place": …})
//     onEnter(),           // Enter with no place chosen: search the text as typed
//   })
//
// - After a pause of PAUSE_MS in the typing (at least MIN_CHARS characters), asks
//   `places {"name", "limit": 5}`. One request at a time: text typed while one is out is asked once
//   it has come back. An answer for any other text than the field's is dropped, so a slow answer
//   never replaces a newer one.
// - ArrowDown/ArrowUp move through the places, Enter picks the one marked (or, with none marked,
//   searches the text: the daemon then takes the first place of the name, the list's first), a click
//   picks one, Escape closes the list (a second Escape clears the field, as a search field does),
//   leaving the field closes it. No answer, an empty one or an error: no list, and nothing said.
// - The focus stays in the field; the marked option is its aria-activedescendant.
//
// The list is built from DOM nodes: a place's name is text, never HTML.

import { isNum, placeLabel } from './format.js';

const PAUSE_MS = 250;
const MIN_CHARS = 2;
const LIMIT = 5;

let lists = 0;

function text(v) { return typeof v === 'string' && v.trim() ? v.trim() : null; }

// A place as `places` answers it, keeping only what `search {"place"}` takes; null when unusable.
function cleanPlace(p) {
  if (!p || typeof p !== 'object' || !text(p.name) || !isNum(p.lat) || !isNum(p.lon)) return null;
  return { name: p.name, state: text(p.state), country: text(p.country), lat: p.lat, lon: p.lon, provider: text(p.provider) };
}

export function attach(input, options) {
  const request = options.request;
  const enabled = options.enabled || (() => true);
  const onPick = options.onPick || (() => {});
  const onEnter = options.onEnter || (() => {});

  lists += 1;
  const list = document.createElement('ul');
  list.id = (input.id || 'combobox') + '-places-' + lists;
  list.className = 'suggestions';
  list.dataset.testid = 'place-suggestions';
  list.setAttribute('role', 'listbox');
  list.setAttribute('aria-label', 'Places');
  list.hidden = true;
  // Below the field's form, in the flow of the page: nothing it could be clipped by or cover.
  (input.form || input).insertAdjacentElement('afterend', list);

  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', list.id);
  // The browser's own suggestions stay off through the form's autocomplete="off" (index.html): on a
  // search field the attribute itself is no valid autocomplete token to axe-core 3.1.1.

  let timer = null;       // the pause after the last keystroke
  let due = false;        // a pause ended: the field's text is to be asked
  let asking = null;      // the text of the request in flight
  let dismissed = false;  // picked, Escaped or left since the last keystroke: show nothing
  let shownFor = null;    // the text the options are for
  let places = [];
  let active = -1;
  let unsupported = false;  // a daemon without `places` (-32601) is not asked again

  const current = () => input.value.trim();
  const isOpen = () => !list.hidden;

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    setActive(-1);
  }

  function setActive(index) {
    active = index;
    list.querySelectorAll('[role="option"]').forEach((option, i) => {
      option.setAttribute('aria-selected', i === index ? 'true' : 'false');
      option.classList.toggle('active', i === index);
      if (i === index) {
        input.setAttribute('aria-activedescendant', option.id);
        option.scrollIntoView({ block: 'nearest' });
      }
    });
    if (index < 0) input.removeAttribute('aria-activedescendant');
  }

  function show(forText, found) {
    places = found;
    shownFor = forText;
    list.replaceChildren();
    list.classList.remove('suggestions-stale');
    list.removeAttribute('aria-busy');
    found.forEach((place, i) => {
      const option = document.createElement('li');
      option.id = list.id + '-' + i;
      option.className = 'suggestion';
      option.dataset.testid = 'place-suggestion';
      option.dataset.lat = String(place.lat);
      option.dataset.lon = String(place.lon);
      option.setAttribute('role', 'option');
      option.setAttribute('aria-selected', 'false');
      option.textContent = placeLabel(place);
      list.appendChild(option);
    });
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    setActive(-1);
  }

  // Asks the field's text once a pause has ended, unless a request is still out (its end asks again).
  function pump() {
    if (asking !== null || !due) return;
    due = false;
    const name = current();
    if (!enabled() || unsupported || dismissed || name.length < MIN_CHARS) { close(); return; }
    if (name === shownFor) {
      if (!isOpen() && places.length) { list.hidden = false; input.setAttribute('aria-expanded', 'true'); }
      return;
    }
    asking = name;
    const settle = (found) => {
      asking = null;
      // Only the answer for what the field says now, and only while the user still wants a list.
      if (found !== undefined && name === current() && !dismissed && document.activeElement === input) {
        if (found.length) show(name, found);
        else { shownFor = name; places = []; close(); }
      }
      pump();
    };
    request('places', { name: name, limit: LIMIT }).then(
      (result) => settle((result && Array.isArray(result.places) ? result.places : []).map(cleanPlace).filter((p) => p)),
      (err) => {
        if (err && err.code === -32601) unsupported = true;
        if (name === current()) close();
        settle(undefined);
      });
  }

  // The pause in the typing: its state is on the list for tests to await (`data-pause`: none,
  // running or ended; `data-pauses`: how many have ended), instead of sleeping through it.
  let pausesEnded = 0;
  function stopPause() {
    clearTimeout(timer);
    timer = null;
    list.dataset.pause = 'none';
  }

  function askSoon() {
    clearTimeout(timer);
    list.dataset.pause = 'running';
    timer = setTimeout(() => {
      timer = null;
      pausesEnded += 1;
      list.dataset.pauses = String(pausesEnded);
      list.dataset.pause = 'ended';
      due = true;
      pump();
    }, PAUSE_MS);
  }

  function pick(index) {
    const place = places[index];
    if (!place) return;
    input.value = placeLabel(place);
    dismissed = true;
    shownFor = null;
    stopPause();
    close();
    onPick(place);
  }

  input.addEventListener('input', () => {
    dismissed = false;
    setActive(-1);
    const name = current();
    if (!enabled() || name.length < MIN_CHARS) {
      stopPause();
      close();
      return;
    }
    if (isOpen() && name !== shownFor) {
      list.classList.add('suggestions-stale');  // still the places of the earlier text
      list.setAttribute('aria-busy', 'true');
    }
    askSoon();
  });

  input.addEventListener('keydown', (e) => {
    if (e.isComposing) return;
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        if (!enabled()) return;
        e.preventDefault();
        const down = e.key === 'ArrowDown';
        if (!isOpen()) {
          // Open the list again (its places, when they are the field's), or ask now.
          dismissed = false;
          if (places.length && shownFor === current()) {
            list.hidden = false;
            input.setAttribute('aria-expanded', 'true');
            setActive(down ? 0 : places.length - 1);
          } else if (current().length >= MIN_CHARS) {
            stopPause();
            due = true;
            pump();
          }
          return;
        }
        const count = places.length;
        if (!count) return;
        setActive(active < 0 ? (down ? 0 : count - 1) : (active + (down ? 1 : -1) + count) % count);
        return;
      }
      case 'Enter':
        e.preventDefault();
        if (isOpen() && active >= 0) { pick(active); return; }
        dismissed = true;
        stopPause();
        close();
        onEnter();
        return;
      case 'Escape':
        if (isOpen()) {
          e.preventDefault();  // the first Escape only closes the list; the next clears the field
          dismissed = true;
          stopPause();
          close();
        }
        return;
      default:
    }
  });

  input.addEventListener('blur', () => {
    dismissed = true;
    stopPause();
    close();
  });

  // A click picks; pressing on the list must not take the focus from the field (that would close it).
  list.addEventListener('mousedown', (e) => e.preventDefault());
  list.addEventListener('click', (e) => {
    const option = e.target.closest('[role="option"]');
    if (!option) return;
    pick([...list.children].indexOf(option));
  });

  return { close: close, element: list };
}
