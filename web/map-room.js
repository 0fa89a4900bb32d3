// Where on the map there is room: the map's box less the panel over it (a bar across the top on a
// phone, a column on the left of a wider screen). No DOM: it takes the viewport's rectangles
// (getBoundingClientRect) and answers Leaflet's paddings; Tests/web tests it under Node.

// The panel is a bar across the top when it is at least this share of the map's width.
const BAR_SHARE = 0.6;

function isBar(box, panel) {
  return panel.width >= box.width * BAR_SHARE;
}

// The paddings of fitBounds when the page fits markers into the view: clear of the panel.
export function fitPadding(box, panel) {
  if (!isBar(box, panel)) return { paddingTopLeft: [panel.right - box.left + 60, 50], paddingBottomRight: [60, 50] };
  return { paddingTopLeft: [50, panel.bottom - box.top + 30], paddingBottomRight: [50, 30] };
}

// A popup keeps this far from the map's edges, and PANEL_GAP from the panel; its content is never
// made shorter than POPUP_MIN_HEIGHT (it scrolls beyond).
export const POPUP_EDGE = 24;
const PANEL_GAP = 12;
export const POPUP_MIN_HEIGHT = 120;

// Where a popup may be, in the map's box (`box`, the viewport's rectangles of the map, the panel over
// it and the popup laid out where it opens, unpanned; `tip`: the popup's tip below it): Leaflet's
// auto-pan paddings (topLeft, bottomRight) and the height between them.
export function popupRoom(box, panel, shown, tip) {
  let top = POPUP_EDGE;
  let left = POPUP_EDGE;
  const below = panel.bottom - box.top + PANEL_GAP;
  if (isBar(box, panel)) {
    top = Math.max(top, below);  // a bar across the top: below it
  } else {
    // A column on the left: the popup's top once panned into the map's edges (up when it reaches
    // below the map, then down when above it, as Leaflet pans); beside the panel when that is
    // level with the panel.
    const bottom = shown.bottom + tip - box.top;
    let y = shown.top - box.top - Math.max(0, bottom - (box.height - POPUP_EDGE));
    y = Math.max(y, POPUP_EDGE);
    if (y < below) left = Math.max(left, panel.right - box.left + PANEL_GAP);
  }
  return { topLeft: [left, top], bottomRight: [POPUP_EDGE, POPUP_EDGE], height: box.height - top - POPUP_EDGE };
}
