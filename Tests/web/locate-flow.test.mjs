// The locate button's rule (web/locate-flow.js), event by event: the daemon's fused location first,
// else the browser's position reported and searched; every refusal and failure in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  GEOLOCATION_OPTIONS, LOCATE_IDLE, LOCATE_MAX_AGE, LOCATE_TIMEOUT, WORDS, accuracyText, locateStep, refusalText, reportParams, sourceText,
} from '../../web/locate-flow.js';

const FUSED = { source: 'gpsd', lat: -37.78, lon: 175.31, horizontal_error: 21, at: '2026-11-26T10:00:00Z' };
const LOCATE = { do: 'locate', params: { max_age: LOCATE_MAX_AGE, timeout: LOCATE_TIMEOUT } };
const HAMILTON = { type: 'position', lat: -37.7848, lon: 175.3149, accuracy: 40, timestamp: Date.UTC(2026, 10, 26, 10, 0, 5, 250) };

// Runs events from `flow` (idle by default): the flow after the last, and each event's actions.
function run(events, flow = LOCATE_IDLE) {
  const actions = [];
  for (const event of events) {
    const step = locateStep(flow, event);
    flow = step.flow;
    actions.push(step.actions);
  }
  return { flow: flow, actions: actions };
}

const click = (location, geolocation = 'available') => ({ type: 'click', location: location, geolocation: geolocation });
const located = (fix) => ({ type: 'located', feature: { type: 'Feature', properties: { source: 'location', fix: fix } } });
const notices = (actions) => actions.filter((a) => a.do === 'notice');

test('with a fused location the daemon is asked for it at once (locate with max_age), and the browser never', () => {
  const { flow, actions } = run([click(FUSED), located({ ...FUSED, mode: 3 })]);
  assert.deepEqual(actions[0], [{ do: 'busy', on: true }, { do: 'notice', text: WORDS.usingDaemon, kind: 'info' }, LOCATE]);
  assert.deepEqual(actions[1], [
    { do: 'notice', text: '' }, { do: 'source', text: 'Position from gpsd, ±21 m', source: 'gpsd' }, { do: 'busy', on: false },
  ]);
  assert.ok(!actions.flat().some((a) => a.do === 'ask-browser' || a.do === 'report'));
  assert.deepEqual(flow, LOCATE_IDLE);
});

test('without one the browser is asked, its position reported as the browser\'s, then located with max_age', () => {
  const { flow, actions } = run([click(null), HAMILTON, { type: 'reported', accepted: true }, located({ ...FUSED, source: 'browser', horizontal_error: 40 })]);
  assert.deepEqual(actions[0], [{ do: 'busy', on: true }, { do: 'notice', text: WORDS.asking, kind: 'info' }, { do: 'ask-browser' }]);
  assert.deepEqual(actions[1], [{
    do: 'report',
    params: { lat: -37.7848, lon: 175.3149, horizontal_error: 40, source: 'browser', at: '2026-11-26T10:00:05.250Z' },
  }]);
  assert.deepEqual(actions[2], [LOCATE]);
  assert.deepEqual(actions[3].find((a) => a.do === 'source'), { do: 'source', text: 'Position from your browser, ±40 m', source: 'browser' });
  assert.deepEqual(actions[3].at(-1), { do: 'busy', on: false });
  assert.deepEqual(flow, LOCATE_IDLE);
});

test('a refusal, an unavailable position and a timeout are said in words, and nothing is reported', () => {
  for (const [code, words] of [[1, /permission denied/], [2, /could not tell your position/], [3, /in time/], [99, /could not give/]]) {
    const { flow, actions } = run([click(null), { type: 'position-error', code: code }]);
    assert.deepEqual(flow, LOCATE_IDLE);
    const [notice] = notices(actions[1]);
    assert.equal(notice.kind, 'error');
    assert.match(notice.text, words);
    assert.deepEqual(actions[1].at(-1), { do: 'busy', on: false });
    assert.ok(!actions.flat().some((a) => a.do === 'report' || a.do === 'locate'), 'code ' + code);
  }
});

test('a report the daemon did not take says why (inaccurate with the error, too old) and searches nothing', () => {
  const coarse = { ...HAMILTON, accuracy: 25000 };
  const inaccurate = run([click(null), coarse, { type: 'reported', accepted: false, reason: 'inaccurate' }]);
  assert.deepEqual(inaccurate.flow, LOCATE_IDLE);
  assert.deepEqual(notices(inaccurate.actions[2]), [
    { do: 'notice', text: 'Your browser’s position was not used: ±25 km is too coarse for the daemon.', kind: 'error' },
  ]);
  const old = run([click(null), HAMILTON, { type: 'reported', accepted: false, reason: 'too_old' }]);
  assert.equal(notices(old.actions[2])[0].text, WORDS.tooOld);
  const other = run([click(null), HAMILTON, { type: 'reported', accepted: false, reason: 'sideways' }]);
  assert.equal(notices(other.actions[2])[0].text, 'Your browser’s position was not used (sideways).');
  for (const { actions } of [inaccurate, old, other]) assert.ok(!actions.flat().some((a) => a.do === 'locate'));
});

test('held: the daemon keeps a more accurate fix of its own; that one is located, and the page says so', () => {
  const { flow, actions } = run([
    click(null), HAMILTON, { type: 'reported', accepted: false, reason: 'held' }, located({ ...FUSED, horizontal_error: 5 }),
  ]);
  assert.deepEqual(actions[2], [LOCATE]);
  assert.deepEqual(notices(actions[3]), [{ do: 'notice', text: WORDS.held, kind: 'info' }]);
  assert.equal(actions[3].find((a) => a.do === 'source').text, 'Position from gpsd, ±5 m');
  assert.deepEqual(flow, LOCATE_IDLE);
});

