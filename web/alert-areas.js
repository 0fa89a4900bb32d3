// The areas of the official alerts on the map (`source: "alert"` features): one Leaflet polygon per
// alert, coloured by severity, each with a popup (the event, the headline, from and until when, the
// instruction) and a legend of the severities shown. The alert's words are put into the page as text
// (textContent), never as HTML: they come from a weather service and may hold anything.
//
//   const areas = createAlertAreas({ map });
//   areas.draw(features)   // after each overlays change: the alert features, added, changed, removed
//
// Hooks for tests: each polygon's path has data-testid="alert-area" and data-severity (extreme,
// severe, moderate, minor, unknown); the legend is data-testid="alert-legend".

import { el } from './dom.js';
import { alertTimes, severityOf, SEVERITIES } from './alert-format.js';

const L = globalThis.L;

export function createAlertAreas({ map }) {
  const layers = new Map(); // id -> { layer, key }
  // Alerts lie under the weather markers and take the pointer only where no marker is.
  const pane = map.createPane('alerts');
  pane.style.zIndex = '350';

  function popupContent(p) {
    const box = el('div', 'alert-popup');
    box.dataset.testid = 'alert-popup';
    box.appendChild(el('h2', 'alert-event', p.event || 'Alert'));
    box.appendChild(el('p', 'alert-severity', (p.severity || 'Unknown') + ' severity'));
    if (p.headline) box.appendChild(el('p', 'alert-headline', p.headline));
    const times = alertTimes(p);
    if (times) box.appendChild(el('p', 'alert-times', times));
    if (p.instruction) box.appendChild(el('p', 'alert-instruction', p.instruction));
    if (p.provider === 'nws') box.appendChild(el('p', 'alert-source', 'Source: US National Weather Service'));
    return box;
  }

  function add(feature) {
    const p = feature.properties || {};
    const severity = severityOf(p.severity);
    const layer = L.geoJSON(feature, {
      pane: 'alerts',
      style: { className: 'alert-area alert-' + severity, weight: 2, fillOpacity: 0.25 },
    });
    layer.bindPopup(() => popupContent(p), { maxWidth: 320, minWidth: 220 });
    // The popup is a dialog (web/markers.js makes every popup one), named after the alert.
    layer.on('popupopen', (e) => {
      const wrapper = e.popup.getElement().querySelector('.leaflet-popup-content-wrapper');
      if (wrapper) wrapper.setAttribute('aria-label', (p.event || 'Alert') + ', ' + severity + ' severity');
    });
    layer.addTo(map);
    layer.eachLayer((shape) => {
      const path = shape.getElement && shape.getElement();
      if (!path) return;
      path.dataset.testid = 'alert-area';
      path.dataset.severity = severity;
      path.dataset.featureId = String(feature.id);
      path.setAttribute('role', 'img');
      path.setAttribute('aria-label', (p.event || 'Alert') + ', ' + severity + ' severity');
    });
    return layer;
  }

  // The legend: the severities of the areas shown, most severe first; hidden when there are none.
  const legend = el('div', 'alert-legend');
  legend.dataset.testid = 'alert-legend';
  legend.hidden = true;
  const Legend = L.Control.extend({
    options: { position: 'bottomleft' },
    onAdd: () => legend,
  });
  new Legend().addTo(map);

  function showLegend(severities) {
    legend.replaceChildren();
    legend.hidden = severities.length === 0;
    if (legend.hidden) return;
    legend.appendChild(el('strong', null, 'Alerts'));
    const list = el('ul');
    for (const severity of SEVERITIES.filter((s) => severities.includes(s))) {
      const item = el('li', 'alert-legend-item');
      item.dataset.severity = severity;
      const swatch = el('span', 'alert-swatch alert-' + severity);
      swatch.setAttribute('aria-hidden', 'true');
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(severity[0].toUpperCase() + severity.slice(1)));
      list.appendChild(item);
    }
    legend.appendChild(list);
  }

  function draw(features) {
    const seen = new Set();
    for (const feature of features) {
      const id = String(feature.id);
      seen.add(id);
      const key = JSON.stringify(feature);
      const known = layers.get(id);
      if (known && known.key === key) continue;
      if (known) map.removeLayer(known.layer);
      layers.set(id, { layer: add(feature), key: key });
    }
    for (const [id, known] of layers) {
      if (!seen.has(id)) {
        map.removeLayer(known.layer);
        layers.delete(id);
      }
    }
    showLegend([...new Set(features.map((f) => severityOf((f.properties || {}).severity)))]);
  }

  return { draw: draw, get size() { return layers.size; } };
}
