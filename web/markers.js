// The overlay features as Leaflet markers, one per feature id, and their popups. A marker is a
// button in the Tab order named as text ("London, GB 8.9 °C overcast clouds"); Enter opens its
// popup (Leaflet) and moves the focus into it; Escape, in the map, closes it; a popup that closes
// with the focus inside gives it back to its marker.
//
//   const markers = createMarkers({ map, popups });
//   markers.draw(features)     // after each overlays change: added, changed and removed markers
//   markers.marker(id)         // the Leaflet marker of a feature id, or null

import { el } from './dom.js';
import { featureHue, featureTitle, formatTemp, markerLabel, placeName } from './format.js';
import * as WeatherSymbols from './symbols.js';

const L = globalThis.L;

// The anchor is what Leaflet makes focusable (keyboard: true) and opens the popup on Enter: a
// button named by options.label.
const WeatherIcon = L.Icon.extend({
  options: { iconSize: [0, 0], iconAnchor: [0, 0], popupAnchor: [0, -20], className: 'wx-anchor' },
  createIcon: function () {
    const anchor = el('div');
    anchor.appendChild(this.options.element);
    anchor.setAttribute('role', 'button');
    if (this.options.label) anchor.setAttribute('aria-label', this.options.label);
    this._setIconStyles(anchor, 'icon');
    return anchor;
  },
  createShadow: function () { return null; },
});

// A popup that keeps to the room the map gives it (options.room(popup): Leaflet's auto-pan paddings
// and maxHeight, from where and how large it is): laid out first where it opens, unpanned, to know
// that; then laid out again and panned into that room. Every opening and new layout goes through
// update(): a click on a marker, a fly-to's result, the forecast's arrival.
const RoomyPopup = L.Popup.extend({
  update: function () {
    if (this._map && this.options.room) {
      const autoPan = this.options.autoPan;
      this.options.autoPan = false;
      L.Popup.prototype.update.call(this);
      this.options.autoPan = autoPan;
      L.setOptions(this, this.options.room(this));
    }
    L.Popup.prototype.update.call(this);
  },
});

function markerElement(feature) {
  const p = feature.properties || {};
  const source = typeof p.source === 'string' ? p.source : '';
  const box = el('div', 'wx wx-' + (source || 'unknown'));
  box.dataset.testid = 'feature';
  box.dataset.featureId = String(feature.id);
  box.dataset.source = source;
  if (p.stale) box.classList.add('wx-stale');
  const hue = featureHue(p);
  if (hue !== null) box.style.setProperty('--hue', String(Math.round(hue)));
  else box.classList.add('wx-notemp');

  const pill = el('div', 'wx-pill');
  pill.appendChild(WeatherSymbols.element(p.icon, { size: 16, className: 'wx-symbol' }));
  pill.appendChild(el('span', 'wx-temp', formatTemp(p.temperature, p)));
  box.appendChild(pill);
  if (source !== 'around' && typeof p.name === 'string' && p.name) {
    box.appendChild(el('div', 'wx-name', p.name));
  }
  box.title = placeName(feature) + (p.description ? ' — ' + p.description : '');
  return box;
}

function weatherIcon(feature) {
  return new WeatherIcon({ element: markerElement(feature), label: markerLabel(feature) });
}

// Results above the watched cities, the cities above the grid.
function zIndexFor(source) {
  return { text: 1000, location: 1000, region: 600, city: 400, around: 0 }[source] || 200;
}

function focusWithoutScroll(node) {
  if (node && document.contains(node)) node.focus({ preventScroll: true });
}

// map: the Leaflet map; popups: web/popup.js's (content, loadForecast); popupOptions: the
// options of each marker's popup, with room(popup) (see RoomyPopup).
export function createMarkers({ map, popups, popupOptions }) {
  const mapElement = map.getContainer();
  const entries = new Map();  // id -> {marker, signature, feature}

  function draw(features) {
    const seen = new Set();
    for (const feature of features) {
      const id = String(feature.id);
      seen.add(id);
      const c = feature.geometry.coordinates;
      const signature = JSON.stringify(feature);
      const entry = entries.get(id);
      const latlng = L.latLng(c[1], c[0]);
      const source = feature.properties && feature.properties.source;
      if (entry) {
        if (entry.signature === signature) continue;
        entry.signature = signature;
        entry.feature = feature;
        entry.marker.setLatLng(latlng);
        entry.marker.setIcon(weatherIcon(feature));
        entry.marker.setZIndexOffset(zIndexFor(source));
        entry.marker.setPopupContent(popups.content(feature));
        continue;
      }
      const marker = L.marker(latlng, {
        icon: weatherIcon(feature),
        zIndexOffset: zIndexFor(source),
        riseOnHover: true,
        keyboard: true,
        title: '',
      });
      const record = { marker: marker, signature: signature, feature: feature };
      marker.bindPopup(new RoomyPopup(popupOptions).setContent(popups.content(feature)));
      marker.on('popupopen', (e) => {
        const container = e.popup.getElement() && e.popup.getElement().querySelector('.popup-forecast');
        if (container) popups.loadForecast(record.feature, container, e.popup);
      });
      marker.addTo(map);
      entries.set(id, record);
    }
    for (const [id, entry] of entries) {
      if (!seen.has(id)) {
        entry.marker.remove();
        entries.delete(id);
      }
    }
  }

  function entryOfPopup(popup) {
    for (const entry of entries.values()) if (entry.marker.getPopup() === popup) return entry;
    return null;
  }

  function openedPopup() {
    for (const entry of entries.values()) if (entry.marker.isPopupOpen()) return entry.marker.getPopup();
    return null;
  }

  let enteredMarker = null;  // the marker icon on which Enter was pressed, for the popup it opens
  mapElement.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && e.target.classList && e.target.classList.contains('leaflet-marker-icon')) {
      enteredMarker = e.target;
    } else if (e.key === 'Escape' && openedPopup()) {
      e.preventDefault();
      map.closePopup();
    }
  });

  map.on('popupopen', (e) => {
    const node = e.popup.getElement();
    const entry = entryOfPopup(e.popup);
    // Leaflet's close button is <a href="#close">×</a>: a button named "Close", with no fragment
    // that a link would lead nowhere with (Leaflet's click handler keeps the page where it is).
    const close = node.querySelector('.leaflet-popup-close-button');
    if (close) {
      close.setAttribute('href', '#');
      close.setAttribute('role', 'button');
      close.setAttribute('aria-label', 'Close');
      close.removeAttribute('title');
    }
    const wrapper = node.querySelector('.leaflet-popup-content-wrapper');
    wrapper.setAttribute('role', 'dialog');
    wrapper.setAttribute('tabindex', '-1');
    if (entry) wrapper.setAttribute('aria-label', featureTitle(entry.feature));
    if (entry && enteredMarker && entry.marker.getElement() === enteredMarker) focusWithoutScroll(wrapper);
    enteredMarker = null;
  });

  map.on('popupclose', (e) => {
    const node = e.popup.getElement();
    if (!node || !node.contains(document.activeElement)) return;
    const entry = entryOfPopup(e.popup);
    focusWithoutScroll(entry ? entry.marker.getElement() : mapElement);
  });

  return {
    draw: draw,
    marker: (id) => { const entry = entries.get(String(id)); return entry ? entry.marker : null; },
    latLngs: () => [...entries.values()].map((entry) => entry.marker.getLatLng()),
    get size() { return entries.size; },
  };
}
