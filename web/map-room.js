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
