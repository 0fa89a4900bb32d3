// Weather symbols drawn as SVG, one per OpenWeatherMap icon code (01d … 50n), so the page looks the
// same on every system: it needs no emoji font. Open-Meteo's weather codes reach the page as the same
// icon codes (see docs/protocol.md, "Feature").
//
// The shapes were drawn for weatherd, by hand, in a 24×24 viewBox: they are part of weatherd's own
// sources, under the same terms as the rest of it (see web/README.md). No icon set was copied.
//
//   import * as WeatherSymbols from './symbols.js';
//   WeatherSymbols.element('10d', { size: 16, title: 'light rain', className: 'wx-symbol' })
//
// returns an <svg> element: aria-hidden unless a title is given (then role="img" with that name).
// An unknown or missing icon gets a neutral shape (a dashed ring). Nothing here is HTML text.

const SVG = 'http://www.w3.org/2000/svg';

// Colours chosen to read both on the page's light panel and popups and on the pale, temperature-
// tinted marker chips: every light fill has a darker outline.
const C = {
  sun: '#f7b500', sunEdge: '#c98300',
  moon: '#f3d77a', moonEdge: '#9c7a1c',
  cloud: '#ffffff', cloudBack: '#d3dbe1', cloudEdge: '#66757f',
  storm: '#97a3ad', stormEdge: '#4f5b64',
  rain: '#2b78c2', snow: '#2f86d0', bolt: '#f7b500', boltEdge: '#a86c00',
  mist: '#75838e', none: '#98a3ab',
};

// One cloud (three bumps on a flat base) filling most of the box; the others are placed with transforms.
const CLOUD = 'M7 19A4 4 0 0 1 7 11A5.5 5.5 0 1 1 17.9 12.02A3.5 3.5 0 0 1 17.5 19Z';
// A crescent: a disc of radius 8 with a disc of radius 6.5 cut from its upper right.
const MOON = 'M19.7 14.16A8 8 0 1 1 11.81 4A6.5 6.5 0 0 0 19.7 14.16Z';

// ---- the parts, each a list of [tag, attributes]

function sun() {
  const parts = [];
  for (let i = 0; i < 8; i++) {
    const a = i * Math.PI / 4;
    const r = (v) => Math.round(v * 100) / 100;
    parts.push(['line', {
      x1: r(12 + 6.8 * Math.cos(a)), y1: r(12 + 6.8 * Math.sin(a)),
      x2: r(12 + 9.6 * Math.cos(a)), y2: r(12 + 9.6 * Math.sin(a)),
      stroke: C.sunEdge, 'stroke-width': 1.9, 'stroke-linecap': 'round',
    }]);
  }
  parts.push(['circle', { cx: 12, cy: 12, r: 4.6, fill: C.sun, stroke: C.sunEdge, 'stroke-width': 1.2 }]);
  return parts;
}

function moon() {
  return [['path', { d: MOON, fill: C.moon, stroke: C.moonEdge, 'stroke-width': 1.2, 'stroke-linejoin': 'round' }]];
}

function cloud(fill, edge) {
  return [['path', { d: CLOUD, fill: fill || C.cloud, stroke: edge || C.cloudEdge, 'stroke-width': 1.4, 'stroke-linejoin': 'round' }]];
}

// Parts moved and scaled: transform 'translate(x y) scale(s)'.
function placed(transform, parts) { return [['g', { transform: transform }, parts]]; }

function drops(color) {
  return [[11, 0], [15, 0], [7, 0]].map(([x]) => ['line', {
    x1: x + 1, y1: 17.5, x2: x - 0.5, y2: 21.5, stroke: color || C.rain, 'stroke-width': 1.9, 'stroke-linecap': 'round',
  }]);
}

function bolt() {
  return [['path', {
    d: 'M13.2 12.4L8.8 18.8h3.3l-1.7 4.6 5.4-7h-3.4l2-4z',
    fill: C.bolt, stroke: C.boltEdge, 'stroke-width': 0.9, 'stroke-linejoin': 'round',
  }]];
}

