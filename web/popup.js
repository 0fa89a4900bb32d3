// A marker's popup: the details of its feature and, unless the page is read-only, the forecast for
// the next 48 hours as a chart (web/forecast-chart.js), asked for when the popup opens.
//
//   const popups = createPopups({ config, connection, whenStill });
//   popups.content(feature)                 // the popup's DOM (text only, never HTML)
//
// config.air_quality_scale (`air-quality.scale`) says which index the air quality row shows.
//   popups.loadForecast(feature, container, popup)

import * as AirQuality from './air-quality.js';
import { el } from './dom.js';
import * as ForecastChart from './forecast-chart.js';
import {
  SOURCE_LABEL, compass, featureTitle, formatCoord, formatTempLong, isNum, parseTime, placeName, relativeTime, unitsOf,
} from './format.js';
import * as WeatherSymbols from './symbols.js';

export const FORECAST_HOURS = 48;

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function detailRow(list, label, value) {
  if (value === null || value === undefined || value === '') return;
  list.appendChild(el('dt', null, label));
  list.appendChild(el('dd', null, value));
}

// The forecast's place: its title and an empty row of the chart's height, shown before the popup
// opens, so the popup is panned into view with it and does not grow upwards out of the map when the
// chart arrives (should it be taller, the popup is laid out and panned again); hidden when none comes.
function forecastPlaceholder(container) {
  container.textContent = '';
  container.appendChild(el('div', 'popup-forecast-title', 'Next ' + FORECAST_HOURS + ' hours'));
  container.appendChild(el('div', 'popup-forecast-row'));
  container.hidden = false;
}

// config: the page's (read_only); connection: request() and open; whenStill(fn): runs fn once the
// map stands still (a popup is laid out and panned only then).
export function createPopups({ config, connection, whenStill }) {
  // A daemon without the forecast method (-32601) is not asked again.
  let forecastSupported = true;

  function content(feature) {
    const p = feature.properties || {};
    const root = el('div', 'popup');
    const head = el('div', 'popup-head');
    // "Springfield, Missouri, US": the name, then where it is, in a lighter face.
    const title = el('div', 'popup-title');
    const name = placeName(feature);
    const full = featureTitle(feature);
    title.appendChild(el('span', 'popup-name', name));
    if (full.startsWith(name + ', ')) title.appendChild(el('span', 'popup-where', full.slice(name.length)));
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
    if (observed) detailRow(list, 'Observed', timeFormat.format(observed) + ' (' + relativeTime(observed, Date.now()) + ')');
    const fetched = parseTime(p.fetched_at);
    if (fetched) detailRow(list, 'Fetched', relativeTime(fetched, Date.now()));
    const c = feature.geometry && feature.geometry.coordinates;
    if (Array.isArray(c) && isNum(c[0]) && isNum(c[1])) detailRow(list, 'Position', formatCoord(c[1], c[0]));
    if (p.fix && isNum(p.fix.horizontal_error)) detailRow(list, 'GPS error', '± ' + Math.round(p.fix.horizontal_error) + ' m');
    airQualityRow(list, p.air_quality);
    root.appendChild(list);

    const forecast = el('div', 'popup-forecast');
    forecast.hidden = true;
    if (!config.read_only && forecastSupported) forecastPlaceholder(forecast);
    root.appendChild(forecast);
    return root;
  }

  // The forecast of an open popup. The container's data-forecast says how far it got (a hook for
  // the tests): "off" (not asked for: read-only, unsupported, offline, no position), "loading",
  // "shown", "none" (no step), "failed".
  function loadForecast(feature, container, popup) {
    const c = feature.geometry && feature.geometry.coordinates;
    if (config.read_only || !forecastSupported || !connection.open || !Array.isArray(c) || !isNum(c[0]) || !isNum(c[1])) {
      container.hidden = true;
      container.dataset.forecast = 'off';
      return;
    }
    container.dataset.forecast = 'loading';
    connection.request('forecast', { lat: c[1], lon: c[0], hours: FORECAST_HOURS }).then((result) => {
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
      // Laid out and panned into view again, should it have grown.
      if (popup) whenStill(() => { if (popup.isOpen()) popup.update(); });
    }).catch((err) => {
      container.hidden = true;
      container.dataset.forecast = 'failed';
      if (err.code === -32601) forecastSupported = false;
    });
  }

  // "Air quality  44 · moderate": the index of the configured scale on its band's colour, the band
  // in words (data-testid="air-quality", data-aqi, data-band); the pollutants in its title.
  function airQualityRow(list, air) {
    const scale = AirQuality.scaleOf(config.air_quality_scale);
    const index = AirQuality.indexOf(air, scale);
    if (index === null) return;
    const band = AirQuality.band(index, scale);
    const value = el('span', 'air-quality', Math.round(index) + ' · ' + (band ? band.name : 'unknown'));
    value.dataset.testid = 'air-quality';
    value.dataset.aqi = String(Math.round(index));
    value.dataset.scale = scale;
    if (band) {
      value.dataset.band = band.name;
      value.style.backgroundColor = band.colour;
      value.style.color = band.text;
    }
    const parts = [['PM2.5', air.pm2_5], ['PM10', air.pm10], ['O₃', air.ozone], ['NO₂', air.nitrogen_dioxide]]
      .filter(([, v]) => isNum(v)).map(([name, v]) => name + ' ' + v + ' µg/m³');
    if (parts.length) value.title = parts.join(', ');
    list.appendChild(el('dt', null, 'Air quality (' + AirQuality.SCALES[scale].label + ')'));
    const cell = el('dd');
    cell.appendChild(value);
    list.appendChild(cell);
  }

  return { content: content, loadForecast: loadForecast };
}
