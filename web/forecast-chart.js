// The forecast in a popup as a chart: the temperature as a line, the chance of precipitation as pale
// bars and its amount as narrower dark bars, over the next 48 hours, with a weather symbol every six
// hours. The same numbers are in a visually hidden table for screen readers; the SVG is role="img"
// with a one-sentence summary as its name.
//
//   import * as ForecastChart from './forecast-chart.js';
//   ForecastChart.element(result, { hours: 48 })   // result: the `forecast` method's Feature
//
// returns a <figure data-testid="forecast-chart"> (or null when the forecast has no usable step).
//
// Why plain SVG and not Chart.js (Debian's libjs-chart.js, which the page could serve the way it
// serves Leaflet): this chart is one line and two sets of bars on fixed axes, drawn by the 100 lines
// of draw() below; the table, the summary and the legend would be needed with Chart.js too.
// Chart.js (3.9 in Debian 12) would need a new package dependency of weatherd, a new asset route in
// the web server (Sources/WeatherDaemon/Web/WebRoutes.swift) and its install paths, some 200 KB of
// minified script, and a <canvas>: a bitmap that has no elements a test can find, and whose
// accessibility we would have to add anyway. SVG is drawn by the browser at any zoom, each mark is
// an element (tests count them), and it is built with createElementNS like the rest of the page, so
// nothing the daemon sends is ever HTML.
//
// Times are shown in the browser's time zone. Missing values (null) are gaps: no point of the line
// (the line breaks there), no bar, "–" in the table. The numbers (steps, scales, texts) are
// web/forecast-data.js's.

import { el } from './dom.js';
import * as WeatherSymbols from './symbols.js';
import {
  amountLegend, everyText, formatAmount, formatPop, formatTemp, largestAmount, lineRuns, round1, rowTime, stepSeconds,
  stepsOf, summary, symbolEvery, temperatureScale, temperatureY, timeScale, unitOf,
} from './forecast-data.js';

const SVG = 'http://www.w3.org/2000/svg';

// The drawing, in CSS pixels: it fits the popup's content (Leaflet popup, max 320 px wide).
const W = 268;
const H = 100;                // as tall as the row of steps it replaced, so the popup grows no taller
const LEFT = 27;              // room for the temperature labels
const RIGHT = W - 4;
const SYMBOL_SIZE = 14;       // the symbols' row: y 1 … 15
const TEMP_TOP = 20;          // the temperature line's area
const TEMP_BOTTOM = 60;
const RAIN_TOP = 64;          // the precipitation bars' band
const RAIN_BOTTOM = 86;
const AXIS_TEXT_Y = 97;       // the time axis' labels

const weekday = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
const noon = new Intl.DateTimeFormat(undefined, { hour: 'numeric' });

function svg(tag, attributes, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const name of Object.keys(attributes || {})) node.setAttribute(name, String(attributes[name]));
  if (parent) parent.appendChild(node);
  return node;
}


// ---------------------------------------------------------------- the drawing

