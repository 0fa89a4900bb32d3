// The forecast in a popup as a chart: the temperature as a line, the chance of precipitation as pale
// bars and its amount as narrower dark bars, over the next 48 hours, with a weather symbol every six
// hours. The same numbers are in a visually hidden table for screen readers; the SVG is role="img"
// with a one-sentence summary as its name.
//
//   ForecastChart.element(result, { hours: 48 })   // result: the `forecast` method's Feature
//
// returns a <figure data-testid="forecast-chart"> (or null when the forecast has no usable step).
//
// Why plain SVG and not Chart.js (Debian's libjs-chart.js, which the page could serve the way it
// serves Leaflet): this chart is one line and two sets of bars on fixed axes, drawn by the 110 lines
// of draw() below; the table, the summary and the legend would be needed with Chart.js too.
// Chart.js (3.9 in Debian 12) would need a new package dependency of weatherd, a new asset route in
// the web server (Sources/WeatherDaemon/Web/WebRoutes.swift) and its install paths, some 200 KB of
// minified script, and a <canvas>: a bitmap that has no elements a test can find, and whose
// accessibility we would have to add anyway. SVG is drawn by the browser at any zoom, each mark is
// an element (tests count them), and it is built with createElementNS like the rest of the page, so
// nothing the daemon sends is ever HTML.
//
// Times are shown in the browser's time zone. Missing values (null) are gaps: no point of the line
// (the line breaks there), no bar, "–" in the table.
(function () {
  'use strict';

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

  const UNITS = {
    metric: { temp: '°C', axis: '°', freezing: 0 },
    imperial: { temp: '°F', axis: '°', freezing: 32 },
    standard: { temp: 'K', axis: '', freezing: 273.15 },
  };

  const rowTime = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
  const weekday = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
  const noon = new Intl.DateTimeFormat(undefined, { hour: 'numeric' });

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  function svg(tag, attributes, parent) {
    const node = document.createElementNS(SVG, tag);
    for (const name of Object.keys(attributes || {})) node.setAttribute(name, String(attributes[name]));
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function round1(v) { return Math.round(v * 10) / 10; }

  // ---------------------------------------------------------------- the data

  // The steps to show: those with a time, oldest first, that begin within `hours` of the first.
  // Each gets `time` (ms), `amount` (rain and snow, mm; null when neither was given).
  function stepsOf(forecast, hours) {
    const steps = [];
    for (const s of Array.isArray(forecast) ? forecast : []) {
      if (!s || typeof s !== 'object' || typeof s.at !== 'string') continue;
      const time = new Date(s.at).getTime();
      if (!isFinite(time)) continue;
      const rain = isNum(s.rain_3h) ? s.rain_3h : null;
      const snow = isNum(s.snow_3h) ? s.snow_3h : null;
      steps.push({
        time: time,
        temperature: isNum(s.temperature) ? s.temperature : null,
        pop: isNum(s.pop) ? Math.min(1, Math.max(0, s.pop)) : null,
        rain: rain,
        snow: snow,
        amount: rain === null && snow === null ? null : (rain || 0) + (snow || 0),
        icon: typeof s.icon === 'string' ? s.icon : null,
        description: typeof s.description === 'string' && s.description ? s.description
          : (typeof s.condition === 'string' ? s.condition : ''),
      });
    }
    steps.sort((a, b) => a.time - b.time);
    if (steps.length === 0) return steps;
    const end = steps[0].time + hours * 3600 * 1000;
    return steps.filter((s) => s.time < end);
  }

  // The length of a step in seconds: the feature's forecast_step (10800 from OpenWeatherMap, 3600
  // from Open-Meteo), else the shortest distance between two steps, else 3 hours.
  function stepSeconds(props, steps) {
    if (props && isNum(props.forecast_step) && props.forecast_step > 0) return props.forecast_step;
    let shortest = Infinity;
    for (let i = 1; i < steps.length; i++) shortest = Math.min(shortest, (steps[i].time - steps[i - 1].time) / 1000);
    return isFinite(shortest) && shortest > 0 ? shortest : 10800;
  }

  // Round numbers for the temperature axis: 2 or 3 labels.
  function temperatureScale(values) {
    let lo = Math.min(...values);
    let hi = Math.max(...values);
    if (hi - lo < 2) { lo -= 1; hi += 1; }
    let step = 1;
    for (const candidate of [1, 2, 5, 10, 20, 50, 100]) {
      step = candidate;
      if (Math.ceil(hi / step) - Math.floor(lo / step) <= 2) break;
    }
    const from = Math.floor(lo / step) * step;
    const to = Math.ceil(hi / step) * step;
    const ticks = [];
    for (let v = from; v <= to + step / 2; v += step) ticks.push(v);
    return { from: from, to: to, ticks: ticks };
  }

  // ---------------------------------------------------------------- text

  function formatTemp(t, unit) {
    if (!isNum(t)) return '–';
    return t.toFixed(1).replace(/^-0\.0$/, '0.0') + ' ' + unit.temp;
  }

  function formatAmount(step) {
    const parts = [];
    if (isNum(step.rain)) parts.push(step.rain.toFixed(1) + ' mm rain');
    if (isNum(step.snow)) parts.push(step.snow.toFixed(1) + ' mm snow');
    return parts.length ? parts.join(', ') : '–';
  }

  function formatPop(pop) { return isNum(pop) ? Math.round(pop * 100) + ' %' : '–'; }

  function everyText(seconds) {
    if (seconds === 3600) return 'every hour';
    if (seconds % 3600 === 0) return 'every ' + seconds / 3600 + ' hours';
    return 'every ' + Math.round(seconds / 60) + ' minutes';
  }

  // One sentence for the SVG's accessible name.
  function summary(steps, unit, hours) {
    const temps = steps.filter((s) => s.temperature !== null);
    let text = 'Forecast for the next ' + hours + ' hours: ';
    if (temps.length) {
      const low = temps.reduce((a, b) => (b.temperature < a.temperature ? b : a));
      const high = temps.reduce((a, b) => (b.temperature > a.temperature ? b : a));
      if (low === high) text += 'temperature ' + formatTemp(low.temperature, unit) + ' (' + rowTime.format(low.time) + ')';
      else {
        text += 'temperature from ' + formatTemp(low.temperature, unit) + ' (' + rowTime.format(low.time) + ') to ' +
          formatTemp(high.temperature, unit) + ' (' + rowTime.format(high.time) + ')';
      }
    } else {
      text += 'no temperature given';
    }
    const pops = steps.filter((s) => s.pop !== null).map((s) => s.pop);
    if (pops.length) text += '; chance of precipitation up to ' + formatPop(Math.max(...pops));
    const amounts = steps.filter((s) => s.amount !== null).map((s) => s.amount);
    if (amounts.length) text += '; ' + round1(amounts.reduce((a, b) => a + b, 0)).toFixed(1) + ' mm of rain and snow in all';
    return text + '. Every step is in the table that follows.';
  }

  // ---------------------------------------------------------------- the drawing

  function draw(steps, step, unit, hours) {
    const start = steps[0].time;
    const span = hours * 3600 * 1000;
    const stepMs = step * 1000;
    const x = (time) => LEFT + (RIGHT - LEFT) * (time - start) / span;
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
    const amounts = steps.filter((s) => s.amount !== null).map((s) => s.amount);
    const maxAmount = amounts.length ? Math.max(...amounts) : 0;
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
      const y = (t) => TEMP_BOTTOM - (TEMP_BOTTOM - TEMP_TOP) * (t - scale.from) / (scale.to - scale.from);
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
      const runs = [];
      let run = null;
      let previous = null;
      for (const s of steps) {
        const joined = previous && s.time - previous.time <= stepMs * 1.5;
        if (s.temperature === null) { run = null; previous = s; continue; }
        const point = [round1(x(s.time + stepMs / 2)), round1(y(s.temperature))];
        if (run && joined) run.push(point);
        else { run = [point]; runs.push(run); }
        previous = s;
      }
      const d = runs.filter((r) => r.length > 1).map((r) => 'M' + r.map((p) => p[0] + ' ' + p[1]).join('L')).join('');
      if (d) svg('path', { class: 'fc-temp-line', d: d }, root);
      for (const r of runs.filter((r) => r.length === 1)) {
        svg('circle', { class: 'fc-temp-dot', cx: r[0][0], cy: r[0][1], r: 2.2 }, root);
      }
    }

    // A symbol every six hours from the first step (every step when the steps are longer).
    const every = Math.max(1, Math.round(21600 / step)) * stepMs;
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
    return { svg: root, maxAmount: maxAmount, anyAmount: amounts.length > 0 };
  }

  function legend(drawn, step) {
    const box = html('div', 'fc-legend');
    box.setAttribute('aria-hidden', 'true');  // the table says it all to a screen reader
    const item = (swatch, text) => {
      const entry = html('span', 'fc-legend-item');
      entry.appendChild(html('span', 'fc-swatch ' + swatch));
      entry.appendChild(document.createTextNode(text));
      box.appendChild(entry);
    };
    item('fc-swatch-temp', 'Temperature');
    item('fc-swatch-pop', 'Chance');
    // The amount's bars are scaled to the largest: say how much that is.
    if (!drawn.anyAmount) item('fc-swatch-amount', 'mm: not given');
    else if (drawn.maxAmount > 0) item('fc-swatch-amount', 'mm (top ' + drawn.maxAmount.toFixed(1) + ' in ' + (step % 3600 ? Math.round(step / 60) + ' min' : step / 3600 + ' h') + ')');
    else item('fc-swatch-amount', 'no rain or snow');
    return box;
  }

  function table(steps, step, unit, hours) {
    const t = html('table', 'fc-table');
    t.appendChild(html('caption', null, 'Forecast for the next ' + hours + ' hours, ' + everyText(step)));
    const head = t.appendChild(html('thead')).appendChild(html('tr'));
    for (const name of ['Time', 'Weather', 'Temperature', 'Chance of precipitation', 'Rain and snow']) {
      const th = html('th', null, name);
      th.scope = 'col';
      head.appendChild(th);
    }
    const body = t.appendChild(html('tbody'));
    for (const s of steps) {
      const row = body.appendChild(html('tr'));
      const th = html('th', null, rowTime.format(s.time));
      th.scope = 'row';
      row.appendChild(th);
      row.appendChild(html('td', null, s.description || (s.icon ? WeatherSymbols.name(s.icon) : '') || '–'));
      row.appendChild(html('td', null, formatTemp(s.temperature, unit)));
      row.appendChild(html('td', null, formatPop(s.pop)));
      row.appendChild(html('td', null, formatAmount(s)));
    }
    return t;
  }

  // ---------------------------------------------------------------- the element

  function element(result, options) {
    const hours = (options && options.hours) || 48;
    const props = (result && result.properties) || {};
    const steps = stepsOf(props.forecast, hours);
    if (steps.length === 0) return null;
    const step = stepSeconds(props, steps);
    const unit = UNITS[props.units] || UNITS.metric;

    const figure = html('figure', 'fc-chart');
    figure.dataset.testid = 'forecast-chart';
    figure.dataset.steps = String(steps.length);
    figure.dataset.step = String(step);
    const drawn = draw(steps, step, unit, hours);
    drawn.svg.setAttribute('aria-label', summary(steps, unit, hours));
    figure.appendChild(drawn.svg);
    figure.appendChild(legend(drawn, step));
    // Visually hidden in a box of its own (a table itself would not shrink to the 1 px of the class).
    const hidden = html('div', 'visually-hidden');
    hidden.appendChild(table(steps, step, unit, hours));
    figure.appendChild(hidden);
    return figure;
  }

  window.ForecastChart = Object.freeze({ element: element });
})();
