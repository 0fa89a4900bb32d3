// The page's configuration (web/page-state.js): what assets/config.json says, key by key.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createPageState, readConfig } from '../../web/page-state.js';

test('without a config.json the page has the bundled basemap and full control', () => {
  const state = createPageState();
  assert.deepEqual(readConfig(state.config, null), {
    tile_url: '', tile_attribution: '', read_only: false, version: '', air_quality_scale: 'european',
  });
  assert.equal(state.overlays.size, 0);
  assert.equal(state.daemon, null);
});

test('each key is taken when it has its type, and nothing else', () => {
  const { config } = createPageState();
  readConfig(config, {
    tile_url: 'https://tiles.example/{z}/{x}/{y}.png', tile_attribution: 42, read_only: 'yes', version: '1.4.0', extra: true,
    air_quality_scale: 'us',
  });
  assert.deepEqual(config, {
    tile_url: 'https://tiles.example/{z}/{x}/{y}.png', tile_attribution: '', read_only: false, version: '1.4.0',
    air_quality_scale: 'us',
  });
  readConfig(config, { read_only: true });
  assert.equal(config.read_only, true);
});
