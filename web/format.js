// How the page says values: temperatures in a feature's units, wind directions, positions, times,
// the colour band of a temperature, and a place's name. No DOM: Tests/web tests it under Node.

export function isNum(v) {
  return typeof v === 'number' && isFinite(v);
}

const UNITS = {
  metric: { temp: '°C', speed: 'm/s', toC: (t) => t },
  imperial: { temp: '°F', speed: 'mph', toC: (t) => (t - 32) * 5 / 9 },
  standard: { temp: 'K', speed: 'm/s', toC: (t) => t - 273.15 },
};

// The units a feature's properties name (`units`): metric when none or an unknown one.
export function unitsOf(props) {
  return UNITS[props && props.units] || UNITS.metric;
}

// A marker's temperature: "9°", "-3°", "281 K" (no "-0").
export function formatTemp(t, props, digits) {
  if (!isNum(t)) return '–';
  const u = unitsOf(props);
  const value = t.toFixed(digits === undefined ? 0 : digits).replace(/^-0(\.0+)?$/, '0$1');
  return u.temp === 'K' ? value + ' K' : value + u.temp.charAt(0);
}

// A popup's temperature: "8.9 °C", "48.2 °F", "282.1 K".
export function formatTempLong(t, props) {
  if (!isNum(t)) return '–';
  const u = unitsOf(props);
  return t.toFixed(1) + (u.temp === 'K' ? ' K' : ' ' + u.temp);
}

const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'];

// Where the wind comes from, of 16 points: 250° → "WSW".
export function compass(deg) {
  return COMPASS[Math.round((((deg % 360) + 360) % 360) / 22.5) % 16];
}

// "51.51° N, 0.13° W"
export function formatCoord(lat, lon) {
  const ns = lat >= 0 ? 'N' : 'S';
  const ew = lon >= 0 ? 'E' : 'W';
  return Math.abs(lat).toFixed(2) + '° ' + ns + ', ' + Math.abs(lon).toFixed(2) + '° ' + ew;
}

// "5 minutes ago", "in 2 hours": `date` seen from `now` (ms), in the browser's language.
export function relativeTime(date, now) {
  const seconds = Math.round((now - date.getTime()) / 1000);
  const abs = Math.abs(seconds);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  if (abs < 60) return rtf.format(-seconds, 'second');
  if (abs < 3600) return rtf.format(-Math.round(seconds / 60), 'minute');
  if (abs < 86400) return rtf.format(-Math.round(seconds / 3600), 'hour');
  return rtf.format(-Math.round(seconds / 86400), 'day');
}

// An RFC 3339 time as a Date; null when it is none.
export function parseTime(text) {
  if (typeof text !== 'string') return null;
  const date = new Date(text);
  return isNaN(date.getTime()) ? null : date;
}

// Temperature (in °C) to a hue, between bands: deep blue in frost, teal when mild, amber and red in
// heat; null without a temperature.
const TEMP_BANDS = [[-30, 250], [-10, 220], [0, 200], [10, 170], [18, 110], [24, 45], [30, 20], [40, 355]];
export function tempHue(celsius) {
  if (!isNum(celsius)) return null;
  if (celsius <= TEMP_BANDS[0][0]) return TEMP_BANDS[0][1];
  for (let i = 1; i < TEMP_BANDS.length; i++) {
    const [t1, h1] = TEMP_BANDS[i];
    const [t0, h0] = TEMP_BANDS[i - 1];
    if (celsius <= t1) {
      let to = h1;
      if (to > h0 + 180) to -= 360;
      if (to < h0 - 180) to += 360;
      const h = h0 + (to - h0) * (celsius - t0) / (t1 - t0);
      return (h + 360) % 360;
    }
  }
  return TEMP_BANDS[TEMP_BANDS.length - 1][1];
}

// The hue of a feature's temperature, whatever its units; null without one.
export function featureHue(props) {
  const p = props || {};
  return tempHue(isNum(p.temperature) ? unitsOf(p).toC(p.temperature) : null);
}

function text(v) {
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

// "Springfield, Illinois, US": a place's name, state (or region) and country where known, as
// weatherctl writes them. Takes a Place of `places` or a feature's properties.
export function placeLabel(place) {
  const p = place || {};
  return [text(p.name), text(p.state), text(p.country)].filter((part) => part).join(', ');
}

// What a feature is called: its name, or its position when it has none.
export function placeName(feature) {
  const p = feature.properties || {};
  if (typeof p.name === 'string' && p.name) return p.name;
  const c = feature.geometry && feature.geometry.coordinates;
  if (Array.isArray(c) && isNum(c[0]) && isNum(c[1])) return formatCoord(c[1], c[0]);
  return 'Unnamed place';
}

// A popup's title, which tells places of the same name apart as weatherctl does: the name, the
// state or region where the feature has one, the country ("Springfield, Missouri, US"); the
// position of a point without a name.
export function featureTitle(feature) {
  const p = feature.properties || {};
  return text(p.name) ? placeLabel(p) : placeName(feature);
}

// What a screen reader says for a marker: "London, GB 8.9 °C overcast clouds".
export function markerLabel(feature) {
  const p = feature.properties || {};
  let label = featureTitle(feature);
  if (isNum(p.temperature)) label += ' ' + formatTempLong(p.temperature, p);
  if (p.description || p.condition) label += ' ' + (p.description || p.condition);
  return label;
}

// A feature's `source` in the popup's words.
export const SOURCE_LABEL = {
  city: 'watched city', text: 'search', location: 'your position', region: 'map centre', around: 'map grid',
};

// What a search looks up, in the phase line's words.
export function describeInput(input) {
  if (!input || typeof input !== 'object') return '';
  switch (input.kind) {
    case 'text': return typeof input.city === 'string' ? '“' + input.city + '”' : 'a city';
    case 'location': return 'your position';
    case 'region': return 'the map area';
    case 'cities': return 'the watched cities';
    default: return '';
  }
}

// The phase line of a `state` with `places` features on the map.
export function phaseText(state, places) {
  const name = typeof state.phase === 'string' ? state.phase : '';
  const what = describeInput(state.input);
  switch (name) {
    case 'loading': return what ? 'Looking up ' + what + '…' : 'Loading…';
    case 'populated': return places === 1 ? '1 place on the map' : places + ' places on the map';
    case 'empty': return what ? 'Nothing found for ' + what : 'Nothing found';
    case 'error': return 'Error: ' + (state.error && state.error.message ? state.error.message : 'the lookup failed');
    default: return name;
  }
}

// The rate-limit line while the first provider's 429 block holds (`state.budget.blocked_until`):
// { until, said, shown } (what is announced once, and what the line shows with the requests of the
// last minute), or null when no block holds. `title(name)` names a provider of `state.providers`.
export function budgetText(budget, providers, title) {
  const until = budget && typeof budget === 'object' ? parseTime(budget.blocked_until) : null;
  if (!until) return null;
  // state.budget is the first provider's that is asked: the one blocked until the same moment.
  const blocked = (providers || []).find((p) => p && p.blocked_until === budget.blocked_until);
  const name = (blocked && title(blocked.name)) || 'The weather provider';
  const said = name + ' rate limit: no lookups to it until ' + until.toLocaleTimeString();
  let shown = said;
  if (isNum(budget.used) && isNum(budget.requests_per_minute)) {
    shown += ' (' + budget.used + ' of ' + budget.requests_per_minute + ' requests in the last minute)';
  }
  return { until: budget.blocked_until, said: said, shown: shown };
}
