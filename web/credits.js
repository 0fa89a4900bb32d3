// The credits line under the map (`data-testid="attribution"`): Leaflet, the basemap (or
// web.tile_attribution), and, linked, every weather provider whose data is on the map, as their terms
// ask (Open-Meteo's data is CC BY 4.0: "Weather data by Open-Meteo.com", linked). While a provider's
// answers are sample data (the offline demo's stand-in) it says so, so that no one takes them for
// real weather. Built as text: Leaflet's own attribution control would insert it as HTML.

import { ATTRIBUTION as AIR_QUALITY_CREDIT } from './air-quality.js';
import { el, externalLink } from './dom.js';

export const PROVIDERS = {
  openweathermap: { name: 'OpenWeatherMap', href: 'https://openweathermap.org' },
  'open-meteo': { name: 'Open-Meteo.com', href: 'https://open-meteo.com', licence: 'CC BY 4.0' },
  nws: { name: 'the US National Weather Service', href: 'https://www.weather.gov', credit: 'Alerts by ' },
};

// The provider names the credits know, in the order they are credited.
export const PROVIDER_NAMES = Object.keys(PROVIDERS);

// A provider as people know it ("OpenWeatherMap"); null for an unknown one.
export function providerTitle(name) {
  return Object.hasOwn(PROVIDERS, name) ? PROVIDERS[name].name : null;
}

// The credits for `config` (tile_url, tile_attribution): { element, showProviders(names),
// showAirQuality(shown), showSample(providers) }.
export function createCredits(config) {
  const box = el('div', 'attribution');
  box.dataset.testid = 'attribution';
  box.appendChild(externalLink('Leaflet', 'https://leafletjs.com'));
  box.appendChild(document.createTextNode(' · '));
  box.appendChild(document.createTextNode(
    config.tile_url ? (config.tile_attribution || 'Map tiles') : 'Natural Earth (public domain)'));

  // `data-providers`: the names credited (openweathermap,open-meteo); rebuilt only when they change.
  const weather = el('span', 'weather-credits');
  box.appendChild(weather);
  let credited = '';
  function showProviders(names) {
    const key = names.join(',');
    if (key === credited) return;
    credited = key;
    weather.replaceChildren();
    weather.dataset.providers = key;
    for (const name of names) {
      const provider = PROVIDERS[name];
      if (!provider) continue;
      weather.appendChild(document.createTextNode(' · '));
      weather.appendChild(externalLink((provider.credit || 'Weather data by ') + provider.name, provider.href));
      if (provider.licence) weather.appendChild(document.createTextNode(' (' + provider.licence + ')'));
    }
  }

  // CAMS, while a feature on the map has air quality (`data-air-quality`).
  const air = el('span', 'air-quality-credit');
  air.dataset.airQuality = 'false';
  box.appendChild(air);
  function showAirQuality(shown) {
    if (air.dataset.airQuality === String(shown)) return;
    air.dataset.airQuality = String(shown);
    air.replaceChildren();
    if (!shown) return;
    air.appendChild(document.createTextNode(' · '));
    air.appendChild(externalLink(AIR_QUALITY_CREDIT, 'https://atmosphere.copernicus.eu'));
  }

  // A provider whose latest answer a stand-in marked as sample data (state.providers[].sample_data).
  const sample = el('strong', 'sample-credit');
  sample.dataset.sample = 'false';
  box.appendChild(sample);
  function showSample(providers) {
    const on = providers.some((p) => p && p.sample_data === true);
    if (sample.dataset.sample === String(on)) return;
    sample.dataset.sample = String(on);
    sample.textContent = on ? ' · Sample data (offline demo), not real weather' : '';
  }

  return { element: box, showProviders: showProviders, showAirQuality: showAirQuality, showSample: showSample };
}