function draw(steps, step, unit, hours) {
  const start = steps[0].time;
  const span = hours * 3600 * 1000;
  const stepMs = step * 1000;
  const x = timeScale(start, hours, LEFT, RIGHT);
  const root = svg('svg', {
    class: 'fc-svg', viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', focusable: 'false',
  });

  // The days: a line at each local midnight with the weekday, a tick at 6, 12 and 18 h, noon labelled.
  const grid = svg('g', { class: 'fc-grid' }, root);
  const labels = svg('g', { class: 'fc-axis' }, root);
  const hour = new Date(start);
  hour.setMinutes(0, 0, 0);
  for (let t = hour.getTime(); t <= start + span; t += 3600 * 1000) {
    if (t < start) continue;
    const h = new Date(t).getHours();
    const px = Math.round(x(t)) + 0.5;
    if (h === 0) {
      svg('line', { class: 'fc-midnight', x1: px, x2: px, y1: TEMP_TOP - 4, y2: RAIN_BOTTOM + 3 }, grid);
      if (px + 14 < W) svg('text', { x: px + 2, y: AXIS_TEXT_Y, class: 'fc-day' }, labels).textContent = weekday.format(t);
    } else if (h % 6 === 0) {
      svg('line', { class: 'fc-tick', x1: px, x2: px, y1: RAIN_BOTTOM, y2: RAIN_BOTTOM + 3 }, grid);
      if (h === 12 && px > LEFT + 8 && px + 10 < W) {
        svg('text', { x: px, y: AXIS_TEXT_Y, class: 'fc-hour', 'text-anchor': 'middle' }, labels).textContent = noon.format(t);
      }
    }
  }

  // The precipitation band: the chance as a pale bar (0 … 100 % of the band), the amount as a
  // narrower dark bar scaled to the largest amount of the chart (the legend says how much that is).
  svg('line', { class: 'fc-base', x1: LEFT, x2: RIGHT, y1: RAIN_BOTTOM + 0.5, y2: RAIN_BOTTOM + 0.5 }, grid);
  const maxAmount = largestAmount(steps);
  const band = RAIN_BOTTOM - RAIN_TOP;
  const bars = svg('g', { class: 'fc-bars' }, root);
  for (const s of steps) {
    const x0 = x(s.time);
    const width = Math.max(1, x(s.time + stepMs) - x0 - 1);
    if (s.pop !== null && s.pop > 0) {
      const height = Math.max(1, s.pop * band);
      svg('rect', { class: 'fc-pop-bar', x: round1(x0 + 0.5), y: round1(RAIN_BOTTOM - height), width: round1(width), height: round1(height) }, bars);
    }
    if (s.amount !== null && s.amount > 0 && maxAmount > 0) {
      const height = Math.max(1.5, s.amount / maxAmount * band);
      const inner = Math.max(1.5, width * 0.5);
      svg('rect', {
        class: 'fc-amount-bar', x: round1(x0 + 0.5 + (width - inner) / 2), y: round1(RAIN_BOTTOM - height),
        width: round1(inner), height: round1(height),
      }, bars);
    }
  }

  // The temperature: the axis, the freezing point where it is in range, the line. A gap (null, or
  // a missing step) breaks the line; a point alone between gaps is a dot.
  const temps = steps.filter((s) => s.temperature !== null).map((s) => s.temperature);
  if (temps.length) {
    const scale = temperatureScale(temps);
    const y = temperatureY(scale, TEMP_BOTTOM, TEMP_TOP);
    for (const tick of scale.ticks) {
      const py = Math.round(y(tick)) + 0.5;
      svg('line', { class: 'fc-gridline', x1: LEFT, x2: RIGHT, y1: py, y2: py }, grid);
      svg('text', { x: LEFT - 3, y: py + 3, 'text-anchor': 'end', class: 'fc-temp-label' }, labels)
        .textContent = String(Math.round(tick)) + unit.axis;
    }
    if (unit.freezing > scale.from && unit.freezing < scale.to) {
      const py = round1(y(unit.freezing));
      svg('line', { class: 'fc-freezing', x1: LEFT, x2: RIGHT, y1: py, y2: py }, grid);
    }
    const runs = lineRuns(steps, stepMs, x, y);
    const d = runs.filter((r) => r.length > 1).map((r) => 'M' + r.map((p) => p[0] + ' ' + p[1]).join('L')).join('');
    if (d) svg('path', { class: 'fc-temp-line', d: d }, root);
    for (const r of runs.filter((r) => r.length === 1)) {
      svg('circle', { class: 'fc-temp-dot', cx: r[0][0], cy: r[0][1], r: 2.2 }, root);
    }
  }

  // A symbol every six hours from the first step (every step when the steps are longer).
  const every = symbolEvery(step);
  for (const s of steps) {
    if (!s.icon || (s.time - start) % every !== 0) continue;
    const symbol = WeatherSymbols.element(s.icon, { size: SYMBOL_SIZE });
    symbol.setAttribute('x', String(round1(x(s.time + stepMs / 2) - SYMBOL_SIZE / 2)));
    symbol.setAttribute('y', '1');
    root.appendChild(symbol);
  }

  // Hovering a step tells its values (a mouse user's way to the numbers of the table).
  const hits = svg('g', { class: 'fc-hits' }, root);
  for (const s of steps) {
    const x0 = x(s.time);
    const hit = svg('rect', { x: round1(x0), y: 0, width: round1(Math.max(1, x(s.time + stepMs) - x0)), height: RAIN_BOTTOM, fill: 'transparent' }, hits);
    svg('title', {}, hit).textContent = rowTime.format(s.time) + ': ' + formatTemp(s.temperature, unit) +
      (s.description ? ', ' + s.description : '') + ', chance of precipitation ' + formatPop(s.pop) +
      (s.amount !== null ? ', ' + formatAmount(s) : '');
  }
  return { svg: root, maxAmount: maxAmount, anyAmount: steps.some((s) => s.amount !== null) };
}

