// weatherd map page: the entry module. It creates the page's state (web/page-state.js), the
// connection, the map and the panel, and feeds the daemon's notifications to them; web/README.md
// says what each module does and may import. Plain JavaScript modules, no build step; Leaflet is
// the classic script before this one (assets/leaflet/leaflet.js).
//
// Everything the daemon, a weather provider or a user says is put into the page as text: the DOM is
// built with createElement and textContent, and Leaflet gets DOM nodes, never HTML strings.

import { Connection, socketURL } from './connection.js';
import { PROVIDER_NAMES, createCredits } from './credits.js';
import { createMapView } from './map-view.js';
import { createPanel } from './panel.js';
import { createPageState, loadConfig } from './page-state.js';

const state = createPageState();
const { config, overlays } = state;
await loadConfig(config);

const credits = createCredits(config);

const connection = new Connection({
  url: socketURL(window.location.href),
  onOpen: opened,
  onNotification: notified,
  onStatus: (status) => panel.status.showConnection(status),
  onClose: () => panel.status.setRunning(false),
});

const panelElement = document.querySelector('#panel');
const view = createMapView({
  element: document.querySelector('#map'),
  config: config,
  connection: connection,
  obstacle: panelElement,
  // A user's move: the region of the view, unless read-only.
  onRegion: (region) => {
    if (config.read_only || !connection.open) return false;
    connection.request('region', region).catch((err) => panel.showNotice(err.message));
    return true;
  },
});

const panel = createPanel({
  config: config, connection: connection, store: overlays, showFeature: view.showFeature,
  location: () => (state.daemon && state.daemon.location) || null,
});

// Changes arrive as diffs after one full collection (and after each new watch).
function watch() {
  overlays.reset();
  return connection.request('watch', { replay: true, topics: ['overlays', 'state'], diff: true })
    .catch((err) => panel.showNotice(err.message, 'error'));
}

function opened() {
  view.reconnected();
  watch();
  panel.cities.ask();
  if (!config.version) {
    connection.request('version', {}).then((v) => {
      if (v && typeof v.version === 'string') panel.showVersion(v.version);
    }).catch(() => {});
  }
}

function showState(daemon) {
  if (!daemon || typeof daemon !== 'object') return;
  panel.status.showState(daemon, overlays.size);
  credits.showSample(Array.isArray(daemon.providers) ? daemon.providers : []);
  state.daemon = daemon;
}

function overlaysChanged() {
  view.show(overlays);
  credits.showProviders(overlays.providers(PROVIDER_NAMES));
  credits.showAirQuality(overlays.features.some((f) => f.properties && f.properties.air_quality));
  panel.cities.render();
  panel.cities.refreshIfChanged();
  if (state.daemon) showState(state.daemon);  // the place count in the phase line
}

function notified(method, params) {
  if (method === 'state') {
    showState(params);
  } else if (method === 'overlays') {
    if (overlays.applyFull(params)) overlaysChanged();
  } else if (method === 'overlays.diff') {
    // A diff from another collection than the page's asks for the whole collection again; until
    // it comes, diffs are ignored.
    const outcome = overlays.applyDiff(params);
    if (outcome === 'applied') overlaysChanged();
    else if (outcome === 'resync') watch();
  }
}

panel.applyConfig();
view.start(credits);
connection.connect();
