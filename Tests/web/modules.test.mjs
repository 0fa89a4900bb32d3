// The map page's modules keep to web/README.md: each imports only what its row allows, none is
// longer than 400 lines, and the pure ones (tested here under Node) touch no DOM, window or Leaflet.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { test } from 'node:test';

const WEB = new URL('../../web/', import.meta.url);

// What each module may import (web/README.md, "The modules").
const PURE = {
  'format.js': [],
  'forecast-data.js': [],
  'overlay-store.js': ['format.js'],
  'connection.js': [],
  'page-state.js': ['overlay-store.js'],
  'map-room.js': [],
  'locate-flow.js': [],
  'air-quality.js': [],
  'alert-format.js': ['format.js'],
};
const ALLOWED = {
  ...PURE,
  'dom.js': [],
  'symbols.js': [],
  'forecast-chart.js': ['dom.js', 'symbols.js', 'forecast-data.js'],
  'suggestions.js': ['format.js'],
  'popup.js': ['dom.js', 'format.js', 'symbols.js', 'forecast-chart.js', 'air-quality.js'],
  'markers.js': ['dom.js', 'format.js', 'symbols.js'],
  'map-view.js': ['alert-areas.js', 'format.js', 'map-room.js', 'markers.js', 'popup.js'],
  'alert-areas.js': ['dom.js', 'alert-format.js'],
  'credits.js': ['dom.js', 'air-quality.js'],
  'status.js': ['dom.js', 'format.js', 'credits.js'],
  'cities.js': ['dom.js', 'format.js', 'symbols.js'],
  'locate.js': ['dom.js', 'locate-flow.js'],
  'panel.js': ['dom.js', 'cities.js', 'locate.js', 'status.js', 'suggestions.js'],
  'app.js': ['connection.js', 'credits.js', 'map-view.js', 'panel.js', 'page-state.js'],
};

const modules = readdirSync(WEB).filter((name) => name.endsWith('.js')).sort();
const source = (name) => readFileSync(new URL(name, WEB), 'utf8');

function importsOf(text) {
  const found = [];
  for (const match of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'|^\s*import\s+'([^']+)'/gms)) {
    found.push(match[1] || match[2]);
  }
  return found;
}

test('every module of web/ has its row in the table of what it may import', () => {
  assert.deepEqual(modules, Object.keys(ALLOWED).sort());
});

for (const name of modules) {
  test(name + ' imports only what it may, and is at most 400 lines', () => {
    const text = source(name);
    for (const specifier of importsOf(text)) {
      assert.match(specifier, /^\.\/[a-z-]+\.js$/, name + ': a module of web/, by its relative path');
      assert.ok(ALLOWED[name].includes(specifier.slice(2)), name + ' may not import ' + specifier);
    }
    assert.ok(text.split('\n').length <= 400, name + ' has ' + text.split('\n').length + ' lines');
  });
}

test('the pure modules use no DOM, window or Leaflet, and load under Node', async () => {
  for (const name of Object.keys(PURE)) {
    const code = source(name).replace(/\/\/.*$/gm, '');
    assert.doesNotMatch(code, /\b(document|window)\b|\bL\./, name);
    await import(new URL(name, WEB));
  }
});

test('the table reads the imports of a module', () => {
  assert.deepEqual(importsOf("import { a } from './a.js';\nimport * as B from './b.js';\nimport {\n  c,\n} from './c.js';\n"),
    ['./a.js', './b.js', './c.js']);
});
