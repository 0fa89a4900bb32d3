// The map: Leaflet, the basemap (the bundled Natural Earth outlines, or web.tile_url's tiles), the
// markers (web/markers.js), the moves the page makes (fly-to a result, the initial view) and the
// user's moves, each of which ends in a `region` event.
//
//   const view = createMapView({ element, config, connection, obstacle, onRegion });
//   view.start(credits)       // once the configuration is known: the basemap and the credits
//   view.show(store)          // after each overlays change (web/overlay-store.js)
//   view.reconnected()        // the connection opened again: its replay may repeat the last focus
//   view.showFeature(feature) // fly to a feature and open its popup (a watched city's button)
//   view.whenStill(fn)        // fn once the map stands still
//
// Hooks on the map's element for tests: data-center, data-zoom, data-moving, data-seq and
// data-region-count (the regions sent).

import { createAlertAreas } from './alert-areas.js';
import { isNum } from './format.js';
import { POPUP_EDGE, POPUP_MIN_HEIGHT, fitPadding, popupRoom } from './map-room.js';
import { createMarkers } from './markers.js';
import { createPopups } from './popup.js';

const L = globalThis.L;

// A gesture other than a drag counts for the move that ends within this long of it.
const GESTURE_MS = 1500;

// config: the page's (tile_url, read_only), read when the view starts and when a popup opens;
// connection: web/connection.js's (the popups' forecasts); obstacle: the element over the map that
// the page keeps markers clear of (the panel); onRegion(region): a user's move ended, answers
// whether the region was sent.
export function createMapView({ element, config, connection, obstacle, onRegion }) {
  const map = L.map(element, {
    worldCopyJump: true,
    minZoom: 1,
    maxZoom: 18,
    zoomSnap: 0.5,
    attributionControl: false,
    zoomControl: false,
  }).setView([25, 10], 2);
  L.control.zoom({ position: 'bottomright' }).addTo(map);

  // How close a fly-to goes: the bundled 1:110m outlines get coarse beyond 5.
  let focusZoom = 5;

  // credits: web/credits.js's, shown in the map's corner.
  function start(credits) {
    if (config.tile_url) {
      element.classList.add('tiles');
      focusZoom = 9;
      L.tileLayer(config.tile_url, { maxZoom: 18 }).addTo(map);
    } else {
      element.classList.add('offline');
      map.setMaxZoom(10);
      const renderer = L.canvas({ padding: 0.5 });
      fetch('assets/countries.geojson')
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error('HTTP ' + r.status))))
        .then((countries) => {
          // Three copies side by side, so the world goes on when the map is panned across 180°.
          for (const shift of [-360, 0, 360]) {
            L.geoJSON(countries, {
              renderer: renderer,
              interactive: false,
              coordsToLatLng: (c) => L.latLng(c[1], c[0] + shift),
              style: { color: '#b9b2a4', weight: 0.8, fillColor: '#f4f1ea', fillOpacity: 1 },
            }).addTo(map);
          }
        })
        .catch((err) => console.warn('basemap not loaded:', err));
    }
    const Credits = L.Control.extend({
      options: { position: 'bottomright' },
      onAdd: function () {
        L.DomEvent.disableClickPropagation(credits.element);
        return credits.element;
      },
    });
    new Credits().addTo(map);
  }

  // ---- the map's own moves versus the user's
  //
  // A move counts as the user's when a gesture started it: a drag (Leaflet's dragstart fires only
  // for one), the wheel, a double click, a pinch, the keyboard or the zoom buttons. The initial view,
  // fly-to on a result and a popup's auto-pan are the page's own moves and send no region.
  // A gesture other than a drag counts for the move that ends within GESTURE_MS of it (a wheel over
  // a popup, say, moves nothing, and must not make a later auto-pan the user's).
  let dragGesture = false;
  let gestureAt = -Infinity;
  let regionCount = 0;

  function markGesture() { gestureAt = performance.now(); }
  function forgetGesture() { dragGesture = false; gestureAt = -Infinity; }
  function takeGesture() {
    const user = dragGesture || performance.now() - gestureAt < GESTURE_MS;
    forgetGesture();
    return user;
  }
  map.on('dragstart', () => { dragGesture = true; });
  map.on('boxzoomend', markGesture);
  // A click that moved nothing was no gesture of a move.
  map.on('click', forgetGesture);
  element.addEventListener('wheel', markGesture, { passive: true, capture: true });
  element.addEventListener('dblclick', markGesture, { capture: true });
  element.addEventListener('touchstart', (e) => { if (e.touches.length > 1) markGesture(); }, { passive: true, capture: true });
  element.addEventListener('keydown', (e) => {
    if (e.target === element && /^(Arrow|\+|-|=|_)/.test(e.key)) markGesture();
  }, { capture: true });
  map.getContainer().querySelector('.leaflet-control-zoom')
    .addEventListener('click', markGesture, { capture: true });

  // Room kept for the panel when the page fits markers into the view.
  function obstaclePadding() {
    return fitPadding(element.getBoundingClientRect(), obstacle.getBoundingClientRect());
  }

  // The room of a popup laid out where it opens: the map's box less the panel over it, as Leaflet's
  // auto-pan paddings, so that the popup opens, or is panned, fully where the map is seen. Below the
  // panel when it is a bar across the top (a phone); beside it when it is a column and the popup
  // would reach up beside it (a wider screen). A popup taller than the room scrolls.
  function roomOf(popup) {
    const node = popup.getElement();
    const content = node.querySelector('.leaflet-popup-content');
    const tip = parseInt(getComputedStyle(node).marginBottom, 10) || 0;
    const box = element.getBoundingClientRect();
    const panel = obstacle.getBoundingClientRect();
    const shown = node.getBoundingClientRect();
    const room = popupRoom(box, panel, shown, tip);
    // The content's height at the most: the room's, less the popup's frame and tip around the content.
    const frame = shown.height + tip - content.offsetHeight;
    return {
      autoPanPaddingTopLeft: room.topLeft,
      autoPanPaddingBottomRight: room.bottomRight,
      maxHeight: Math.max(POPUP_MIN_HEIGHT, room.height - frame),
    };
  }

  function flyTo(lat, lon, zoom) {
    forgetGesture();
    const target = Math.max(zoom || 0, map.getZoom());
    map.flyTo([lat, lon], Math.min(target, map.getMaxZoom()), { duration: 1.2 });
  }

  // Runs fn once, when the map's current move has ended. Not map.once('moveend'): before Leaflet 1.9
  // (Leaflet/Leaflet#8190; Debian's libjs-leaflet is older) `once` removes its listener only after
  // calling it, so a moveend fired from inside fn calls fn again, and opening a popup can fire one:
  // its auto-pan stops the pan still under way (that of a popup the user opened during the fly-to,
  // say), and Leaflet ends a stopped pan with a moveend at once. Open, pan, stop, moveend, open…
  // recursed until the stack overflowed, mostly inside the canvas renderer's redraw, which left the
  // basemap blank: a loop of the same kind as Leaflet/Leaflet#6458 (keepInView, not used here).
  // A pan can also end while a fly-to goes on: the move is over when a frame passes without another.
  function afterMove(fn) {
    const ended = () => {
      map.off('moveend', ended);
      requestAnimationFrame(() => whenStill(fn));
    };
    map.on('moveend', ended);
  }

  // Runs fn now when the map stands still, else once its move has ended: a popup is laid out and
  // auto-panned into view then, never while a fly-to, a drag or another pan is under way.
  function whenStill(fn) {
    if (element.dataset.moving === 'true') afterMove(fn);
    else fn();
  }

  const alertAreas = createAlertAreas({ map: map });

  const markers = createMarkers({
    map: map,
    popups: createPopups({ config: config, connection: connection, whenStill: whenStill }),
    popupOptions: { maxWidth: 320, minWidth: 220, autoPanPadding: [POPUP_EDGE, POPUP_EDGE], room: roomOf },
  });

  // Opens the popup of a feature's marker; one open already (the user opened it during the fly-to)
  // is laid out and panned into view again instead (opening it again would pan it twice, the second
  // pan stopping the first).
  function showPopup(id) {
    const marker = markers.marker(id);
    if (!marker) return;
    if (marker.isPopupOpen()) marker.getPopup().update();
    else marker.openPopup();
  }

  function publishView() {
    const c = map.getCenter();
    const wrapped = c.wrap();
    element.dataset.center = wrapped.lat.toFixed(4) + ',' + wrapped.lng.toFixed(4);
    element.dataset.zoom = String(map.getZoom());
  }
  map.on('move zoom', publishView);
  map.on('movestart move', () => { element.dataset.moving = 'true'; });
  map.on('moveend', () => {
    publishView();
    element.dataset.moving = 'false';
    if (takeGesture()) sendRegion();
  });
  publishView();
  element.dataset.moving = 'false';
  element.dataset.regionCount = '0';
  element.dataset.seq = '';

  // The view's centre and span, clamped to the world, 4 decimals.
  function sendRegion() {
    const center = map.getCenter().wrap();
    const bounds = map.getBounds();
    const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
    const north = clamp(bounds.getNorth(), -90, 90);
    const south = clamp(bounds.getSouth(), -90, 90);
    const span = {
      lat: clamp(north - south, 0.0001, 180),
      lon: clamp(bounds.getEast() - bounds.getWest(), 0.0001, 180),
    };
    const round = (v) => Math.round(v * 10000) / 10000;
    const sent = onRegion({
      center: { lat: round(clamp(center.lat, -90, 90)), lon: round(clamp(center.lng, -180, 180)) },
      span: { lat: round(span.lat), lon: round(span.lon) },
    });
    if (sent) {
      regionCount += 1;
      element.dataset.regionCount = String(regionCount);
    }
  }

  // ---- overlays and their focus

  let lastFocusKey = null;
  let firstOverlays = true;       // the first collection since the page loaded
  let firstSinceConnect = true;   // the first collection since the connection opened

  function show(store) {
    element.dataset.seq = String(store.seq);
    markers.draw(store.features);
    alertAreas.draw(store.areas);
    const focus = store.focus;
    const focusKey = Array.isArray(focus) ? focus.join(',') : null;
    if (focusKey !== null && isNum(focus[0]) && isNum(focus[1])) {
      // Every landed text or location result is a change with a focus, so a repeated search
      // re-centres; the replay after a reconnect does not, when it shows the place already flown to.
      if (!(firstSinceConnect && focusKey === lastFocusKey)) {
        if (firstOverlays) {
          forgetGesture();
          map.setView([focus[1], focus[0]], focusZoom);
        } else {
          flyTo(focus[1], focus[0], focusZoom);
          // Once there, the result's details (unless it has gone meanwhile).
          const result = store.result();
          if (result) {
            const marker = markers.marker(result.id);
            afterMove(() => { if (markers.marker(result.id) === marker) showPopup(result.id); });
          }
        }
      }
      lastFocusKey = focusKey;
    } else if (firstOverlays && markers.size > 0) {
      // The initial view: every marker in sight. It is the page's own move, so it sends no region.
      forgetGesture();
      map.fitBounds(L.latLngBounds(markers.latLngs()).pad(0.15), { maxZoom: focusZoom, animate: false, ...obstaclePadding() });
    }
    firstOverlays = false;
    firstSinceConnect = false;
  }

  // A watched city's button: there, and its details once there.
  function showFeature(feature) {
    const c = feature.geometry.coordinates;
    flyTo(c[1], c[0], focusZoom);
    if (markers.marker(feature.id)) afterMove(() => showPopup(feature.id));
  }

  window.addEventListener('resize', () => map.invalidateSize({ pan: false }));

  return {
    start: start,
    show: show,
    showFeature: showFeature,
    whenStill: whenStill,
    reconnected: () => { firstSinceConnect = true; },
  };
}