function legend(drawn, step) {
  const box = el('div', 'fc-legend');
  box.setAttribute('aria-hidden', 'true');  // the table says it all to a screen reader
  const item = (swatch, text) => {
    const entry = el('span', 'fc-legend-item');
    entry.appendChild(el('span', 'fc-swatch ' + swatch));
    entry.appendChild(document.createTextNode(text));
    box.appendChild(entry);
  };
  item('fc-swatch-temp', 'Temperature');
  item('fc-swatch-pop', 'Chance');
  item('fc-swatch-amount', amountLegend(drawn.anyAmount, drawn.maxAmount, step));
  return box;
}

function table(steps, step, unit, hours) {
  const t = el('table', 'fc-table');
  t.appendChild(el('caption', null, 'Forecast for the next ' + hours + ' hours, ' + everyText(step)));
  const head = t.appendChild(el('thead')).appendChild(el('tr'));
  for (const name of ['Time', 'Weather', 'Temperature', 'Chance of precipitation', 'Rain and snow']) {
    const th = el('th', null, name);
    th.scope = 'col';
    head.appendChild(th);
  }
  const body = t.appendChild(el('tbody'));
  for (const s of steps) {
    const row = body.appendChild(el('tr'));
    const th = el('th', null, rowTime.format(s.time));
    th.scope = 'row';
    row.appendChild(th);
    row.appendChild(el('td', null, s.description || (s.icon ? WeatherSymbols.name(s.icon) : '') || '–'));
    row.appendChild(el('td', null, formatTemp(s.temperature, unit)));
    row.appendChild(el('td', null, formatPop(s.pop)));
    row.appendChild(el('td', null, formatAmount(s)));
  }
  return t;
}

// ---------------------------------------------------------------- the element

export function element(result, options) {
  const hours = (options && options.hours) || 48;
  const props = (result && result.properties) || {};
  const steps = stepsOf(props.forecast, hours);
  if (steps.length === 0) return null;
  const step = stepSeconds(props, steps);
  const unit = unitOf(props);

  const figure = el('figure', 'fc-chart');
  figure.dataset.testid = 'forecast-chart';
  figure.dataset.steps = String(steps.length);
  figure.dataset.step = String(step);
  const drawn = draw(steps, step, unit, hours);
  drawn.svg.setAttribute('aria-label', summary(steps, unit, hours));
  figure.appendChild(drawn.svg);
  figure.appendChild(legend(drawn, step));
  // Visually hidden in a box of its own (a table itself would not shrink to the 1 px of the class).
  const hidden = el('div', 'visually-hidden');
  hidden.appendChild(table(steps, step, unit, hours));
  figure.appendChild(hidden);
  return figure;
}
