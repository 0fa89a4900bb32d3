// The air quality bands of the page: the same boundaries as the daemon's (AirQualityBandTests).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { band, indexOf, scaleOf } from '../../web/air-quality.js';

test('European: good … extremely poor, each band with its upper bound', () => {
  const cases = [[0, 'good'], [20, 'good'], [20.5, 'fair'], [40, 'fair'], [44, 'moderate'], [60, 'moderate'], [61, 'poor'],
    [80, 'poor'], [99, 'very poor'], [100, 'very poor'], [101, 'extremely poor'], [400, 'extremely poor']];
  for (const [index, name] of cases) assert.equal(band(index, 'european').name, name, String(index));
});

test('US: good … hazardous', () => {
  const cases = [[0, 'good'], [50, 'good'], [51, 'moderate'], [65, 'moderate'], [100, 'moderate'],
    [101, 'unhealthy for sensitive groups'], [150, 'unhealthy for sensitive groups'], [151, 'unhealthy'],
    [201, 'very unhealthy'], [300, 'very unhealthy'], [301, 'hazardous']];
  for (const [index, name] of cases) assert.equal(band(index, 'us').name, name, String(index));
});

test('colours: the scale\'s own, with white text on the two worst bands only', () => {
  assert.deepEqual(band(44, 'european'), { level: 2, name: 'moderate', colour: '#F0E641', text: '#000000' });
  assert.deepEqual(band(90, 'european'), { level: 4, name: 'very poor', colour: '#960032', text: '#FFFFFF' });
  assert.deepEqual(band(500, 'us'), { level: 5, name: 'hazardous', colour: '#7E0023', text: '#FFFFFF' });
});

test('no band for a negative, not finite or missing index; the index of the configured scale; european by default', () => {
  assert.equal(band(-1, 'european'), null);
  assert.equal(band(NaN, 'us'), null);
  assert.equal(band(null, 'us'), null);
  const air = { european_aqi: 44, us_aqi: 65 };
  assert.equal(indexOf(air, 'european'), 44);
  assert.equal(indexOf(air, 'us'), 65);
  assert.equal(indexOf(null, 'us'), null);
  assert.equal(indexOf({ european_aqi: null }, 'european'), null);
  assert.equal(scaleOf('martian'), 'european');
});
