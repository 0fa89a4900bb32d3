// Where on the map there is room beside the panel (web/map-room.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fitPadding } from '../../web/map-room.js';

// A rectangle as getBoundingClientRect gives it.
function rect(left, top, width, height) {
  return { left: left, top: top, width: width, height: height, right: left + width, bottom: top + height };
}

const DESKTOP = rect(0, 0, 1280, 860);
const COLUMN = rect(14, 14, 340, 300);
const PHONE = rect(0, 0, 390, 844);
const BAR = rect(8, 8, 374, 134);

test('the initial view keeps the markers beside a column, below a bar', () => {
  assert.deepEqual(fitPadding(DESKTOP, COLUMN), { paddingTopLeft: [414, 50], paddingBottomRight: [60, 50] });
  assert.deepEqual(fitPadding(PHONE, BAR), { paddingTopLeft: [50, 172], paddingBottomRight: [50, 30] });
});
