// The page's shared state, in one place: app.js creates it once and passes each part to the
// modules that read it; no module keeps a copy or reaches for another's.
//
// - config: what assets/config.json says (tile_url, tile_attribution, read_only, version,
//   air_quality_scale), with the bundled basemap and full control when it says nothing;
// - overlays: the overlays as the page has them (web/overlay-store.js);
// - daemon: the last `state` notification, or null.

import { OverlayStore } from './overlay-store.js';

export function createPageState() {
  return {
    config: { tile_url: '', tile_attribution: '', read_only: false, version: '', air_quality_scale: 'european' },
    overlays: new OverlayStore(),
    daemon: null,
  };
}

// Takes into `config` what a config.json says of each key, when it is of the key's type.
export function readConfig(config, json) {
  if (!json || typeof json !== 'object') return config;
  for (const key of Object.keys(config)) {
    if (typeof json[key] === typeof config[key]) config[key] = json[key];
  }
  return config;
}

// assets/config.json into `config`; without it (an error, not found), `config` as it was.
export function loadConfig(config) {
  return fetch('assets/config.json', { cache: 'no-store' })
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}))
    .then((json) => readConfig(config, json));
}