test('the daemon\'s location gone by the time of the request: the browser is asked instead, once', () => {
  const gone = { type: 'failed', code: -32006, message: 'no location source is enabled' };
  const { flow, actions } = run([click(FUSED), gone, { type: 'position-error', code: 1 }]);
  assert.deepEqual(actions[1], [{ do: 'notice', text: WORDS.asking, kind: 'info' }, { do: 'ask-browser' }]);
  assert.deepEqual(flow, LOCATE_IDLE);
  // After a report the browser is not asked again: the error is said.
  const again = run([click(null), HAMILTON, { type: 'reported', accepted: true }, gone]);
  assert.deepEqual(again.actions[3], [
    { do: 'notice', text: 'no location source is enabled', kind: 'error' }, { do: 'busy', on: false },
  ]);
  // Nor where the browser cannot be asked.
  const insecure = run([click(FUSED, 'insecure'), { type: 'failed', code: -32005, message: 'no accepted location fix' }]);
  assert.equal(notices(insecure.actions[1])[0].kind, 'error');
});

test('a lookup error is left to the phase line; another error (a lost connection) goes to the notice', () => {
  const lookup = run([click(FUSED), { type: 'failed', code: -32004, message: 'upstream unavailable' }]);
  assert.deepEqual(lookup.actions[1], [{ do: 'notice', text: '' }, { do: 'busy', on: false }]);
  const lost = run([click(null), HAMILTON, { type: 'failed', code: 0, message: 'the connection to weatherd was lost' }]);
  assert.deepEqual(lost.actions[2], [{ do: 'notice', text: 'the connection to weatherd was lost', kind: 'error' }, { do: 'busy', on: false }]);
  assert.deepEqual(lost.flow, LOCATE_IDLE);
});

test('a page that may not ask the browser says why at once', () => {
  const insecure = run([click(null, 'insecure')]);
  assert.deepEqual(insecure.actions[0], [{ do: 'notice', text: WORDS.insecure, kind: 'error' }, { do: 'busy', on: false }]);
  assert.match(WORDS.insecure, /https/);
  const absent = run([click(null, 'absent')]);
  assert.equal(notices(absent.actions[0])[0].text, WORDS.absent);
});

test('one locate at a time; an answer the flow does not wait for changes nothing', () => {
  const asking = run([click(null)]).flow;
  assert.deepEqual(locateStep(asking, click(FUSED)), { flow: asking, actions: [] });
  assert.deepEqual(locateStep(asking, located(FUSED)), { flow: asking, actions: [] });
  assert.deepEqual(locateStep(asking, { type: 'reported', accepted: true }), { flow: asking, actions: [] });
  for (const event of [HAMILTON, { type: 'position-error', code: 1 }, { type: 'failed', code: 0 }, located(FUSED)]) {
    assert.deepEqual(locateStep(LOCATE_IDLE, event), { flow: LOCATE_IDLE, actions: [] });
  }
});

test('the report: a browser that claims no error is taken at 1 m; no time, no at; not a position, no report', () => {
  assert.deepEqual(reportParams({ lat: 1, lon: 2, accuracy: 0 }), { lat: 1, lon: 2, horizontal_error: 1, source: 'browser' });
  assert.equal(reportParams({ lat: 91, lon: 2, accuracy: 5 }), null);
  assert.equal(reportParams({ lat: NaN, lon: 2, accuracy: 5 }), null);
  const bad = run([click(null), { type: 'position', lat: null, lon: 3, accuracy: 4, timestamp: 0 }]);
  assert.deepEqual(bad.actions[1], [{ do: 'notice', text: WORDS.badPosition, kind: 'error' }, { do: 'busy', on: false }]);
});

test('where a position came from, as the daemon names it', () => {
  const from = (fix) => sourceText({ properties: { fix: fix } });
  assert.deepEqual(from({ source: 'owntracks', device: 'alice/phone', horizontal_error: 12 }),
    { text: 'Position from owntracks alice/phone, ±12 m', source: 'owntracks' });
  assert.equal(from({ source: 'geoclue', horizontal_error: 1500 }).text, 'Position from GeoClue, ±1.5 km');
  assert.equal(from({ source: 'client' }).text, 'Position from a client');
  assert.equal(from({ source: '<b>novel</b>', horizontal_error: 3 }).text, 'Position from <b>novel</b>, ±3 m');
  assert.equal(from({ source: 'constructor' }).text, 'Position from constructor');
  assert.deepEqual(sourceText({ properties: {} }), { text: 'Position from the daemon', source: '' });
  assert.deepEqual(sourceText(null), { text: 'Position from the daemon', source: '' });
});

test('accuracies and refusals in words', () => {
  assert.equal(accuracyText(40.4), '±40 m');
  assert.equal(accuracyText(999.4), '±999 m');
  assert.equal(accuracyText(999.6), '±1.0 km');
  assert.equal(accuracyText(12345), '±12 km');
  assert.equal(accuracyText(undefined), '');
  assert.equal(refusalText('inaccurate', undefined), 'Your browser’s position was not used: its error is too coarse for the daemon.');
  assert.equal(GEOLOCATION_OPTIONS.timeout, 20000);
});
