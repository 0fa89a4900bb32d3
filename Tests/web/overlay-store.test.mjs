// The overlay store (web/overlay-store.js): full collections and diffs applied by feature id.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { OverlayStore, isDrawable } from '../../web/overlay-store.js';

function feature(id, props = {}, coordinates = [-0.1257, 51.5085]) {
  return { type: 'Feature', id: id, geometry: { type: 'Point', coordinates: coordinates }, properties: props };
}

function ids(store) {
  return store.features.map((f) => f.id);
}

test('a full collection replaces what the store had, keeping only drawable features, each id once', () => {
  const store = new OverlayStore();
  store.applyFull({ seq: 1, features: [feature('a'), feature('b')] });
  const first = feature('c', { name: 'first' });
  assert.equal(store.applyFull({
    seq: 2,
    focus: [2.35, 48.85],
    features: [first, feature('c', { name: 'second' }), { id: 'nowhere', geometry: null }, feature(undefined), null,
      feature('bad', {}, ['x', 1])],
  }), true);
  assert.deepEqual(ids(store), ['c']);
  assert.equal(store.feature('c'), first);
  assert.equal(store.seq, 2);
  assert.deepEqual(store.focus, [2.35, 48.85]);
  assert.equal(store.size, 1);
});

test('what is no collection changes nothing', () => {
  const store = new OverlayStore();
  store.applyFull({ seq: 1, features: [feature('a')] });
  assert.equal(store.applyFull(null), false);
  assert.equal(store.applyFull('overlays'), false);
  assert.deepEqual(ids(store), ['a']);
});

test('a diff removes, changes in place and adds at the end', () => {
  const store = new OverlayStore();
  store.applyFull({ seq: 4, features: [feature('a'), feature('b'), feature('c')] });
  const changed = feature('b', { temperature: 9 });
  const outcome = store.applyDiff({
    base: 4, seq: 5, focus: null, removed: ['a'], changed: [changed], added: [feature('d'), feature(7)],
  });
  assert.equal(outcome, 'applied');
  assert.deepEqual(ids(store), ['b', 'c', 'd', 7]);
  assert.equal(store.feature('b'), changed);
  assert.equal(store.feature('7').id, 7, 'ids are known as text, whatever their JSON type');
  assert.equal(store.seq, 5);
  assert.equal(store.focus, null);
});

test('a diff from another collection forgets this one and asks for a full one; diffs until then change nothing', () => {
  const store = new OverlayStore();
  store.applyFull({ seq: 4, features: [feature('a')] });
  assert.equal(store.applyDiff({ base: 3, seq: 5, added: [feature('b')] }), 'resync');
  assert.equal(store.size, 0);
  assert.equal(store.applyDiff({ base: null, seq: 6, added: [feature('c')] }), 'ignored');
  assert.equal(store.size, 0);
  store.applyFull({ seq: 6, features: [feature('a')] });
  assert.equal(store.applyDiff({ base: 6, seq: 7, removed: ['a'] }), 'applied');
  assert.equal(store.size, 0);
});

test('before the first full collection, and after a reset, a diff is ignored', () => {
  const store = new OverlayStore();
  assert.equal(store.applyDiff({ base: null, seq: 1, added: [feature('a')] }), 'ignored');
  store.applyFull({ seq: 1, features: [feature('a')] });
  store.reset();
  assert.equal(store.applyDiff({ base: 1, seq: 2, added: [feature('b')] }), 'ignored');
  assert.equal(store.size, 0);
  assert.equal(store.applyDiff(null), 'ignored');
});

test('lists in a diff may be missing or hold what is no feature', () => {
  const store = new OverlayStore();
  store.applyFull({ seq: 1, features: [feature('a')] });
  assert.equal(store.applyDiff({ base: 1, seq: 2, changed: 'x', added: [null, { id: 'b' }] }), 'applied');
  assert.deepEqual(ids(store), ['a']);
});

test('a watched city is its own feature, else a search result of the same place, never a grid point', () => {
  const store = new OverlayStore();
  const grid = feature('pt:1', { name: 'London', country: 'GB', source: 'around' });
  const search = feature('owm:1', { name: 'London', country: 'GB', source: 'text' });
  const city = feature('owm:2', { name: 'London', country: 'GB', source: 'city' });
  const canada = feature('owm:3', { name: 'London', country: 'CA', source: 'city' });
  store.applyFull({ seq: 1, features: [grid, search] });
  assert.equal(store.cityFeature('London,GB'), search);
  assert.equal(store.cityFeature('london , gb'), search);
  assert.equal(store.cityFeature('Paris'), null);
  store.applyFull({ seq: 2, features: [grid, search, canada, city] });
  assert.equal(store.cityFeature('London,GB'), city);
  assert.equal(store.cityFeature('London,CA'), canada);
  assert.equal(store.cityFeature('London'), canada, 'a name alone: the first watched city of that name');
});

test('the watched cities\' ids, the result and the providers', () => {
  const store = new OverlayStore();
  store.applyFull({
    seq: 1,
    features: [
      feature('b', { source: 'city', provider: 'open-meteo' }),
      feature('a', { source: 'city', provider: 'open-meteo' }),
      feature('r', { source: 'region', provider: 'open-meteo' }),
    ],
  });
  assert.equal(store.cityIds(), 'a|b');
  assert.equal(store.result(), null);
  assert.deepEqual(store.providers(['openweathermap', 'open-meteo']), ['open-meteo']);
  store.applyDiff({ base: 1, seq: 2, added: [feature('t', { source: 'location', provider: 'openweathermap' })] });
  assert.equal(store.result().id, 't');
  assert.deepEqual(store.providers(['openweathermap', 'open-meteo']), ['openweathermap', 'open-meteo']);
});

test('a drawable feature has an id and a numeric position', () => {
  assert.equal(isDrawable(feature('a')), true);
  assert.equal(isDrawable(feature(0)), true);
  assert.equal(isDrawable(feature(null)), false);
  assert.equal(isDrawable(feature('a', {}, [1])), false);
  assert.equal(isDrawable(feature('a', {}, [1, Infinity])), false);
  assert.equal(isDrawable(undefined), false);
});
