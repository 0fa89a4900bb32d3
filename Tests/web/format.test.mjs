// How the page says values (web/format.js): temperatures, bands, directions, places, the status lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  budgetText, compass, describeInput, featureHue, featureTitle, formatCoord, formatTemp, formatTempLong, markerLabel, parseTime,
  phaseText, placeLabel, placeName, relativeTime, tempHue, unitsOf,
} from '../../web/format.js';

test('a marker\'s temperature is rounded in the feature\'s units, with no minus zero', () => {
  assert.equal(formatTemp(8.94, { units: 'metric' }), '9°');
  assert.equal(formatTemp(-0.4, { units: 'metric' }), '0°');
  assert.equal(formatTemp(-0.04, {}, 1), '0.0°');
  assert.equal(formatTemp(-3.6, { units: 'imperial' }), '-4°');
  assert.equal(formatTemp(281.2, { units: 'standard' }), '281 K');
  assert.equal(formatTemp(null, {}), '–');
  assert.equal(formatTemp(NaN, {}), '–');
});

test('a popup\'s temperature has one decimal and its unit', () => {
  assert.equal(formatTempLong(8.94, { units: 'metric' }), '8.9 °C');
  assert.equal(formatTempLong(48.2, { units: 'imperial' }), '48.2 °F');
  assert.equal(formatTempLong(282.09, { units: 'standard' }), '282.1 K');
  assert.equal(formatTempLong(12, { units: 'furlongs' }), '12.0 °C', 'an unknown unit is metric');
  assert.equal(formatTempLong(undefined, {}), '–');
  assert.equal(unitsOf(null).speed, 'm/s');
  assert.equal(unitsOf({ units: 'imperial' }).speed, 'mph');
});

test('temperature bands: blue in frost, teal when mild, red in heat, the same in every unit', () => {
  assert.equal(tempHue(-40), 250);
  assert.equal(tempHue(-30), 250);
  assert.equal(tempHue(0), 200);
  assert.equal(tempHue(5), 185, 'halfway between the bands of 0 and 10');
  assert.equal(tempHue(10), 170);
  assert.equal(tempHue(50), 355);
  assert.equal(tempHue(null), null);
  // 30 °C (hue 20) to 40 °C (355) goes down through red, not up through the whole wheel.
  assert.equal(tempHue(35), 7.5);
  assert.equal(featureHue({ temperature: 50, units: 'imperial' }), tempHue(10));
  assert.equal(featureHue({ temperature: 273.15, units: 'standard' }), 200);
  assert.equal(featureHue({ units: 'metric' }), null);
});

test('wind directions, positions and times', () => {
  assert.equal(compass(0), 'N');
  assert.equal(compass(250), 'WSW');
  assert.equal(compass(359), 'N');
  assert.equal(compass(-90), 'W');
  assert.equal(formatCoord(51.5085, -0.1257), '51.51° N, 0.13° W');
  assert.equal(formatCoord(-37.78, 175.28), '37.78° S, 175.28° E');
  assert.equal(parseTime('2019-04-28T09:35:55Z').getTime(), Date.UTC(2019, 3, 28, 9, 35, 55));
  assert.equal(parseTime('yesterday'), null);
  assert.equal(parseTime(42), null);
  const now = Date.UTC(2026, 10, 22, 10, 0, 0);
  const ago = (seconds) => relativeTime(new Date(now - seconds * 1000), now);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  assert.equal(ago(30), rtf.format(-30, 'second'));
  assert.equal(ago(300), rtf.format(-5, 'minute'));
  assert.equal(ago(7200), rtf.format(-2, 'hour'));
  assert.equal(ago(3 * 86400), rtf.format(-3, 'day'));
});

test('a place is named by its name, state and country where known', () => {
  assert.equal(placeLabel({ name: 'Springfield', state: 'Missouri', country: 'US' }), 'Springfield, Missouri, US');
  assert.equal(placeLabel({ name: 'London', state: null, country: 'GB' }), 'London, GB');
  assert.equal(placeLabel({ name: ' Paris ', state: ' ', country: 'FR' }), 'Paris, FR');
  const point = { id: 'pt:1', geometry: { coordinates: [175.28, -37.78] }, properties: { name: null } };
  assert.equal(placeName(point), '37.78° S, 175.28° E');
  assert.equal(placeName({ properties: {} }), 'Unnamed place');
  const london = {
    geometry: { coordinates: [-0.1257, 51.5085] },
    properties: { name: 'London', country: 'GB', temperature: 8.94, units: 'metric', description: 'overcast clouds' },
  };
  assert.equal(markerLabel(london), 'London, GB 8.9 °C overcast clouds');
});

test('the phase line says what is looked up and what was found', () => {
  assert.equal(describeInput({ kind: 'text', city: 'Paris' }), '“Paris”');
  assert.equal(describeInput({ kind: 'region' }), 'the map area');
  assert.equal(describeInput(null), '');
  assert.equal(phaseText({ phase: 'loading', input: { kind: 'cities' } }, 0), 'Looking up the watched cities…');
  assert.equal(phaseText({ phase: 'populated' }, 1), '1 place on the map');
  assert.equal(phaseText({ phase: 'populated' }, 12), '12 places on the map');
  assert.equal(phaseText({ phase: 'empty', input: { kind: 'location' } }, 0), 'Nothing found for your position');
  assert.equal(phaseText({ phase: 'error', error: { message: 'city not found' } }, 0), 'Error: city not found');
  assert.equal(phaseText({ phase: 'error' }, 0), 'Error: the lookup failed');
  assert.equal(phaseText({ phase: 'idle' }, 0), 'idle');
  assert.equal(phaseText({}, 0), '');
});

test('the rate-limit line names the blocked provider and the requests of the last minute', () => {
  const title = (name) => ({ openweathermap: 'OpenWeatherMap' })[name] || null;
  assert.equal(budgetText({ blocked_until: null }, [], title), null);
  assert.equal(budgetText(null, [], title), null);
  const until = '2026-11-22T10:05:00Z';
  const time = new Date(until).toLocaleTimeString();
  const block = budgetText({ blocked_until: until, used: 60, requests_per_minute: 60 },
    [{ name: 'open-meteo', blocked_until: null }, { name: 'openweathermap', blocked_until: until }], title);
  assert.deepEqual(block, {
    until: until,
    said: 'OpenWeatherMap rate limit: no lookups to it until ' + time,
    shown: 'OpenWeatherMap rate limit: no lookups to it until ' + time + ' (60 of 60 requests in the last minute)',
  });
  assert.equal(budgetText({ blocked_until: until }, [], title).shown,
    'The weather provider rate limit: no lookups to it until ' + time);
});

test('a popup\'s title and a marker\'s name tell places of one name apart by their state', () => {
  const springfield = {
    geometry: { coordinates: [-93.2982, 37.2153] },
    properties: { name: 'Springfield', state: 'Missouri', country: 'US', temperature: 12.1, units: 'metric' },
  };
  assert.equal(featureTitle(springfield), 'Springfield, Missouri, US');
  assert.equal(markerLabel(springfield), 'Springfield, Missouri, US 12.1 °C');
  assert.equal(featureTitle({ properties: { name: 'London', state: null, country: 'GB' } }), 'London, GB');
  assert.equal(featureTitle({ properties: { name: 'Zocca' } }), 'Zocca');
  const point = { geometry: { coordinates: [175.28, -37.78] }, properties: { name: null, state: null, country: null } };
  assert.equal(featureTitle(point), '37.78° S, 175.28° E');
});
