// The alerts' areas in the overlay store and how the page says an alert (web/overlay-store.js,
// web/alert-format.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SEVERITIES, alertTimes, severityOf } from '../../web/alert-format.js';
import { OverlayStore, isAlertArea } from '../../web/overlay-store.js';

const point = { type: 'Feature', id: 'pt:35.3500,-97.4800', geometry: { type: 'Point', coordinates: [-97.48, 35.35] },
  properties: { source: 'city', provider: 'open-meteo' } };

function area(id, severity, type = 'Polygon') {
  const ring = [[-97.62, 35.41], [-97.38, 35.52], [-97.21, 35.39], [-97.62, 35.41]];
  return { type: 'Feature', id: 'alert:' + id,
    geometry: { type: type, coordinates: type === 'Polygon' ? [ring] : [[ring]] },
    properties: { source: 'alert', event: 'Warning ' + id, severity: severity, provider: 'nws' } };
}

test('alert areas are kept apart from the weather features, by id, through full collections and diffs', () => {
  const store = new OverlayStore();
  store.applyFull({ seq: 1, features: [point, area('a', 'Severe'), area('b', 'Minor', 'MultiPolygon')] });
  assert.deepEqual(store.features.map((f) => f.id), [point.id]);
  assert.deepEqual(store.areas.map((f) => f.id), ['alert:a', 'alert:b']);
  assert.equal(store.size, 1);
  assert.deepEqual(store.providers(['openweathermap', 'open-meteo', 'nws']), ['open-meteo', 'nws']);
  assert.equal(store.applyDiff({ seq: 2, base: 1, added: [area('c', 'Extreme')], changed: [], removed: ['alert:a'] }), 'applied');
  assert.deepEqual(store.areas.map((f) => f.id), ['alert:b', 'alert:c']);
});

test('only an alert with a Polygon or MultiPolygon is an area', () => {
  assert.equal(isAlertArea(area('a', 'Severe')), true);
  assert.equal(isAlertArea(point), false);
  assert.equal(isAlertArea({ ...area('a', 'Severe'), geometry: { type: 'Point', coordinates: [1, 2] } }), false);
  assert.equal(isAlertArea({ ...area('a', 'Severe'), properties: { source: 'city' } }), false);
});

test('severities as the page names them, unknown for anything else', () => {
  assert.deepEqual(SEVERITIES, ['extreme', 'severe', 'moderate', 'minor', 'unknown']);
  assert.equal(severityOf('Severe'), 'severe');
  assert.equal(severityOf('<b>bad</b>'), 'unknown');
  assert.equal(severityOf(undefined), 'unknown');
});

test('from and until when, only the part known', () => {
  assert.match(alertTimes({ onset: '2026-05-21T02:42:00Z', ends: '2026-05-21T03:30:00Z' }), /^From .+ until .+$/);
  assert.match(alertTimes({ ends: '2026-05-21T03:30:00Z' }), /^Until /);
  assert.match(alertTimes({ onset: '2026-05-21T02:42:00Z', ends: null }), /^From /);
  assert.equal(alertTimes({}), null);
});
