// The forecast chart's numbers, with no DOM: the steps of a `forecast` answer, the chart's scales
// (time across, temperature up, the runs of the temperature line) and the texts that tell the steps
// (the summary, the table's cells). web/forecast-chart.js draws with them; Tests/web tests them.
//
// Times are shown in the time zone of the browser (of the process, under Node). A missing value
// (null) is a gap: no point of the line, no bar, "–" in the text.

export const UNITS = {
  metric: { temp: '°C', axis: '°', freezing: 0 },
  imperial: { temp: '°F', axis: '°', freezing: 32 },
  standard: { temp: 'K', axis: '', freezing: 273.15 },
};

// The units of a feature's properties (metric when it names none or an unknown one).
export function unitOf(props) {
  return UNITS[props && props.units] || UNITS.metric;
}

export const rowTime = new Intl.DateTimeFormat(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });

function isNum(v) { return typeof v === 'number' && isFinite(v); }

export function round1(v) { return Math.round(v * 10) / 10; }

// ---------------------------------------------------------------- the data

// The steps to show: those with a time, oldest first, that begin within `hours` of the first.
// Each gets `time` (ms), `amount` (rain and snow, mm; null when neither was given).
export function stepsOf(forecast, hours) {
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
export function stepSeconds(props, steps) {
  if (props && isNum(props.forecast_step) && props.forecast_step > 0) return props.forecast_step;
  let shortest = Infinity;
  for (let i = 1; i < steps.length; i++) shortest = Math.min(shortest, (steps[i].time - steps[i - 1].time) / 1000);
  return isFinite(shortest) && shortest > 0 ? shortest : 10800;
}

// Round numbers for the temperature axis: 2 or 3 labels.
export function temperatureScale(values) {
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

export function formatTemp(t, unit) {
  if (!isNum(t)) return '–';
  return t.toFixed(1).replace(/^-0\.0$/, '0.0') + ' ' + unit.temp;
}

export function formatAmount(step) {
  const parts = [];
  if (isNum(step.rain)) parts.push(step.rain.toFixed(1) + ' mm rain');
  if (isNum(step.snow)) parts.push(step.snow.toFixed(1) + ' mm snow');
  return parts.length ? parts.join(', ') : '–';
}

export function formatPop(pop) { return isNum(pop) ? Math.round(pop * 100) + ' %' : '–'; }

export function everyText(seconds) {
  if (seconds === 3600) return 'every hour';
  if (seconds % 3600 === 0) return 'every ' + seconds / 3600 + ' hours';
  return 'every ' + Math.round(seconds / 60) + ' minutes';
}

// One sentence for the SVG's accessible name.
export function summary(steps, unit, hours) {
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


// The legend of the amount bars, which are scaled to the largest amount: how much that is.
export function amountLegend(anyAmount, maxAmount, seconds) {
  if (!anyAmount) return 'mm: not given';
  const step = seconds % 3600 ? Math.round(seconds / 60) + ' min' : seconds / 3600 + ' h';
  if (maxAmount > 0) return 'mm (top ' + maxAmount.toFixed(1) + ' in ' + step + ')';
  return 'no rain or snow';
}

// ---------------------------------------------------------------- the scales

// Where a time is across the chart: the first step's start at `left`, `hours` later at `right`.
export function timeScale(start, hours, left, right) {
  const span = hours * 3600 * 1000;
  return (time) => left + (right - left) * (time - start) / span;
}

// Where a temperature is up the chart: the scale's `from` at `bottom`, its `to` at `top` (pixels
// grow downwards).
export function temperatureY(scale, bottom, top) {
  return (t) => bottom - (bottom - top) * (t - scale.from) / (scale.to - scale.from);
}

// The temperature line as runs of [x, y] points, each point at the middle of its step: a step with
// no temperature, or a missing step (more than 1.5 steps from the one before), ends a run. A run of
// one point is drawn as a dot.
export function lineRuns(steps, stepMs, x, y) {
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
  return runs;
}

// The largest amount of rain and snow of a step (the amount bars are scaled to it); 0 when none is given.
export function largestAmount(steps) {
  const amounts = steps.filter((s) => s.amount !== null).map((s) => s.amount);
  return amounts.length ? Math.max(...amounts) : 0;
}

// How far apart the symbols are, in ms: every six hours (every step when the steps are longer).
export function symbolEvery(seconds) {
  return Math.max(1, Math.round(21600 / seconds)) * seconds * 1000;
}
