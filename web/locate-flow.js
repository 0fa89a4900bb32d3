// **Pure**: the locate button's rule, as a state machine (events in, actions out) with no DOM, no
// browser API and no connection: web/locate.js feeds it each event and carries out what it answers.
//
// The daemon's fused location comes first: with one (`state.location`), `locate` with `max_age`
// answers at once with it. Without one, the browser's Geolocation API is asked (the browser asks
// the user), its position reported with `location.report` (`source: "browser"`), then `locate` with
// `max_age` searches there. Every refusal or failure ends in words for the notice, never in an
// exception; the answer's `fix.source` says where the position came from.
//
//   let flow = LOCATE_IDLE;
//   const step = locateStep(flow, { type: 'click', location: daemon.location, geolocation: 'available' });
//   flow = step.flow;   // then run step.actions, in order
//
// Events: `click` {location: state.location or null, geolocation: 'available' | 'insecure' | 'absent'};
// `position` {lat, lon, accuracy, timestamp} and `position-error` {code} (the Geolocation API's
// answer); `reported` {accepted, reason} (location.report's); `located` {feature} (locate's);
// `failed` {code, message} (a request's error). An event the flow does not wait for changes nothing.
// Actions: {do: 'busy', on}, {do: 'notice', text, kind ('info', 'error' or none; '' hides it)},
// {do: 'source', text, source} (the location-source line), {do: 'ask-browser'},
// {do: 'report', params}, {do: 'locate', params}.

// `max_age` of the page's `locate`: the daemon's fused location is never older than its own
// `location.max_age`, so the page takes it as it is, whatever that setting (this is the most
// `locate` accepts). It is the browser's position just reported, or a fix of the daemon's own.
export const LOCATE_MAX_AGE = 604800;
// `timeout` of the page's `locate` (seconds): the fused location answers at once; should it have
// expired since the page heard of it, the page waits this long for another before it asks the browser.
export const LOCATE_TIMEOUT = 10;

// The Geolocation API's options: a position up to 30 s old will do (the weather does not change
// within a few metres); the browser gives up after 20 s (a `position-error` with TIMEOUT).
export const GEOLOCATION_OPTIONS = Object.freeze({ enableHighAccuracy: false, timeout: 20000, maximumAge: 30000 });

export const LOCATE_IDLE = Object.freeze({ phase: 'idle' });

// The Geolocation API's error codes (GeolocationPositionError).
const PERMISSION_DENIED = 1;
const POSITION_UNAVAILABLE = 2;
const TIMEOUT = 3;

// A locate's errors that mean the daemon has no position after all (its fused location expired
// between the state the page had and the request): the browser is asked instead.
const NO_FIX = -32005;
const GPS_DISABLED = -32006;
// A lookup's outcome (not found, unavailable, rate limited, key rejected): the phase line says it.
const LOOKUP_ERRORS = new Set([-32001, -32002, -32003, -32004]);

export const WORDS = Object.freeze({
  usingDaemon: 'Looking up the weather at the daemon’s position…',
  asking: 'Asking your browser for your position…',
  [PERMISSION_DENIED]: 'Your browser did not share your position (permission denied). To be located by it, allow this page to use your location.',
  [POSITION_UNAVAILABLE]: 'Your browser could not tell your position.',
  [TIMEOUT]: 'Your browser did not find your position in time.',
  unknownError: 'Your browser could not give your position.',
  insecure: 'The daemon has no position, and the browser shares yours only with a page opened over https or on this computer (localhost).',
  absent: 'The daemon has no position, and this browser cannot share yours.',
  badPosition: 'Your browser gave a position that is not one.',
  held: 'Your browser’s position was not used: the daemon keeps a more accurate one it has.',
  tooOld: 'Your browser’s position was not used: the daemon finds it too old (is this device’s clock right?).',
});

// location.report's `reason` in words (`accuracy`: the error reported, for `inaccurate`).
export function refusalText(reason, accuracy) {
  switch (reason) {
    case 'inaccurate':
      return 'Your browser’s position was not used: ' + (accuracyText(accuracy) || 'its error') + ' is too coarse for the daemon.';
    case 'too_old': return WORDS.tooOld;
    case 'held': return WORDS.held;
    default: return 'Your browser’s position was not used (' + String(reason || 'refused') + ').';
  }
}

// What the Geolocation API's error `code` says.
export function positionErrorText(code) {
  return WORDS[code] || WORDS.unknownError;
}

// "±40 m", "±1.2 km", "±25 km"; '' without a number.
export function accuracyText(metres) {
  if (typeof metres !== 'number' || !Number.isFinite(metres) || metres < 0) return '';
  if (Math.round(metres) < 1000) return '±' + Math.round(metres) + ' m';
  const km = metres / 1000;
  return '±' + (km < 10 ? km.toFixed(1) : String(Math.round(km))) + ' km';
}

