// The forecast chart's numbers (web/forecast-data.js): its steps, its scales and its texts.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  UNITS, amountLegend, everyText, formatAmount, formatPop, formatTemp, largestAmount, lineRuns, stepSeconds, stepsOf,
  symbolEvery, temperatureScale, temperatureY, timeScale, unitOf,
} from '../../web/forecast-data.js';

const HOUR = 3600 * 1000;
const T0 = Date.UTC(2026, 10, 22, 12);

function at(hours) {
  return new Date(T0 + hours * HOUR).toISOString();
}

test('the steps are those with a time, oldest first, within the hours shown', () => {
  const steps = stepsOf([
    { at: at(6), temperature: 7, pop: 1.4, rain_3h: 0.5 },
    { at: at(0), temperature: 9.5, pop: -0.2, snow_3h: 1.25, rain_3h: 0.25, icon: '13d', description: 'light snow' },
    { at: at(3), temperature: null, condition: 'Clouds' },
    { at: 'soon', temperature: 1 },
    { temperature: 2 },
    null,
    { at: at(48), temperature: 3 },
  ], 48);
  assert.deepEqual(steps.map((s) => s.time), [T0, T0 + 3 * HOUR, T0 + 6 * HOUR]);
  assert.deepEqual(steps[0], {
    time: T0, temperature: 9.5, pop: 0, rain: 0.25, snow: 1.25, amount: 1.5, icon: '13d', description: 'light snow',
  });
  assert.equal(steps[1].temperature, null);
  assert.equal(steps[1].amount, null, 'neither rain nor snow given: no amount, not 0');
  assert.equal(steps[1].description, 'Clouds');
  assert.equal(steps[2].pop, 1, 'a chance is clamped to 0 … 1');
  assert.deepEqual(stepsOf(undefined, 48), []);
  assert.deepEqual(stepsOf([{ at: at(0) }, { at: at(1) }, { at: at(2) }], 2).length, 2);
});

test('a step is the feature\'s forecast_step, else the shortest distance between steps, else 3 hours', () => {
  const hourly = stepsOf([{ at: at(0) }, { at: at(2) }, { at: at(3) }], 48);
  assert.equal(stepSeconds({ forecast_step: 10800 }, hourly), 10800);
  assert.equal(stepSeconds({}, hourly), 3600);
  assert.equal(stepSeconds({ forecast_step: 0 }, hourly.slice(0, 1)), 10800);
  assert.equal(everyText(3600), 'every hour');
  assert.equal(everyText(10800), 'every 3 hours');
  assert.equal(everyText(900), 'every 15 minutes');
  assert.equal(symbolEvery(10800), 6 * HOUR);
  assert.equal(symbolEvery(3600), 6 * HOUR);
  assert.equal(symbolEvery(43200), 12 * HOUR, 'steps longer than six hours: a symbol on every step');
});

test('the temperature axis has two or three round labels around the values', () => {
  assert.deepEqual(temperatureScale([8.9, 13.2]), { from: 5, to: 15, ticks: [5, 10, 15] });
  assert.deepEqual(temperatureScale([-3, 4]), { from: -5, to: 5, ticks: [-5, 0, 5] });
  assert.deepEqual(temperatureScale([10, 10.5]), { from: 8, to: 12, ticks: [8, 10, 12] }, 'a flat line gets room');
  assert.deepEqual(temperatureScale([271, 290]), { from: 270, to: 290, ticks: [270, 280, 290] });
  for (const values of [[0.1, 0.2], [-40, 45], [99, 101], [-12.5, -11]]) {
    const scale = temperatureScale(values);
    assert.ok(scale.from <= Math.min(...values) && scale.to >= Math.max(...values), JSON.stringify({ values, scale }));
    assert.ok(scale.ticks.length >= 2 && scale.ticks.length <= 3, JSON.stringify(scale));
  }
});

test('time runs across the chart and temperature up it', () => {
  const x = timeScale(T0, 48, 27, 264);
  assert.equal(x(T0), 27);
  assert.equal(x(T0 + 48 * HOUR), 264);
  assert.equal(x(T0 + 24 * HOUR), 145.5);
  const y = temperatureY({ from: 5, to: 15 }, 60, 20);
  assert.equal(y(5), 60);
  assert.equal(y(15), 20);
  assert.equal(y(10), 40);
});

test('a missing temperature or a missing step breaks the line; a point alone is a run of one', () => {
  const steps = stepsOf([
    { at: at(0), temperature: 5 }, { at: at(3), temperature: 10 }, { at: at(6), temperature: null },
    { at: at(9), temperature: 15 }, { at: at(15), temperature: 5 }, { at: at(18), temperature: 10 },
  ], 48);
  const x = timeScale(T0, 48, 0, 480);
  const y = temperatureY({ from: 0, to: 20 }, 40, 0);
  const runs = lineRuns(steps, 3 * HOUR, x, y);
  assert.deepEqual(runs, [[[15, 30], [45, 20]], [[105, 10]], [[165, 30], [195, 20]]]);
});

test('the amount bars are scaled to the largest amount, which the legend names', () => {
  const steps = stepsOf([{ at: at(0), rain_3h: 0.4 }, { at: at(3), snow_3h: 2.25 }, { at: at(6) }], 48);
  assert.equal(largestAmount(steps), 2.25);
  assert.equal(largestAmount([]), 0);
  assert.equal(amountLegend(true, 2.25, 10800), 'mm (top 2.3 in 3 h)');
  assert.equal(amountLegend(true, 1, 900), 'mm (top 1.0 in 15 min)');
  assert.equal(amountLegend(true, 0, 3600), 'no rain or snow');
  assert.equal(amountLegend(false, 0, 3600), 'mm: not given');
});

test('the table\'s values, in the feature\'s units', () => {
  assert.equal(unitOf({ units: 'imperial' }), UNITS.imperial);
  assert.equal(unitOf({}), UNITS.metric);
  assert.equal(formatTemp(-0.04, UNITS.metric), '0.0 °C');
  assert.equal(formatTemp(281.16, UNITS.standard), '281.2 K');
  assert.equal(formatTemp(null, UNITS.metric), '–');
  assert.equal(formatPop(0.456), '46 %');
  assert.equal(formatPop(null), '–');
  assert.equal(formatAmount({ rain: 0.25, snow: 1 }), '0.3 mm rain, 1.0 mm snow');
  assert.equal(formatAmount({ rain: null, snow: null }), '–');
});
