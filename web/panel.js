// The panel: the search field with its place suggestions (web/suggestions.js), the locate button,
// the status (web/status.js), the watched cities (web/cities.js), the version, and on a narrow
// screen the toggle that folds it to a bar. Read-only hides every control that would change
// something.
//
//   const panel = createPanel({ config, connection, store, showFeature, location });
//   panel.status, panel.cities    // what the entry module feeds the daemon's notifications to
//   panel.applyConfig()           // once the configuration is known

import { $, busy } from './dom.js';
import { createCities } from './cities.js';
import { attachLocate } from './locate.js';
import { createStatus } from './status.js';
import { attach as attachSuggestions } from './suggestions.js';

// A lookup's outcome (not found, unavailable, rate limited, key rejected): the phase's to show.
const LOOKUP_ERRORS = new Set([-32001, -32002, -32003, -32004]);

// config: the page's (read_only, version); connection: request() and open; store: the overlays
// (web/overlay-store.js); showFeature(feature): the map flies to a watched city; location(): the
// daemon's fused location as the page last heard it (`state.location`), or null.
export function createPanel({ config, connection, store, showFeature, location }) {
  const status = createStatus();
  const showNotice = status.showNotice;
  const cities = createCities({
    config: config, connection: connection, store: store, showFeature: showFeature, showNotice: showNotice,
  });

  const searchInput = $('#search-input');
  const locateButton = $('#locate-button');

  // The text as typed (the daemon takes the first place of the name), or a place picked from the
  // suggestions, looked up as given.
  function search(place) {
    const city = searchInput.value.trim();
    if (!place && !city) return;
    busy(searchInput, true);
    showNotice('');
    connection.request('search', place ? { place: place } : { city: city })
      .then(() => searchInput.select())
      .catch((err) => {
        // The notice says what the phase cannot (a bad name, a lost connection).
        if (!LOOKUP_ERRORS.has(err.code)) showNotice(err.message, 'error');
      })
      .finally(() => busy(searchInput, false));
  }

  $('#search-form').addEventListener('submit', (e) => { e.preventDefault(); search(); });
  // The places of the name while it is typed; Enter searches.
  attachSuggestions(searchInput, {
    request: (method, params) => connection.request(method, params),
    enabled: () => !config.read_only,
    onPick: (place) => search(place),
    onEnter: () => search(),
  });

  // The daemon's fused location, else the browser's position (web/locate.js).
  attachLocate({ button: locateButton, connection: connection, location: location, showNotice: showNotice });

  // On a narrow screen the panel is a bar (brand, search, status) until its toggle shows the rest;
  // on a wide one the toggle is not shown and the panel is whole.
  const panel = $('#panel');
  const toggle = $('#panel-toggle');
  toggle.addEventListener('click', () => {
    const expanded = !panel.classList.toggle('folded');
    toggle.setAttribute('aria-expanded', expanded ? 'true' : 'false');
    const label = expanded ? 'Hide panel' : 'Show panel';
    toggle.title = label;
    toggle.querySelector('.visually-hidden').textContent = label;
  });

  const version = $('#version');
  function showVersion(text) {
    version.textContent = 'weatherd ' + text;
  }

  function applyConfig() {
    document.body.classList.toggle('read-only', config.read_only);
    for (const node of document.querySelectorAll('[data-control]')) node.hidden = config.read_only;
    $('#read-only-badge').hidden = !config.read_only;
    if (config.version) showVersion(config.version);
    cities.render();
  }

  return {
    element: panel,
    status: status,
    cities: cities,
    showNotice: showNotice,
    showVersion: showVersion,
    applyConfig: applyConfig,
  };
}