// Who a source is, in the location-source line's words.
const SOURCE_WORDS = { gpsd: 'gpsd', browser: 'your browser', owntracks: 'owntracks', geoclue: 'GeoClue', client: 'a client' };

// Where a located feature's position came from (`properties.fix`): "Position from your browser,
// ±40 m", "Position from owntracks alice/phone, ±12 m". The source as the daemon names it.
export function sourceText(feature) {
  const fix = feature && feature.properties && typeof feature.properties.fix === 'object' ? feature.properties.fix : null;
  const source = fix && typeof fix.source === 'string' ? fix.source : '';
  if (!source) return { text: 'Position from the daemon', source: '' };
  let who = Object.hasOwn(SOURCE_WORDS, source) ? SOURCE_WORDS[source] : source;
  if (typeof fix.device === 'string' && fix.device) who += ' ' + fix.device;
  const accuracy = accuracyText(fix.horizontal_error);
  return { text: 'Position from ' + who + (accuracy ? ', ' + accuracy : ''), source: source };
}

// location.report's params for the browser's position; null when it is not a position.
export function reportParams({ lat, lon, accuracy, timestamp }) {
  const number = (v) => typeof v === 'number' && Number.isFinite(v);
  if (!number(lat) || !number(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  // The daemon takes an error of more than 0 m; a browser that claims none is taken at 1 m.
  const params = { lat: lat, lon: lon, horizontal_error: number(accuracy) && accuracy > 0 ? accuracy : 1, source: 'browser' };
  // Without a time of its own the daemon dates it on arrival.
  if (number(timestamp)) params.at = new Date(timestamp).toISOString();
  return params;
}

const LOCATE = { do: 'locate', params: { max_age: LOCATE_MAX_AGE, timeout: LOCATE_TIMEOUT } };
const ASK = [{ do: 'notice', text: WORDS.asking, kind: 'info' }, { do: 'ask-browser' }];

function done(...actions) {
  return { flow: LOCATE_IDLE, actions: [...actions, { do: 'busy', on: false }] };
}

// The next flow and what to do, for one event.
export function locateStep(flow, event) {
  const stay = { flow: flow, actions: [] };
  switch (event.type) {
    case 'click': {
      if (flow.phase !== 'idle') return stay;  // one locate at a time
      const canAsk = event.geolocation === 'available';
      if (event.location && typeof event.location === 'object') {
        return {
          flow: { phase: 'locating', fallback: canAsk },
          actions: [{ do: 'busy', on: true }, { do: 'notice', text: WORDS.usingDaemon, kind: 'info' }, LOCATE],
        };
      }
      if (!canAsk) {
        return done({ do: 'notice', text: event.geolocation === 'insecure' ? WORDS.insecure : WORDS.absent, kind: 'error' });
      }
      return { flow: { phase: 'asking' }, actions: [{ do: 'busy', on: true }, ...ASK] };
    }
    case 'position': {
      if (flow.phase !== 'asking') return stay;
      const params = reportParams(event);
      if (!params) return done({ do: 'notice', text: WORDS.badPosition, kind: 'error' });
      return { flow: { phase: 'reporting', accuracy: params.horizontal_error }, actions: [{ do: 'report', params: params }] };
    }
    case 'position-error':
      if (flow.phase !== 'asking') return stay;
      return done({ do: 'notice', text: positionErrorText(event.code), kind: 'error' });
    case 'reported':
      if (flow.phase !== 'reporting') return stay;
      if (event.accepted === true) return { flow: { phase: 'locating', fallback: false }, actions: [LOCATE] };
      // A more accurate fix of the daemon's own is kept: that one is searched.
      if (event.reason === 'held') return { flow: { phase: 'locating', fallback: false, held: true }, actions: [LOCATE] };
      return done({ do: 'notice', text: refusalText(event.reason, flow.accuracy), kind: 'error' });
    case 'located': {
      if (flow.phase !== 'locating') return stay;
      const { text, source } = sourceText(event.feature);
      return done(
        flow.held ? { do: 'notice', text: WORDS.held, kind: 'info' } : { do: 'notice', text: '' },
        { do: 'source', text: text, source: source });
    }
    case 'failed':
      if (flow.phase === 'idle') return stay;
      if (flow.phase === 'locating' && flow.fallback && (event.code === NO_FIX || event.code === GPS_DISABLED)) {
        return { flow: { phase: 'asking' }, actions: ASK };
      }
      // The phase line says a lookup's error; the notice any other (a lost connection, say).
      if (LOOKUP_ERRORS.has(event.code)) return done({ do: 'notice', text: '' });
      return done({ do: 'notice', text: String(event.message || 'The request failed.'), kind: 'error' });
    default:
      return stay;
  }
}
