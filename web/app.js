// weatherd map page. Plain JavaScript, no build step; Leaflet comes from assets/leaflet/.
//
// Everything the daemon, OpenWeatherMap or a user says is put into the page as text: the DOM is
// built with createElement and textContent, and Leaflet gets DOM nodes, never HTML strings.
(function () {
  'use strict';

  const RECONNECT_MAX_MS = 5000;      // the contract: reconnect at most 5 s apart
  const REQUEST_TIMEOUT_MS = 120000;  // a locate may wait up to gpsd.locate_timeout

  // ---------------------------------------------------------------- small DOM helpers

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function $(selector) { return document.querySelector(selector); }

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  // ---------------------------------------------------------------- formatting

  const UNITS = {
    metric: { temp: '°C', speed: 'm/s', toC: (t) => t },
    imperial: { temp: '°F', speed: 'mph', toC: (t) => (t - 32) * 5 / 9 },
    standard: { temp: 'K', speed: 'm/s', toC: (t) => t - 273.15 },
  };

  function unitsOf(props) { return UNITS[props && props.units] || UNITS.metric; }

  function formatTemp(t, props, digits) {
    if (!isNum(t)) return '–';
    const u = unitsOf(props);
    const value = t.toFixed(digits === undefined ? 0 : digits).replace(/^-0(\.0+)?$/, '0$1');
    return u.temp === 'K' ? value + ' K' : value + u.temp.charAt(0);
  }

  function formatTempLong(t, props) {
    if (!isNum(t)) return '–';
    const u = unitsOf(props);
    return t.toFixed(1) + (u.temp === 'K' ? ' K' : ' ' + u.temp);
  }

  const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'];
  function compass(deg) { return COMPASS[Math.round((((deg % 360) + 360) % 360) / 22.5) % 16]; }

  function formatCoord(lat, lon) {
    const ns = lat >= 0 ? 'N' : 'S';
    const ew = lon >= 0 ? 'E' : 'W';
    return Math.abs(lat).toFixed(2) + '° ' + ns + ', ' + Math.abs(lon).toFixed(2) + '° ' + ew;
  }

  const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

  function relativeTime(date) {
    const seconds = Math.round((Date.now() - date.getTime()) / 1000);
    const abs = Math.abs(seconds);
    const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
    if (abs < 60) return rtf.format(-seconds, 'second');
    if (abs < 3600) return rtf.format(-Math.round(seconds / 60), 'minute');
    if (abs < 86400) return rtf.format(-Math.round(seconds / 3600), 'hour');
    return rtf.format(-Math.round(seconds / 86400), 'day');
  }

  function parseTime(text) {
    if (typeof text !== 'string') return null;
    const date = new Date(text);
    return isNaN(date.getTime()) ? null : date;
  }

  // Temperature (in °C) to a colour: deep blue in frost, teal when mild, amber and red in heat.
  const TEMP_STOPS = [[-30, 250], [-10, 220], [0, 200], [10, 170], [18, 110], [24, 45], [30, 20], [40, 355]];
  function tempHue(celsius) {
    if (!isNum(celsius)) return null;
    if (celsius <= TEMP_STOPS[0][0]) return TEMP_STOPS[0][1];
    for (let i = 1; i < TEMP_STOPS.length; i++) {
      const [t1, h1] = TEMP_STOPS[i];
      const [t0, h0] = TEMP_STOPS[i - 1];
      if (celsius <= t1) {
        let to = h1;
        if (to > h0 + 180) to -= 360;
        if (to < h0 - 180) to += 360;
        const h = h0 + (to - h0) * (celsius - t0) / (t1 - t0);
        return (h + 360) % 360;
      }
    }
    return TEMP_STOPS[TEMP_STOPS.length - 1][1];
  }

  function placeName(feature) {
    const p = feature.properties || {};
    if (typeof p.name === 'string' && p.name) return p.name;
    const c = feature.geometry && feature.geometry.coordinates;
    if (Array.isArray(c) && isNum(c[0]) && isNum(c[1])) return formatCoord(c[1], c[0]);
    return 'Unnamed place';
  }

  const SOURCE_LABEL = {
    city: 'watched city', text: 'search', location: 'GPS position', region: 'map centre', around: 'map grid',
  };

  // ---------------------------------------------------------------- configuration

  const config = { tile_url: '', tile_attribution: '', read_only: false, version: '' };

  function loadConfig() {
    return fetch('assets/config.json', { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : {}))
      .catch(() => ({}))
      .then((c) => {
        if (c && typeof c === 'object') {
          if (typeof c.tile_url === 'string') config.tile_url = c.tile_url;
          if (typeof c.tile_attribution === 'string') config.tile_attribution = c.tile_attribution;
          if (typeof c.read_only === 'boolean') config.read_only = c.read_only;
          if (typeof c.version === 'string') config.version = c.version;
        }
      });
  }

  // ---------------------------------------------------------------- the map

  const mapElement = $('#map');
  const map = L.map(mapElement, {
    worldCopyJump: true,
    minZoom: 1,
    maxZoom: 18,
    zoomSnap: 0.5,
    attributionControl: false,
    zoomControl: false,
  }).setView([25, 10], 2);
  L.control.zoom({ position: 'bottomright' }).addTo(map);

  // The attribution, built as text (Leaflet's own control would insert it as HTML).
  const AttributionControl = L.Control.extend({
    options: { position: 'bottomright' },
    onAdd: function () {
      const box = el('div', 'attribution');
      const leaflet = el('a', null, 'Leaflet');
      leaflet.href = 'https://leafletjs.com';
      leaflet.rel = 'noopener';
      leaflet.target = '_blank';
      box.appendChild(leaflet);
      box.appendChild(document.createTextNode(' · '));
      box.appendChild(document.createTextNode(
        config.tile_url ? (config.tile_attribution || 'Map tiles') : 'Natural Earth (public domain)'));
      box.appendChild(weatherCredits);
      box.appendChild(sampleCredit);
      box.dataset.testid = 'attribution';
      L.DomEvent.disableClickPropagation(box);
      return box;
    },
  });

  // The weather providers whose data is on the map, credited as their terms ask (Open-Meteo's data
  // is CC BY 4.0: "Weather data by Open-Meteo.com", linked). Rebuilt as text at every overlays change.
  const PROVIDERS = {
    openweathermap: { text: 'Weather data by OpenWeatherMap', href: 'https://openweathermap.org' },
    'open-meteo': { text: 'Weather data by Open-Meteo.com', href: 'https://open-meteo.com', licence: 'CC BY 4.0' },
  };
  const weatherCredits = el('span', 'weather-credits');
  let creditedProviders = '';
  function creditProviders(features) {
    const shown = Object.keys(PROVIDERS).filter((name) =>
      features.some((f) => f && f.properties && f.properties.provider === name));
    const key = shown.join(',');
    if (key === creditedProviders) return;
    creditedProviders = key;
    weatherCredits.replaceChildren();
    weatherCredits.dataset.providers = key;
    for (const name of shown) {
      const provider = PROVIDERS[name];
      weatherCredits.appendChild(document.createTextNode(' · '));
      const link = el('a', null, provider.text);
      link.href = provider.href;
      link.rel = 'noopener';
      link.target = '_blank';
      weatherCredits.appendChild(link);
      if (provider.licence) weatherCredits.appendChild(document.createTextNode(' (' + provider.licence + ')'));
    }
  }

  // A provider whose latest answer a stand-in marked as sample data (state.providers[].sample_data:
  // the offline demo's owm-replay): said in the credits line, so no one takes it for real weather.
  const sampleCredit = el('strong', 'sample-credit');
  sampleCredit.dataset.sample = 'false';
  function creditSample(providers) {
    const sample = providers.some((p) => p && p.sample_data === true);
    if (sampleCredit.dataset.sample === String(sample)) return;
    sampleCredit.dataset.sample = String(sample);
    sampleCredit.textContent = sample ? ' · Sample data (offline demo), not real weather' : '';
  }

  // How close a fly-to goes: the bundled 1:110m outlines get coarse beyond 5.
  let FOCUS_MIN_ZOOM = 5;

  let basemapStarted = false;
  function startBasemap() {
    if (basemapStarted) return;
    basemapStarted = true;
    if (config.tile_url) {
      mapElement.classList.add('tiles');
      FOCUS_MIN_ZOOM = 9;
      L.tileLayer(config.tile_url, { maxZoom: 18 }).addTo(map);
    } else {
      mapElement.classList.add('offline');
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
    new AttributionControl().addTo(map);
  }

  // ---- the map's own moves versus the user's
  //
  // A move counts as the user's when a gesture started it: a drag (Leaflet's dragstart fires only
  // for one), the wheel, a double click, a pinch, the keyboard or the zoom buttons. The initial view,
  // fly-to on a result and a popup's auto-pan are the page's own moves and send no region.
  // A gesture other than a drag counts for the move that ends within 1.5 s of it (a wheel over a
  // popup, say, moves nothing, and must not make a later auto-pan the user's).
  const GESTURE_MS = 1500;
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
  mapElement.addEventListener('wheel', markGesture, { passive: true, capture: true });
  mapElement.addEventListener('dblclick', markGesture, { capture: true });
  mapElement.addEventListener('touchstart', (e) => { if (e.touches.length > 1) markGesture(); }, { passive: true, capture: true });
  mapElement.addEventListener('keydown', (e) => {
    if (e.target === mapElement && /^(Arrow|\+|-|=|_)/.test(e.key)) markGesture();
  }, { capture: true });
  map.getContainer().querySelector('.leaflet-control-zoom')
    .addEventListener('click', markGesture, { capture: true });

  // Room kept for the panel when the page fits markers into the view.
  function panelPadding() {
    const panel = document.querySelector('.panel').getBoundingClientRect();
    const box = mapElement.getBoundingClientRect();
    if (panel.width < box.width * 0.6) return { paddingTopLeft: [panel.right - box.left + 60, 50], paddingBottomRight: [60, 50] };
    return { paddingTopLeft: [50, panel.bottom - box.top + 30], paddingBottomRight: [50, 30] };
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
    if (mapElement.dataset.moving === 'true') afterMove(fn);
    else fn();
  }

  // Opens a marker's popup; one open already (the user opened it during the fly-to) is laid out and
  // panned into view again instead (opening it again would pan it twice, the second pan stopping the first).
  function showPopup(marker) {
    if (marker.isPopupOpen()) marker.getPopup().update();
    else marker.openPopup();
  }

  function publishView() {
    const c = map.getCenter();
    const wrapped = c.wrap();
    mapElement.dataset.center = wrapped.lat.toFixed(4) + ',' + wrapped.lng.toFixed(4);
    mapElement.dataset.zoom = String(map.getZoom());
  }
  map.on('move zoom', publishView);
  map.on('movestart move', () => { mapElement.dataset.moving = 'true'; });
  map.on('moveend', () => {
    publishView();
    mapElement.dataset.moving = 'false';
    if (takeGesture()) sendRegion();
  });
  publishView();
  mapElement.dataset.moving = 'false';
  mapElement.dataset.regionCount = '0';
  mapElement.dataset.seq = '';

  function sendRegion() {
    if (config.read_only || !connection.open) return;
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
    regionCount += 1;
    mapElement.dataset.regionCount = String(regionCount);
    request('region', {
      center: { lat: round(clamp(center.lat, -90, 90)), lon: round(clamp(center.lng, -180, 180)) },
      span: { lat: round(span.lat), lon: round(span.lon) },
    }).catch((err) => showNotice(err.message));
  }

  // ---------------------------------------------------------------- markers

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

  // What a screen reader says for a marker, as text: "London, GB 8.9 °C overcast clouds".
  function markerLabel(feature) {
    const p = feature.properties || {};
    let label = placeName(feature) + (typeof p.country === 'string' && p.country ? ', ' + p.country : '');
    if (isNum(p.temperature)) label += ' ' + formatTempLong(p.temperature, p);
    if (p.description || p.condition) label += ' ' + (p.description || p.condition);
    return label;
  }

  function weatherIcon(feature) {
    return new WeatherIcon({ element: markerElement(feature), label: markerLabel(feature) });
  }

  function markerElement(feature) {
    const p = feature.properties || {};
    const source = typeof p.source === 'string' ? p.source : '';
    const box = el('div', 'wx wx-' + (source || 'unknown'));
    box.dataset.testid = 'feature';
    box.dataset.featureId = String(feature.id);
    box.dataset.source = source;
    if (p.stale) box.classList.add('wx-stale');
    const hue = tempHue(isNum(p.temperature) ? unitsOf(p).toC(p.temperature) : null);
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

  function detailRow(list, label, value) {
    if (value === null || value === undefined || value === '') return;
    list.appendChild(el('dt', null, label));
    list.appendChild(el('dd', null, value));
  }

  function popupElement(feature) {
    const p = feature.properties || {};
    const root = el('div', 'popup');
    const head = el('div', 'popup-head');
    const title = el('div', 'popup-title');
    title.appendChild(el('span', 'popup-name', placeName(feature)));
    if (p.country) title.appendChild(el('span', 'popup-country', p.country));
    head.appendChild(title);
    const badges = el('div', 'popup-badges');
    if (SOURCE_LABEL[p.source]) badges.appendChild(el('span', 'badge', SOURCE_LABEL[p.source]));
    if (p.stale) badges.appendChild(el('span', 'badge badge-warn', 'stale'));
    head.appendChild(badges);
    root.appendChild(head);

    const now = el('div', 'popup-now');
    now.appendChild(WeatherSymbols.element(p.icon, { size: 40, className: 'popup-symbol' }));
    const nowText = el('div');
    nowText.appendChild(el('div', 'popup-temp', formatTempLong(p.temperature, p)));
    if (p.description || p.condition) nowText.appendChild(el('div', 'popup-desc', p.description || p.condition));
    now.appendChild(nowText);
    root.appendChild(now);

    const u = unitsOf(p);
    const list = el('dl', 'popup-details');
    detailRow(list, 'Feels like', isNum(p.feels_like) ? formatTempLong(p.feels_like, p) : null);
    if (isNum(p.temp_min) && isNum(p.temp_max)) {
      detailRow(list, 'Low / high', formatTempLong(p.temp_min, p) + ' / ' + formatTempLong(p.temp_max, p));
    }
    detailRow(list, 'Humidity', isNum(p.humidity) ? p.humidity + ' %' : null);
    if (isNum(p.wind_speed)) {
      detailRow(list, 'Wind', p.wind_speed.toFixed(1) + ' ' + u.speed + (isNum(p.wind_deg) ? ' from ' + compass(p.wind_deg) : ''));
    }
    detailRow(list, 'Pressure', isNum(p.pressure) ? p.pressure + ' hPa' : null);
    detailRow(list, 'Clouds', isNum(p.clouds) ? p.clouds + ' %' : null);
    const observed = parseTime(p.observed_at);
    if (observed) detailRow(list, 'Observed', timeFormat.format(observed) + ' (' + relativeTime(observed) + ')');
    const fetched = parseTime(p.fetched_at);
    if (fetched) detailRow(list, 'Fetched', relativeTime(fetched));
    const c = feature.geometry && feature.geometry.coordinates;
    if (Array.isArray(c) && isNum(c[0]) && isNum(c[1])) detailRow(list, 'Position', formatCoord(c[1], c[0]));
    if (p.fix && isNum(p.fix.horizontal_error)) detailRow(list, 'GPS error', '± ' + Math.round(p.fix.horizontal_error) + ' m');
    root.appendChild(list);

    const forecast = el('div', 'popup-forecast');
    forecast.hidden = true;
    if (!config.read_only && forecastSupported) forecastPlaceholder(forecast);
    root.appendChild(forecast);
    return root;
  }

  // The forecast (r2) is asked for when a popup opens, unless read-only; a daemon without the
  // method (-32601) is not asked again. Its place (title and an empty row of the same height) is
  // shown before the popup opens, so the popup is panned into view with it and does not grow upwards
  // out of the map when the steps arrive (should they be taller, it is laid out and panned again);
  // it is hidden again when none come.
  let forecastSupported = true;
  const FORECAST_HOURS = 48;
  function forecastPlaceholder(container) {
    container.textContent = '';
    container.appendChild(el('div', 'popup-forecast-title', 'Next ' + FORECAST_HOURS + ' hours'));
    container.appendChild(el('div', 'popup-forecast-row'));
    container.hidden = false;
  }
  // The container's data-forecast says how far it got (a hook for the tests): "off" (not asked
  // for: read-only, unsupported, offline, no position), "loading", "shown", "none" (no step), "failed".
  function loadForecast(feature, container, popup) {
    const c = feature.geometry && feature.geometry.coordinates;
    if (config.read_only || !forecastSupported || !connection.open || !Array.isArray(c) || !isNum(c[0]) || !isNum(c[1])) {
      container.hidden = true;
      container.dataset.forecast = 'off';
      return;
    }
    container.dataset.forecast = 'loading';
    request('forecast', { lat: c[1], lon: c[0], hours: FORECAST_HOURS }).then((result) => {
      // The chart (web/forecast-chart.js), or nothing when the forecast has no step.
      const chart = ForecastChart.element(result, { hours: FORECAST_HOURS });
      if (!chart) {
        container.hidden = true;
        container.dataset.forecast = 'none';
        return;
      }
      container.textContent = '';
      container.appendChild(el('div', 'popup-forecast-title', 'Next ' + FORECAST_HOURS + ' hours'));
      container.appendChild(chart);
      container.hidden = false;
      container.dataset.forecast = 'shown';
      if (popup) whenStill(() => { if (popup.isOpen()) popup.update(); });  // laid out and panned into view again, should it have grown
    }).catch((err) => {
      container.hidden = true;
      container.dataset.forecast = 'failed';
      if (err.code === -32601) forecastSupported = false;
    });
  }

  const markers = new Map(); // id -> {marker, signature, feature}

  function zIndexFor(source) {
    return { text: 1000, location: 1000, region: 600, city: 400, around: 0 }[source] || 200;
  }

  function applyOverlays(collection) {
    const features = Array.isArray(collection.features) ? collection.features : [];
    const seen = new Set();
    for (const feature of features) {
      const c = feature && feature.geometry && feature.geometry.coordinates;
      if (!feature || feature.id === undefined || !Array.isArray(c) || !isNum(c[0]) || !isNum(c[1])) continue;
      const id = String(feature.id);
      if (seen.has(id)) continue;
      seen.add(id);
      const signature = JSON.stringify(feature);
      const entry = markers.get(id);
      const latlng = L.latLng(c[1], c[0]);
      const source = feature.properties && feature.properties.source;
      if (entry) {
        if (entry.signature === signature) continue;
        entry.signature = signature;
        entry.feature = feature;
        entry.marker.setLatLng(latlng);
        entry.marker.setIcon(weatherIcon(feature));
        entry.marker.setZIndexOffset(zIndexFor(source));
        entry.marker.setPopupContent(popupElement(feature));
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
      marker.bindPopup(popupElement(feature), { maxWidth: 320, minWidth: 220, autoPanPadding: [24, 24] });
      marker.on('popupopen', (e) => {
        const container = e.popup.getElement() && e.popup.getElement().querySelector('.popup-forecast');
        if (container) loadForecast(record.feature, container, e.popup);
      });
      marker.addTo(map);
      markers.set(id, record);
    }
    for (const [id, entry] of markers) {
      if (!seen.has(id)) {
        entry.marker.remove();
        markers.delete(id);
      }
    }
    creditProviders(features);
    renderCities();
  }

  // ---------------------------------------------------------------- popups and the keyboard
  //
  // A marker is a button in the Tab order; Enter opens its popup (Leaflet) and moves the focus into
  // it; Escape, in the map, closes it; a popup that closes with the focus inside gives it back to its
  // marker.

  function markerOfPopup(popup) {
    for (const entry of markers.values()) if (entry.marker.getPopup() === popup) return entry;
    return null;
  }

  function focusWithoutScroll(node) {
    if (node && document.contains(node)) node.focus({ preventScroll: true });
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

  function openedPopup() {
    for (const entry of markers.values()) if (entry.marker.isPopupOpen()) return entry.marker.getPopup();
    return null;
  }

  map.on('popupopen', (e) => {
    const node = e.popup.getElement();
    const entry = markerOfPopup(e.popup);
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
    if (entry) wrapper.setAttribute('aria-label', placeName(entry.feature));
    if (entry && enteredMarker && entry.marker.getElement() === enteredMarker) focusWithoutScroll(wrapper);
    enteredMarker = null;
  });

  map.on('popupclose', (e) => {
    const node = e.popup.getElement();
    if (!node || !node.contains(document.activeElement)) return;
    const entry = markerOfPopup(e.popup);
    focusWithoutScroll(entry ? entry.marker.getElement() : mapElement);
  });

  // ---------------------------------------------------------------- state, overlays, focus

  let lastFocusKey = null;
  let firstOverlays = true;       // the first collection since the page loaded
  let firstSinceConnect = true;   // the first collection since the connection opened

  function onOverlays(collection) {
    if (!collection || typeof collection !== 'object') return;
    mapElement.dataset.seq = String(collection.seq);
    applyOverlays(collection);
    const focus = collection.focus;
    const focusKey = Array.isArray(focus) ? focus.join(',') : null;
    if (focusKey !== null && isNum(focus[0]) && isNum(focus[1])) {
      // Every landed text or location result is a change with a focus, so a repeated search
      // re-centres; the replay after a reconnect does not, when it shows the place already flown to.
      if (!(firstSinceConnect && focusKey === lastFocusKey)) {
        if (firstOverlays) {
          forgetGesture();
          map.setView([focus[1], focus[0]], FOCUS_MIN_ZOOM);
        } else {
          flyTo(focus[1], focus[0], FOCUS_MIN_ZOOM);
          // Once there, the result's details.
          const result = [...markers.values()].find((m) => {
            const source = m.feature.properties && m.feature.properties.source;
            return source === 'text' || source === 'location';
          });
          if (result) afterMove(() => { if (markers.get(String(result.feature.id)) === result) showPopup(result.marker); });
        }
      }
      lastFocusKey = focusKey;
    } else if (firstOverlays && markers.size > 0) {
      // The initial view: every marker in sight. It is the page's own move, so it sends no region.
      const bounds = L.latLngBounds([...markers.values()].map((m) => m.marker.getLatLng()));
      forgetGesture();
      map.fitBounds(bounds.pad(0.15), { maxZoom: FOCUS_MIN_ZOOM, animate: false, ...panelPadding() });
    }
    firstOverlays = false;
    firstSinceConnect = false;
  }

  const activity = $('[data-testid="activity"]');
  const phase = $('[data-testid="phase"]');

  function setRunning(running) {
    activity.dataset.running = running ? 'true' : 'false';
    activity.hidden = !running;
  }

  function describeInput(input) {
    if (!input || typeof input !== 'object') return '';
    switch (input.kind) {
      case 'text': return typeof input.city === 'string' ? '“' + input.city + '”' : 'a city';
      case 'location': return 'your position';
      case 'region': return 'the map area';
      case 'cities': return 'the watched cities';
      default: return '';
    }
  }

  function onState(state) {
    if (!state || typeof state !== 'object') return;
    setRunning(state.running === true);
    const name = typeof state.phase === 'string' ? state.phase : '';
    phase.dataset.phase = name;
    phase.className = 'phase phase-' + (name || 'unknown');
    const what = describeInput(state.input);
    let text;
    switch (name) {
      case 'loading': text = what ? 'Looking up ' + what + '…' : 'Loading…'; break;
      case 'populated': text = markers.size === 1 ? '1 place on the map' : markers.size + ' places on the map'; break;
      case 'empty': text = what ? 'Nothing found for ' + what : 'Nothing found'; break;
      case 'error': text = 'Error: ' + (state.error && state.error.message ? state.error.message : 'the lookup failed'); break;
      default: text = name || '';
    }
    if (phase.textContent !== text) phase.textContent = text;  // a live region: said once
    if (name === 'error' && state.error && state.error.message) phase.title = state.error.message;
    else phase.removeAttribute('title');
    lastProviders = Array.isArray(state.providers) ? state.providers : [];
    creditSample(lastProviders);
    showBudget(state.budget);
    lastState = state;
  }

  // OpenWeatherMap answered 429: no request goes out until the block ends (a state notification
  // says when it starts and when it ends).
  // The line follows every count; a screen reader hears the block's start and end only.
  const budgetLine = $('[data-testid="budget"]');
  let announcedBlock = null;
  function showBudget(budget) {
    const until = budget && typeof budget === 'object' ? parseTime(budget.blocked_until) : null;
    const block = until ? budget.blocked_until : null;
    budgetLine.hidden = !until;
    budgetLine.dataset.blocked = until ? 'true' : 'false';
    if (!until) {
      budgetLine.textContent = '';
      if (announcedBlock) announce('The rate limit is over: lookups go out again.');
      announcedBlock = null;
      return;
    }
    // state.budget is the first provider's that is asked: the one blocked until the same moment.
    const blocked = lastProviders.find((p) => p && p.blocked_until === budget.blocked_until);
    const known = blocked && PROVIDERS[blocked.name];
    const name = known ? known.text.replace('Weather data by ', '') : 'The weather provider';
    let text = name + ' rate limit: no lookups to it until ' + until.toLocaleTimeString();
    if (block !== announcedBlock) announce(text);
    announcedBlock = block;
    if (isNum(budget.used) && isNum(budget.requests_per_minute)) {
      text += ' (' + budget.used + ' of ' + budget.requests_per_minute + ' requests in the last minute)';
    }
    budgetLine.textContent = text;
  }
  let lastState = null;
  let lastProviders = [];

  // Says a text through the page's own polite live region (index.html, #announcer).
  const announcer = $('#announcer');
  function announce(text) {
    announcer.textContent = text;
  }

  // ---------------------------------------------------------------- notices (errors of requests)

  const notice = $('#notice');
  let noticeTimer = null;
  function showNotice(text, kind) {
    notice.textContent = text;
    notice.className = 'notice' + (kind ? ' notice-' + kind : '');
    notice.hidden = !text;
    clearTimeout(noticeTimer);
    if (text) noticeTimer = setTimeout(() => { notice.hidden = true; }, 8000);
  }

  // ---------------------------------------------------------------- watched cities

  let cities = [];
  const cityList = $('#city-list');

  // The feature of a watched city "Name" or "Name,CC": its own (source city) or, when a search of the
  // same place won the id, that one.
  function cityFeature(city) {
    const [name, country] = city.split(',').map((part) => part.trim().toLowerCase());
    let found = null;
    for (const { feature } of markers.values()) {
      const p = feature.properties || {};
      if (typeof p.name !== 'string' || p.name.toLowerCase() !== name) continue;
      if (country && typeof p.country === 'string' && p.country.toLowerCase() !== country) continue;
      if (p.source === 'city') return feature;
      if (!found && p.source !== 'around' && p.source !== 'region') found = feature;
    }
    return found;
  }

  // The list is built again only when what it shows changed, so its elements stay put meanwhile.
  let renderedCities = null;
  function renderCities() {
    const signature = JSON.stringify([config.read_only, cities, cities.map((c) => {
      const f = cityFeature(c);
      return f && [f.id, f.properties.icon, f.properties.temperature, f.properties.units, f.geometry.coordinates];
    })]);
    if (signature === renderedCities) return;
    renderedCities = signature;
    cityList.textContent = '';
    $('#city-count').textContent = cities.length ? String(cities.length) : '';
    if (cities.length === 0) {
      cityList.appendChild(el('li', 'city-empty', 'No watched cities.'));
    }
    for (const city of cities) {
      const item = el('li', 'city');
      item.dataset.testid = 'city';
      item.dataset.city = city;
      const feature = cityFeature(city);
      const go = el('button', 'city-go');
      go.type = 'button';
      go.appendChild(el('span', 'city-name', city));
      if (feature) {
        const p = feature.properties || {};
        const hue = tempHue(isNum(p.temperature) ? unitsOf(p).toC(p.temperature) : null);
        const weather = el('span', 'city-weather');
        weather.appendChild(WeatherSymbols.element(p.icon, { size: 16, className: 'city-symbol' }));
        weather.appendChild(document.createTextNode(formatTemp(p.temperature, p)));
        if (hue !== null) weather.style.setProperty('--hue', String(Math.round(hue)));
        go.appendChild(weather);
        go.title = 'Show ' + city + ' on the map';
        go.addEventListener('click', () => {
          const current = cityFeature(city);
          if (!current) return;
          const c = current.geometry.coordinates;
          flyTo(c[1], c[0], FOCUS_MIN_ZOOM);
          const entry = markers.get(String(current.id));
          if (entry) afterMove(() => showPopup(entry.marker));
        });
      } else {
        go.disabled = true;
      }
      item.appendChild(go);
      if (!config.read_only) {
        const remove = el('button', 'city-remove');
        remove.type = 'button';
        remove.dataset.testid = 'city-remove';
        remove.setAttribute('aria-label', 'Stop watching ' + city);
        remove.title = 'Stop watching ' + city;
        remove.textContent = '×';
        remove.addEventListener('click', () => {
          remove.disabled = true;
          request('cities.remove', { city: city })
            .then(onCities)
            .catch((err) => { remove.disabled = false; showNotice(err.message, 'error'); });
        });
        item.appendChild(remove);
      }
      cityList.appendChild(item);
    }
  }

  function onCities(result) {
    if (result && Array.isArray(result.cities)) {
      cities = result.cities.filter((c) => typeof c === 'string');
      renderCities();
    }
  }

  // The city list has no notification of its own: it is asked for again when the set of watched
  // cities' features changes (another client may have added or removed one).
  let citySignature = '';
  function refreshCitiesIfChanged(collection) {
    const ids = (collection.features || [])
      .filter((f) => f && f.properties && f.properties.source === 'city')
      .map((f) => String(f.id)).sort().join('|');
    if (ids !== citySignature) {
      citySignature = ids;
      request('cities', {}).then(onCities).catch(() => {});
    }
  }

  // ---------------------------------------------------------------- the connection

  const connectionBox = $('[data-testid="connection"]');
  const connectionText = connectionBox.querySelector('.connection-text');
  const connectionRetry = connectionBox.querySelector('.connection-retry');
  const connection = { socket: null, open: false, attempt: 0, timer: null, countdown: null, reason: null };
  const pending = new Map();
  let nextId = 1;

  // The text is the live region's: set only when it changes, so that it is announced once; the
  // countdown beside it (retry) is hidden from screen readers.
  function setConnected(open, text, retry) {
    connection.open = open;
    connectionBox.dataset.connected = open ? 'true' : 'false';
    if (connectionText.textContent !== text) connectionText.textContent = text;
    connectionRetry.textContent = retry ? ' — ' + retry : '';
    document.body.classList.toggle('disconnected', !open);
  }

  function socketURL() {
    const url = new URL('ws', window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.hash = '';
    url.search = '';
    return url.href;
  }

  class RPCError extends Error {
    constructor(error) {
      super(error && typeof error.message === 'string' ? error.message : 'request failed');
      this.code = error && error.code;
      this.data = error && error.data;
    }
  }

  function request(method, params) {
    return new Promise((resolve, reject) => {
      if (!connection.open || !connection.socket) {
        reject(new RPCError({ code: 0, message: 'not connected to weatherd' }));
        return;
      }
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new RPCError({ code: 0, message: method + ': no answer from weatherd' }));
      }, REQUEST_TIMEOUT_MS);
      pending.set(id, { resolve: resolve, reject: reject, timer: timer });
      connection.socket.send(JSON.stringify({ jsonrpc: '2.0', id: id, method: method, params: params || {} }));
    });
  }

  function handleMessage(message) {
    if (!message || typeof message !== 'object') return;
    if (message.id !== undefined && message.id !== null && (message.result !== undefined || message.error !== undefined)) {
      const call = pending.get(message.id);
      if (!call) return;
      pending.delete(message.id);
      clearTimeout(call.timer);
      if (message.error) call.reject(new RPCError(message.error));
      else call.resolve(message.result);
      return;
    }
    if (message.error) {
      // An error for no request: -32007 busy (web.max_clients reached) before the server closes.
      if (message.error.code === -32007) connection.reason = 'weatherd is busy';
      console.warn('weatherd:', message.error.message);
      return;
    }
    if (message.method === 'state') onState(message.params);
    else if (message.method === 'overlays' && message.params) showCollection(message.params);
    else if (message.method === 'overlays.diff' && message.params) applyDiff(message.params);
  }

  // The collection as this page has it: the last full overlays with every diff since applied.
  let shown = null;

  function showCollection(next) {
    if (!next || typeof next !== 'object') return;
    shown = { seq: next.seq, focus: next.focus, features: Array.isArray(next.features) ? next.features : [] };
    onOverlays(shown);
    refreshCitiesIfChanged(shown);
    if (lastState) onState(lastState); // the place count in the phase line
  }

  // An overlays.diff from the collection with seq `base`: features whose id left, whose content
  // changed and that are new. A diff from another collection than ours (which should not happen)
  // asks for the whole collection again; until it comes, diffs are ignored.
  function applyDiff(diff) {
    if (!shown) return;
    if (diff.base !== shown.seq) {
      watch();
      return;
    }
    const byId = new Map(shown.features.map((f) => [String(f && f.id), f]));
    for (const id of Array.isArray(diff.removed) ? diff.removed : []) byId.delete(String(id));
    for (const f of Array.isArray(diff.changed) ? diff.changed : []) if (f) byId.set(String(f.id), f);
    for (const f of Array.isArray(diff.added) ? diff.added : []) if (f) byId.set(String(f.id), f);
    showCollection({ seq: diff.seq, focus: diff.focus, features: [...byId.values()] });
  }

  // Changes arrive as diffs after one full collection (and after each new watch).
  function watch() {
    shown = null;
    return request('watch', { replay: true, topics: ['overlays', 'state'], diff: true })
      .catch((err) => showNotice(err.message, 'error'));
  }

  function connect() {
    clearTimeout(connection.timer);
    clearInterval(connection.countdown);
    // A retry keeps what the connection was said to be (Offline, busy): only its suffix changes.
    if (connection.attempt) setConnected(false, connectionText.textContent, 'reconnecting…');
    else setConnected(false, 'Connecting…');
    let socket;
    try {
      socket = new WebSocket(socketURL());
    } catch (err) {
      scheduleReconnect();
      return;
    }
    connection.socket = socket;
    socket.addEventListener('open', () => {
      connection.attempt = 0;
      firstSinceConnect = true;
      setConnected(true, 'Live');
      watch();
      request('cities', {}).then(onCities).catch(() => {});
      if (!config.version) {
        request('version', {}).then((v) => {
          if (v && typeof v.version === 'string') $('#version').textContent = 'weatherd ' + v.version;
        }).catch(() => {});
      }
    });
    socket.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return;
      let parsed;
      try { parsed = JSON.parse(event.data); } catch (err) { return; }
      if (Array.isArray(parsed)) parsed.forEach(handleMessage);
      else handleMessage(parsed);
    });
    socket.addEventListener('close', () => {
      if (connection.socket !== socket) return;
      connection.socket = null;
      for (const [id, call] of pending) {
        clearTimeout(call.timer);
        call.reject(new RPCError({ code: 0, message: 'the connection to weatherd was lost' }));
        pending.delete(id);
      }
      setRunning(false);
      scheduleReconnect();
    });
  }

  function scheduleReconnect() {
    connection.attempt += 1;
    // 0.5 s, 1 s, 2 s, 4 s, then every 5 s.
    const delay = Math.min(RECONNECT_MAX_MS, 250 * Math.pow(2, connection.attempt));
    let left = Math.ceil(delay / 1000);
    const what = connection.reason || 'Offline';
    connection.reason = null;
    const retrying = () => 'retrying\u00a0in\u00a0' + left + '\u00a0s';  // wrapped as one
    setConnected(false, what, retrying());
    connection.countdown = setInterval(() => {
      left -= 1;
      if (left > 0) setConnected(false, what, retrying());
    }, 1000);
    connection.timer = setTimeout(connect, delay);
  }

  // ---------------------------------------------------------------- controls

  const searchInput = $('#search-input');
  const locateButton = $('#locate-button');

  function busy(control, on) {
    control.classList.toggle('busy', on);
    control.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  const LOOKUP_ERRORS = new Set([-32001, -32002, -32003, -32004]);

  // The text as typed (the daemon takes the first place of the name), or a place picked from the
  // suggestions, looked up as given.
  function search(place) {
    const city = searchInput.value.trim();
    if (!place && !city) return;
    busy(searchInput, true);
    showNotice('');
    request('search', place ? { place: place } : { city: city })
      .then(() => searchInput.select())
      .catch((err) => {
        // A lookup's outcome (not found, unavailable, rate limited, key rejected) is the phase's to
        // show; the notice says what the phase cannot (a bad name, a lost connection).
        if (!LOOKUP_ERRORS.has(err.code)) showNotice(err.message, 'error');
      })
      .finally(() => busy(searchInput, false));
  }

  $('#search-form').addEventListener('submit', (e) => { e.preventDefault(); search(); });
  // The places of the name while it is typed (web/suggestions.js); Enter searches.
  PlaceSuggestions.attach(searchInput, {
    request: request,
    enabled: () => !config.read_only,
    onPick: (place) => search(place),
    onEnter: () => search(),
  });

  locateButton.addEventListener('click', () => {
    if (locateButton.classList.contains('busy')) return;
    busy(locateButton, true);
    showNotice('Waiting for a GPS fix…', 'info');
    request('locate', {})
      .then(() => showNotice(''))
      .catch((err) => showNotice(err.message, 'error'))
      .finally(() => busy(locateButton, false));
  });

  const cityAddInput = $('#city-add-input');
  $('#city-add-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const city = cityAddInput.value.trim();
    if (!city) return;
    busy(cityAddInput, true);
    request('cities.add', { city: city })
      .then((result) => { cityAddInput.value = ''; onCities(result); })
      .catch((err) => showNotice(err.message, 'error'))
      .finally(() => busy(cityAddInput, false));
  });

  // On a narrow screen the panel is a bar (brand, search, status) until its toggle shows the rest;
  // on a wide one the toggle is not shown and the panel is whole.
  const panel = $('#panel');
  const panelToggle = $('#panel-toggle');
  panelToggle.addEventListener('click', () => {
    const expanded = !panel.classList.toggle('folded');
    panelToggle.setAttribute('aria-expanded', expanded ? 'true' : 'false');
    const label = expanded ? 'Hide panel' : 'Show panel';
    panelToggle.title = label;
    panelToggle.querySelector('.visually-hidden').textContent = label;
  });

  function applyReadOnly() {
    document.body.classList.toggle('read-only', config.read_only);
    for (const node of document.querySelectorAll('[data-control]')) node.hidden = config.read_only;
    $('#read-only-badge').hidden = !config.read_only;
    if (config.version) $('#version').textContent = 'weatherd ' + config.version;
    renderCities();
  }

  // ---------------------------------------------------------------- start

  window.addEventListener('resize', () => map.invalidateSize({ pan: false }));

  loadConfig().then(() => {
    applyReadOnly();
    startBasemap();
    connect();
  });
})();
