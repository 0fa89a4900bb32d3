// The watched cities in the panel: each with its weather (from the map's features), a button that
// flies there and opens its popup, and, unless read-only, a remove button; the add field below.
//
//   const cities = createCities({ config, connection, store, showFeature, showNotice });
//   cities.render()             // after an overlays change, or the read-only setting
//   cities.refreshIfChanged()   // asks for the list again when the cities' features changed
//   cities.update(result)       // a `cities` answer

import { $, busy, el } from './dom.js';
import { featureHue, formatTemp } from './format.js';
import * as WeatherSymbols from './symbols.js';

// config: the page's (read_only); connection: request(); store: web/overlay-store.js's;
// showFeature(feature): the map flies there; showNotice(text, kind): a request's error.
export function createCities({ config, connection, store, showFeature, showNotice }) {
  const list = $('#city-list');
  const count = $('#city-count');
  let cities = [];

  function cityItem(city) {
    const item = el('li', 'city');
    item.dataset.testid = 'city';
    item.dataset.city = city;
    const feature = store.cityFeature(city);
    const go = el('button', 'city-go');
    go.type = 'button';
    go.appendChild(el('span', 'city-name', city));
    if (feature) {
      const p = feature.properties || {};
      const hue = featureHue(p);
      const weather = el('span', 'city-weather');
      weather.appendChild(WeatherSymbols.element(p.icon, { size: 16, className: 'city-symbol' }));
      weather.appendChild(document.createTextNode(formatTemp(p.temperature, p)));
      if (hue !== null) weather.style.setProperty('--hue', String(Math.round(hue)));
      go.appendChild(weather);
      go.title = 'Show ' + city + ' on the map';
      go.addEventListener('click', () => {
        const current = store.cityFeature(city);
        if (current) showFeature(current);
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
        connection.request('cities.remove', { city: city })
          .then(update)
          .catch((err) => { remove.disabled = false; showNotice(err.message, 'error'); });
      });
      item.appendChild(remove);
    }
    return item;
  }

  // The list is built again only when what it shows changed, so its elements stay put meanwhile.
  let rendered = null;
  function render() {
    const signature = JSON.stringify([config.read_only, cities, cities.map((c) => {
      const f = store.cityFeature(c);
      return f && [f.id, f.properties.icon, f.properties.temperature, f.properties.units, f.geometry.coordinates];
    })]);
    if (signature === rendered) return;
    rendered = signature;
    list.textContent = '';
    count.textContent = cities.length ? String(cities.length) : '';
    if (cities.length === 0) list.appendChild(el('li', 'city-empty', 'No watched cities.'));
    for (const city of cities) list.appendChild(cityItem(city));
  }

  function update(result) {
    if (result && Array.isArray(result.cities)) {
      cities = result.cities.filter((c) => typeof c === 'string');
      render();
    }
  }

  function ask() {
    connection.request('cities', {}).then(update).catch(() => {});
  }

  // The list has no notification of its own: it is asked for again when the set of watched cities'
  // features changes (another client may have added or removed one).
  let cityIds = '';
  function refreshIfChanged() {
    const ids = store.cityIds();
    if (ids !== cityIds) {
      cityIds = ids;
      ask();
    }
  }

  const addInput = $('#city-add-input');
  $('#city-add-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const city = addInput.value.trim();
    if (!city) return;
    busy(addInput, true);
    connection.request('cities.add', { city: city })
      .then((result) => { addInput.value = ''; update(result); })
      .catch((err) => showNotice(err.message, 'error'))
      .finally(() => busy(addInput, false));
  });

  return { render: render, update: update, ask: ask, refreshIfChanged: refreshIfChanged };
}