function flake() {
  const parts = [];
  const r = (v) => Math.round(v * 100) / 100;
  for (let i = 0; i < 6; i++) {
    const a = i * Math.PI / 3 - Math.PI / 2;
    const cos = Math.cos(a), sin = Math.sin(a);
    parts.push(['line', { x1: 12, y1: 12, x2: r(12 + 9 * cos), y2: r(12 + 9 * sin) }]);
    // A small V on each arm.
    for (const side of [-1, 1]) {
      const b = a + side * Math.PI / 4;
      parts.push(['line', {
        x1: r(12 + 5.6 * cos), y1: r(12 + 5.6 * sin),
        x2: r(12 + 5.6 * cos + 2.6 * Math.cos(b)), y2: r(12 + 5.6 * sin + 2.6 * Math.sin(b)),
      }]);
    }
  }
  return [['g', { stroke: C.snow, 'stroke-width': 1.6, 'stroke-linecap': 'round' }, parts]];
}

function mist() {
  return [[5, 3, 19], [8, 5, 21], [11, 3, 17], [14, 6, 21], [17, 3, 18]].map(([y, x1, x2], i) => ['line', {
    x1: x1, y1: y + 1.5, x2: x2, y2: y + 1.5, stroke: C.mist, 'stroke-width': 1.9, 'stroke-linecap': 'round',
    opacity: i % 2 ? 0.75 : 1,
  }]);
}

function none() {
  return [['circle', { cx: 12, cy: 12, r: 7, fill: 'none', stroke: C.none, 'stroke-width': 2, 'stroke-dasharray': '3.3 2.2' }]];
}

// The small sun or moon behind a cloud (02, 10), up and to the left.
function behind(night) {
  return placed('translate(1 0.5) scale(0.62)', night ? moon() : sun());
}

// ---- the symbols: a code and day (d) or night (n)

const NAMES = {
  '01': 'clear sky', '02': 'few clouds', '03': 'scattered clouds', '04': 'broken clouds',
  '09': 'shower rain', '10': 'rain', '11': 'thunderstorm', '13': 'snow', '50': 'mist',
};

function parts(code, night) {
  switch (code) {
    case '01': return night ? moon() : sun();
    case '02': return behind(night).concat(placed('translate(4.6 4.4) scale(0.8)', cloud()));
    case '03': return cloud();
    case '04': return placed('translate(5.2 -3) scale(0.82)', cloud(C.cloudBack)).concat(placed('translate(-1.2 2) scale(0.9)', cloud()));
    case '09': return placed('translate(0 -3.2)', cloud()).concat(drops());
    case '10': return behind(night).concat(placed('translate(4.2 -1) scale(0.8)', cloud()), drops());
    case '11': return placed('translate(0 -3.4)', cloud(C.storm, C.stormEdge)).concat(bolt());
    case '13': return flake();
    case '50': return mist();
    default: return none();
  }
}

function build(parent, list) {
  for (const [tag, attributes, children] of list) {
    const node = document.createElementNS(SVG, tag);
    for (const name of Object.keys(attributes)) node.setAttribute(name, String(attributes[name]));
    if (children) build(node, children);
    parent.appendChild(node);
  }
}

// '10d' → {code: '10', night: false}; anything else → null.
function parse(icon) {
  if (typeof icon !== 'string') return null;
  const m = /^(\d\d)([dn])$/.exec(icon.trim());
  if (!m || !NAMES[m[1]]) return null;
  return { code: m[1], night: m[2] === 'n' };
}

export function element(icon, options) {
  const o = options || {};
  const known = parse(icon);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  const size = o.size || 24;
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('class', 'wx-sym' + (o.className ? ' ' + o.className : ''));
  svg.setAttribute('focusable', 'false');
  svg.dataset.icon = known ? known.code + (known.night ? 'n' : 'd') : 'none';
  if (o.title) {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', String(o.title));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = String(o.title);
    svg.appendChild(title);
  } else {
    svg.setAttribute('aria-hidden', 'true');
  }
  build(svg, known ? parts(known.code, known.night) : none());
  return svg;
}

// What a code shows, in plain words ('rain'); '' for an unknown one.
export function name(icon) {
  const known = parse(icon);
  return known ? NAMES[known.code] : '';
}

// Whether the code is one of the symbols (an unknown one is drawn as the neutral ring).
export function isKnown(icon) {
  return parse(icon) !== null;
}
