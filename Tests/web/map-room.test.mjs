// Where on the map there is room beside the panel (web/map-room.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { fitPadding, popupRoom } from '../../web/map-room.js';

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

// A popup of 300 × 420 laid out where it opens (unpanned), its tip 20 px below it.
function popupAt(left, top) {
  return rect(left, top, 300, 420);
}

test('on a phone a popup is kept below the panel bar, wherever it opens', () => {
  for (const shown of [popupAt(45, -200), popupAt(45, 24), popupAt(45, 300)]) {
    assert.deepEqual(popupRoom(PHONE, BAR, shown, 20), { topLeft: [24, 154], bottomRight: [24, 24], height: 666 });
  }
});

test('on a wider screen a popup keeps clear of the panel column only where it would be level with it', () => {
  const beside = { topLeft: [366, 24], bottomRight: [24, 24], height: 812 };
  const anywhere = { topLeft: [24, 24], bottomRight: [24, 24], height: 812 };
  assert.deepEqual(popupRoom(DESKTOP, COLUMN, popupAt(100, 50), 20), beside);
  assert.deepEqual(popupRoom(DESKTOP, COLUMN, popupAt(100, -300), 20), beside, 'panned down to the top edge: level with it');
  assert.deepEqual(popupRoom(DESKTOP, COLUMN, popupAt(100, 330), 20), anywhere, 'below the panel');
  assert.deepEqual(popupRoom(DESKTOP, COLUMN, popupAt(100, 600), 20), anywhere, 'panned up from the bottom, below it');
  assert.deepEqual(popupRoom(DESKTOP, COLUMN, rect(100, 600, 300, 600), 20), beside, 'a taller one, level with it');
  assert.deepEqual(popupRoom(DESKTOP, COLUMN, popupAt(700, 50), 20), beside, 'already beside it: the padding moves nothing');
});

test('a map that does not start at the viewport\'s corner is measured from its own', () => {
  const box = rect(100, 50, 1000, 800);
  const panel = rect(110, 60, 340, 300);
  assert.deepEqual(popupRoom(box, panel, popupAt(200, 100), 20).topLeft, [362, 24]);
  assert.deepEqual(popupRoom(rect(0, 40, 390, 804), rect(8, 48, 374, 134), popupAt(45, 0), 20).topLeft, [24, 154]);
});
